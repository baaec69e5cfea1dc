#!/usr/bin/env bash
# make_bench_db.sh: the swsearch benchmark's protein database (bench/sw_bench.cpp
# --db) as FASTA, from Debian's metastudent-data BLAST database: 459,503
# GO-annotated UniProt proteins, 170 M residues (MFO set; median length 309).
#
#   scripts/make_bench_db.sh OUT [MAX_SEQUENCES] [BLAST_DB]
#
#   OUT            FASTA to write; gzipped when it ends in .gz (sw_bench reads both)
#   MAX_SEQUENCES  keep the first N sequences (default 80000: 30 M residues,
#                  about 36 MB of FASTA or 19 MB gzipped, small enough to carry
#                  to the GPU machine); 0 = all
#   BLAST_DB       default /usr/share/metastudent-data/dataset_201401/MFO/goasp.fasta
#
# Needs: apt-get install -y --no-install-recommends metastudent-data ncbi-blast+
# (neither is in install-deps.sh: the benchmark is run by hand). The data is
# not committed. The file is written beside OUT and renamed when complete.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 3 ]]; then
  echo "usage: $0 OUT [MAX_SEQUENCES] [BLAST_DB]" >&2
  exit 2
fi
out=$1
max=${2:-80000}
db=${3:-/usr/share/metastudent-data/dataset_201401/MFO/goasp.fasta}

command -v blastdbcmd >/dev/null || { echo "make_bench_db: blastdbcmd not found (apt-get install ncbi-blast+)" >&2; exit 1; }
[[ -e $db.psq || -e $db.pal ]] || { echo "make_bench_db: no BLAST protein database at $db (apt-get install metastudent-data)" >&2; exit 1; }
[[ $max =~ ^[0-9]+$ ]] || { echo "make_bench_db: MAX_SEQUENCES must be a number, got '$max'" >&2; exit 1; }

tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
compress=cat
[[ $out == *.gz ]] && compress="gzip -6"

# awk stops reading after the last wanted sequence; blastdbcmd then dies of
# SIGPIPE (status 141), which is expected here.
set +o pipefail
blastdbcmd -db "$db" -entry all -line_length 80 |
  awk -v max="$max" '/^>/ { if (max > 0 && ++n > max) exit } { print }' |
  $compress >"$tmp"
status=("${PIPESTATUS[@]}")
set -o pipefail
if [[ ${status[0]} -ne 0 && ${status[0]} -ne 141 ]] || [[ ${status[1]} -ne 0 || ${status[2]} -ne 0 ]]; then
  echo "make_bench_db: extracting $db failed (exit statuses ${status[*]})" >&2
  exit 1
fi
chmod 644 "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "make_bench_db: $out: $( (gzip -dcf "$out" | grep -c '^>') ) sequences"
