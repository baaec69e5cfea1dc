// mrf_phantom.h: a synthetic abdominal CT phantom with known labels.
// There is no public abdominal CT volume here, so tests, the demo and the
// benchmark segment this: an elliptic body of liver-like soft tissue (60 HU) in
// air (-1000 HU), a vertebral body and ribs of bone (700 HU), smooth shape
// changes along z, partial-volume voxels at every boundary (4x4 sub-samples per
// voxel in-plane) and Gaussian noise. The truth label of a voxel is the class
// covering most of its sub-samples.
#pragma once
#include <cstdint>
#include <vector>

#include "mrf.h"

namespace helix::mrf {

struct PhantomSpec {
  int nx = 128, ny = 128, nz = 32;
  double spacing_mm[3] = {2.0, 2.0, 4.0};
  double noise_sigma_hu = 40.0;
  std::uint64_t seed = 7;
};

struct Phantom {
  Volume volume;
  std::vector<std::uint8_t> truth;  // 0 air, 1 bone, 2 liver
};

Phantom make_phantom(const PhantomSpec& spec);

// Dice coefficient of label `label` between two label maps of one size.
double dice(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b, int label);

}  // namespace helix::mrf
