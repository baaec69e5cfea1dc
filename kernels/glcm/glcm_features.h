// glcm_features.h: the 13 Haralick features of one GLCM, from its integer sums.
// Shared by the CPU reference and (later) the GPU port: every function here is
// HELIX_GLCM_HD, uses plain arrays, integer sums and a fixed order of floating
// operations, so both engines produce the same doubles (docs/glcm.md).
//
// Contents: kMaxLevels, kFeatureCount, GlcmSums (what a GLCM reduces to),
// entropy_numerator(), haralick_features().
//
// Why integer sums: a GLCM holds counts. Every moment the features need
// (sum of counts, of squared counts, marginal / sum / difference histograms and
// their first and second moments, the cross moment sum i*j*c) is an exact
// integer, whatever order it is accumulated in. Variances and the correlation
// are then ONE rounded division of exact int64 numerators (S*sum x^2 - (sum x)^2),
// converted to double exactly (they stay below 2^53). Only the entropies are
// float sums; they run in ascending bin order.
#pragma once
#include <cstdint>

#include "glcm_math.h"

namespace helix::glcm {

constexpr int kMaxLevels = 64;     // 8-bit values / 4: the finest quantisation the kind uses
constexpr int kFeatureCount = 13;  // Haralick f1..f13, in Haralick's order

// Index of each feature in a features array (Haralick 1973, f1..f13).
enum Feature : int {
  kAngularSecondMoment = 0,   // f1  ASM
  kContrast = 1,              // f2
  kCorrelation = 2,           // f3
  kVariance = 3,              // f4  sum of squares: variance
  kInverseDifferenceMoment = 4,  // f5  IDM (homogeneity)
  kSumAverage = 5,            // f6
  kSumVariance = 6,           // f7
  kSumEntropy = 7,            // f8
  kEntropy = 8,               // f9
  kDifferenceVariance = 9,    // f10
  kDifferenceEntropy = 10,    // f11
  kInformationCorrelation1 = 11,  // f12 IMC1
  kInformationCorrelation2 = 12,  // f13 IMC2
};

// A symmetric GLCM of `levels` grey levels reduced to what the features need.
// All histograms are indexed from grey level 0 (not Haralick's 1).
struct GlcmSums {
  int levels;                                      // L, 2..kMaxLevels
  std::int64_t total;                              // S = sum of counts c(i,j) (2 x pairs)
  std::int64_t sum_counts_squared;                 // sum c(i,j)^2
  std::int64_t cross_moment;                       // sum i*j*c(i,j)
  std::int64_t marginal[kMaxLevels];               // r(i) = sum_j c(i,j) (= column sums: symmetric)
  std::int64_t sum_histogram[2 * kMaxLevels - 1];  // s(k) = sum_{i+j=k} c(i,j), k = 0..2L-2
  std::int64_t difference_histogram[kMaxLevels];   // d(k) = sum_{|i-j|=k} c(i,j), k = 0..L-1
  double cell_entropy_numerator;                   // entropy_numerator over all cells, row-major
};

// sum_k x_k (ln S - ln x_k) over the x_k > 0, k ascending, where S = total.
// Divided by S this is the entropy -sum p ln p of p_k = x_k / S. Written this
// way every term is >= 0 and a single non-empty bin gives exactly 0. Count is
// std::int64_t (histograms) or std::int32_t (the GLCM cells themselves).
template <typename Count>
HELIX_GLCM_HD double entropy_numerator(const Count* x, int n, std::int64_t total) {
  const double log_total = glcm_log(static_cast<double>(total));
  double sum = 0;
  for (int k = 0; k < n; ++k) {
    if (x[k] > 0) {
      const double xk = static_cast<double>(x[k]);
      sum = sum + xk * (log_total - glcm_log(xk));
    }
  }
  return sum;
}

// The variance numerator of a histogram h over bins 0..n-1 with total S:
// S * sum k^2 h(k) - (sum k h(k))^2, exact in int64 and below 2^53 for the
// sizes glcm_sums() admits (S < 2^19, k < 2^7). Divided by S^2 it is the variance.
HELIX_GLCM_HD std::int64_t variance_numerator(const std::int64_t* h, int n, std::int64_t total) {
  std::int64_t first = 0, second = 0;
  for (int k = 0; k < n; ++k) {
    first += static_cast<std::int64_t>(k) * h[k];
    second += static_cast<std::int64_t>(k) * k * h[k];
  }
  return total * second - first * first;
}

// The 13 Haralick features of a symmetric GLCM, natural log, p = c / S, into
// out[0..12] (f1..f13, see Feature). Requires 0 < sums.total < 2^19
// (glcm_sums() checks it). Edge cases (docs/glcm.md): correlation is 1 when the
// marginal variance is 0 (a single grey level; as skimage); IMC1 is 0 when
// HX = 0 (then HXY = 0 too); the mutual information in IMC2 is clamped at 0.
HELIX_GLCM_HD void haralick_features(const GlcmSums& g, double out[kFeatureCount]) {
  const int L = g.levels;
  const std::int64_t S = g.total;
  const double s = static_cast<double>(S);
  const double s2 = s * s;  // exact: S < 2^19

  std::int64_t marginal_first = 0;
  for (int i = 0; i < L; ++i) marginal_first += static_cast<std::int64_t>(i) * g.marginal[i];
  const std::int64_t marginal_var_num = variance_numerator(g.marginal, L, S);
  std::int64_t contrast_num = 0;
  for (int k = 0; k < L; ++k) contrast_num += static_cast<std::int64_t>(k) * k * g.difference_histogram[k];
  std::int64_t sum_first = 0;
  for (int k = 0; k <= 2 * L - 2; ++k) sum_first += static_cast<std::int64_t>(k) * g.sum_histogram[k];

  // f1 ASM: sum p^2.
  out[kAngularSecondMoment] = static_cast<double>(g.sum_counts_squared) / s2;
  // f2 contrast: sum (i-j)^2 p = sum k^2 p_{x-y}(k).
  out[kContrast] = static_cast<double>(contrast_num) / s;
  // f3 correlation: (sum i j p - mu^2) / sigma^2 (mu_x = mu_y, sigma_x = sigma_y).
  const std::int64_t covariance_num = S * g.cross_moment - marginal_first * marginal_first;
  out[kCorrelation] = marginal_var_num == 0
                          ? 1.0
                          : static_cast<double>(covariance_num) / static_cast<double>(marginal_var_num);
  // f4 sum of squares: variance sum (i - mu)^2 p.
  out[kVariance] = static_cast<double>(marginal_var_num) / s2;
  // f5 IDM: sum p / (1 + (i-j)^2), over k = |i-j| ascending.
  double idm = 0;
  for (int k = 0; k < L; ++k)
    idm = idm + static_cast<double>(g.difference_histogram[k]) / static_cast<double>(1 + k * k);
  out[kInverseDifferenceMoment] = idm / s;
  // f6 sum average: sum k p_{x+y}(k), k = i + j from 0.
  out[kSumAverage] = static_cast<double>(sum_first) / s;
  // f7 sum variance: sum (k - f6)^2 p_{x+y}(k).
  out[kSumVariance] = static_cast<double>(variance_numerator(g.sum_histogram, 2 * L - 1, S)) / s2;
  // f8 sum entropy, f9 entropy (HXY), f11 difference entropy.
  out[kSumEntropy] = entropy_numerator(g.sum_histogram, 2 * L - 1, S) / s;
  const double hxy = g.cell_entropy_numerator / s;
  out[kEntropy] = hxy;
  // f10 difference variance: variance of p_{x-y}.
  out[kDifferenceVariance] = static_cast<double>(variance_numerator(g.difference_histogram, L, S)) / s2;
  out[kDifferenceEntropy] = entropy_numerator(g.difference_histogram, L, S) / s;
  // f12, f13: HX = HY (symmetric), HXY1 = HXY2 = HX + HY = 2 HX exactly
  // (sum_j p(i,j) = p_x(i)), so the mutual information is 2 HX - HXY >= 0.
  const double hx = entropy_numerator(g.marginal, L, S) / s;
  const double mutual = 2 * hx - hxy;
  out[kInformationCorrelation1] = hx > 0 ? (hxy - 2 * hx) / hx : 0.0;
  const double one_minus = 1.0 - glcm_exp(-2.0 * (mutual > 0 ? mutual : 0.0));
  out[kInformationCorrelation2] = sqrt(one_minus > 0 ? one_minus : 0.0);
}

}  // namespace helix::glcm
