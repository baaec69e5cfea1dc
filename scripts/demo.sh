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
#    then the same for the glcm kind: three plate images (real skimage
#    textures inside a circular well, scripts/make_plates.py), one WU made
#    with the well detector (helix-wu glcm make --detect-well), run on GPU (or
#    CPU) and CPU, validated with CPU spot checks, compared, assimilated, a
#    few table rows printed and feature maps rendered as PNG;
#    then swsearch: three real globins (hmmer-examples) against mmseqs2's
#    example database of 20,000 UniProt proteins in two chunks (two WUs), each
#    run on GPU (or CPU) and CPU, validated with CPU re-scoring, compared,
#    assimilated, the best hits over the whole database printed, and its
#    merged BLAST tabular report and alignments (helix-wu swsearch report);
#    then hmmsearch: two profile HMMs (globins4, fn3; hmmer-examples) against
#    the same 20,000 proteins in two chunks (two WUs, every profile in each),
#    each run on GPU (or CPU) and CPU, validated with a CPU re-run of sampled
#    targets (filters and domain definition), compared, assimilated, and the
#    merged tblout, domtblout and pipeline statistics of the whole database
#    printed (helix-wu hmmsearch report);
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

# ------------------------------------------------------------------ glcm
glcm_wu=demo_glcm_0

step "glcm: plate images from skimage's real textures (scripts/make_plates.py)"
/usr/bin/python3 scripts/make_plates.py "$out/plates"

step "glcm: work unit (helix-wu glcm make --detect-well)"
"$helix_wu" glcm make --image-dir "$out/plates" --detect-well --distances 1,2,3,5,8,13,21 --map-distance 5 \
  --name demo_glcm --out "$out/wu_glcm"

# A slot of BOINC soft links: every logical name of the WU points at its file.
make_glcm_slot() {
  mkdir -p "$1"
  printf '<soft_link>../wu_glcm/%s.params.json</soft_link>\n' "$glcm_wu" >"$1/params"
  local file
  for file in "$out/wu_glcm/$glcm_wu".{image,mask}_*.png; do
    printf '<soft_link>../wu_glcm/%s</soft_link>\n' "${file##*/}" >"$1/${file##*/}"
  done
}

step "glcm result 1: app on $first_label, standalone in demo-out/glcm_slot1"
make_glcm_slot "$out/glcm_slot1"
run_slot "$out/glcm_slot1" "${first_device[@]}"

step "glcm result 2: app on CPU (--cpu), standalone in demo-out/glcm_slot2"
make_glcm_slot "$out/glcm_slot2"
run_slot "$out/glcm_slot2" --cpu

step "glcm validation (init --inputs: structure and exact CPU spot checks; then compare)"
glcm_files() { echo "$out/$1/features" "$out/$1/maps" "$out/$1/summary"; }
for slot in glcm_slot1 glcm_slot2; do
  # shellcheck disable=SC2046
  "$helix_validate" init --inputs "$out/wu_glcm" $(glcm_files $slot) ||
    { echo "demo: error: helix-validate init rejected $slot" >&2; exit 1; }
  echo "  $slot: valid"
done
# shellcheck disable=SC2046
"$helix_validate" compare $(glcm_files glcm_slot1) $(glcm_files glcm_slot2) ||
  { echo "demo: error: the two glcm results differ" >&2; exit 1; }
echo "  glcm_slot1 and glcm_slot2: equivalent"
cmp -s "$out/glcm_slot1/features" "$out/glcm_slot2/features" && echo "  (the feature tables are byte-identical)"

step "glcm assimilation into demo-out/results.sqlite (WU id 2), a few rows"
# shellcheck disable=SC2046
"$helix_assimilate" --db "$out/results.sqlite" 2 $(glcm_files glcm_slot1)
sqlite3 -header -column "$out/results.sqlite" \
  "SELECT image, levels, distance, feature, printf('%.6g', min) AS min, printf('%.6g', mean) AS mean,
          printf('%.6g', max) AS max FROM glcm_features
   WHERE levels = 64 AND distance = 5 AND feature IN ('contrast', 'entropy', 'correlation') ORDER BY feature, image;"

step "glcm feature maps, distance 5, 64 levels (helix-wu glcm map)"
mkdir -p "$out/glcm_maps"
for image in brick grass gravel; do
  for feature in entropy contrast; do
    "$helix_wu" glcm map --maps "$out/glcm_slot1/maps" --image "$image" --levels 64 --feature "$feature" \
      --underlay "$out/plates/$image.png" --out "$out/glcm_maps/${image}_${feature}.png"
  done
done

# ------------------------------------------------------------------ swsearch
step "swsearch: work units (helix-wu swsearch make): 3 globins (HBB_HUMAN, MYG_HORSE, HBA_TRIOC) x mmseqs2's 20,000-protein example database"
mkdir -p "$out/sw_input"
zcat /usr/share/doc/mmseqs2/example-data/DB.fasta.gz >"$out/sw_input/db.fasta"
cat /usr/share/doc/hmmer/examples/tutorial/HBB_HUMAN >"$out/sw_input/queries.fasta"
awk '/^>/ { keep = ($1 == ">MYG_HORSE" || $1 == ">HBA_TRIOC") } keep' \
  /usr/share/doc/hmmer/examples/tutorial/globins45.fa >>"$out/sw_input/queries.fasta"
