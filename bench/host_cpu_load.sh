#!/usr/bin/env bash
# host_cpu_load.sh: how much of the volunteer's CPU the helix app takes while
# the GPU works, for each kind: the real app binary on a real work unit, in a
# slot of BOINC soft links, as the client would run it. The figure is the
# process's CPU time (user + system, CUDA start-up included) over its wall
# time; the goal is < 5 % of one core (issue 8).
#
#   bash bench/host_cpu_load.sh make HELIX_WU OUT [DB.fasta.gz]
#       here: one work unit per kind under OUT/<kind>/, sized so that the
#       GPU works for a while and all four fit in one device call's carry:
#       mrf a 384x384x128 phantom; glcm skimage's three textures (512x512),
#       distances 1-25, 64/32/16 levels; swsearch 32 queries against a
#       10 M-residue chunk; hmmsearch hmmer-examples' globins4, Pkinase and
#       fn3 against the same chunk. DB: protein FASTA (default: mmseqs2's
#       example database; the bench uses a third of metastudent-data).
#   bash bench/host_cpu_load.sh run HELIX OUT [REPEATS]
#       on the GPU machine: runs each kind's work unit REPEATS times
#       (default 3) with `HELIX --device 0` in a fresh slot and prints a
#       markdown table: wall time, CPU time and CPU share, median of the
#       repeats (by share), and what the app printed last.
#
# HOST_LOAD_SIZE_CLASS=cpu|gpu (issue 19) makes the work units of that BOINC
# size class instead, with helix-wu's class defaults (`--size-class`, no
# explicit sizes): swsearch the class's chunk of DB (20 M or 200 M residues,
# at most the whole DB) and one WU's queries (96 or 4,096); hmmsearch the same
# chunk; glcm the three plates (cpu) or 40 copies of each (gpu: about the
# class's cost); mrf the same volume (a WU is one volume in either class).
# HOST_LOAD_ENGINE=cpu runs `HELIX --cpu` (the CPU engine on one core).
# HOST_LOAD_PROFILES="A.hmm B.hmm.gz ..." gives the hmmsearch WU those models
# (default globins4, Pkinase, fn3; bench/RESULTS.md's 9-profile WU adds the
# testsuite's 2OG-FeII_Oxy_3, Caudal_act, LuxC, Patched, RRM_1 and SMC_N).
set -euo pipefail

die() { echo "host_cpu_load: $*" >&2; exit 1; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# HOST_LOAD_KINDS="swsearch ..." makes and measures only those kinds;
# HOST_LOAD_RESIDUES (default 10000000) sizes the swsearch and hmmsearch chunk.
read -r -a kinds <<<"${HOST_LOAD_KINDS:-mrf glcm swsearch hmmsearch}"
chunk_residues=${HOST_LOAD_RESIDUES:-10000000}
size_class=${HOST_LOAD_SIZE_CLASS:-}
engine_flags=(--device 0)
[[ ${HOST_LOAD_ENGINE:-gpu} == cpu ]] && engine_flags=(--cpu)
case $size_class in
  "") query_count=32 ;;
  cpu) chunk_residues=20000000 query_count=96 ;;
  gpu) chunk_residues=200000000 query_count=4096 ;;
  *) echo "host_cpu_load: HOST_LOAD_SIZE_CLASS must be cpu or gpu" >&2; exit 1 ;;
esac
# The make options that size a WU: the class's defaults, or this script's own.
sizing() { if [[ -n $size_class ]]; then echo "--size-class $size_class"; else echo "$@"; fi; }
wanted() { [[ " ${kinds[*]} " == *" $1 "* ]]; }

