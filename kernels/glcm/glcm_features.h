// glcm_features.h: the 13 Haralick features of one GLCM, from its integer sums.
// Shared by the CPU reference, the CPU sliding engine and the GPU engine: every
// function here is HELIX_GLCM_HD, uses plain structs, integer sums and a fixed
// order of floating operations, so all engines produce the same doubles
// (docs/glcm.md).
//
// Contents:
//   GlcmSums              what a GLCM reduces to: 14 exact int64 sums
//   X(x) = round(2^44 x ln x), the entropy table: xlogx_fixed() (glcm_engine.h),
//                         computed exactly on the host; engines read it from a table
//   idm_numerator()       sum d(k) / (1 + k^2) in one fixed summation tree
//   add_pair_linear()     the part of a pair's contribution that needs no counts
//   haralick_features()   the 13 doubles of a GlcmSums
//   feature_to_fixed() / fixed_to_feature()  the fixed point of the angle mean
//
// Why integer sums: a GLCM holds counts. Every moment the features need is an
// exact integer, and the entropies become exact integers too once x ln x is
// tabulated in fixed point (2^-44). The one float sum left, the inverse
// difference moment, runs over the difference histogram in a fixed tree that
// a GPU warp evaluates with shuffles (see idm_numerator). Integer sums
// do not depend on the order they are accumulated in, so a GLCM built pixel
// by pixel, updated incrementally as a window slides, or updated by 32 GPU
// lanes with atomics reduces to the very same GlcmSums, and one function turns
// that into doubles.
#pragma once
#include <cstdint>

#include "glcm_math.h"