"$helix_wu" swsearch make --db "$out/sw_input/db.fasta" --queries "$out/sw_input/queries.fasta" \
  --chunk-residues 5000000 --top-hits 20 --alignments 3 --name demo_sw --out "$out/wu_sw"

# A slot of BOINC soft links for one WU; BOINC names a result's files
# <wu>_<replica>_<file index>, which is how the validator finds the WU.
make_sw_slot() {
  local slot=$1 unit=$2 chunk=${2##*_}
  mkdir -p "$slot"
  printf '<soft_link>../wu_sw/%s.params.json</soft_link>\n' "$unit" >"$slot/params"
  printf '<soft_link>../wu_sw/demo_sw.BLOSUM62</soft_link>\n' >"$slot/matrix"
  printf '<soft_link>../wu_sw/%s.queries.fa</soft_link>\n' "$unit" >"$slot/queries"
  printf '<soft_link>../wu_sw/demo_sw.chunk_%s.hxsw</soft_link>\n' "${chunk#c}" >"$slot/database"
}
mkdir -p "$out/sw_results"
for sw_wu in demo_sw_b0_c0 demo_sw_b0_c1; do
  for replica in 0 1; do
    slot="$out/sw_slot_${sw_wu}_$replica"
    make_sw_slot "$slot" "$sw_wu"
    if [[ $replica == 0 ]]; then
      step "swsearch $sw_wu, result 0: app on $first_label"
      run_slot "$slot" "${first_device[@]}"
    else
      step "swsearch $sw_wu, result 1: app on CPU (--cpu)"
      run_slot "$slot" --cpu
    fi
    cp "$slot/hits" "$out/sw_results/${sw_wu}_${replica}_0"
    cp "$slot/summary" "$out/sw_results/${sw_wu}_${replica}_1"
  done
done

step "swsearch validation (init --inputs: structure, CPU re-scoring of reported and unreported pairs; compare)"
for sw_wu in demo_sw_b0_c0 demo_sw_b0_c1; do
  for replica in 0 1; do
    "$helix_validate" init --inputs "$out/wu_sw" "$out/sw_results/${sw_wu}_${replica}_0" "$out/sw_results/${sw_wu}_${replica}_1" ||
      { echo "demo: error: helix-validate init rejected $sw_wu replica $replica" >&2; exit 1; }
  done
  "$helix_validate" compare "$out/sw_results/${sw_wu}_0_0" "$out/sw_results/${sw_wu}_0_1" \
    "$out/sw_results/${sw_wu}_1_0" "$out/sw_results/${sw_wu}_1_1" ||
    { echo "demo: error: the two results of $sw_wu differ" >&2; exit 1; }
  echo "  $sw_wu: both results valid and equivalent"
done

step "swsearch assimilation (WU ids 3, 4: the two chunks) and the best hits over the whole database"
"$helix_assimilate" --db "$out/results.sqlite" 3 "$out/sw_results/demo_sw_b0_c0_0_0" "$out/sw_results/demo_sw_b0_c0_0_1"
"$helix_assimilate" --db "$out/results.sqlite" 4 "$out/sw_results/demo_sw_b0_c1_0_0" "$out/sw_results/demo_sw_b0_c1_0_1"
sqlite3 -header -column "$out/results.sqlite" \
  "SELECT query_id, target_id, score, printf('%.1f', bits) AS bits, printf('%.2e', evalue) AS evalue, cigar
   FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY score DESC, target_ordinal) AS rank FROM sw_hits)
   WHERE rank <= 3 ORDER BY query_id, rank;"

step "swsearch merged report (helix-wu swsearch report): BLAST tabular (-outfmt 6, 7) and pairwise alignments"
"$helix_wu" swsearch report --results "$out/results.sqlite" --search demo_sw --inputs "$out/wu_sw" --out "$out/sw_report"
sed 's/^/    /' "$out/sw_report/demo_sw.blast6.tsv"
sed -n '/^> /,/^Sbjct/p' "$out/sw_report/demo_sw.alignments.txt" | head -n 9 | cut -c 1-100 | sed 's/^/    /'

# ------------------------------------------------------------------ hmmsearch
step "hmmsearch: work units (helix-wu hmmsearch make): globins4 + fn3 (hmmer-examples) x mmseqs2's 20,000-protein example database"
mkdir -p "$out/hmm_input"
cat /usr/share/doc/hmmer/examples/tutorial/globins4.hmm /usr/share/doc/hmmer/examples/tutorial/fn3.hmm \
  >"$out/hmm_input/profiles.hmm"
"$helix_wu" hmmsearch make --name demo_hmm --profiles "$out/hmm_input/profiles.hmm" \
  --database /usr/share/doc/mmseqs2/example-data/DB.fasta.gz --chunk-residues 5000000 --out "$out/wu_hmm"

