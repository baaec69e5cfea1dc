// glcm_reference.cpp: the CPU reference of the glcm kind (see glcm.h).
// Builds each GLCM from scratch, pixel by pixel: the definition, not a fast path.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "glcm.h"
#include "glcm_engine.h"

namespace helix::glcm {
namespace {

void check_divisor(int level_divisor) {
  if (level_divisor != 4 && level_divisor != 8 && level_divisor != 16)
    throw std::invalid_argument("glcm: level divisor must be 4, 8 or 16, got " + std::to_string(level_divisor));
}

bool in_disc(int x, int y, int cx, int cy, int radius) {
  const long dx = x - cx, dy = y - cy;
  return dx * dx + dy * dy <= static_cast<long>(radius) * radius;
}

void add_pair(std::vector<std::int32_t>& counts, int levels, int a, int b) {
  counts[static_cast<std::size_t>(a) * levels + b] += 1;
  counts[static_cast<std::size_t>(b) * levels + a] += 1;
}

}  // namespace

std::vector<Displacement> displacement_set(int distance) {
  if (distance < 1) throw std::invalid_argument("glcm: distance must be >= 1, got " + std::to_string(distance));
  const long lower = static_cast<long>(distance) * distance - distance;  // exclusive
  const long upper = static_cast<long>(distance) * distance + distance;  // inclusive
  std::vector<Displacement> set;
  for (int dy = 0; dy <= distance; ++dy) {
    for (int dx = -distance; dx <= distance; ++dx) {
      if (dy == 0 && dx <= 0) continue;  // the other half plane
      const long n = static_cast<long>(dx) * dx + static_cast<long>(dy) * dy;
      if (n > lower && n <= upper) set.push_back({dx, dy});
    }
  }
  return set;
}

std::vector<std::int32_t> glcm_of_window(const GreyImage& image, int level_divisor, int centre_x, int centre_y,
                                         int radius, Displacement delta) {
  check_divisor(level_divisor);
  if (radius < 0) throw std::invalid_argument("glcm: negative window radius");
  if (centre_x - radius < 0 || centre_y - radius < 0 || centre_x + radius >= image.width ||
      centre_y + radius >= image.height)
    throw std::invalid_argument("glcm: window of radius " + std::to_string(radius) + " at (" +
                                std::to_string(centre_x) + ", " + std::to_string(centre_y) + ") leaves the " +
                                std::to_string(image.width) + "x" + std::to_string(image.height) + " image");
  const int levels = level_count(level_divisor);
  std::vector<std::int32_t> counts(static_cast<std::size_t>(levels) * levels, 0);
  for (int y = centre_y - radius; y <= centre_y + radius; ++y) {
    for (int x = centre_x - radius; x <= centre_x + radius; ++x) {
      const int x2 = x + delta.dx, y2 = y + delta.dy;
      if (!in_disc(x, y, centre_x, centre_y, radius) || !in_disc(x2, y2, centre_x, centre_y, radius)) continue;
      add_pair(counts, levels, quantise(image.at(x, y), level_divisor), quantise(image.at(x2, y2), level_divisor));
    }
  }
  return counts;
}

std::vector<std::int32_t> glcm_of_rectangle(const GreyImage& image, int level_divisor, int x0, int y0, int width,
                                            int height, Displacement delta) {
  check_divisor(level_divisor);
  if (x0 < 0 || y0 < 0 || width < 0 || height < 0 || x0 + width > image.width || y0 + height > image.height)
    throw std::invalid_argument("glcm: rectangle leaves the image");
  const int levels = level_count(level_divisor);
  std::vector<std::int32_t> counts(static_cast<std::size_t>(levels) * levels, 0);
  for (int y = y0; y < y0 + height; ++y) {
    for (int x = x0; x < x0 + width; ++x) {
      const int x2 = x + delta.dx, y2 = y + delta.dy;
      if (x2 < x0 || x2 >= x0 + width || y2 < y0 || y2 >= y0 + height) continue;
      add_pair(counts, levels, quantise(image.at(x, y), level_divisor), quantise(image.at(x2, y2), level_divisor));
    }
  }
  return counts;
}

// libquadmath's binary128 natural logarithm (GCC's runtime library, linked
// statically). Declared here rather than through <quadmath.h>, which only GCC
// ships, so that clang (the fuzz build) compiles this file too.
extern "C" __float128 logq(__float128);

namespace {

// X(x) for 2 <= x < kMaxTotal, from binary128. x ln x < 2^18.3 here: binary128
// holds it to about 2^-94, and logq errs by an ulp or so; 2^44 x ln x (the
// scaling is exact) is then known to about 2^-49, far finer than the integer it
// is rounded to. x ln x is irrational for x >= 2, so no value is exactly
// halfway; one too near to tell is refused.
std::int64_t exact_xlogx(std::int64_t x) {
  const __float128 value = static_cast<__float128>(x);
  const __float128 scaled = value * logq(value) * static_cast<__float128>(std::ldexp(1.0, kFixedBits));
  const std::int64_t rounded = static_cast<std::int64_t>(scaled + static_cast<__float128>(0.5));
  const __float128 distance = scaled - static_cast<__float128>(rounded);  // in [-0.5, 0.5)
  const __float128 margin = static_cast<__float128>(0.5) - (distance < 0 ? -distance : distance);
  if (margin < static_cast<__float128>(std::ldexp(1.0, -30)))
    throw std::logic_error("glcm: X(" + std::to_string(x) + ") is too near a rounding boundary to round once");
  return rounded;
}

// Every X(x) below kMaxTotal, computed once per process (a few ms): the
// reference meets the same small counts in every GLCM, and logq is slow.
const std::vector<std::int64_t>& exact_xlogx_table() {
  static const std::vector<std::int64_t> table = [] {
    std::vector<std::int64_t> values(static_cast<std::size_t>(kMaxTotal), 0);
    for (std::int64_t x = 2; x < kMaxTotal; ++x) values[static_cast<std::size_t>(x)] = exact_xlogx(x);
    return values;
  }();
  return table;
}

}  // namespace

std::int64_t xlogx_fixed(std::int64_t x) {
  if (x <= 1) return 0;
  if (x >= kMaxTotal) throw std::invalid_argument("glcm: X(" + std::to_string(x) + ") is beyond the table's range");
  return exact_xlogx_table()[static_cast<std::size_t>(x)];
}

GlcmSums glcm_sums(const std::vector<std::int32_t>& counts, int levels) {
  if (levels < 2 || levels > kMaxLevels || counts.size() != static_cast<std::size_t>(levels) * levels)
    throw std::invalid_argument("glcm: counts are not an L x L matrix with 2 <= L <= 64");
  std::int64_t marginal[kMaxLevels] = {}, sum_histogram[2 * kMaxLevels - 1] = {}, difference_histogram[kMaxLevels] = {};
  GlcmSums g{};
  for (int i = 0; i < levels; ++i) {
    for (int j = 0; j < levels; ++j) {
      const std::int64_t c = counts[static_cast<std::size_t>(i) * levels + j];
      g.total += c;
      g.sum_counts_squared += c * c;
      g.cross_moment += static_cast<std::int64_t>(i) * j * c;
      g.cell_xlogx += xlogx_fixed(c);
      marginal[i] += c;
      sum_histogram[i + j] += c;
      difference_histogram[i > j ? i - j : j - i] += c;
    }
  }
  // The bound keeps every int64 sum and product of haralick_features exact
  // (the largest, S * sum k^2 s(k) with k <= 126, is below 2^14 S^2 < 2^44,
  // the X sums below 2^62.4), and S * S exact in double. A window of radius
  // 16 has S <= 1594; a 128 x 127 rectangle still fits.
  if (g.total <= 0 || g.total >= kMaxTotal)
    throw std::invalid_argument("glcm: GLCM total must be in 1..2^15-1, got " + std::to_string(g.total));
  for (int i = 0; i < levels; ++i) {
    g.marginal_first += i * marginal[i];
    g.marginal_second += static_cast<std::int64_t>(i) * i * marginal[i];
    g.marginal_xlogx += xlogx_fixed(marginal[i]);
  }
  for (int k = 0; k <= 2 * levels - 2; ++k) {
    g.sum_first += k * sum_histogram[k];
    g.sum_second += static_cast<std::int64_t>(k) * k * sum_histogram[k];
    g.sum_xlogx += xlogx_fixed(sum_histogram[k]);
  }
  for (int k = 0; k < levels; ++k) {
    g.difference_first += k * difference_histogram[k];
    g.difference_second += static_cast<std::int64_t>(k) * k * difference_histogram[k];
    g.difference_xlogx += xlogx_fixed(difference_histogram[k]);
  }
  g.idm_numerator = idm_numerator(difference_histogram, levels);
  return g;
}

Features features_of_glcm(const std::vector<std::int32_t>& counts, int levels) {
  const GlcmSums sums = glcm_sums(counts, levels);
  Features f{};
  haralick_features(sums, xlogx_fixed(sums.total), f.data());
  return f;
}

FixedFeatures window_fixed_sums(const GreyImage& image, int level_divisor, int centre_x, int centre_y, int radius,
                                int distance) {
  FixedFeatures sum{};
  for (const Displacement& delta : displacement_set(distance)) {
    const std::vector<std::int32_t> counts = glcm_of_window(image, level_divisor, centre_x, centre_y, radius, delta);
    const Features f = features_of_glcm(counts, level_count(level_divisor));
    for (int k = 0; k < kFeatureCount; ++k) sum[k] += feature_to_fixed(k, f[k]);
  }
  return sum;
}

Features features_of_fixed_sums(const FixedFeatures& sums, int displacement_count) {
  Features f{};
  for (int k = 0; k < kFeatureCount; ++k) f[k] = fixed_to_feature(k, sums[k], displacement_count);
  return f;
}

Features window_features(const GreyImage& image, int level_divisor, int centre_x, int centre_y, int radius,
                         int distance) {
  return features_of_fixed_sums(window_fixed_sums(image, level_divisor, centre_x, centre_y, radius, distance),
                                static_cast<int>(displacement_set(distance).size()));
}

WindowStatistics aggregate_windows(const std::vector<FixedFeatures>& windows, int displacement_count) {
  if (windows.empty()) throw std::invalid_argument("glcm: no windows to aggregate");
  if (displacement_count < 1) throw std::invalid_argument("glcm: displacement count must be >= 1");
  WindowStatistics s{};
  FixedFeatures max = windows.front(), min = windows.front();
  __int128 total[kFeatureCount] = {};  // exact: < 2^59 per window, far fewer than 2^60 windows
  for (const FixedFeatures& w : windows) {
    for (int k = 0; k < kFeatureCount; ++k) {
      if (w[k] > max[k]) max[k] = w[k];
      if (w[k] < min[k]) min[k] = w[k];
      total[k] += w[k];
    }
  }
  const double terms = static_cast<double>(windows.size()) * displacement_count;
  for (int k = 0; k < kFeatureCount; ++k) {
    s.max[k] = fixed_to_feature(k, max[k], displacement_count);
    s.min[k] = fixed_to_feature(k, min[k], displacement_count);
    s.mean[k] = std::ldexp(static_cast<double>(total[k]), -feature_fixed_bits(k)) / terms;
    s.range[k] = s.max[k] - s.min[k];
  }
  return s;
}

std::vector<WindowCentre> window_centres(const std::vector<std::uint8_t>& roi, int width, int height, int radius) {
  if (width < 0 || height < 0 || roi.size() != static_cast<std::size_t>(width) * height)
    throw std::invalid_argument("glcm: ROI mask size does not match the image");
  if (radius < 0 || radius > 250) throw std::invalid_argument("glcm: window radius outside 0..250");
  // reach[y][x] = 1 + the largest h <= radius for which row y is all ROI on
  // [x - h, x + h]; 0 where x is not ROI. A byte each.
  std::vector<std::uint8_t> reach(static_cast<std::size_t>(width) * height, 0);
  std::vector<int> left(width);
  for (int y = 0; y < height; ++y) {
    const std::uint8_t* in = roi.data() + static_cast<std::size_t>(y) * width;
    std::uint8_t* out = reach.data() + static_cast<std::size_t>(y) * width;
    for (int x = 0, run = 0; x < width; ++x) left[x] = run = in[x] ? run + 1 : 0;  // ROI run ending at x
    for (int x = width - 1, run = 0; x >= 0; --x) {
      run = in[x] ? run + 1 : 0;  // ROI run starting at x
      out[x] = static_cast<std::uint8_t>(std::min({left[x], run, radius + 1}));
    }
  }
  std::vector<int> half_width(radius + 1);  // the disc's row |dy| spans dx in [-w, w]
  for (int dy = 0; dy <= radius; ++dy) {
    int w = 0;
    while ((w + 1) * (w + 1) + dy * dy <= radius * radius) ++w;
    half_width[dy] = w;
  }
  // Centre (cx, cy) needs reach >= half_width[|dy|] + 1 on every row cy + dy.
  // Reach radius + 1 meets every row's need, so the rows that column cx holds
  // a run of it over need no test: `full_run` counts that run up to row
  // cy + r, the disc's last (capped at the disc's 2r + 1 rows, when the disc
  // fits with no test at all). Only the rows above the run are tested: for
  // centres near the ROI's edges or a hole. The same predicate either way, so
  // the same centres in the same order.
  const auto full = static_cast<std::uint8_t>(radius + 1);
  const auto disc_rows = static_cast<std::uint16_t>(2 * radius + 1);
  auto rows_above_fit = [&](int cx, int cy, int covered) {
    for (int dy = -radius; dy <= radius - covered; ++dy)
      if (reach[static_cast<std::size_t>(cy + dy) * width + cx] < half_width[dy < 0 ? -dy : dy] + 1) return false;
    return true;
  };
  std::vector<WindowCentre> centres;
  centres.reserve(roi.size() / 2);
  std::vector<std::uint16_t> full_run(width, 0);
  for (int y = 0; y < height; ++y) {
    const std::uint8_t* row = reach.data() + static_cast<std::size_t>(y) * width;
    std::uint16_t* run = full_run.data();
    for (int x = 0; x < width; ++x)
      run[x] = row[x] == full ? static_cast<std::uint16_t>(std::min(run[x] + 1, int{disc_rows})) : std::uint16_t{0};
    const int cy = y - radius;
    if (cy < radius) continue;
    const std::uint8_t* centre_row = reach.data() + static_cast<std::size_t>(cy) * width;
    for (int cx = radius; cx < width - radius; ++cx) {
      if (centre_row[cx] != full) continue;  // the centre's own row needs radius + 1
      if (run[cx] == disc_rows || rows_above_fit(cx, cy, run[cx])) centres.push_back({cx, cy});
    }
  }
  return centres;
}

}  // namespace helix::glcm
