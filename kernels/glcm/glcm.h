// glcm.h: the glcm kind's definitions and CPU reference: grey-level
// co-occurrence matrices of circular local windows and their Haralick texture
// features, after the Help Conquer Cancer protein-crystallisation screen.
// docs/glcm.md defines everything below in prose.
//
// Contents:
//   GreyImage, Displacement, Features, FixedFeatures, WindowStatistics  types
//   quantise()              8-bit value to grey level
//   displacement_set(d)     the displacements of distance d, in their fixed order
//   window_centres()        the local windows of a region of interest
//   glcm_of_window()        symmetric integer GLCM of one circular window, one displacement
//   glcm_of_rectangle()     the same over an axis-aligned rectangle (tests only)
//   glcm_sums()             a GLCM reduced to its integer sums
//   haralick_features()     (glcm_features.h) the 13 features of those sums
//   window_fixed_sums()     one window at one distance: fixed-point feature sums over its displacements
//   window_features()       the same as doubles: the mean over the displacements
//   aggregate_windows()     max, mean, min and range of features over windows
//
// This is the CPU reference: clear, not fast (it builds every GLCM from
// scratch). The engines (glcm_engine.h) reproduce its integers exactly, and so
// its doubles bit for bit.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "glcm_features.h"

namespace helix::glcm {

constexpr int kWindowRadius = 16;  // the local-window radius, pixels
constexpr int kMaxDistance = 25;   // distances 1..25
constexpr int kLevelDivisors[3] = {4, 8, 16};  // 64, 32 and 16 grey levels

// An 8-bit grey image, row-major: pixel (x, y) is pixels[y * width + x].
struct GreyImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;
  std::uint8_t at(int x, int y) const { return pixels[static_cast<std::size_t>(y) * width + x]; }
};

// The pair (x, y) -> (x + dx, y + dy). Displacements lie in the half plane
// dy > 0, or dy == 0 and dx > 0 (the opposite one is the same symmetric GLCM).
struct Displacement {
  int dx;
  int dy;
  bool operator==(const Displacement& o) const { return dx == o.dx && dy == o.dy; }
};

using Features = std::array<double, kFeatureCount>;
// Per feature, a sum of feature_to_fixed() values (glcm_features.h): the
// exact, order-free form of a sum over displacements.
using FixedFeatures = std::array<std::int64_t, kFeatureCount>;

struct WindowCentre {
  int x;
  int y;
  bool operator==(const WindowCentre& o) const { return x == o.x && y == o.y; }
};

struct WindowStatistics {
  Features max, mean, min, range;  // range = max - min
};

// The grey level of an 8-bit value: value / level_divisor (integer division).
// Number of levels: 256 / level_divisor.
inline int quantise(std::uint8_t value, int level_divisor) { return value / level_divisor; }
inline int level_count(int level_divisor) { return 256 / level_divisor; }

// All integer (dx, dy) in the half plane with round(sqrt(dx^2 + dy^2)) == d,
// i.e. d^2 - d < dx^2 + dy^2 <= d^2 + d (sqrt of an integer is never a half
// integer, so no tie), ordered by dy ascending, then dx ascending.
// Requires d >= 1; throws std::invalid_argument otherwise.
std::vector<Displacement> displacement_set(int distance);

// The centres of the local windows of a region of interest: every pixel whose
// whole disc of `radius` ((x-cx)^2 + (y-cy)^2 <= radius^2) lies in the ROI
// (roi[y * width + x] != 0) and in the image, in row-major order.
// Throws std::invalid_argument when roi.size() != width * height.
std::vector<WindowCentre> window_centres(const std::vector<std::uint8_t>& roi, int width, int height, int radius);

// The symmetric GLCM of the disc of `radius` around (centre_x, centre_y)
// (pixels with (x-cx)^2 + (y-cy)^2 <= radius^2) for one displacement: for every
// pixel p of the disc with p + delta also in the disc, c(g(p), g(p+delta)) and
// c(g(p+delta), g(p)) each grow by one. Returns the L*L counts row-major
// (c(i, j) at i * L + j), L = 256 / level_divisor.
// Throws std::invalid_argument when the disc leaves the image, the divisor is
// not 4, 8 or 16, or radius < 0.
std::vector<std::int32_t> glcm_of_window(const GreyImage& image, int level_divisor, int centre_x, int centre_y,
                                         int radius, Displacement delta);

// The same over the rectangle [x0, x0 + width) x [y0, y0 + height), which must
// lie in the image. Used to compare with skimage on whole crops.
std::vector<std::int32_t> glcm_of_rectangle(const GreyImage& image, int level_divisor, int x0, int y0, int width,
                                            int height, Displacement delta);

// The integer sums of an L*L GLCM (counts row-major, symmetric), straight from
// their definitions (glcm_features.h). Throws std::invalid_argument when the
// counts are not L*L, L is not 2..kMaxLevels, or the total is 0 or >= kMaxTotal (2^15).
GlcmSums glcm_sums(const std::vector<std::int32_t>& counts, int levels);

// The 13 features of one GLCM (glcm_sums then haralick_features).
Features features_of_glcm(const std::vector<std::int32_t>& counts, int levels);

// One window at one distance: per feature, the sum over displacement_set(distance)
// of feature_to_fixed(features of that displacement's GLCM). Throws
// std::invalid_argument as glcm_of_window does, or when some displacement has
// no pair in the window.
FixedFeatures window_fixed_sums(const GreyImage& image, int level_divisor, int centre_x, int centre_y, int radius,
                                int distance);

// The features of one window at one distance: the mean over its displacements,
// fixed_to_feature(window_fixed_sums(...), displacement count).
Features window_features(const GreyImage& image, int level_divisor, int centre_x, int centre_y, int radius,
                         int distance);
Features features_of_fixed_sums(const FixedFeatures& sums, int displacement_count);

// Per feature, over windows whose fixed sums (each over `displacement_count`
// displacements) are given: max and min (of the window means), the mean (the
// exact integer total over all windows, rounded once, then divided by
// windows x displacements) and the range max - min. Throws
// std::invalid_argument on an empty list or a count < 1.
WindowStatistics aggregate_windows(const std::vector<FixedFeatures>& windows, int displacement_count);

}  // namespace helix::glcm
