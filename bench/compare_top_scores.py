#!/usr/bin/python3
"""compare_top_scores.py: do two database searches agree on each query's best scores?

    compare_top_scores.py --helix TOP.tsv --cudasw RESULTS.tsv --db DB.fasta[.gz]

TOP.tsv is sw_bench's --top-out (query length, query id, rank, score, target id);
repeated lists of a query (benchmark repetitions, a query file given thrice) count once;
RESULTS.tsv is CUDASW++4.0's `align --tsv --of` output (its own header line,
then query number, query length, query header, rank, score, reference length,
reference header, reference id). Both must have been run at the same gap costs.

Targets holding an ambiguity code (B, J, O, U, X, Z or *) are set aside on both
sides: CUDASW++ scores them with its own table, not NCBI's BLOSUM62. What is left
of each list is compared rank by rank on the scores (ties may order different
targets, never different scores). Prints one line per query; exits 1 when a
query's scores differ, 2 on bad input.
"""
import argparse
import gzip
import sys

AMBIGUOUS = set("BJOUXZ*")


def read_fasta_ids(path):
    """id (first word of the header) -> sequence."""
    opener = gzip.open if path.endswith(".gz") else open
    sequences, current, parts = {}, None, []
    with opener(path, "rt") as handle:
        for line in handle:
            if line.startswith(">"):
                if current is not None:
                    sequences[current] = "".join(parts)
                current, parts = line[1:].split()[0], []
            else:
                parts.append(line.strip())
    if current is not None:
        sequences[current] = "".join(parts)
    return sequences


def add_hit(tops, seen_rank_zero, query, rank, hit):
    """Keeps each query's first list only (repeated runs write it again from rank 0)."""
    if rank == 0:
        seen_rank_zero[query] = seen_rank_zero.get(query, 0) + 1
    if seen_rank_zero.get(query) == 1:
        tops.setdefault(query, []).append(hit)


def read_helix(path):
    """query id -> [(score, target id)] in rank order."""
    tops, seen = {}, {}
    with open(path) as handle:
        for line in handle:
            _length, query, rank, score, target = line.rstrip("\n").split("\t")
            add_hit(tops, seen, query, int(rank), (int(score), target))
    return tops


def read_cudasw(path):
    tops, seen = {}, {}
    with open(path) as handle:
        next(handle)  # header
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            query, rank, score, target = fields[2].split()[0], int(fields[3]), int(fields[4]), fields[6].split()[0]
            add_hit(tops, seen, query, rank, (score, target))
    return tops


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--helix", required=True)
    parser.add_argument("--cudasw", required=True)
    parser.add_argument("--db", required=True)
    args = parser.parse_args()
    try:
        sequences = read_fasta_ids(args.db)
        helix, cudasw = read_helix(args.helix), read_cudasw(args.cudasw)
    except (OSError, ValueError, IndexError, StopIteration) as error:
        print(f"compare_top_scores: {error}", file=sys.stderr)
        return 2
    clean = lambda hits: [score for score, target in hits if not AMBIGUOUS & set(sequences.get(target, "X"))]
    differing = 0
    for query, hits in helix.items():
        if query not in cudasw:
            print(f"{query}: not in {args.cudasw}")
            differing += 1
            continue
        ours, theirs = clean(hits), clean(cudasw[query])
        compared = min(len(ours), len(theirs))
        same = ours[:compared] == theirs[:compared]
        differing += not same
        print(f"{query} (length {len(sequences.get(query, ''))}): {'agree' if same else 'DIFFER'} on {compared} scores "
              f"({len(hits) - len(ours)} + {len(cudasw[query]) - len(theirs)} ambiguous set aside); "
              f"helix {ours[:compared]} cudasw {theirs[:compared]}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
