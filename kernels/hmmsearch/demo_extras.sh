# demo_extras.sh (hmmsearch): what scripts/demo.sh shows of hmmsearch results
# beyond the stored rows, sourced in a subshell with the variables demo.sh's
# header lists: the search's merged result over the whole database (all its
# chunks), as one run of hmmsearch writes it (helix-wu hmmsearch report): per
# profile the first rows of its tblout and domtblout and the pipeline
# statistics of its text report.
# shellcheck shell=bash disable=SC2154  # the variables come from scripts/demo.sh

# The search: every WU of an example belongs to one (params.json, "search").
search=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["search"])' \
  "$example_dir/${work_units[0]}.params.json")

step "hmmsearch $search: merged result over the whole database (helix-wu hmmsearch report)"
"$helix_wu" hmmsearch report --results "$results_db" --search "$search" --out "$kind_out/report" | indent
for tblout in "$kind_out/report/$search".*.tblout; do
  profile=${tblout%.tblout}
  profile=${profile##*/"$search".}
  printf '\n  %s: the tblout and domtblout (first rows) and the pipeline statistics\n' "$profile"
  head -n 8 "$tblout" | cut -c 1-150 | sed 's/^/    /'
  head -n 8 "$kind_out/report/$search.$profile.domtblout" | cut -c 1-150 | sed 's/^/    /'
  sed -n '/^Passed/p; /^Domain search space/p' "$kind_out/report/$search.$profile.out" | sed 's/^/    /'
done
look "demo-out/hmmsearch/report/" "hmmsearch over the whole database: tblout, domtblout and text (.out) per profile"
