#!/usr/bin/env bash
# demo.sh: the whole helix pipeline on one machine, no BOINC server needed.
#
#   bash scripts/demo.sh
#
# 1. installs the Debian packages and builds (preset dev, ./build);
# 2. in ./demo-out (recreated each time), for every registered kind
#    (`helix-wu kinds`), in demo-out/<kind>/:
#    - makes the kind's example work units from real data on this machine
#      (`helix-wu <kind> example --out demo-out/<kind>/wu`),
#    - for each WU, runs the app twice, standalone, each in its own slot
#      directory of BOINC soft links as the client would make it
#      (demo-out/<kind>/<wu>/slot1, slot2): first on the GPU when
#      `nvidia-smi -L` lists one (else --cpu), then with --cpu (the quorum's
#      second result); copies each result's files under the names BOINC gives
#      them (demo-out/<kind>/results/<wu>_<replica>_<n>),
#    - validates each result (helix-validate init --inputs) and compares the
#      two (helix-validate compare), as the project's validator would,
#    - assimilates the first into demo-out/results.sqlite (WU ids 1, 2, ...
#      across the kinds) and prints what is stored (helix-assimilate query),
#    - sources kernels/<kind>/demo_extras.sh when the kind has one: what its
#      scientists want to see (below);
# 3. lists the files worth looking at.
#
# A kind's demo_extras.sh runs in a subshell with set -euo pipefail and these
# variables (paths absolute):
#   kind             the kind's name
#   kind_out         demo-out/<kind>: the extras write their files here
#   example_dir      what `helix-wu <kind> example` wrote: the WUs' files, and
#                    under input/ what they were made from
#   work_units       the example's WU names (array), in name order
#   first_slots      the slot of each WU's first result, the one stored (array,
#                    same order); its outputs carry their logical names
#   results_db       demo-out/results.sqlite
#   root             the source tree
#   helix helix_wu helix_validate helix_assimilate   the built programs
# and three functions: `step TITLE` (a section heading), `indent` (a filter:
# tool output under its heading) and `look PATH WHAT` (a line of the closing
# list of files to look at).
#
# A kind whose example data is missing on this machine (helix-wu exits 77) is
# skipped with helix-wu's line naming the package; scripts/install-deps.sh
# installs them all.
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
# Slots of BOINC soft links and a WU's output names, read from its templates.
client_dir_tool=$root/tests/e2e/make_client_dir.py

out=$root/demo-out
results_db=$out/results.sqlite
look_list=$out/files-to-look-at.txt
rm -rf "$out"
mkdir -p "$out"

step() { printf '\n== %s\n' "$*"; }
look() { printf '  %-40s %s\n' "$1" "$2" >>"$look_list"; }
# Tool output, indented under its step, paths relative to the source tree.
indent() { sed "s|$root/||g; s/^/  /"; }
fail() { echo "demo: error: $*" >&2; exit 1; }

# Runs the app in a slot; prints its log and run time. $1 slot, $2.. app options.
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

look "demo-out/results.sqlite" "every kind's stored results (helix-assimilate --db ... query)"
look "demo-out/<kind>/wu/" "the kind's example WUs: params, inputs, BOINC templates, create_work"
look "demo-out/<kind>/<wu>/slot1/" "a result's files under their logical names; stderr.txt: the app's log"
look "demo-out/<kind>/results/" "both results of each WU, named as BOINC names them (<wu>_<replica>_<n>)"
look "demo-out/<kind>/<wu>.stored.txt" "what the database holds of the WU (helix-assimilate query --wu-id)"

