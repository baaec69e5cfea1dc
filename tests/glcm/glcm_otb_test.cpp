// glcm_otb_test.cpp: the glcm CPU reference against the Orfeo ToolBox (OTB
// 8.1, Debian otb-bin: otbcli_HaralickTextureExtraction), an implementation
// independent of skimage that has the entropy, sum, difference and
// information-measure features skimage lacks. otb_haralick.py runs OTB on
// square windows of skimage's images; here each OTB value is compared with the
// same quantity derived from features_of_glcm() of the same GLCM.
//
// OTB's definitions (read in its ScalarImageToTexturesFilter and
// ScalarImageToAdvancedTexturesFilter) differ from ours in known ways, undone
// below so that each comparison is exact up to OTB's float output:
//   - its GLCM of a window counts pairs whose first pixel is in the window and
//     whose second is anywhere in the image: our glcm_of_rectangle() over the
//     window stretched by the offset (stretched_window_glcm()). Symmetric, as ours.
//   - entropies are in bits (log2), ours in nats;
//   - levels are shifted by +64 (the driver's binning, see otb_haralick.py),
//     which moves the mean and sum average and nothing else;
//   - its "correlation" divides the covariance by the variance squared: f3 / f4;
//   - its difference histogram holds only pairs with i <= j, so every
//     off-diagonal difference p_{x-y}(k), k > 0, is halved;
//   - its IC1 and IC2 mix log2 (HXY) and ln (HX, HXY1, HXY2);
//   - its entropies skip probabilities <= 1e-4; all cells and histogram bins
//     exceed that here (S < 10^4), but the products p_x(i) p_y(j) in HXY1 and
//     HXY2 do only when every level present has p_x > 1%: IC1 and IC2 are
//     compared only then (always for 7 x 7 windows: S = 98 < 100).
// Not compared: cluster shade and prominence (not among the 13), OTB's
// "Haralick correlation" (mean and variance of the marginal probabilities'
// values, not of grey levels: not f3) and its "dissimilarity"
// sum (j - i) p(i,j)^2, which a symmetric GLCM makes 0 (checked as such).
//
// Skips when otbcli_HaralickTextureExtraction is not installed
// (apt-get install otb-bin) or /usr/bin/python3 lacks skimage / tifffile.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "glcm.h"

