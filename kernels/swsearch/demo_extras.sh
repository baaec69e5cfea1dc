# demo_extras.sh (swsearch): what scripts/demo.sh shows of swsearch results
# beyond the stored rows, sourced in a subshell with the variables demo.sh's
# header lists: the best hits of each query over the whole database (all the
# search's chunks, table swsearch_hits), and the search's merged report as one
# whole-database run writes it: BLAST tabular and pairwise alignments
# (helix-wu swsearch report).
# shellcheck shell=bash disable=SC2154  # the variables come from scripts/demo.sh

# The search: every WU of an example belongs to one (params.json, "search").
search=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["search"])' \
  "$example_dir/${work_units[0]}.params.json")

step "swsearch $search: the best 3 hits over the whole database of the first 4 queries (table swsearch_hits)"
sqlite3 -header -column "$results_db" \
  "SELECT query_id, target_id, score, printf('%.1f', bits) AS bits, printf('%.2e', evalue) AS evalue, cigar
   FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY score DESC, target_ordinal) AS rank FROM swsearch_hits)
   WHERE rank <= 3 ORDER BY query_id, rank LIMIT 12;" | cut -c 1-150 | indent

step "swsearch $search: merged report (helix-wu swsearch report): BLAST tabular (-outfmt 6, 7) and alignments"
"$helix_wu" swsearch report --results "$results_db" --search "$search" --inputs "$example_dir" --out "$kind_out/report" |
  indent
head -n 12 "$kind_out/report/$search.blast6.tsv" | sed 's/^/    /'
# The first alignment's first 9 lines (awk stops reading there: `sed | head`
# would kill sed with SIGPIPE, a failure under pipefail).
awk '/^> / { on = 1 } on { print "    " substr($0, 1, 100); if (++shown == 9) exit }' \
  "$kind_out/report/$search.alignments.txt"
look "demo-out/swsearch/report/" "swsearch over the whole database: BLAST tabular (.blast6.tsv, .blast7.tsv), alignments"
