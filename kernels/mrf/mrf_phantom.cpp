#include "mrf_phantom.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace helix::mrf {
namespace {

constexpr double kAirHu = -1000, kBoneHu = 700, kLiverHu = 60;
constexpr int kSubsamples = 4;

// Class at a point (u, v in [-1, 1] across the slice, t in [0, 1] along z).
int class_at(double u, double v, double t) {
  const double body_a = 0.85 + 0.05 * std::sin(3.0 * t), body_b = 0.62 + 0.04 * std::cos(2.0 * t);
  if ((u * u) / (body_a * body_a) + (v * v) / (body_b * body_b) > 1.0) return 0;  // air outside the body
  const double spine_v = 0.38, spine_r = 0.13;
  if (u * u + (v - spine_v) * (v - spine_v) < spine_r * spine_r) return 1;  // vertebral body
  // Ribs: a thin elliptic shell just inside the body wall, on the sides, in the upper 60 % of the slab.
  const double rib_a = body_a - 0.08, rib_b = body_b - 0.07;
  const double shell = (u * u) / (rib_a * rib_a) + (v * v) / (rib_b * rib_b);
  if (t < 0.6 && shell > 0.88 && shell < 1.0 && std::fabs(u) > 0.35) return 1;
  return 2;  // liver-like soft tissue
}

// Standard normal deviate from two counter-based uniforms (Box-Muller).
double gaussian(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t a = proposal_bits(seed, 0xFFFFFFFFu, 2 * index), b = proposal_bits(seed, 0xFFFFFFFFu, 2 * index + 1);
  const double u1 = (static_cast<double>(a >> 11) + 1.0) / 9007199254740993.0;
  const double u2 = static_cast<double>(b >> 11) / 9007199254740992.0;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

void fill_slice(const PhantomSpec& spec, int z, Phantom& phantom) {
  const double class_hu[kClassCount] = {kAirHu, kBoneHu, kLiverHu};
  const double t = spec.nz > 1 ? static_cast<double>(z) / (spec.nz - 1) : 0.0;
  for (int y = 0; y < spec.ny; ++y)
    for (int x = 0; x < spec.nx; ++x) {
      int hits[kClassCount] = {0, 0, 0};
      for (int sy = 0; sy < kSubsamples; ++sy)
        for (int sx = 0; sx < kSubsamples; ++sx) {
          const double u = 2.0 * (x + (sx + 0.5) / kSubsamples) / spec.nx - 1.0;
          const double v = 2.0 * (y + (sy + 0.5) / kSubsamples) / spec.ny - 1.0;
          ++hits[class_at(u, v, t)];
        }
      double hu = 0;
      for (int k = 0; k < kClassCount; ++k) hu += class_hu[k] * hits[k] / (kSubsamples * kSubsamples);
      const std::size_t i = x + static_cast<std::size_t>(spec.nx) * (y + static_cast<std::size_t>(spec.ny) * z);
      hu += spec.noise_sigma_hu * gaussian(spec.seed, i);
      phantom.volume.voxels[i] = static_cast<std::int16_t>(std::clamp(std::lround(hu), -32768l, 32767l));
      phantom.truth[i] = static_cast<std::uint8_t>(std::max_element(hits, hits + kClassCount) - hits);
    }
}

}  // namespace

// Slices are independent, so they are filled on all cores; every voxel's value
// depends only on its coordinates and the seed, whatever the thread count.
Phantom make_phantom(const PhantomSpec& spec) {
  Phantom phantom;
  Volume& volume = phantom.volume;
  volume.nx = spec.nx, volume.ny = spec.ny, volume.nz = spec.nz;
  volume.spacing_mm = {spec.spacing_mm[0], spec.spacing_mm[1], spec.spacing_mm[2]};
  volume.voxels.resize(volume.size());
  phantom.truth.resize(volume.size());
  const int thread_count = static_cast<int>(std::max(1u, std::min(16u, std::thread::hardware_concurrency())));
  std::vector<std::thread> threads;
  for (int first = 0; first < thread_count; ++first)
    threads.emplace_back([&, first] {
      for (int z = first; z < spec.nz; z += thread_count) fill_slice(spec, z, phantom);
    });
  for (auto& thread : threads) thread.join();
  return phantom;
}

double dice(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b, int label) {
  std::size_t both = 0, in_a = 0, in_b = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    both += a[i] == label && b[i] == label;
    in_a += a[i] == label;
    in_b += b[i] == label;
  }
  return in_a + in_b == 0 ? 1.0 : 2.0 * both / static_cast<double>(in_a + in_b);
}

}  // namespace helix::mrf