namespace helix::glcm {
namespace {

// OTB computes in double and stores float32 images: its value is the exact one
// rounded to float, off by at most half an ulp, 2^-24 relative. The absolute
// part covers OTB's own double sums, e.g. its sum variance
// E[k^2] - E[k]^2 with k ~ 130..250 after the +64 shift (~1e-12), and values
// near 0 (its IC1); our values are accurate to ~1e-13 relative.
constexpr double kRelativeTolerance = 0x1p-24;
constexpr double kAbsoluteTolerance = 1e-10;
constexpr double kLevelShift = 64;  // OTB's level = ours + 64 (otb_haralick.py's binning)
constexpr double kOtbProbabilityFloor = 1e-4;  // OTB's entropies skip p <= 1e-4

const char* const kWindows = "camera,256,256;camera,120,420;brick,100,100;grass,300,200;gravel,400,300";
const char* const kOffsets = "1,0;0,1;1,1;-1,1;2,1;3,0";
constexpr int kWindowCount = 5, kOffsetCount = 6, kDivisorCount = 3;

bool otb_installed() { return std::system("command -v otbcli_HaralickTextureExtraction >/dev/null 2>&1") == 0; }
bool python_has_modules() {
  return std::system("/usr/bin/python3 -c 'import skimage.data, tifffile' >/dev/null 2>&1") == 0;
}

::testing::AssertionResult agrees(const std::string& name, double expected, double otb) {
  const double scale = std::max(std::fabs(expected), std::fabs(otb));
  if (std::fabs(expected - otb) <= kRelativeTolerance * scale + kAbsoluteTolerance)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << name << ": expected " << expected << " OTB " << otb
                                       << " (difference " << std::fabs(expected - otb) << ")";
}

// OTB's GLCM of the (2 radius + 1)^2 square around (cx, cy): pairs starting in
// the square, ending anywhere. Both ends lie in the rectangle spanning the
// square and the square moved by delta, and every pair of that rectangle
// starts in the square.
std::vector<std::int32_t> stretched_window_glcm(const GreyImage& image, int divisor, int cx, int cy, int radius,
                                                Displacement delta) {
  const int side = 2 * radius + 1;
  const int x0 = cx - radius + std::min(0, delta.dx), y0 = cy - radius + std::min(0, delta.dy);
  return glcm_of_rectangle(image, divisor, x0, y0, side + std::abs(delta.dx), side + std::abs(delta.dy), delta);
}

struct GlcmFacts {
  std::int64_t total = 0;      // S
  double diagonal_share = 0;   // p_{x-y}(0) = sum_i p(i,i)
  double smallest_marginal = 1;  // min over levels present of p_x(i)
};

GlcmFacts facts_of(const std::vector<std::int32_t>& counts, int levels) {
  GlcmFacts facts;
  std::vector<std::int64_t> marginal(levels, 0);
  std::int64_t diagonal = 0;
  for (int i = 0; i < levels; ++i)
    for (int j = 0; j < levels; ++j) {
      const std::int32_t c = counts[static_cast<std::size_t>(i) * levels + j];
      facts.total += c;
      marginal[i] += c;
      if (i == j) diagonal += c;
    }
  facts.diagonal_share = static_cast<double>(diagonal) / facts.total;
  for (std::int64_t r : marginal)
    if (r > 0) facts.smallest_marginal = std::min(facts.smallest_marginal, static_cast<double>(r) / facts.total);
  return facts;
}

// -x log2 x, 0 at 0.
double bits(double x) { return x > 0 ? -x * std::log2(x) : 0.0; }

// OTB's simple set from our features f.
std::vector<std::pair<const char*, double>> expected_simple(const Features& f) {
  const double ln2 = std::log(2.0);
  return {{"energy", f[kAngularSecondMoment]},
          {"entropy", f[kEntropy] / ln2},
          {"correlation", f[kCorrelation] / f[kVariance]},  // cov / var^2
          {"inverse_difference_moment", f[kInverseDifferenceMoment]},
          {"inertia", f[kContrast]}};
}

// OTB's advanced set from our features f and the GLCM's diagonal share p0.
// Difference histogram q(0) = p0, q(k) = p(k) / 2: its entropy in bits is
// -p0 log2 p0 - sum_{k>0} p(k)/2 (log2 p(k) - 1) = f11 / (2 ln 2) + (-p0 log2 p0 + 1 - p0) / 2,
// its variance E_q[k^2] - E_q[k]^2 = f2 / 2 - (E|i-j|)^2 / 4 with (E|i-j|)^2 = f2 - f10.
// IC1 = (HXY / ln 2 - 2 HX) / (-HX) with HXY / HX = f12 + 2; IC2 uses
// 2 HX = HXY + I, I = -ln(1 - f13^2) / 2 the mutual information.
std::vector<std::pair<const char*, double>> expected_advanced(const Features& f, double p0,
                                                              bool information_measures) {
  const double ln2 = std::log(2.0);
  std::vector<std::pair<const char*, double>> out = {
      {"mean", f[kSumAverage] / 2 + kLevelShift},
      {"variance", f[kVariance]},
      {"sum_average", f[kSumAverage] + 2 * kLevelShift},
      {"sum_variance", f[kSumVariance]},
      {"sum_entropy", f[kSumEntropy] / ln2},
      {"difference_entropy", f[kDifferenceEntropy] / (2 * ln2) + (bits(p0) + 1 - p0) / 2},
      {"difference_variance", (f[kContrast] + f[kDifferenceVariance]) / 4}};
  if (information_measures) {
    const double hxy = f[kEntropy];
    const double two_hx = hxy - std::log(1 - f[kInformationCorrelation2] * f[kInformationCorrelation2]) / 2;
    out.push_back({"ic1", 2 - (f[kInformationCorrelation1] + 2) / ln2});
    out.push_back({"ic2", std::sqrt(1 - std::exp(-2 * std::fabs(two_hx - hxy / ln2)))});
  }
  return out;
}

GreyImage load_mosaic(const std::filesystem::path& dir, const nlohmann::json& mosaic) {
  GreyImage image;
  image.width = mosaic.at("width");
  image.height = mosaic.at("height");
  std::ifstream pixels(dir / mosaic.at("pixels").get<std::string>(), std::ios::binary);
  image.pixels.assign(std::istreambuf_iterator<char>(pixels), {});
  return image;
}

// Runs the driver for one window radius and compares every tile and offset;
// sets *information_compared to how many GLCMs had IC1 and IC2 compared.
void compare_with_otb(int radius, int* information_compared) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("glcm_otb_r" + std::to_string(radius));
  std::filesystem::create_directories(dir);
  const std::string command = std::string("/usr/bin/python3 ") + GLCM_OTB_SCRIPT + " " + dir.string() + " '" +
                              kWindows + "' " + std::to_string(radius) + " '" + kOffsets + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream json_file(dir / "otb.json");
  const nlohmann::json mosaic = nlohmann::json::parse(json_file).at("mosaics").at(0);
  const GreyImage image = load_mosaic(dir, mosaic);
  ASSERT_EQ(image.pixels.size(), static_cast<std::size_t>(image.width) * image.height);
  const int tile = mosaic.at("tile");