make_work_units() {
  local helix_wu=$1 out=$2 db=${3:-/usr/share/doc/mmseqs2/example-data/DB.fasta.gz}
  local tutorial=/usr/share/doc/hmmer/examples/tutorial
  rm -rf "$out" && mkdir -p "$out/input"
  for kind in "${kinds[@]}"; do mkdir -p "$out/$kind"; done
  if wanted mrf; then
    "$helix_wu" mrf phantom --out "$out/input/phantom" --size 384 384 128 --seed 7 >/dev/null
    # shellcheck disable=SC2046
    "$helix_wu" mrf make --volume "$out/input/phantom/phantom.nii.gz" --name load_mrf --out "$out/mrf" \
      $(sizing) >/dev/null
  fi
  if wanted glcm; then
    /usr/bin/python3 "$here/scripts/make_plates.py" "$out/input/plates" 512 240 >/dev/null
    if [[ $size_class == gpu ]]; then
      for plate in "$out"/input/plates/*.png; do
        for copy in $(seq 1 39); do cp "$plate" "${plate%.png}_$copy.png"; done
      done
    fi
    # shellcheck disable=SC2046
    "$helix_wu" glcm make --image-dir "$out/input/plates" --detect-well --levels 64,32,16 --distances 1-25 \
      $(sizing --max-cost-per-wu 1e15) --name load_glcm --out "$out/glcm" >/dev/null
  fi
  # The first chunk_residues of DB as the chunk; query_count of its proteins, evenly spread, as queries.
  zcat -f "$db" | awk -v limit="$chunk_residues" '/^>/ { keep = residues < limit } keep { print; if (!/^>/) residues += length($0) }' \
    >"$out/input/chunk.fasta"
  local every
  every=$(($(grep -c '^>' "$out/input/chunk.fasta") / query_count))
  awk -v every="$every" -v count="$query_count" '/^>/ { n++; keep = (n % every == 1 && kept < count); kept += keep } keep' \
    "$out/input/chunk.fasta" >"$out/input/queries.fasta"
  if wanted swsearch; then
    # shellcheck disable=SC2046
    "$helix_wu" swsearch make --db "$out/input/chunk.fasta" --queries "$out/input/queries.fasta" \
      $(sizing --chunk-residues $((2 * chunk_residues)) --queries-per-wu 32) --name load_sw --out "$out/swsearch" >/dev/null
  fi
  if wanted hmmsearch; then
    # Each model through hmmconvert: hmmsearch (the peer) refuses a file
    # that mixes HMMER3 format versions, as the testsuite's models would.
    local model
    for model in ${HOST_LOAD_PROFILES:-$tutorial/globins4.hmm $tutorial/Pkinase.hmm $tutorial/fn3.hmm}; do
      zcat -f "$model" >"$out/input/model.hmm" && hmmconvert "$out/input/model.hmm"
    done >"$out/input/profiles.hmm"
    # shellcheck disable=SC2046
    "$helix_wu" hmmsearch make --name load_hmm --profiles "$out/input/profiles.hmm" \
      --database "$out/input/chunk.fasta" $(sizing --chunk-residues $((2 * chunk_residues))) --out "$out/hmmsearch" >/dev/null
  fi
  rm -rf "$out/input"
  du -sh "$out"/* | sed 's/^/host_cpu_load: /'
}

# A slot of BOINC soft links for the work unit whose create_work script is $1
# (make_client_dir.py reads the open names and files as the client would).
make_slot() {
  local create_work=$1 slot=$2
  rm -rf "$slot"
  python3 "$here/tests/e2e/make_client_dir.py" slot "$slot" "$(dirname "$create_work")" \
    "$(basename "$create_work" .create_work.sh)" || die "cannot make a slot for $create_work"
}

# Prints "share wall cpu" for one run of the app in a fresh slot.
measure_once() {
  local helix=$1 create_work=$2 slot=$3 start_s
  make_slot "$create_work" "$slot"
  local TIMEFORMAT='%R %U %S'
  local times
  times=$( { time (cd "$slot" && "$helix" "${engine_flags[@]}" >/dev/null 2>&1) ; } 2>&1 ) ||
    die "helix failed on $(basename "$create_work"): $(tail -n 3 "$slot/stderr.txt" 2>/dev/null)"
  [[ -e $slot/boinc_temporary_exit ]] && die "helix made a temporary exit on $(basename "$create_work"): $(cat "$slot/stderr.txt")"
  read -r wall user system <<<"$times"
  awk -v w="$wall" -v u="$user" -v s="$system" 'BEGIN { printf "%.4f %.2f %.2f\n", (u + s) / w, w, u + s }'
}

run_work_units() {
  local helix=$1 out=$2 repeats=${3:-3}
  helix=$(realpath "$helix")
  echo "| kind | work unit | wall time | host CPU time | host CPU, % of one core |"
  echo "| --- | --- | --- | --- | --- |"
  for kind in "${kinds[@]}"; do
    local create_work
    create_work=$(ls "$out/$kind"/*.create_work.sh | head -n1) || die "no work unit in $out/$kind"
    local -a runs=()
    for ((r = 0; r < repeats; ++r)); do runs+=("$(measure_once "$helix" "$create_work" "$out/slot_$kind")"); done
    local median
    median=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n "$(((repeats + 1) / 2))p")
    read -r share wall cpu <<<"$median"
    printf '| %s | %s | %s s | %s s | %.1f %% |\n' "$kind" "$(basename "$create_work" .create_work.sh)" \
      "$wall" "$cpu" "$(awk -v s="$share" 'BEGIN { print 100 * s }')"
  done
}

case "${1:-}" in
  make) (($# >= 3)) || die "usage: $0 make HELIX_WU OUT [DB.fasta.gz]"; make_work_units "$2" "$3" "${4:-}" ;;
  run) (($# >= 3)) || die "usage: $0 run HELIX OUT [REPEATS]"; run_work_units "$2" "$3" "${4:-3}" ;;
  *) die "usage: $0 make HELIX_WU OUT [DB.fasta.gz] | run HELIX OUT [REPEATS]" ;;
esac
