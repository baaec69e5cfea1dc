// glcm_result.cpp: a block's statistics from its windows (glcm_result.h).
#include "glcm_result.h"

#include <cmath>

namespace helix::glcm {

BlockResult block_result(int level_divisor, int distance, std::size_t window_count, const WindowReduction& reduction) {
  BlockResult block;
  block.level_divisor = level_divisor;
  block.distance = distance;
  const int displacements = static_cast<int>(displacement_set(distance).size());
  const double terms = static_cast<double>(window_count) * displacements;
  WindowStatistics& s = block.statistics;
  for (int k = 0; k < kFeatureCount; ++k) {  // as aggregate_windows() (the reference) computes them
    s.max[k] = fixed_to_feature(k, reduction.max[k], displacements);
    s.min[k] = fixed_to_feature(k, reduction.min[k], displacements);
    s.mean[k] = std::ldexp(static_cast<double>(reduction.total[k]), -feature_fixed_bits(k)) / terms;
    s.range[k] = s.max[k] - s.min[k];
  }
  block.max_window = reduction.max_window;
  block.min_window = reduction.min_window;
  return block;
}

BlockResult block_result(int level_divisor, int distance, const std::vector<FixedFeatures>& window_sums) {
  return block_result(level_divisor, distance, window_sums.size(), reduce_windows(window_sums));
}

}  // namespace helix::glcm