  int compared = 0;
  *information_compared = 0;
  for (const auto& r : mosaic.at("results")) {
    const int row = r.at("row"), col = r.at("col");
    const auto& t = mosaic.at("tiles").at(row * kDivisorCount + col);
    ASSERT_EQ(t.at("row"), row);
    ASSERT_EQ(t.at("col"), col);
    const int divisor = t.at("divisor"), levels = level_count(divisor);
    const Displacement delta{r.at("dx"), r.at("dy")};
    SCOPED_TRACE(t.at("image").get<std::string>() + " window (" + std::to_string(t.at("cx").get<int>()) + "," +
                 std::to_string(t.at("cy").get<int>()) + ") radius " + std::to_string(radius) + " divisor " +
                 std::to_string(divisor) + " offset (" + std::to_string(delta.dx) + "," + std::to_string(delta.dy) +
                 ")");
    const int cx = col * tile + tile / 2, cy = row * tile + tile / 2;  // the tile centre OTB reported
    const auto counts = stretched_window_glcm(image, divisor, cx, cy, radius, delta);
    const GlcmFacts facts = facts_of(counts, levels);
    const Features f = features_of_glcm(counts, levels);

    // Every window pixel starts one pair; every cell and bin is > OTB's 1e-4
    // floor; the variance is far from OTB's "var^2 < 1e-4" fallback.
    ASSERT_EQ(facts.total, 2 * (2 * radius + 1) * (2 * radius + 1));
    ASSERT_LT(facts.total, 1 / kOtbProbabilityFloor);
    ASSERT_GT(f[kVariance] * f[kVariance], 2 * kOtbProbabilityFloor) << "window too flat for OTB's correlation";
    // The products p_x(i) p_y(j) in HXY1 and HXY2 all pass the floor (1% margin).
    const bool information_measures =
        facts.smallest_marginal * facts.smallest_marginal > 1.01 * kOtbProbabilityFloor;

    const auto& simple = r.at("simple");
    const auto& advanced = r.at("advanced");
    for (const auto& [name, value] : expected_simple(f)) EXPECT_TRUE(agrees(name, value, simple.at(name)));
    for (const auto& [name, value] : expected_advanced(f, facts.diagonal_share, information_measures))
      EXPECT_TRUE(agrees(name, value, advanced.at(name)));
    EXPECT_LT(std::fabs(advanced.at("dissimilarity").get<double>()), 1e-15) << "OTB's GLCM is not symmetric";
    ++compared;
    *information_compared += information_measures;
  }
  EXPECT_EQ(compared, kWindowCount * kDivisorCount * kOffsetCount);
  std::filesystem::remove_all(dir);
}

void skip_without_otb() {
  if (!otb_installed()) GTEST_SKIP() << "otbcli_HaralickTextureExtraction not installed (apt-get install otb-bin)";
  if (!python_has_modules()) GTEST_SKIP() << "/usr/bin/python3 cannot import skimage and tifffile";
}

// 33 x 33 windows, the size of the kind's radius-16 disc.
TEST(GlcmOtb, Windows33x33) {
  skip_without_otb();
  if (IsSkipped()) return;
  int information_compared = 0;
  compare_with_otb(16, &information_compared);
  // Only a few 33 x 33 GLCMs keep every level present above 1%: at 16 levels,
  // the brick window for all 6 offsets and the flat camera one (120,420) for
  // 5, at 32 levels that camera window for (0,1).
  EXPECT_EQ(information_compared, 12);
}

// 7 x 7 windows: S = 98, so every level present has p_x >= 1/98 > 1% and IC1,
// IC2 are compared on every GLCM.
TEST(GlcmOtb, Windows7x7) {
  skip_without_otb();
  if (IsSkipped()) return;
  int information_compared = 0;
  compare_with_otb(3, &information_compared);
  EXPECT_EQ(information_compared, kWindowCount * kDivisorCount * kOffsetCount);
}

}  // namespace
}  // namespace helix::glcm
