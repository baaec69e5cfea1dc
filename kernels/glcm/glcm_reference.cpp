// glcm_reference.cpp: the CPU reference of the glcm kind (see glcm.h).
// Builds each GLCM from scratch, pixel by pixel: the definition, not a fast path.
#include <stdexcept>
#include <string>

#include "glcm.h"

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

GlcmSums glcm_sums(const std::vector<std::int32_t>& counts, int levels) {
  if (levels < 2 || levels > kMaxLevels || counts.size() != static_cast<std::size_t>(levels) * levels)
    throw std::invalid_argument("glcm: counts are not an L x L matrix with 2 <= L <= 64");
  GlcmSums g{};
  g.levels = levels;
  for (int i = 0; i < levels; ++i) {
    for (int j = 0; j < levels; ++j) {
      const std::int64_t c = counts[static_cast<std::size_t>(i) * levels + j];
      g.total += c;
      g.sum_counts_squared += c * c;
      g.cross_moment += static_cast<std::int64_t>(i) * j * c;
      g.marginal[i] += c;
      g.sum_histogram[i + j] += c;
      g.difference_histogram[i > j ? i - j : j - i] += c;
    }
  }
  // The bound keeps every int64 numerator of haralick_features below 2^53
  // (the largest, S * sum k^2 s(k) with k <= 126, is below 2^14 S^2), so its
  // conversion to double is exact, and S * S exact in double. A window of
  // radius 16 has S <= 1594; a 512 x 512 rectangle still fits.
  if (g.total <= 0 || g.total >= (std::int64_t{1} << 19))
    throw std::invalid_argument("glcm: GLCM total must be in 1..2^19-1, got " + std::to_string(g.total));
  g.cell_entropy_numerator = entropy_numerator(counts.data(), levels * levels, g.total);
  return g;
}

Features features_of_glcm(const std::vector<std::int32_t>& counts, int levels) {
  const GlcmSums sums = glcm_sums(counts, levels);
  Features f{};
  haralick_features(sums, f.data());
  return f;
}

Features window_features(const GreyImage& image, int level_divisor, int centre_x, int centre_y, int radius,
                         int distance) {
  const std::vector<Displacement> set = displacement_set(distance);
  Features sum{};
  for (const Displacement& delta : set) {
    const std::vector<std::int32_t> counts = glcm_of_window(image, level_divisor, centre_x, centre_y, radius, delta);
    const Features f = features_of_glcm(counts, level_count(level_divisor));
    for (int k = 0; k < kFeatureCount; ++k) sum[k] = sum[k] + f[k];
  }
  const double n = static_cast<double>(set.size());
  for (int k = 0; k < kFeatureCount; ++k) sum[k] = sum[k] / n;
  return sum;
}

WindowStatistics aggregate_windows(const std::vector<Features>& windows) {
  if (windows.empty()) throw std::invalid_argument("glcm: no windows to aggregate");
  WindowStatistics s{};
  s.max = s.min = windows.front();
  Features sum{};
  for (const Features& w : windows) {
    for (int k = 0; k < kFeatureCount; ++k) {
      if (w[k] > s.max[k]) s.max[k] = w[k];
      if (w[k] < s.min[k]) s.min[k] = w[k];
      sum[k] = sum[k] + w[k];
    }
  }
  const double n = static_cast<double>(windows.size());
  for (int k = 0; k < kFeatureCount; ++k) {
    s.mean[k] = sum[k] / n;
    s.range[k] = s.max[k] - s.min[k];
  }
  return s;
}

}  // namespace helix::glcm
