// mrf_model.h: the exact MRF segmentation model, shared by the CPU reference
// and the CUDA kernels (every function here is __host__ __device__).
//
// Contents: class labels, fixed-point energy units, the counter-based proposal
// generator, the checkerboard colouring, and the local energy of a voxel.
// docs/mrf.md defines the model in prose; this header is its executable form.
//
// Why fixed point: the seed's GPU port disagreed with its CPU code by 3-23 % of
// the area because float sums and update order differed. Here every energy is
// an integer number of 1/kEnergyScale units, class terms are tabulated on the
// host once per sweep, and the update order is parallel by construction, so
// both engines produce identical labels.
#pragma once
#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define HELIX_HD __host__ __device__ __forceinline__
#else
#define HELIX_HD inline
#endif

namespace helix::mrf {

constexpr int kClassCount = 3;  // labels: 0 air, 1 bone, 2 liver (soft tissue)
constexpr const char* kClassNames[kClassCount] = {"air", "bone", "liver"};
// Energies are integers in units of 1/1024 nat.
constexpr std::int64_t kEnergyScale = 1024;
// Class-term table entries are clamped to this magnitude so that a voxel's local
// energy (class term + 6 clique terms) can never overflow int32.
constexpr std::int32_t kMaxClassTerm = 1 << 26;

// The Gaussian class term of one class, as the constants both engines use:
// E(v) = (v - mean)^2 * inv_two_variance + normaliser, in nats, where
// inv_two_variance = 1 / (2 variance) and normaliser = ln(2 pi variance) / 2 are
// computed once per sweep on the host.
struct ClassTerm {
  double mean;
  double inv_two_variance;
  double normaliser;
};
struct ClassTerms {
  ClassTerm of[kClassCount];
};

// Natural log of a positive, finite x from IEEE basic operations only (+ - * /,
// exactly rounded everywhere, and frexp, which is exact), so the class terms
// are bit-identical on every host and on the GPU: the validator on the project
// server recomputes them and must agree with volunteers whatever libm they run.
// x = m * 2^e; ln(m) comes from the atanh series 2(t + t^3/3 + ...),
// t = (m-1)/(m+1), |t| <= 0.172, whose 20 terms reach double precision.
HELIX_HD double positive_log(double x) {
  int exponent = 0;
  double mantissa = frexp(x, &exponent);  // in [0.5, 1)
  if (mantissa < 0.70710678118654752) {
    mantissa *= 2;
    exponent -= 1;
  }
  const double t = (mantissa - 1) / (mantissa + 1);
  const double t2 = t * t;
  double power = t, series = 0;
  for (int k = 0; k < 20; ++k) {
    series = series + power / (2 * k + 1);
    power = power * t2;
  }
  const double ln2 = 0.693147180559945309417232121458;
  return 2 * series + exponent * ln2;
}

// The constants of a Gaussian class term; variance > 0.
HELIX_HD ClassTerm class_term_constants(double mean, double variance) {
  const double two_pi = 6.283185307179586476925286766559;
  return {mean, 1.0 / (2.0 * variance), 0.5 * positive_log(two_pi * variance)};
}

// Mean and variance of a non-empty class from exact integer sums, the variance
// floored at min_variance. Shared by the host and the GPU's batched sweeps.
HELIX_HD void estimate_class(std::int64_t count, std::int64_t sum, std::int64_t sum_sq, double min_variance,
                             double& mean, double& variance) {
  const double n = static_cast<double>(count);
  mean = static_cast<double>(sum) / n;
  const double spread = (static_cast<double>(sum_sq) - static_cast<double>(sum) * mean) / n;
  variance = spread > min_variance ? spread : min_variance;
}

// The class term of an intensity in fixed point: rounded to nearest (ties to
// even) and clamped to +-kMaxClassTerm. Only IEEE basic operations (no FMA
// contraction: -ffp-contract=off on the host, --fmad=false on the device), so
// the CPU's table and the GPU's on-the-fly value are the same integer.
HELIX_HD std::int32_t class_term_fixed(int intensity, const ClassTerm& c) {
  const double deviation = static_cast<double>(intensity) - c.mean;
  const double nats = deviation * deviation * c.inv_two_variance + c.normaliser;
  // Clamping before rounding equals clamping after it (the bounds are integers);
  // fmin/fmax are single FP64 instructions on the GPU.
  const double bound = static_cast<double>(kMaxClassTerm);
  return static_cast<std::int32_t>(rint(fmin(fmax(nats * static_cast<double>(kEnergyScale), -bound), bound)));
}

// Integer parameters of one sweep, already converted to fixed point.
struct SweepConstants {
  std::int32_t beta_in_fixed;    // reward per same-label neighbour
  std::int32_t beta_out_fixed;   // reward per different-label neighbour
  std::int32_t threshold_fixed;  // accept a proposal when the energy drops by more than this
  std::uint64_t seed;
  std::uint32_t sweep_index;     // 0-based
};

// Checkerboard colour over the 6-neighbourhood: no two voxels of one colour are
// neighbours, so all voxels of a colour can be updated at once, in any order.
HELIX_HD int voxel_colour(int x, int y, int z) { return (x + y + z) & 1; }

// Counter-based 64 random bits keyed by (seed, sweep, counter): the SplitMix64
// finaliser of a linear combination of the keys. No state, so any engine and
// any thread order draws the same number for the same keys. Used for the
// per-sweep coin key (counter 0) and by the phantom's noise.
HELIX_HD std::uint64_t proposal_bits(std::uint64_t seed, std::uint32_t sweep, std::uint64_t voxel) {
  std::uint64_t x = seed + 0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(sweep) + 1ull) +
                    0xD1B54A32D192ED03ull * voxel;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

// The 32-bit key of one sweep's proposal coins (computed once per sweep by the
// CPU reference, once per thread and pass by the GPU kernel).
HELIX_HD std::uint32_t sweep_coin_key(std::uint64_t seed, std::uint32_t sweep) {
  const std::uint64_t bits = proposal_bits(seed, sweep, 0);
  return static_cast<std::uint32_t>(bits ^ (bits >> 32));
}

// 32 coins at once: the MurmurHash3 finaliser (a bijection with full
// avalanche) of the sweep key mixed with the voxel's group of 32. 32-bit
// arithmetic: on the GPU this costs a third of the 64-bit mixer, and the
// integer pipe is what bounds the sweep kernel.
HELIX_HD std::uint32_t coin_word(std::uint32_t key, std::uint32_t group) {
  std::uint32_t h = key ^ (group * 0x9E3779B9u);
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

// The proposal coin of a voxel: bit (voxel mod 32) of the coin word of its
// group of 32 consecutive voxels. Every engine draws the same bit for the same
// (seed, sweep, voxel), whatever its tiling.
HELIX_HD int proposal_coin(std::uint32_t coin_key, std::uint64_t voxel) {
  return static_cast<int>((coin_word(coin_key, static_cast<std::uint32_t>(voxel >> 5)) >> (voxel & 31)) & 1u);
}

// The proposed label: one of the two other classes, chosen by the coin.
HELIX_HD int proposed_label(int current_label, int coin) { return (current_label + 1 + coin) % kClassCount; }

// Clique energy of label `label` given how many of its in-volume neighbours
// carry that label: -beta_in per same-label neighbour, -beta_out otherwise.
HELIX_HD std::int32_t clique_energy(int same_neighbours, int neighbour_count, const SweepConstants& c) {
  return -(c.beta_in_fixed * same_neighbours + c.beta_out_fixed * (neighbour_count - same_neighbours));
}

// Decision for one voxel. `class_term_current/proposed` come from the table;
// `same_current/proposed` count neighbours with the current/proposed label.
// Returns the energy change if the proposal is accepted, 0 otherwise
// (accepted reports whether the label changes).
HELIX_HD std::int32_t proposal_delta(std::int32_t class_term_current, std::int32_t class_term_proposed,
                                     int same_current, int same_proposed, int neighbour_count,
                                     const SweepConstants& c, bool& accepted) {
  const std::int32_t energy_current = class_term_current + clique_energy(same_current, neighbour_count, c);
  const std::int32_t energy_proposed = class_term_proposed + clique_energy(same_proposed, neighbour_count, c);
  const std::int32_t delta = energy_proposed - energy_current;
  accepted = delta < -c.threshold_fixed;
  return accepted ? delta : 0;
}

// proposal_delta()'s decision as a threshold on the neighbour balance, for
// engines that count neighbours 32 voxels at a time (the CUDA sweep).
// delta = dT - (beta_in - beta_out) * k, with dT = T_proposed - T_current and
// k = same_proposed - same_current in [-6, 6]: the neighbour count cancels.
// With gap = |beta_in - beta_out| and k' = k (or -k where beta_in < beta_out:
// balance_is_negated()), delta < -threshold exactly when gap * k' > dT +
// threshold, that is when k' >= minimum_accepted_balance(dT), a value
// clamped to [-7, 7] (-7: every balance accepts, 7: none does). Exact:
// 64-bit integers, floor division; |dT| <= 2^28, |gap| <= 2^18.
HELIX_HD bool balance_is_negated(const SweepConstants& c) { return c.beta_in_fixed < c.beta_out_fixed; }

HELIX_HD int minimum_accepted_balance(std::int32_t class_term_change, const SweepConstants& c) {
  const std::int64_t bound = static_cast<std::int64_t>(class_term_change) + c.threshold_fixed;
  const std::int64_t signed_gap = static_cast<std::int64_t>(c.beta_in_fixed) - c.beta_out_fixed;
  const std::int64_t gap = signed_gap < 0 ? -signed_gap : signed_gap;
  if (gap == 0) return bound < 0 ? -7 : 7;
  std::int64_t quotient = bound / gap;  // truncated; floor for a negative bound below
  if (bound % gap != 0 && bound < 0) --quotient;
  const std::int64_t minimum = quotient + 1;
  return minimum < -7 ? -7 : minimum > 7 ? 7 : static_cast<int>(minimum);
}

}  // namespace helix::mrf
