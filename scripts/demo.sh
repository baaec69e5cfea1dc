#!/usr/bin/env bash
# demo.sh: the whole helix pipeline on one machine, no BOINC server needed.
#
#   bash scripts/demo.sh
#
# 1. installs the Debian packages and builds (preset dev, ./build);
# 2. in ./demo-out (recreated each time):
#    - makes a synthetic abdominal CT phantom with known labels (helix-wu mrf phantom),
#    - makes one mrf work unit from it (helix-wu mrf make),
#    - runs the app twice, standalone, each in its own slot directory as the
#      BOINC client would: first on the GPU when `nvidia-smi -L` lists one (else
#      --cpu), then with --cpu (the quorum's second result),
#    - validates each result (helix-validate init --inputs) and compares the two
#      (helix-validate compare), as the project's validator would,
#    - assimilates the canonical result into demo-out/results.sqlite,
#    - prints the stored result, the Dice score per class against the phantom's
#      truth, and renders PNG slices;
# 3. lists the files worth looking at.
#
# Environment: HELIX_DEMO_SIZE="NX NY NZ" (default "160 160 40").
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

bash scripts/install-deps.sh
bash scripts/build.sh

helix=$root/build/app/helix
helix_wu=$root/build/workunit/helix-wu
helix_validate=$root/build/validator/helix-validate
helix_assimilate=$root/build/assimilator/helix-assimilate
for tool in "$helix" "$helix_wu" "$helix_validate" "$helix_assimilate"; do
  [[ -x $tool ]] || { echo "demo: error: $tool was not built" >&2; exit 1; }
done

read -r nx ny nz <<<"${HELIX_DEMO_SIZE:-160 160 40}"
out=$root/demo-out
wu=demo_mrf
rm -rf "$out"
mkdir -p "$out"

step() { printf '\n== %s\n' "$*"; }

step "phantom ${nx}x${ny}x${nz} (helix-wu mrf phantom)"
"$helix_wu" mrf phantom --out "$out/phantom" --size "$nx" "$ny" "$nz" --seed 7

step "work unit $wu (helix-wu mrf make)"
"$helix_wu" mrf make --volume "$out/phantom/phantom.nii.gz" --name "$wu" --out "$out/wu"
cat "$out/wu/$wu.params.json"

# A slot directory as the client makes it: the logical names are BOINC soft
# links to the WU's files, so the summary names the volume by its WU file name
# (what the validator looks for under --inputs). Outputs are written in the slot.
make_slot() {
  mkdir -p "$1"
  printf '<soft_link>../wu/%s.params.json</soft_link>\n' "$wu" >"$1/params"
  printf '<soft_link>../wu/%s.volume.hxv</soft_link>\n' "$wu" >"$1/volume"
}

# Runs the app in a slot; prints the run time. $1 slot, $2.. app options.
run_slot() {
  local slot=$1 start_s
  shift
  start_s=$EPOCHREALTIME
  if ! (cd "$slot" && "$helix" "$@"); then
    echo "demo: error: helix $* failed in $slot:" >&2
    cat "$slot/stderr.txt" >&2
    exit 1
  fi
  grep -v 'running in standalone mode' "$slot/stderr.txt" | sed 's/^/  /'
  awk -v start="$start_s" -v end="$EPOCHREALTIME" 'BEGIN { printf "  run time: %.2f s\n", end - start }'
}

if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  first_device=(--device 0)
  first_label="GPU"
else
  first_device=(--cpu)
  first_label="CPU (no GPU listed by nvidia-smi -L)"
fi

step "result 1: app on $first_label, standalone in demo-out/slot1"
make_slot "$out/slot1"
run_slot "$out/slot1" "${first_device[@]}"

step "result 2: app on CPU (--cpu), standalone in demo-out/slot2"
make_slot "$out/slot2"
run_slot "$out/slot2" --cpu

step "validation (helix-validate init --inputs, then compare)"
for slot in slot1 slot2; do
  if "$helix_validate" init --inputs "$out/wu" "$out/$slot/labels" "$out/$slot/summary"; then
    echo "  $slot: valid"
  else
    echo "demo: error: helix-validate init rejected $slot (exit $?)" >&2
    exit 1
  fi
done
if "$helix_validate" compare "$out/slot1/labels" "$out/slot1/summary" "$out/slot2/labels" "$out/slot2/summary"; then
  echo "  slot1 and slot2: equivalent (quorum of 2 reached)"
else
  echo "demo: error: helix-validate compare: the two results differ (exit $?)" >&2
  exit 1
fi
if cmp -s "$out/slot1/labels" "$out/slot2/labels" && cmp -s "$out/slot1/summary" "$out/slot2/summary"; then
  echo "  (and byte-identical)"
fi

step "assimilation into demo-out/results.sqlite (WU id 1)"
"$helix_assimilate" --db "$out/results.sqlite" 1 "$out/slot1/labels" "$out/slot1/summary"
"$helix_assimilate" --db "$out/results.sqlite" query

step "Dice per class: segmentation vs phantom truth"
# Informative only: a missing zstd command must not sink the demo.
python3 scripts/dice.py "$out/slot1/labels" "$out/phantom/phantom_truth.hxl" >"$out/dice.txt" ||
  echo "demo: warning: no Dice scores (see the line above)" >&2
cat "$out/dice.txt"

step "PNG slices (helix-wu mrf render)"
"$helix_wu" mrf render --volume "$out/wu/$wu.volume.hxv" --labels "$out/slot1/labels" --out "$out/render" --slices 4

step "files to look at"
look() { printf '  %-32s %s\n' "$1" "$2"; }
look "demo-out/render/*.png" "CT slices with the segmentation over them"
look "demo-out/dice.txt" "Dice per class against the phantom's truth"
look "demo-out/slot1/summary" "the result's JSON summary (classes, energy trace)"
look "demo-out/slot1/stderr.txt" "the app's log"
look "demo-out/results.sqlite" "the assimilated result (helix-assimilate --db ... query)"
look "demo-out/wu/$wu.*" "the work unit: params, volume, BOINC templates, create_work command"
ls "$out/render" | sed 's/^/    /'