namespace helix::glcm {

constexpr int kMaxLevels = 64;     // 8-bit values / 4: the finest quantisation the kind uses
constexpr int kFeatureCount = 13;  // Haralick f1..f13, in Haralick's order
constexpr int kFixedBits = 44;     // the entropy table is in units of 2^-44
constexpr std::int64_t kMaxTotal = std::int64_t{1} << 15;  // S < 2^15 keeps every sum below exact in int64

// Index of each feature in a features array (Haralick 1973, f1..f13).
enum Feature : int {
  kAngularSecondMoment = 0,      // f1  ASM
  kContrast = 1,                 // f2
  kCorrelation = 2,              // f3
  kVariance = 3,                 // f4  sum of squares: variance
  kInverseDifferenceMoment = 4,  // f5  IDM (homogeneity)
  kSumAverage = 5,               // f6
  kSumVariance = 6,              // f7
  kSumEntropy = 7,               // f8
  kEntropy = 8,                  // f9
  kDifferenceVariance = 9,       // f10
  kDifferenceEntropy = 10,       // f11
  kInformationCorrelation1 = 11, // f12 IMC1
  kInformationCorrelation2 = 12, // f13 IMC2
};

// A symmetric GLCM c (c = N + N^T, N the ordered pair counts) reduced to exact
// integer sums. With r(i) = sum_j c(i,j) the marginal, s(k) = sum_{i+j=k} c the
// sum histogram and d(k) = sum_{|i-j|=k} c the difference histogram (levels
// and bins from 0), and X(x) = xlogx_fixed(x) = round(2^44 x ln x):
struct GlcmSums {
  std::int64_t total;               // S = sum c(i,j) = 2 x pairs
  std::int64_t sum_counts_squared;  // sum c(i,j)^2
  std::int64_t cross_moment;        // sum i j c(i,j)
  std::int64_t marginal_first;      // sum i r(i)
  std::int64_t marginal_second;     // sum i^2 r(i)
  std::int64_t sum_first;           // sum k s(k)
  std::int64_t sum_second;          // sum k^2 s(k)
  std::int64_t difference_first;    // sum k d(k)
  std::int64_t difference_second;   // sum k^2 d(k)
  std::int64_t cell_xlogx;          // sum over cells of X(c(i,j))
  std::int64_t marginal_xlogx;      // sum X(r(i))
  std::int64_t sum_xlogx;           // sum X(s(k))
  std::int64_t difference_xlogx;    // sum X(d(k))
  double idm_numerator;             // idm_numerator(d): sum d(k) / (1 + k^2), not a running sum
};

// The inverse difference moment's numerator sum_k d(k) / (1 + k^2) over the
// difference histogram d(0..levels-1), summed in a fixed binary tree over 64
// bins (bins >= levels are 0): first t(l) = v(l) + v(l + 32) for l < 32, then
// five rounds t(l) = t(l) + t(l xor step), step = 16, 8, 4, 2, 1; the result
// is t(0). This is exactly what a warp's xor-shuffle reduction computes (lane
// l holds bins l and l + 32; addition commutes, so every lane ends with t(0)).
// Why not fixed point like the entropies: the weights span 1 .. 1/3970, and a
// 2^-44 grid would cost the small ones 1e-10 of their value.
HELIX_GLCM_HD double idm_bin_term(std::int64_t count, int k) {
  return static_cast<double>(count) / static_cast<double>(1 + k * k);
}
template <typename Count>
HELIX_GLCM_HD double idm_numerator(const Count* difference_histogram, int levels) {
  double t[32];
  for (int l = 0; l < 32; ++l) {
    const double low = l < levels ? idm_bin_term(difference_histogram[l], l) : 0.0;
    const double high = l + 32 < levels ? idm_bin_term(difference_histogram[l + 32], l + 32) : 0.0;
    t[l] = low + high;
  }
  for (int step = 16; step >= 1; step /= 2) {
    double next[32];
    for (int l = 0; l < 32; ++l) next[l] = t[l] + t[l ^ step];
    for (int l = 0; l < 32; ++l) t[l] = next[l];
  }
  return t[0];
}

// Adds (sign = +1) or removes (sign = -1) the counts-independent part of one
// pixel pair with grey levels a and b: the pair adds 1 to c(a,b) and 1 to
// c(b,a). What depends on the counts (sum c^2, the X sums and the IDM) is the
// caller's: it knows the old counts and the histogram.
HELIX_GLCM_HD void add_pair_linear(GlcmSums& g, int a, int b, int sign) {
  const std::int64_t sum = a + b, difference = a > b ? a - b : b - a;
  g.total += 2 * sign;
  g.cross_moment += 2 * sign * a * b;
  g.marginal_first += sign * sum;
  g.marginal_second += sign * (a * a + b * b);
  g.sum_first += 2 * sign * sum;
  g.sum_second += 2 * sign * sum * sum;
  g.difference_first += 2 * sign * difference;
  g.difference_second += 2 * sign * difference * difference;
}

// The 13 Haralick features of a symmetric GLCM, natural log, p = c / S, into
// out[0..12] (f1..f13, see Feature). Requires 0 < S < kMaxTotal (glcm_sums()
// checks it; a window has S <= 1594) so every int64 product below is exact.
// total_xlogx is X(S), from the same exact table as the X sums (xlogx_fixed()).
// Edge cases (docs/glcm.md): correlation is 1 when the marginal variance is 0
// (a single grey level; as skimage); IMC1 is 0 when HX = 0; the mutual
// information 2 HX - HXY is clamped at 0 against the tables' rounding.
HELIX_GLCM_HD void haralick_features(const GlcmSums& g, std::int64_t total_xlogx, double out[kFeatureCount]) {
  const std::int64_t S = g.total;
  const double s = static_cast<double>(S);
  const double s2 = s * s;  // exact: S < 2^15
  const std::int64_t x_total = total_xlogx;

  const std::int64_t marginal_var_num = S * g.marginal_second - g.marginal_first * g.marginal_first;
  const std::int64_t covariance_num = S * g.cross_moment - g.marginal_first * g.marginal_first;
  const std::int64_t sum_var_num = S * g.sum_second - g.sum_first * g.sum_first;
  const std::int64_t difference_var_num = S * g.difference_second - g.difference_first * g.difference_first;
  const std::int64_t cell_entropy_num = x_total - g.cell_xlogx;          // 2^44 S HXY
  const std::int64_t marginal_entropy_num = x_total - g.marginal_xlogx;  // 2^44 S HX
  std::int64_t mutual_num = 2 * marginal_entropy_num - cell_entropy_num;  // 2^44 S (2 HX - HXY)
  if (mutual_num < 0) mutual_num = 0;

  out[kAngularSecondMoment] = static_cast<double>(g.sum_counts_squared) / s2;
  out[kContrast] = static_cast<double>(g.difference_second) / s;
  out[kCorrelation] = marginal_var_num == 0
                          ? 1.0
                          : static_cast<double>(covariance_num) / static_cast<double>(marginal_var_num);
  out[kVariance] = static_cast<double>(marginal_var_num) / s2;
  out[kInverseDifferenceMoment] = g.idm_numerator / s;
  out[kSumAverage] = static_cast<double>(g.sum_first) / s;
  out[kSumVariance] = static_cast<double>(sum_var_num) / s2;
  out[kSumEntropy] = ldexp(static_cast<double>(x_total - g.sum_xlogx), -kFixedBits) / s;
  out[kEntropy] = ldexp(static_cast<double>(cell_entropy_num), -kFixedBits) / s;
  out[kDifferenceVariance] = static_cast<double>(difference_var_num) / s2;
  out[kDifferenceEntropy] = ldexp(static_cast<double>(x_total - g.difference_xlogx), -kFixedBits) / s;
  // f12 (HXY - HXY1) / HX with HXY1 = 2 HX (symmetric GLCM): -mutual / HX.
  out[kInformationCorrelation1] =
      marginal_entropy_num > 0 ? -static_cast<double>(mutual_num) / static_cast<double>(marginal_entropy_num) : 0.0;
  // f13 sqrt(1 - exp(-2 (HXY2 - HXY))), HXY2 = 2 HX.
  // 1 - e^(-2m) as -expm1(-2m): near m = 0, where IMC2 ~ sqrt(2m), 1 - exp
  // would keep only the bits of 2m above 2^-53 (m = 1e-12: 4 digits).
  const double mutual = ldexp(static_cast<double>(mutual_num), -kFixedBits) / s;
  const double one_minus = -glcm_expm1(-2.0 * mutual);
  out[kInformationCorrelation2] = sqrt(one_minus > 0 ? one_minus : 0.0);
}

// The angle mean is taken in fixed point, so that it does not depend on the
// order the displacements are summed in (GPU warps finish in any order): each
// feature value is rounded to a multiple of 2^-bits(feature), bits chosen so
// that |value| < 2^52 in those units (bound 2^b, bits = 52 - b), and the
// integers are summed. Bounds for L <= 64: ASM, IDM, IMC2 in [0,1];
// correlation and IMC1 in [-1,1] (2 with rounding); contrast and sum variance
// <= 63^2; variance and difference variance <= 63^2/4; sum average <= 126;
// entropies <= ln 2^15.
HELIX_GLCM_HD int feature_fixed_bits(int feature) {
  constexpr int kBoundLog2[kFeatureCount] = {1, 12, 1, 10, 1, 7, 12, 3, 4, 10, 3, 1, 1};
  return 52 - kBoundLog2[feature];
}
HELIX_GLCM_HD std::int64_t feature_to_fixed(int feature, double value) {
  return llrint(ldexp(value, feature_fixed_bits(feature)));
}
// The mean of `count` fixed-point values whose sum is `fixed_sum`.
HELIX_GLCM_HD double fixed_to_feature(int feature, std::int64_t fixed_sum, double count) {
  return ldexp(static_cast<double>(fixed_sum), -feature_fixed_bits(feature)) / count;
}

}  // namespace helix::glcm