# A slot of BOINC soft links for one WU (demo_hmm_c<chunk>); BOINC names a
# result's files <wu>_<replica>_<file index>, which is how the validator finds the WU.
make_hmm_slot() {
  local slot=$1 unit=$2
  mkdir -p "$slot"
  printf '<soft_link>../wu_hmm/%s.params.json</soft_link>\n' "$unit" >"$slot/params"
  printf '<soft_link>../wu_hmm/demo_hmm.profiles.hmm</soft_link>\n' >"$slot/profiles"
  printf '<soft_link>../wu_hmm/demo_hmm.chunk_%s.fa</soft_link>\n' "${unit##*_c}" >"$slot/database"
}
hmm_outputs=(tblout domtblout out scores domains summary)
hmm_files() { for k in "${!hmm_outputs[@]}"; do printf '%s ' "$out/hmm_results/$1_$2_$k"; done; }
mkdir -p "$out/hmm_results"
for hmm_wu in demo_hmm_c0 demo_hmm_c1; do
  for replica in 0 1; do
    slot="$out/hmm_slot_${hmm_wu}_$replica"
    make_hmm_slot "$slot" "$hmm_wu"
    if [[ $replica == 0 ]]; then
      step "hmmsearch $hmm_wu, result 0: app on $first_label"
      run_slot "$slot" "${first_device[@]}"
    else
      step "hmmsearch $hmm_wu, result 1: app on CPU (--cpu)"
      run_slot "$slot" --cpu
    fi
    index=0
    for file in "${hmm_outputs[@]}"; do
      cp "$slot/$file" "$out/hmm_results/${hmm_wu}_${replica}_$index"
      index=$((index + 1))
    done
  done
done

step "hmmsearch validation (init --inputs: consistency, CPU re-run of sampled targets, filters and domains, bit for bit; compare)"
for hmm_wu in demo_hmm_c0 demo_hmm_c1; do
  for replica in 0 1; do
    # shellcheck disable=SC2046
    "$helix_validate" init --inputs "$out/wu_hmm" $(hmm_files "$hmm_wu" "$replica") ||
      { echo "demo: error: helix-validate init rejected $hmm_wu replica $replica" >&2; exit 1; }
  done
  # shellcheck disable=SC2046
  "$helix_validate" compare $(hmm_files "$hmm_wu" 0) $(hmm_files "$hmm_wu" 1) ||
    { echo "demo: error: the two results of $hmm_wu differ" >&2; exit 1; }
  echo "  $hmm_wu: both results valid and equivalent"
done

step "hmmsearch assimilation (WU ids 5, 6: the two chunks) and the merged result over the whole database"
# shellcheck disable=SC2046
"$helix_assimilate" --db "$out/results.sqlite" 5 $(hmm_files demo_hmm_c0 0)
# shellcheck disable=SC2046
"$helix_assimilate" --db "$out/results.sqlite" 6 $(hmm_files demo_hmm_c1 0)
"$helix_wu" hmmsearch report --results "$out/results.sqlite" --search demo_hmm --out "$out/hmm_report"
for profile in globins4 fn3; do
  printf '\n  %s: the tblout and domtblout (first rows) and the pipeline statistics\n' "$profile"
  head -n 8 "$out/hmm_report/demo_hmm.$profile.tblout" | cut -c 1-150 | sed 's/^/    /'
  head -n 8 "$out/hmm_report/demo_hmm.$profile.domtblout" | cut -c 1-150 | sed 's/^/    /'
  sed -n '/^Passed/p; /^Domain search space/p' "$out/hmm_report/demo_hmm.$profile.out" | sed 's/^/    /'
done

step "files to look at"
look() { printf '  %-32s %s\n' "$1" "$2"; }
look "demo-out/render/*.png" "CT slices with the segmentation over them"
look "demo-out/dice.txt" "Dice per class against the phantom's truth"
look "demo-out/slot1/summary" "the result's JSON summary (classes, energy trace)"
look "demo-out/slot1/stderr.txt" "the app's log"
look "demo-out/results.sqlite" "the assimilated result (helix-assimilate --db ... query)"
look "demo-out/wu/$wu.*" "the work unit: params, volume, BOINC templates, create_work command"
ls "$out/render" | sed 's/^/    /'
look "demo-out/glcm_maps/*.png" "glcm feature maps (one pixel per window, brighter = larger)"
look "demo-out/glcm_slot1/features" "the glcm result's table (TSV): levels x distances x features x max/mean/min/range"
look "demo-out/wu_glcm/" "the glcm work unit: params, plates, detected-well masks, templates"
look "demo-out/sw_results/" "the swsearch results (hits tables, summaries), named as BOINC names them"
look "demo-out/sw_report/" "swsearch over the whole database: BLAST tabular (.blast6.tsv, .blast7.tsv) and alignments"
look "demo-out/hmm_report/" "hmmsearch over the whole database: tblout, domtblout and text (.out) per profile"
look "demo-out/hmm_results/" "the hmmsearch results (tblout, domtblout, out, scores, domains, summary per chunk)"
