// glcm_skimage_test.cpp: the glcm CPU reference against skimage (0.19,
// python3-skimage) on images skimage ships. skimage_glcm.py computes, for
// circular windows of radius 16 at 64, 32 and 16 levels, skimage's symmetric
// GLCM over the same pixel pairs and its graycoprops contrast, ASM,
// correlation and homogeneity; here they must match features f2, f1, f3 and f5
// to 1e-12 relative (plus 1e-15 absolute near 0), the GLCM counts exactly (16 levels), and the means over
// each distance's displacements must match window_features(). Also checks that
// skimage's float-sqrt displacement sets equal displacement_set().
// Skips only when /usr/bin/python3 cannot import skimage.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "glcm.h"

namespace helix::glcm {
namespace {

// Relative tolerance, plus an absolute floor for values near 0: skimage's
// correlation is cov / (std_i std_j) from float sums, with absolute rounding
// error ~1e-17 (its natural scale is 1), while ours is one rounded division of
// exact integers. At correlation ~1e-5 (camera, (1,7), 16 levels) skimage's
// error is already 2e-12 relative.
constexpr double kRelativeTolerance = 1e-12;
constexpr double kAbsoluteTolerance = 1e-15;

bool python_has_skimage() {
  return std::system("/usr/bin/python3 -c 'import skimage.feature, skimage.data' >/dev/null 2>&1") == 0;
}

// |ours - skimage| <= 1e-12 max(|ours|, |skimage|) + 1e-15.
::testing::AssertionResult agrees(double ours, double theirs) {
  const double scale = std::max(std::fabs(ours), std::fabs(theirs));
  if (std::fabs(ours - theirs) <= kRelativeTolerance * scale + kAbsoluteTolerance) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "ours " << ours << " skimage " << theirs << " (relative difference "
                                       << std::fabs(ours - theirs) / scale << ")";
}

void compare_with_skimage(const std::string& image_name, const std::string& centres) {
  if (!python_has_skimage()) GTEST_SKIP() << "/usr/bin/python3 cannot import skimage (apt-get install python3-skimage)";
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("glcm_skimage_" + image_name);
  std::filesystem::create_directories(dir);
  const std::string json_path = (dir / "features.json").string(), pixels_path = (dir / "pixels.raw").string();
  const std::string command = std::string("/usr/bin/python3 ") + GLCM_SKIMAGE_SCRIPT + " " + json_path + " " +
                              pixels_path + " " + image_name + " " + std::to_string(kWindowRadius) + " '" + centres +
                              "' 1,2,7,16,25";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream json_file(json_path);
  const nlohmann::json j = nlohmann::json::parse(json_file);
  GreyImage image;
  image.width = j.at("width");
  image.height = j.at("height");
  std::ifstream pixels(pixels_path, std::ios::binary);
  image.pixels.assign(std::istreambuf_iterator<char>(pixels), {});
  ASSERT_EQ(image.pixels.size(), static_cast<std::size_t>(image.width) * image.height);

  for (int d = 1; d <= kMaxDistance; ++d) {
    std::vector<Displacement> theirs;
    for (const auto& pair : j.at("displacements").at(std::to_string(d))) theirs.push_back({pair[0], pair[1]});
    EXPECT_EQ(displacement_set(d), theirs) << "distance " << d;
  }

  int compared = 0, counts_compared = 0;
  for (const auto& e : j.at("glcms")) {
    const int cx = e.at("cx"), cy = e.at("cy"), divisor = e.at("divisor");
    const Displacement delta{e.at("dx"), e.at("dy")};
    SCOPED_TRACE(image_name + " centre (" + std::to_string(cx) + "," + std::to_string(cy) + ") divisor " +
                 std::to_string(divisor) + " displacement (" + std::to_string(delta.dx) + "," +
                 std::to_string(delta.dy) + ")");
    const auto counts = glcm_of_window(image, divisor, cx, cy, kWindowRadius, delta);
    if (e.contains("counts")) {
      EXPECT_EQ(counts, e.at("counts").get<std::vector<std::int32_t>>());
      ++counts_compared;
    }
    const Features f = features_of_glcm(counts, level_count(divisor));
    EXPECT_TRUE(agrees(f[kContrast], e.at("contrast")));
    EXPECT_TRUE(agrees(f[kAngularSecondMoment], e.at("ASM")));
    EXPECT_TRUE(agrees(f[kCorrelation], e.at("correlation")));
    EXPECT_TRUE(agrees(f[kInverseDifferenceMoment], e.at("homogeneity")));
    ++compared;
  }
  for (const auto& m : j.at("means")) {
    const int cx = m.at("cx"), cy = m.at("cy"), divisor = m.at("divisor"), d = m.at("distance");
    SCOPED_TRACE(image_name + " mean at centre (" + std::to_string(cx) + "," + std::to_string(cy) + ") divisor " +
                 std::to_string(divisor) + " distance " + std::to_string(d));
    const Features f = window_features(image, divisor, cx, cy, kWindowRadius, d);
    EXPECT_TRUE(agrees(f[kContrast], m.at("contrast")));
    EXPECT_TRUE(agrees(f[kAngularSecondMoment], m.at("ASM")));
    EXPECT_TRUE(agrees(f[kCorrelation], m.at("correlation")));
    EXPECT_TRUE(agrees(f[kInverseDifferenceMoment], m.at("homogeneity")));
  }
  // 2 centres x 3 divisors x (4 + 6 + 20 + 56 + 84) displacements of d = 1, 2, 7, 16, 25.
  EXPECT_EQ(compared, 2 * 3 * 170);
  EXPECT_EQ(counts_compared, 2 * 170);
  std::filesystem::remove_all(dir);
}

TEST(GlcmSkimage, CameraWindows) { compare_with_skimage("camera", "256,256;120,420"); }
TEST(GlcmSkimage, BrickWindows) { compare_with_skimage("brick", "100,100;300,400"); }

}  // namespace
}  // namespace helix::glcm
