// sw_statistics.h: what a local alignment score means for a whole database:
// Karlin-Altschul bit scores and E-values (docs/swsearch.md).
//   E = K m n exp(-lambda S), bits = (lambda S - ln K) / ln 2,
// m the query length, n the residues of the WHOLE database (the WU carries it,
// so every chunk reports E-values for the database, not for itself). No
// edge-effect length correction is applied (BLAST shortens m and n by an
// expected HSP length), so our E-values are slightly larger than BLAST's for
// the same score. Floating point from libm: E-values are not compared bit for
// bit between hosts (scores are).
#pragma once
#include <cstdint>
#include <string>

#include "sw.h"

namespace helix::swsearch {

struct KarlinAltschul {
  double lambda, k, h;
};
// BLAST's published (lambda, K, H) for the matrix (by name: BLOSUM45/50/62/80,
// PAM30/70/250) and gaps. Throws InputError for a combination BLAST has no
// estimate for.
KarlinAltschul karlin_altschul(const std::string& matrix_name, const GapPenalties& gaps);
double bit_score(const KarlinAltschul& ka, int score);
double evalue(const KarlinAltschul& ka, int score, std::uint64_t query_length, std::uint64_t database_residues);

}  // namespace helix::swsearch