mapfile -t kinds < <("$helix_wu" kinds)
((${#kinds[@]} > 0)) || fail "helix-wu kinds lists no kind"
wu_id=0
for kind in "${kinds[@]}"; do
  kind_out=$out/$kind
  example_dir=$kind_out/wu
  step "$kind: example work units (helix-wu $kind example)"
  status=0
  message=$("$helix_wu" "$kind" example --out "$example_dir" 2>&1) || status=$?
  if ((status == 77)); then
    echo "  skipped: ${message#helix-wu: }"
    continue
  fi
  ((status == 0)) || fail "helix-wu $kind example failed (exit $status): $message"
  printf '%s\n' "$message" | indent
  work_units=() first_slots=()
  for script in "$example_dir"/*.create_work.sh; do work_units+=("$(basename "$script" .create_work.sh)"); done
  [[ -e ${example_dir}/${work_units[0]}.create_work.sh ]] || fail "helix-wu $kind example wrote no *.create_work.sh"

  for wu in "${work_units[@]}"; do
    wu_id=$((wu_id + 1))
    mapfile -t outputs < <(python3 "$client_dir_tool" outputs "$example_dir" "$wu")
    printf '  %s: WU id %d, outputs %s; params:\n' "$wu" "$wu_id" "${outputs[*]}"
    sed 's/^/    /' "$example_dir/$wu.params.json"
    mkdir -p "$kind_out/results"
    # Result r (replica r) of the WU: its files copied to the names BOINC
    # gives them, which is how the validator finds the WU.
    for replica in 0 1; do
      slot=$kind_out/$wu/slot$((replica + 1))
      python3 "$client_dir_tool" slot "$slot" "$example_dir" "$wu"
      if ((replica == 0)); then
        step "$kind $wu, result 0: app on $first_label, standalone in ${slot#"$root"/}"
        run_slot "$slot" "${first_device[@]}"
        first_slots+=("$slot")
      else
        step "$kind $wu, result 1: app on CPU (--cpu), standalone in ${slot#"$root"/}"
        run_slot "$slot" --cpu
      fi
      files=()
      for n in "${!outputs[@]}"; do
        files+=("$kind_out/results/${wu}_${replica}_$n")
        cp "$slot/${outputs[n]}" "${files[n]}"
      done
      if ((replica == 0)); then first=("${files[@]}"); else second=("${files[@]}"); fi
    done

    step "$kind $wu: validation (helix-validate init --inputs, then compare)"
    "$helix_validate" init --inputs "$example_dir" "${first[@]}" || fail "helix-validate init rejected result 0 of $wu"
    "$helix_validate" init --inputs "$example_dir" "${second[@]}" || fail "helix-validate init rejected result 1 of $wu"
    echo "  results 0 and 1: valid"
    "$helix_validate" compare "${first[@]}" "${second[@]}" || fail "helix-validate compare: the two results of $wu differ"
    echo "  results 0 and 1: equivalent (quorum of 2 reached)"
    identical=1
    for n in "${!outputs[@]}"; do cmp -s "${first[n]}" "${second[n]}" || identical=0; done
    ((identical)) && echo "  (and byte-identical)"

    step "$kind $wu: assimilation into demo-out/results.sqlite (WU id $wu_id), what is stored"
    "$helix_assimilate" --db "$results_db" "$wu_id" "${first[@]}"
    # All of it in a file; here each table's row count and first two rows.
    "$helix_assimilate" --db "$results_db" query --wu-id "$wu_id" >"$kind_out/$wu.stored.txt"
    awk -v id="$wu_id" -v all="${kind_out#"$root"/}/$wu.stored.txt" '
      /^WU / { print "  " $0; next }
      {
        table = $1; row = $0
        sub(/^ *[^ ]+ +/, "", row)
        if (!(table in rows)) order[++tables] = table
        if (++rows[table] <= 2) shown[table] = shown[table] "      " substr(row, 1, 140) "\n"
      }
      END {
        for (i = 1; i <= tables; i++) {
          table = order[i]
          printf "    %s: %d row%s%s\n%s", table, rows[table], (rows[table] == 1 ? "" : "s"),
                 (rows[table] > 2 ? ", the first 2:" : ":"), shown[table]
        }
        print "  (all of it: helix-assimilate --db demo-out/results.sqlite query --wu-id " id ", here in " all ")"
      }' "$kind_out/$wu.stored.txt"
  done

  # In a subshell: the extras cannot change the loop's variables. Not in an
  # `||` list, where set -e would not stop a failing extra.
  extras=$root/kernels/$kind/demo_extras.sh
  # shellcheck source=/dev/null
  [[ ! -f $extras ]] || (source "$extras")
done

step "files to look at"
cat "$look_list"
