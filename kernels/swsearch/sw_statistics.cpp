// sw_statistics.cpp: Karlin-Altschul statistics of gapped local alignment
// scores (sw_statistics.h).
//
// The (lambda, K, H) values are NCBI BLAST's published estimates for each
// matrix and gap setting (BLAST+ source, algo/blast/core/blast_stat.c, the
// tables blosum45_values ... pam70_values; a US Government work in the public
// domain). They are keyed by BLAST's gap convention (a k-gap costs
// existence + k extension), i.e. our open = existence + extension.
#include "sw_statistics.h"

#include <cmath>
#include <cstring>

#include "core/errors.h"

namespace helix::swsearch {
namespace {

struct KarlinRow {
  const char* matrix;
  int existence, extension;
  double lambda, k, h;
};

constexpr KarlinRow kKarlinTable[] = {
    {"BLOSUM45", 13, 3, 0.207, 0.049, 0.14}, {"BLOSUM45", 12, 3, 0.199, 0.039, 0.11},
    {"BLOSUM45", 11, 3, 0.190, 0.031, 0.095}, {"BLOSUM45", 10, 3, 0.179, 0.023, 0.075},
    {"BLOSUM45", 16, 2, 0.210, 0.051, 0.14}, {"BLOSUM45", 15, 2, 0.203, 0.041, 0.12},
    {"BLOSUM45", 14, 2, 0.195, 0.032, 0.10}, {"BLOSUM45", 13, 2, 0.185, 0.024, 0.084},
    {"BLOSUM45", 12, 2, 0.171, 0.016, 0.061}, {"BLOSUM45", 19, 1, 0.205, 0.040, 0.11},
    {"BLOSUM45", 18, 1, 0.198, 0.032, 0.10}, {"BLOSUM45", 17, 1, 0.189, 0.024, 0.079},
    {"BLOSUM45", 16, 1, 0.176, 0.016, 0.063},
    {"BLOSUM50", 13, 3, 0.212, 0.063, 0.19}, {"BLOSUM50", 12, 3, 0.206, 0.055, 0.17},
    {"BLOSUM50", 11, 3, 0.197, 0.042, 0.14}, {"BLOSUM50", 10, 3, 0.186, 0.031, 0.11},
    {"BLOSUM50", 9, 3, 0.172, 0.022, 0.082}, {"BLOSUM50", 16, 2, 0.215, 0.066, 0.20},
    {"BLOSUM50", 15, 2, 0.210, 0.058, 0.17}, {"BLOSUM50", 14, 2, 0.202, 0.045, 0.14},
    {"BLOSUM50", 13, 2, 0.193, 0.035, 0.12}, {"BLOSUM50", 12, 2, 0.181, 0.025, 0.095},
    {"BLOSUM50", 19, 1, 0.212, 0.057, 0.18}, {"BLOSUM50", 18, 1, 0.207, 0.050, 0.15},
    {"BLOSUM50", 17, 1, 0.198, 0.037, 0.12}, {"BLOSUM50", 16, 1, 0.186, 0.025, 0.10},
    {"BLOSUM50", 15, 1, 0.171, 0.015, 0.063},
    {"BLOSUM62", 11, 2, 0.297, 0.082, 0.27}, {"BLOSUM62", 10, 2, 0.291, 0.075, 0.23},
    {"BLOSUM62", 9, 2, 0.279, 0.058, 0.19}, {"BLOSUM62", 8, 2, 0.264, 0.045, 0.15},
    {"BLOSUM62", 7, 2, 0.239, 0.027, 0.10}, {"BLOSUM62", 6, 2, 0.201, 0.012, 0.061},
    {"BLOSUM62", 13, 1, 0.292, 0.071, 0.23}, {"BLOSUM62", 12, 1, 0.283, 0.059, 0.19},
    {"BLOSUM62", 11, 1, 0.267, 0.041, 0.14}, {"BLOSUM62", 10, 1, 0.243, 0.024, 0.10},
    {"BLOSUM62", 9, 1, 0.206, 0.010, 0.052},
    {"BLOSUM80", 25, 2, 0.342, 0.17, 0.66}, {"BLOSUM80", 13, 2, 0.336, 0.15, 0.57},
    {"BLOSUM80", 9, 2, 0.319, 0.11, 0.42}, {"BLOSUM80", 8, 2, 0.308, 0.090, 0.35},
    {"BLOSUM80", 7, 2, 0.293, 0.070, 0.27}, {"BLOSUM80", 6, 2, 0.268, 0.045, 0.19},
    {"BLOSUM80", 11, 1, 0.314, 0.095, 0.35}, {"BLOSUM80", 10, 1, 0.299, 0.071, 0.27},
    {"BLOSUM80", 9, 1, 0.279, 0.048, 0.20},
    {"PAM250", 15, 3, 0.205, 0.049, 0.13}, {"PAM250", 14, 3, 0.200, 0.043, 0.12},
    {"PAM250", 13, 3, 0.194, 0.036, 0.10}, {"PAM250", 12, 3, 0.186, 0.029, 0.085},
    {"PAM250", 11, 3, 0.174, 0.020, 0.070}, {"PAM250", 17, 2, 0.204, 0.047, 0.12},
    {"PAM250", 16, 2, 0.198, 0.038, 0.11}, {"PAM250", 15, 2, 0.191, 0.031, 0.087},
    {"PAM250", 14, 2, 0.182, 0.024, 0.073}, {"PAM250", 13, 2, 0.171, 0.017, 0.059},
    {"PAM250", 21, 1, 0.205, 0.045, 0.11}, {"PAM250", 20, 1, 0.199, 0.037, 0.10},
    {"PAM250", 19, 1, 0.192, 0.029, 0.083}, {"PAM250", 18, 1, 0.183, 0.021, 0.070},
    {"PAM250", 17, 1, 0.171, 0.014, 0.052},
    {"PAM30", 7, 2, 0.305, 0.15, 0.87}, {"PAM30", 6, 2, 0.287, 0.11, 0.68},
    {"PAM30", 5, 2, 0.264, 0.079, 0.45}, {"PAM30", 10, 1, 0.309, 0.15, 0.88},
    {"PAM30", 9, 1, 0.294, 0.11, 0.61}, {"PAM30", 8, 1, 0.270, 0.072, 0.40},
    {"PAM70", 8, 2, 0.301, 0.12, 0.54}, {"PAM70", 7, 2, 0.286, 0.093, 0.43},
    {"PAM70", 6, 2, 0.264, 0.064, 0.29}, {"PAM70", 11, 1, 0.305, 0.12, 0.52},
    {"PAM70", 10, 1, 0.291, 0.091, 0.41}, {"PAM70", 9, 1, 0.270, 0.060, 0.28},
};

}  // namespace

KarlinAltschul karlin_altschul(const std::string& matrix_name, const GapPenalties& gaps) {
  const int existence = gaps.open - gaps.extend;
  for (const KarlinRow& row : kKarlinTable)
    if (matrix_name == row.matrix && existence == row.existence && gaps.extend == row.extension)
      return {row.lambda, row.k, row.h};
  throw InputError("no Karlin-Altschul parameters for " + matrix_name + " with gap open " + std::to_string(gaps.open) +
                   ", extend " + std::to_string(gaps.extend) + " (BLAST existence " + std::to_string(existence) +
                   ", extension " + std::to_string(gaps.extend) + "): use a combination BLAST supports");
}

double bit_score(const KarlinAltschul& ka, int score) { return (ka.lambda * score - std::log(ka.k)) / std::log(2.0); }

double evalue(const KarlinAltschul& ka, int score, std::uint64_t query_length, std::uint64_t database_residues) {
  return ka.k * static_cast<double>(query_length) * static_cast<double>(database_residues) * std::exp(-ka.lambda * score);
}

}  // namespace helix::swsearch
