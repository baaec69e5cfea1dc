// glcm_reference_test.cpp: the glcm CPU reference against values derived by
// hand: displacement sets, GLCM cells of tiny images, the 13 features of a
// two-level pattern, edge cases, and the aggregation over angles and windows.
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <gtest/gtest.h>

#include "glcm.h"
#include "glcm_engine.h"

namespace helix::glcm {
namespace {

// An image from rows of grey values.
GreyImage image_of(int width, int height, const std::vector<int>& values) {
  GreyImage image;
  image.width = width;
  image.height = height;
  for (int v : values) image.pixels.push_back(static_cast<std::uint8_t>(v));
  return image;
}

std::int32_t cell(const std::vector<std::int32_t>& counts, int levels, int i, int j) {
  return counts[static_cast<std::size_t>(i) * levels + j];
}

TEST(GlcmDisplacements, CountsPerDistanceAndTotal) {
  // Counted independently (docs/glcm.md quotes this table): lattice points of
  // the half plane with d^2 - d < dx^2 + dy^2 <= d^2 + d.
  const int expected[kMaxDistance] = {4,  6,  8,  16, 14, 20, 20, 24, 34, 28, 36, 34, 44,
                                      44, 42, 56, 56, 56, 58, 56, 72, 70, 72, 72, 84};
  int total = 0;
  for (int d = 1; d <= kMaxDistance; ++d) {
    const std::vector<Displacement> set = displacement_set(d);
    std::printf("distance %2d: %2zu displacements\n", d, set.size());
    EXPECT_EQ(static_cast<int>(set.size()), expected[d - 1]) << "distance " << d;
    total += static_cast<int>(set.size());
    for (std::size_t k = 0; k < set.size(); ++k) {
      const Displacement s = set[k];
      EXPECT_TRUE(s.dy > 0 || (s.dy == 0 && s.dx > 0)) << "half plane";
      EXPECT_EQ(std::lround(std::sqrt(double(s.dx * s.dx + s.dy * s.dy))), d);
      if (k > 0) {  // dy ascending, then dx ascending
        const Displacement p = set[k - 1];
        EXPECT_TRUE(p.dy < s.dy || (p.dy == s.dy && p.dx < s.dx));
      }
    }
  }
  std::printf("distances 1..%d: %d displacements in all\n", kMaxDistance, total);
  EXPECT_EQ(total, 1026);
}

TEST(GlcmDisplacements, DistanceOneAndTwoInFull) {
  // d = 1 holds the 8-neighbourhood's half: sqrt(2) = 1.41 rounds to 1.
  const std::vector<Displacement> one = {{1, 0}, {-1, 1}, {0, 1}, {1, 1}};
  EXPECT_EQ(displacement_set(1), one);
  // d = 2: n in 3..6, i.e. n = 4 and n = 5 (no lattice point has n = 3 or 6).
  const std::vector<Displacement> two = {{2, 0}, {-2, 1}, {2, 1}, {-1, 2}, {0, 2}, {1, 2}};
  EXPECT_EQ(displacement_set(2), two);
  EXPECT_THROW(displacement_set(0), std::invalid_argument);
}

TEST(GlcmWindow, DiscOfRadiusOneCountsOnlyPairsInside) {
  // 3x3 image whose level (value / 16) names the pixel: level = 3y + x.
  const GreyImage image = image_of(3, 3, {0, 16, 32, 48, 64, 80, 96, 112, 128});
  // The disc of radius 1 at (1,1) is the centre (4) and its 4-neighbours (1, 3, 5, 7).
  const int L = 16;
  // (1,0): 3->4 and 4->5; 1->? and 7->? leave the disc.
  auto c = glcm_of_window(image, 16, 1, 1, 1, {1, 0});
  EXPECT_EQ(cell(c, L, 3, 4), 1);
  EXPECT_EQ(cell(c, L, 4, 3), 1);
  EXPECT_EQ(cell(c, L, 4, 5), 1);
  EXPECT_EQ(cell(c, L, 5, 4), 1);
  EXPECT_EQ(glcm_sums(c, L).total, 4);
  // (1,1): (0,1)->(1,2) is 3->7, (1,0)->(2,1) is 1->5; the centre's (2,2) is outside.
  c = glcm_of_window(image, 16, 1, 1, 1, {1, 1});
  EXPECT_EQ(cell(c, L, 3, 7), 1);
  EXPECT_EQ(cell(c, L, 7, 3), 1);
  EXPECT_EQ(cell(c, L, 1, 5), 1);
  EXPECT_EQ(cell(c, L, 5, 1), 1);
  EXPECT_EQ(glcm_sums(c, L).total, 4);
  // Divisor 8 doubles the level numbers: 32 levels.
  c = glcm_of_window(image, 8, 1, 1, 1, {0, 1});  // 1->4 and 4->7 become 2->8 and 8->14
  EXPECT_EQ(cell(c, 32, 2, 8), 1);
  EXPECT_EQ(cell(c, 32, 14, 8), 1);
  EXPECT_EQ(glcm_sums(c, 32).total, 4);
  EXPECT_THROW(glcm_of_window(image, 16, 1, 1, 2, {1, 0}), std::invalid_argument);  // leaves the image
  EXPECT_THROW(glcm_of_window(image, 5, 1, 1, 1, {1, 0}), std::invalid_argument);
}

// 4x4, two levels (values 0 and 16 at divisor 16), left half 0, right half 1.
GreyImage half_and_half() {
  return image_of(4, 4, {0, 0, 16, 16, 0, 0, 16, 16, 0, 0, 16, 16, 0, 0, 16, 16});
}

TEST(GlcmFeatures, TwoLevelPatternHorizontal) {
  // Displacement (1,0): each row gives pairs 0-0, 0-1, 1-1, so N = [[4,4],[0,4]]
  // and the symmetric c = N + N^T = [[8,4],[4,8]], S = 24,
  // p = [[1/3, 1/6], [1/6, 1/3]]; p_x = p_y = (1/2, 1/2), mu = 1/2, sigma^2 = 1/4;
  // p_{x+y} = (1/3, 1/3, 1/3) over k = 0, 1, 2; p_{x-y} = (2/3, 1/3) over k = 0, 1.
  const auto counts = glcm_of_rectangle(half_and_half(), 16, 0, 0, 4, 4, {1, 0});
  EXPECT_EQ(cell(counts, 16, 0, 0), 8);
  EXPECT_EQ(cell(counts, 16, 0, 1), 4);
  EXPECT_EQ(cell(counts, 16, 1, 0), 4);
  EXPECT_EQ(cell(counts, 16, 1, 1), 8);
  const Features f = features_of_glcm(counts, 16);
  const double ln2 = std::log(2.0), ln3 = std::log(3.0);
  const double tol = 1e-15;
  EXPECT_NEAR(f[kAngularSecondMoment], 5.0 / 18, tol);         // 2/9 + 2/36
  EXPECT_NEAR(f[kContrast], 1.0 / 3, tol);                     // 1 * (1/6 + 1/6)
  EXPECT_NEAR(f[kCorrelation], 1.0 / 3, tol);                  // (1/3 - 1/4) / (1/4)
  EXPECT_NEAR(f[kVariance], 0.25, tol);                        // sigma^2
  EXPECT_NEAR(f[kInverseDifferenceMoment], 5.0 / 6, tol);      // 2/3 + (1/3)/2
  EXPECT_NEAR(f[kSumAverage], 1.0, tol);                       // (0 + 1 + 2) / 3
  EXPECT_NEAR(f[kSumVariance], 2.0 / 3, tol);                  // (1 + 0 + 1) / 3
  // Entropies pass through the 2^-44 grid of the x ln x table: a few ulp.
  const double entropy_tol = 4e-15;
  EXPECT_NEAR(f[kSumEntropy], ln3, entropy_tol);               // uniform over 3
  EXPECT_NEAR(f[kEntropy], ln3 + ln2 / 3, entropy_tol);                // 2/3 ln 3 + 1/3 ln 6
  EXPECT_NEAR(f[kDifferenceVariance], 2.0 / 9, tol);           // 1/3 - (1/3)^2
  EXPECT_NEAR(f[kDifferenceEntropy], ln3 - 2 * ln2 / 3, entropy_tol);  // -(2/3 ln 2/3 + 1/3 ln 1/3)
  // HX = ln 2, HXY1 = HXY2 = 2 ln 2: IMC1 = (HXY - 2 HX) / HX = ln3/ln2 - 5/3;
  // IMC2 = sqrt(1 - exp(-2 (2 HX - HXY))) = sqrt(1 - 9 * 2^(-10/3)).
  EXPECT_NEAR(f[kInformationCorrelation1], ln3 / ln2 - 5.0 / 3, entropy_tol);
  EXPECT_NEAR(f[kInformationCorrelation2], std::sqrt(1 - 9 * std::pow(2.0, -10.0 / 3)), 1e-14);
}

TEST(GlcmFeatures, TwoLevelPatternVertical) {
  // Displacement (0,1): 3 vertical pairs per column, all within one level:
  // c = [[12,0],[0,12]], p = diag(1/2, 1/2). Perfect correlation; HX = HXY = ln 2,
  // so IMC1 = (ln2 - 2 ln2) / ln2 = -1 and IMC2 = sqrt(1 - e^{-2 ln 2}) = sqrt(3)/2.
  const Features f = features_of_glcm(glcm_of_rectangle(half_and_half(), 16, 0, 0, 4, 4, {0, 1}), 16);
  EXPECT_DOUBLE_EQ(f[kAngularSecondMoment], 0.5);
  EXPECT_DOUBLE_EQ(f[kContrast], 0.0);
  EXPECT_DOUBLE_EQ(f[kCorrelation], 1.0);
  EXPECT_DOUBLE_EQ(f[kInverseDifferenceMoment], 1.0);
  EXPECT_DOUBLE_EQ(f[kDifferenceEntropy], 0.0);
  EXPECT_NEAR(f[kEntropy], std::log(2.0), 1e-15);
  EXPECT_NEAR(f[kInformationCorrelation1], -1.0, 1e-15);
  EXPECT_NEAR(f[kInformationCorrelation2], std::sqrt(3.0) / 2, 1e-15);
}

TEST(GlcmFeatures, SingleGreyLevelEdgeCases) {
  // One level: p(0,0) = 1. sigma^2 = 0: correlation is defined as 1 (as skimage);
  // HX = HXY = 0: IMC1 is defined as 0, IMC2 = sqrt(1 - e^0) = 0. Entropies are
  // exactly 0 (each term is x (ln S - ln x) = 0).
  const GreyImage flat = image_of(4, 4, std::vector<int>(16, 200));
  const Features f = features_of_glcm(glcm_of_rectangle(flat, 4, 0, 0, 4, 4, {1, 1}), 64);
  const Features expected = {1, 0, 1, 0, 1, 2 * 50, 0, 0, 0, 0, 0, 0, 0};  // level 200/4 = 50
  for (int k = 0; k < kFeatureCount; ++k) EXPECT_EQ(f[k], expected[k]) << "feature f" << k + 1;
}

TEST(GlcmFeatures, EmptyGlcmIsRefused) {
  EXPECT_THROW(glcm_sums(std::vector<std::int32_t>(64 * 64, 0), 64), std::invalid_argument);
  EXPECT_THROW(glcm_sums(std::vector<std::int32_t>(10, 1), 64), std::invalid_argument);
}

// A GLCM whose rows are proportional ({(5,5):20, (5,6):40, (6,5):40, (6,6):80},
// S = 180, met at 16 levels by displacement (-25, 2) in a real image) has
// HXY = 2 HX exactly: the mutual information, IMC1 and IMC2 are exactly 0.
// Four entries of the old table (x = 60, 80, 120, 180, rounded from a double
// product) were a unit of 2^-44 off, and IMC2 came out as 5.05e-8.
TEST(GlcmFeatures, ProportionalRowsHaveNoMutualInformation) {
  std::vector<std::int32_t> counts(16 * 16, 0);
  counts[5 * 16 + 5] = 20, counts[5 * 16 + 6] = 40, counts[6 * 16 + 5] = 40, counts[6 * 16 + 6] = 80;
  const Features f = features_of_glcm(counts, 16);
  EXPECT_EQ(f[kInformationCorrelation2], 0.0);
  EXPECT_EQ(f[kInformationCorrelation1], 0.0);
  const GlcmSums g = glcm_sums(counts, 16);
  EXPECT_EQ(2 * (xlogx_fixed(g.total) - g.marginal_xlogx), xlogx_fixed(g.total) - g.cell_xlogx);
}

// X(x) = round(2^44 x ln x), as docs/glcm.md defines it, for every count a GLCM
// of the reference can hold (0 .. 2^15 - 1; the engines' table is its start),
// against Python's decimal module at 60 digits, an independent exact computation.
TEST(GlcmFeatures, EntropyTableIsTheCorrectlyRoundedDefinition) {
  if (std::system("/usr/bin/python3 -c 'import decimal' >/dev/null 2>&1") != 0) GTEST_SKIP() << "needs /usr/bin/python3";
  const std::string script =
      "import decimal\n"
      "decimal.getcontext().prec = 60\n"
      "scale = decimal.Decimal(2) ** 44\n"
      "for x in range(32768):\n"
      "    v = 0 if x <= 1 else (decimal.Decimal(x) * decimal.Decimal(x).ln() * scale)"
      ".to_integral_value(rounding=decimal.ROUND_HALF_EVEN)\n"
      "    print(v)\n";
  FILE* pipe = popen(("/usr/bin/python3 -c '" + script + "'").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  const std::vector<std::int64_t> table = xlogx_table(static_cast<int>(kMaxTotal) - 1);
  long long expected = 0;
  std::size_t x = 0, wrong = 0;
  for (; std::fscanf(pipe, "%lld", &expected) == 1; ++x) {
    ASSERT_LT(x, table.size());
    if (table[x] != expected && ++wrong <= 5) ADD_FAILURE() << "X(" << x << ") = " << table[x] << ", exactly " << expected;
  }
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_EQ(x, table.size());
  EXPECT_EQ(wrong, 0u);
}

TEST(GlcmWindowFeatures, VerticalStripesAtDistanceOne) {
  // Columns alternate levels 0 and 1. At d = 1: (1,0), (-1,1) and (1,1) pair
  // different levels only (p(0,1) = p(1,0) = 1/2: contrast 1, correlation -1,
  // IDM 1/2), (0,1) equal levels only (contrast 0, correlation 1, IDM 1), for
  // any window shape. Means over the 4 displacements: contrast 3/4,
  // correlation -1/2, IDM 5/8, difference entropy 0; IMC1 is -1 for each.
  GreyImage stripes;
  stripes.width = stripes.height = 40;
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 40; ++x) stripes.pixels.push_back(static_cast<std::uint8_t>(x % 2 ? 16 : 0));
  const Features f = window_features(stripes, 16, 20, 20, kWindowRadius, 1);
  EXPECT_DOUBLE_EQ(f[kContrast], 0.75);
  EXPECT_DOUBLE_EQ(f[kCorrelation], -0.5);
  EXPECT_DOUBLE_EQ(f[kInverseDifferenceMoment], 0.625);
  EXPECT_DOUBLE_EQ(f[kDifferenceEntropy], 0.0);
  EXPECT_NEAR(f[kInformationCorrelation1], -1.0, 1e-15);
}

TEST(GlcmWindowFeatures, MeanOverTheDistancesDisplacementsInFixedPoint) {
  GreyImage image;
  image.width = image.height = 64;
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) image.pixels.push_back(static_cast<std::uint8_t>((x * 37 + y * y * 11) % 256));
  for (int d : {1, 9, 25}) {
    const FixedFeatures fixed = window_fixed_sums(image, 8, 32, 31, kWindowRadius, d);
    const Features f = window_features(image, 8, 32, 31, kWindowRadius, d);
    FixedFeatures expected_fixed{};
    Features mean{};
    const auto set = displacement_set(d);
    for (const Displacement& delta : set) {
      const Features g = features_of_glcm(glcm_of_window(image, 8, 32, 31, kWindowRadius, delta), 32);
      for (int k = 0; k < kFeatureCount; ++k) {
        expected_fixed[k] += std::llrint(std::ldexp(g[k], feature_fixed_bits(k)));
        mean[k] += g[k] / set.size();
      }
    }
    for (int k = 0; k < kFeatureCount; ++k) {
      EXPECT_EQ(fixed[k], expected_fixed[k]) << "d " << d << " f" << k + 1;
      EXPECT_EQ(f[k], std::ldexp(double(expected_fixed[k]), -feature_fixed_bits(k)) / set.size());
      // The fixed point costs at most a unit of 2^-bits per term: far below
      // the features' own precision.
      EXPECT_NEAR(f[k], mean[k], 1e-13 * std::max(1.0, std::fabs(mean[k]))) << "d " << d << " f" << k + 1;
    }
  }
}

TEST(GlcmWindowFeatures, AggregateOverWindows) {
  // Three windows of 4 displacements each, fixed sums a, b, c.
  FixedFeatures a{}, b{}, c{};
  for (int k = 0; k < kFeatureCount; ++k) {
    const std::int64_t unit = std::int64_t{1} << feature_fixed_bits(k);  // 1.0 in fixed point
    a[k] = 4 * k * unit, b[k] = -4 * k * unit, c[k] = 8 * k * unit + 3;
  }
  const WindowStatistics s = aggregate_windows({a, b, c}, 4);
  for (int k = 0; k < kFeatureCount; ++k) {
    const double ulp = std::ldexp(1.0, -feature_fixed_bits(k));
    EXPECT_EQ(s.max[k], 2 * k + 3 * ulp / 4);
    EXPECT_EQ(s.min[k], -k);
    EXPECT_EQ(s.range[k], s.max[k] - s.min[k]);
    EXPECT_EQ(s.mean[k], (8.0 * k + 3 * ulp) / 12);
  }
  EXPECT_THROW(aggregate_windows({}, 4), std::invalid_argument);
  EXPECT_THROW(aggregate_windows({a}, 0), std::invalid_argument);
}

TEST(GlcmMath, LogAndExpAgreeWithLibm) {
  // The deterministic log/exp stay within a few ulp of libm's.
  for (double x : {1e-300, 1e-10, 0.1, 0.5, 0.7071, 1.0, 1.5, 2.0, 3.0, 10.0, 1610.0, 16777215.0, 1e300}) {
    EXPECT_NEAR(glcm_log(x), std::log(x), 4e-16 * std::max(1.0, std::fabs(std::log(x)))) << x;
  }
  EXPECT_EQ(glcm_log(1.0), 0.0);
  for (double x : {-700.0, -30.0, -2.0, -1.0, -0.3, -1e-8, 0.0, 0.5, 1.0, 20.0}) {
    EXPECT_NEAR(glcm_exp(x), std::exp(x), 4e-16 * std::exp(x)) << x;
  }
  EXPECT_EQ(glcm_exp(0.0), 1.0);
  EXPECT_EQ(glcm_exp(-800.0), 0.0);
}

TEST(GlcmMath, Expm1KeepsItsDigitsNearZero) {
  for (double x : {-700.0, -30.0, -2.0, -0.5, -0.3466, -0.3, -1e-3, -1e-8, -1e-12, -1e-17, -1e-300, 0.0, 1e-300, 1e-12,
                   1e-8, 0.1, 0.3466, 0.5, 1.0, 20.0})
    EXPECT_NEAR(glcm_expm1(x), std::expm1(x), 4e-16 * std::fabs(std::expm1(x))) << x;
  EXPECT_EQ(glcm_expm1(0.0), 0.0);
  EXPECT_EQ(glcm_expm1(-800.0), -1.0);
}

// IMC2 = sqrt(1 - e^(-2m)) of a GLCM with a tiny mutual information m: rows
// almost proportional ({(5,5):20000, (5,6):40000, (6,5):40000, (6,6):80001},
// scaled down to the kind's S < 2^15 by counts of 200/400/400/801). Its
// correct value, from the same m, is sqrt(-expm1(-2m)); 1 - exp(-2m) would
// have kept only a few digits of it.
TEST(GlcmFeatures, Imc2IsAccurateForATinyMutualInformation) {
  std::vector<std::int32_t> counts(16 * 16, 0);
  counts[5 * 16 + 5] = 200, counts[5 * 16 + 6] = 400, counts[6 * 16 + 5] = 400, counts[6 * 16 + 6] = 801;
  const Features f = features_of_glcm(counts, 16);
  const GlcmSums g = glcm_sums(counts, 16);
  const std::int64_t mutual_num = 2 * (xlogx_fixed(g.total) - g.marginal_xlogx) - (xlogx_fixed(g.total) - g.cell_xlogx);
  ASSERT_GT(mutual_num, 0);
  const long double mutual = std::ldexp(static_cast<long double>(mutual_num), -kFixedBits) / g.total;
  ASSERT_LT(mutual, 1e-6L);
  const double exact = static_cast<double>(std::sqrt(-std::expm1(-2 * mutual)));
  EXPECT_NEAR(f[kInformationCorrelation2], exact, 4e-16 * exact);
}

}  // namespace
}  // namespace helix::glcm
