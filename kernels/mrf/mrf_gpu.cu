// mrf_gpu.cu: the CUDA sweep engine of the mrf kind.
//
// Layers (CUB style): GpuSweepEngine (host: owns device memory, launches a
// batch of sweeps, one synchronisation per batch) -> colour_update_kernel (one
// colour of the checkerboard) and end_of_sweep_kernel (class re-estimation and
// the stopping rule) -> accumulate_block (block-level integer reduction, the
// device layer's BlockReduce) -> decide_word (32 voxels' neighbour tests at
// once on bit-sliced labels, then one table lookup per voxel of the colour)
// and account_accepted (the changed voxels' energies and class moves). The
// stream, pinned batch state and batch graph are the device layer's
// (core/device_stream.h).
//
// Exactness: the kernels decide with integers only (class terms from
// class_term_fixed(), the CPU table's own formula; proposal_delta()'s test
// as minimum_accepted_balance(), mrf_model.h, tested against it), draw
// proposals from the counter-based generator, and reduce with integer
// atomics (associative and commutative), so labels and statistics equal the
// CPU reference's bit for bit, on any GPU and launch shape.
#include <cuda_runtime.h>

#include <string>

#include "core/cuda_support.h"
#include "core/device_stream.h"
#include "core/errors.h"
#include "core/warp_reduce.cuh"
#include "mrf.h"

namespace helix::mrf {
namespace {

// Label layout: bit-sliced. A row of the volume is `words` 32-voxel words;
// word w holds voxels x = 32 w + j at bit j of two planes, bit 0 of the
// label in `.x` and bit 1 in `.y` (an 8-byte uint2 per word). Neighbour
// tests then run on 32 voxels per instruction (the pass was bound by integer
// issue at one voxel at a time: 1.86e11 updates/s). Voxels past nx in a
// row's last word, and every neighbour outside the volume, hold label 3 in
// both planes: "no neighbour here", equal to no class.
constexpr int kWordVoxels = 32;
constexpr unsigned kAbsentBits = 0xffffffffu;
constexpr uint2 kAbsentWord = {kAbsentBits, kAbsentBits};
static_assert(kClassCount == 3, "label 3 must differ from every class label");

// Intensity layout: per word, the 16 intensities of even x, then the 16 of
// odd x (x = 32 w + 2 i + parity at [w * 32 + parity * 16 + i]): a colour
// pass reads only its own voxels' 32 bytes.
constexpr int kColourVoxels = kWordVoxels / 2;

// Tile shape: a thread owns one word of one row in each of kSlicesPerThread
// consecutive slices (the slices share their z neighbours' loads); a block
// is kBlockX x kBlockY threads over consecutive (word, row) pairs.
constexpr int kSlicesPerThread = 4;
constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kBlockThreads = kBlockX * kBlockY;

// What one colour pass adds up, in device memory. Signed values are summed as
// two's complement in unsigned 64-bit words (integer atomics: exact, any order).
// The class sums are *changes*: the absolute sums live in DeviceBatchState,
// so a pass only touches the (few) voxels whose label changed.
struct DeviceTotals {
  unsigned long long delta_energy;
  unsigned long long labels_changed;
  unsigned long long count_change[kClassCount];
  unsigned long long sum_change[kClassCount];
  unsigned long long sum_sq_change[kClassCount];
};

// Sweeps run in batches of up to kMaxBatch without the host: after each
// sweep a one-thread kernel re-estimates the classes and decides, by the
// solver's rules, whether the batch goes on (the graph's loop stops there).
// A batch is one CUDA graph (captured once per loaded volume) whose only
// inputs are in DeviceBatchState, so the host spends three API calls and
// one sleeping synchronisation per batch.
constexpr int kMaxBatch = 32;

// The solver's bookkeeping on the device during a batch.
struct DeviceBatchState {
  // Set by the host before the batch.
  SweepConstants first;      // constants of the batch's first sweep
  int last_slot;             // the batch ends after this slot at the latest
  std::uint32_t max_sweeps;  // the solver's limit: the sweep with index + 1 == max_sweeps is the last
  double min_variance;
  long long tolerance;       // fixed point; negative: never converged
  // Kept up to date on the device.
  long long count[kClassCount], sum[kClassCount], sum_sq[kClassCount];  // class sums of the current labels
  double mean[kClassCount], variance[kClassCount];                      // class model
  ClassTerms terms;                                                      // constants of the next sweep
  int finished;                                                          // no further sweep in this batch
  int converged;
  int sweeps_run;
  long long delta_energy[kMaxBatch], labels_changed[kMaxBatch];
};

// The loaded volume as the kernels see it. Indices fit 32 bits: rows * words
// * 32 < 2^32 under the volume format's limits.
struct VolumeView {
  const std::int16_t* intensity;  // colour-split words (above)
  uint2* labels;                  // bit-sliced words (above)
  int nx, ny, nz;
  int words;  // per row: ceil(nx / 32)
};

__device__ __forceinline__ int label_at(const VolumeView& v, unsigned row, int x) {
  const uint2 word = v.labels[row * v.words + x / kWordVoxels];
  const int bit = x % kWordVoxels;
  return static_cast<int>(((word.x >> bit) & 1u) | (((word.y >> bit) & 1u) << 1));
}

__device__ __forceinline__ int intensity_at(const VolumeView& v, unsigned row, int x) {
  const int j = x % kWordVoxels;
  return v.intensity[(row * v.words + x / kWordVoxels) * kWordVoxels + (j & 1) * kColourVoxels + j / 2];
}

// ---- Bit-sliced neighbour tests: 32 voxels per operation ----

// Bit j set where the label in `a` at bit j equals the one in `b`.
__device__ __forceinline__ unsigned same_label(uint2 a, uint2 b) { return ~((a.x ^ b.x) | (a.y ^ b.y)); }

// Per bit, how many of six masks are set, as three planes (bits 0, 1, 2 of
// the count): two full adders, then the carries added.
struct Count3 {
  unsigned bit0, bit1, bit2;
};
__device__ __forceinline__ Count3 count_six(unsigned a, unsigned b, unsigned c, unsigned d, unsigned e, unsigned f) {
  const unsigned sum_abc = a ^ b ^ c, carry_abc = (a & b) | (c & (a ^ b));
  const unsigned sum_def = d ^ e ^ f, carry_def = (d & e) | (f & (d ^ e));
  const unsigned carry_sums = sum_abc & sum_def;
  return {sum_abc ^ sum_def, carry_abc ^ carry_def ^ carry_sums,
          (carry_abc & carry_def) | (carry_sums & (carry_abc ^ carry_def))};
}

// Per bit, a - b + 8 as four planes (a, b in [0, 6]: the result is in
// [2, 14]): a ripple-borrow subtraction, the final borrow inverted as bit 3.
struct Count4 {
  unsigned bit0, bit1, bit2, bit3;
};
__device__ __forceinline__ Count4 biased_difference(const Count3& a, const Count3& b) {
  const unsigned borrow0 = ~a.bit0 & b.bit0;
  const unsigned borrow1 = (~a.bit1 & b.bit1) | (~(a.bit1 ^ b.bit1) & borrow0);
  const unsigned borrow2 = (~a.bit2 & b.bit2) | (~(a.bit2 ^ b.bit2) & borrow1);
  return {a.bit0 ^ b.bit0, a.bit1 ^ b.bit1 ^ borrow0, a.bit2 ^ b.bit2 ^ borrow1, ~borrow2};
}

// proposed_label() of 32 voxels: the coin's 0 moves a label up by one (0 ->
// 1 -> 2 -> 0), its 1 by two.
__device__ __forceinline__ uint2 proposed_labels(uint2 current, unsigned coins) {
  const unsigned is_air = ~(current.x | current.y);
  return {(coins & current.y) | (~coins & is_air), (coins & is_air) | (~coins & current.x)};
}

// The proposal coins of the row's voxels x0 .. x0 + 31 (first = their
// unpadded index): bit j is proposal_coin(key, first + j), taken from the
// coin words of the one or two groups of 32 that the word overlaps.
__device__ __forceinline__ unsigned coins_of_word(std::uint32_t key, std::uint32_t first) {
  const std::uint32_t group = first >> 5, offset = first & 31u;
  const std::uint32_t low = coin_word(key, group);
  return offset ? __funnelshift_r(low, coin_word(key, group + 1), offset) : low;
}

// The colour's 16 voxels of a word, one 4-bit field each: voxel i's field is
// bits 4 (i % 8) .. 4 (i % 8) + 3 of word i / 8. Input: four planes whose
// bits 2 i (the colour's voxels, already shifted down by the parity) are
// voxel i's field bits 0, 1, 2 and 3.
struct Nibbles {
  unsigned of[2];
};
__device__ __forceinline__ unsigned spread_pairs(unsigned pairs) {  // 8 two-bit fields -> 8 nibbles
  pairs = (pairs | (pairs << 8)) & 0x00ff00ffu;
  pairs = (pairs | (pairs << 4)) & 0x0f0f0f0fu;
  return (pairs | (pairs << 2)) & 0x33333333u;
}
__device__ __forceinline__ Nibbles gather_nibbles(unsigned bit0, unsigned bit1, unsigned bit2, unsigned bit3) {
  constexpr unsigned kEven = 0x55555555u;
  const unsigned low_pairs = (bit0 & kEven) | ((bit1 & kEven) << 1);
  const unsigned high_pairs = (bit2 & kEven) | ((bit3 & kEven) << 1);
  Nibbles n;
  n.of[0] = spread_pairs(low_pairs & 0xffffu) | (spread_pairs(high_pairs & 0xffffu) << 2);
  n.of[1] = spread_pairs(low_pairs >> 16) | (spread_pairs(high_pairs >> 16) << 2);
  return n;
}
__device__ __forceinline__ unsigned nibble(const Nibbles& n, int i) { return (n.of[i / 8] >> (4 * (i % 8))) & 0xfu; }

// Per-thread running totals of a colour pass.
struct ThreadTotals {
  long long delta_energy = 0;
  int changed = 0;
  int count_change[kClassCount] = {0, 0, 0};
  int sum_change[kClassCount] = {0, 0, 0};
  long long sum_sq_change[kClassCount] = {0, 0, 0};
};

// The fixed-point class term of `label` at `intensity` (the energy kernel's,
// once per labelling). All three terms are computed and the wanted one
// selected: indexing the kernel argument at run time would copy it to local
// memory.
__device__ std::int32_t class_term_of(const ClassTerms& terms, int label, int intensity) {
  const std::int32_t air = class_term_fixed(intensity, terms.of[0]);
  const std::int32_t bone = class_term_fixed(intensity, terms.of[1]);
  const std::int32_t liver = class_term_fixed(intensity, terms.of[2]);
  return label == 0 ? air : label == 1 ? bone : liver;
}

// Two per-sweep tables over every int16 intensity (512 KB each, refilled in a
// few microseconds after each re-estimation; a volume's voxels use few
// entries, and neighbouring voxels near ones, so they stay in the L1):
// - the class terms relative to air's, (T_bone - T_air, T_liver - T_air),
//   each T exactly class_term_fixed() (clamped to 2^26: a difference fits 28
//   bits). An accepted proposal's energy change needs only T_proposed -
//   T_current.
// - the decision: byte (2 current + coin) of an intensity's entry is
//   minimum_accepted_balance(T_proposed - T_current) + 8, so that a voxel is
//   accepted when its biased balance (biased_difference()) reaches it. Bytes
//   6 and 7 (label 3, padding) are 15: never.
constexpr int kIntensityMin = -32768;
constexpr int kIntensityCount = 65536;
constexpr unsigned kNeverAccepted = 15;

__device__ __forceinline__ std::int32_t term_over_air(int2 differences, int label) {
  return label == 0 ? 0 : label == 1 ? differences.x : differences.y;
}

// One word's colour voxels: their loads, bit planes and decisions.
struct WordInputs {
  uint2 centre, west, east, north, south, below, above;  // labels of the voxels and of each neighbour
  unsigned coins;
  int parity;         // x parity of the colour's voxels in this row
  unsigned in_volume; // bits of voxels x < nx
};

// Intensity i of a word's colour from its packed pairs (decide_word()): the
// low half of pair i / 2 holds the even one, the high half the odd one.
__device__ __forceinline__ int colour_intensity(const unsigned (&intensities)[kColourVoxels / 2], int i) {
  const unsigned pair = intensities[i / 2];
  return i % 2 ? static_cast<int>(pair) >> 16 : static_cast<int>(static_cast<std::int16_t>(pair));
}

// Bits 2 i of the result: voxel x = 32 w + 2 i + parity accepts its proposal.
// `balance`/`combo` return the nibbles the decisions read.
__device__ __forceinline__ unsigned decide_word(const WordInputs& in, const uint4* intensity_pairs,
                                                const uint2* decision_mid, bool negated, Nibbles& balance,
                                                Nibbles& combo, unsigned (&intensities)[kColourVoxels / 2]) {
  const uint2 proposed = proposed_labels(in.centre, in.coins);
  const Count3 same_proposed =
      count_six(same_label(in.west, proposed), same_label(in.east, proposed), same_label(in.north, proposed),
                same_label(in.south, proposed), same_label(in.below, proposed), same_label(in.above, proposed));
  const Count3 same_current =
      count_six(same_label(in.west, in.centre), same_label(in.east, in.centre), same_label(in.north, in.centre),
                same_label(in.south, in.centre), same_label(in.below, in.centre), same_label(in.above, in.centre));
  const Count4 biased = negated ? biased_difference(same_current, same_proposed)
                                : biased_difference(same_proposed, same_current);
  const int p = in.parity;
  balance = gather_nibbles(biased.bit0 >> p, biased.bit1 >> p, biased.bit2 >> p, biased.bit3 >> p);
  combo = gather_nibbles(in.coins >> p, in.centre.x >> p, in.centre.y >> p, 0u);
  const uint4 first = intensity_pairs[0], second = intensity_pairs[1];
  intensities[0] = first.x, intensities[1] = first.y, intensities[2] = first.z, intensities[3] = first.w;
  intensities[4] = second.x, intensities[5] = second.y, intensities[6] = second.z, intensities[7] = second.w;
  unsigned accepted = 0;
#pragma unroll
  for (int i = 0; i < kColourVoxels; ++i) {
    const int intensity = colour_intensity(intensities, i);
    const uint2 entry = __ldg(decision_mid + intensity);
    const unsigned minimum = __byte_perm(entry.x, entry.y, nibble(combo, i) & 7u) & 0xffu;
    accepted |= static_cast<unsigned>(nibble(balance, i) >= minimum) << (2 * i);
  }
  return accepted & (in.in_volume >> p);
}

// The rare part: the accepted voxels' energy changes and class moves
// (`accepted`: bits 2 i, as decide_word() returns them).
__device__ void account_accepted(unsigned accepted, const Nibbles& balance, const Nibbles& combo,
                                 const unsigned (&intensities)[kColourVoxels / 2], const int2* class_mid,
                                 const SweepConstants& constants, bool negated, ThreadTotals& totals) {
  const std::int32_t beta_gap = constants.beta_in_fixed - constants.beta_out_fixed;
#pragma unroll
  for (int i = 0; i < kColourVoxels; ++i) {
    if (!((accepted >> (2 * i)) & 1u)) continue;
    const int intensity = colour_intensity(intensities, i);
    const unsigned voxel_combo = nibble(combo, i);
    const int current = static_cast<int>((voxel_combo >> 1) & 3u);
    const int proposed = proposed_label(current, static_cast<int>(voxel_combo & 1u));
    const int directed = static_cast<int>(nibble(balance, i)) - 8;
    const int same_balance = negated ? -directed : directed;  // same_proposed - same_current
    const int2 differences = __ldg(class_mid + intensity);
    // proposal_delta()'s value: the clique terms' difference is -beta_gap * balance.
    totals.delta_energy += term_over_air(differences, proposed) - term_over_air(differences, current) -
                           beta_gap * same_balance;
    ++totals.changed;
    const long long square = static_cast<long long>(intensity * intensity);  // |intensity| <= 2^15
#pragma unroll
    for (int k = 0; k < kClassCount; ++k) {
      const int moved = (k == proposed) - (k == current);
      totals.count_change[k] += moved;
      totals.sum_change[k] += moved * intensity;
      totals.sum_sq_change[k] += moved * square;
    }
  }
}

// The kernels' blocks as the device layer's block reduction sees them.
using BlockSum = BlockReduce<unsigned long long, kBlockX, kBlockY>;

// Block-level sum of one 64-bit value per thread; thread 0 adds it to *total.
__device__ void block_accumulate(unsigned long long value, unsigned long long* total, BlockSum::TempStorage& scratch) {
  const unsigned long long block_total = BlockSum::sum(value, scratch);
  if (BlockSum::thread_rank() == 0 && block_total) atomicAdd(total, block_total);
  __syncthreads();  // the scratch is free for the next sum
}

__device__ unsigned long long as_word(long long value) { return static_cast<unsigned long long>(value); }

// Adds a block's totals to the pass totals. Blocks where no label changed
// (most of them after the first sweeps) skip the reduction: all their
// contributions are zero.
__device__ void accumulate_block(const ThreadTotals& mine, DeviceTotals* totals, BlockSum::TempStorage& scratch) {
  if (!__syncthreads_or(mine.changed)) return;
  block_accumulate(as_word(mine.delta_energy), &totals->delta_energy, scratch);
  block_accumulate(as_word(mine.changed), &totals->labels_changed, scratch);
#pragma unroll
  for (int k = 0; k < kClassCount; ++k) {
    block_accumulate(as_word(mine.count_change[k]), &totals->count_change[k], scratch);
    block_accumulate(as_word(mine.sum_change[k]), &totals->sum_change[k], scratch);
    block_accumulate(as_word(mine.sum_sq_change[k]), &totals->sum_sq_change[k], scratch);
  }
}

// Updates the voxels of colour `colour` in the thread's words: one word of
// one row in each of kSlicesPerThread slices. A pass changes only its
// colour's voxels, and every neighbour of such a voxel has the other colour,
// so what a thread reads of its neighbours' words (bits of the other colour)
// is the same before and after their owners store them. Does nothing once
// the batch has finished.
__global__ void __launch_bounds__(kBlockThreads)
    colour_update_kernel(VolumeView v, const DeviceBatchState* batch, int colour, const int2* class_mid,
                         const uint2* decision_mid, DeviceTotals* batch_totals) {
  __shared__ BlockSum::TempStorage scratch;
  if (batch->finished) return;  // the same for every thread of the grid
  const int slot = batch->sweeps_run;  // this sweep's place in the batch
  DeviceTotals* totals = batch_totals + slot;
  SweepConstants constants = batch->first;
  constants.sweep_index += slot;
  const std::uint32_t coin_key = sweep_coin_key(constants.seed, constants.sweep_index);
  const bool negated = balance_is_negated(constants);
  const unsigned thread = blockIdx.x * kBlockThreads + threadIdx.y * kBlockX + threadIdx.x;
  const int w = static_cast<int>(thread % v.words), y = static_cast<int>(thread / v.words);
  const int z0 = blockIdx.y * kSlicesPerThread;
  ThreadTotals mine;
  if (y < v.ny) {
    const int voxels_left = v.nx - w * kWordVoxels;
    WordInputs in;
    in.in_volume = voxels_left >= kWordVoxels ? kAbsentBits : (1u << voxels_left) - 1u;
    const unsigned slice_words = static_cast<unsigned>(v.ny) * v.words;
    unsigned word_index = (static_cast<unsigned>(z0) * v.ny + y) * v.words + w;
    in.below = z0 > 0 ? v.labels[word_index - slice_words] : kAbsentWord;
    in.centre = v.labels[word_index];
    const int z_end = min(z0 + kSlicesPerThread, v.nz);
    for (int z = z0; z < z_end; ++z, word_index += slice_words) {
      in.above = z + 1 < v.nz ? v.labels[word_index + slice_words] : kAbsentWord;
      in.north = y > 0 ? v.labels[word_index - v.words] : kAbsentWord;
      in.south = y + 1 < v.ny ? v.labels[word_index + v.words] : kAbsentWord;
      const uint2 left = w > 0 ? v.labels[word_index - 1] : kAbsentWord;
      const uint2 right = w + 1 < v.words ? v.labels[word_index + 1] : kAbsentWord;
      // Bit j of west/east: the label of voxel x - 1 / x + 1.
      in.west = {__funnelshift_l(left.x, in.centre.x, 1), __funnelshift_l(left.y, in.centre.y, 1)};
      in.east = {__funnelshift_r(in.centre.x, right.x, 1), __funnelshift_r(in.centre.y, right.y, 1)};
      const std::uint32_t first = (static_cast<std::uint32_t>(z) * v.ny + y) * v.nx + w * kWordVoxels;
      in.coins = coins_of_word(coin_key, first);
      in.parity = (colour + y + z) & 1;
      const uint4* pairs = reinterpret_cast<const uint4*>(v.intensity) + word_index * 4 + in.parity * 2;
      Nibbles balance, combo;
      unsigned intensities[kColourVoxels / 2];
      const unsigned accepted = decide_word(in, pairs, decision_mid, negated, balance, combo, intensities);
      if (accepted) {  // rare after the first sweeps
        account_accepted(accepted, balance, combo, intensities, class_mid, constants, negated, mine);
        const unsigned changed = accepted << in.parity;
        const uint2 proposed = proposed_labels(in.centre, in.coins);
        v.labels[word_index] = {(in.centre.x & ~changed) | (proposed.x & changed),
                                (in.centre.y & ~changed) | (proposed.y & changed)};
      }
      in.below = in.centre;  // the next slice's voxels see these bits' other colour: unchanged
      in.centre = in.above;
    }
  }
  accumulate_block(mine, totals, scratch);
}

// class_statistics() of the labels on the device: count, sum and sum of
// squares of the intensities per class, one thread per (x, y) column.
struct DeviceClassSums {
  unsigned long long count[kClassCount], sum[kClassCount], sum_sq[kClassCount];
};

__global__ void __launch_bounds__(kBlockThreads) class_sums_kernel(VolumeView v, DeviceClassSums* total) {
  __shared__ BlockSum::TempStorage scratch;
  const int x = blockIdx.x * kBlockX + threadIdx.x;
  const int y = blockIdx.y * kBlockY + threadIdx.y;
  long long count[kClassCount] = {0, 0, 0}, sum[kClassCount] = {0, 0, 0}, sum_sq[kClassCount] = {0, 0, 0};
  if (x < v.nx && y < v.ny) {
    for (int z = 0; z < v.nz; ++z) {
      const unsigned row = static_cast<unsigned>(z) * v.ny + y;
      const int label = label_at(v, row, x);
      const long long intensity = intensity_at(v, row, x);
#pragma unroll
      for (int k = 0; k < kClassCount; ++k) {
        const long long in_class = label == k;
        count[k] += in_class;
        sum[k] += in_class * intensity;
        sum_sq[k] += in_class * intensity * intensity;
      }
    }
  }
#pragma unroll
  for (int k = 0; k < kClassCount; ++k) {
    block_accumulate(as_word(count[k]), &total->count[k], scratch);
    block_accumulate(as_word(sum[k]), &total->sum[k], scratch);
    block_accumulate(as_word(sum_sq[k]), &total->sum_sq[k], scratch);
  }
}

// The labelling's total energy (total_energy(): every voxel's class term and
// every neighbouring pair once, through its right, lower and next-slice
// neighbour), one thread per (x, y) column of the volume.
__global__ void __launch_bounds__(kBlockThreads)
    energy_kernel(VolumeView v, ClassTerms terms, SweepConstants constants, unsigned long long* total) {
  __shared__ BlockSum::TempStorage scratch;
  const int x = blockIdx.x * kBlockX + threadIdx.x;
  const int y = blockIdx.y * kBlockY + threadIdx.y;
  long long energy = 0;
  if (x < v.nx && y < v.ny) {
    for (int z = 0; z < v.nz; ++z) {
      const unsigned row = static_cast<unsigned>(z) * v.ny + y;
      const int label = label_at(v, row, x);
      energy += class_term_of(terms, label, intensity_at(v, row, x));
      auto pair = [&](unsigned neighbour_row, int neighbour_x) {
        return label_at(v, neighbour_row, neighbour_x) == label ? -constants.beta_in_fixed : -constants.beta_out_fixed;
      };
      if (x + 1 < v.nx) energy += pair(row, x + 1);
      if (y + 1 < v.ny) energy += pair(row + 1, x);
      if (z + 1 < v.nz) energy += pair(row + v.ny, x);
    }
  }
  block_accumulate(as_word(energy), total, scratch);
}

// The two tables (above) of every int16 intensity for the batch's current
// class terms; nothing once the batch has finished.
__global__ void class_table_kernel(const DeviceBatchState* batch, int2* class_table, uint2* decision_table) {
  if (batch->finished) return;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kIntensityCount) return;
  const int intensity = kIntensityMin + i;
  const std::int32_t air = class_term_fixed(intensity, batch->terms.of[0]);
  const int2 differences = make_int2(class_term_fixed(intensity, batch->terms.of[1]) - air,
                                     class_term_fixed(intensity, batch->terms.of[2]) - air);
  class_table[i] = differences;
  unsigned bytes[2] = {0, 0};
  for (int combo = 0; combo < 8; ++combo) {
    const int current = combo >> 1;
    unsigned minimum = kNeverAccepted;
    if (current < kClassCount) {
      const int proposed = proposed_label(current, combo & 1);
      const std::int32_t change = term_over_air(differences, proposed) - term_over_air(differences, current);
      minimum = static_cast<unsigned>(minimum_accepted_balance(change, batch->first) + 8);
    }
    bytes[combo / 4] |= minimum << (8 * (combo % 4));
  }
  decision_table[i] = make_uint2(bytes[0], bytes[1]);
}

// Host layouts to device layouts and back (load() and labels()), one thread
// per word or voxel. Labels: bytes, nx per row, into bit-sliced words
// (padding: label 3).
__global__ void pack_labels_kernel(const std::uint8_t* bytes, VolumeView v, unsigned rows) {
  const unsigned word = blockIdx.x * blockDim.x + threadIdx.x;
  if (word >= rows * v.words) return;
  const unsigned row = word / v.words;
  const int x0 = static_cast<int>(word % v.words) * kWordVoxels;
  unsigned low = 0, high = 0;
  for (int j = 0; j < kWordVoxels; ++j) {
    const unsigned label = x0 + j < v.nx ? bytes[static_cast<std::size_t>(row) * v.nx + x0 + j] : 3u;
    low |= (label & 1u) << j;
    high |= (label >> 1) << j;
  }
  v.labels[word] = make_uint2(low, high);
}

__global__ void unpack_labels_kernel(VolumeView v, unsigned rows, std::uint8_t* bytes) {
  const std::size_t voxel = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (voxel >= static_cast<std::size_t>(rows) * v.nx) return;
  bytes[voxel] = static_cast<std::uint8_t>(label_at(v, static_cast<unsigned>(voxel / v.nx), static_cast<int>(voxel % v.nx)));
}

// Intensities, nx per row, into colour-split words (padding: 0).
__global__ void split_intensities_kernel(const std::int16_t* raw, VolumeView v, unsigned rows, std::int16_t* split) {
  const std::size_t voxel = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (voxel >= static_cast<std::size_t>(rows) * v.nx) return;
  const unsigned row = static_cast<unsigned>(voxel / v.nx);
  const int x = static_cast<int>(voxel % v.nx), j = x % kWordVoxels;
  split[(row * v.words + x / kWordVoxels) * kWordVoxels + (j & 1) * kColourVoxels + j / 2] = raw[voxel];
}

// After each sweep of a batch: records it, moves the class sums by the
// sweep's changes, re-estimates the classes (estimate_class() and
// class_term_constants(), the host's own functions), applies the solver's
// stopping rule and tells the batch's loop (`loop`) whether to go on. One
// thread: a handful of FP64 operations.
__global__ void end_of_sweep_kernel(const DeviceTotals* batch_totals, DeviceBatchState* batch,
                                    cudaGraphConditionalHandle loop) {
  if (batch->finished) return;
  const int slot = batch->sweeps_run;
  const DeviceTotals* totals = batch_totals + slot;
  const long long delta_energy = static_cast<long long>(totals->delta_energy);
  batch->delta_energy[slot] = delta_energy;
  batch->labels_changed[slot] = static_cast<long long>(totals->labels_changed);
  batch->sweeps_run = slot + 1;
  for (int k = 0; k < kClassCount; ++k) {
    batch->count[k] += static_cast<long long>(totals->count_change[k]);
    batch->sum[k] += static_cast<long long>(totals->sum_change[k]);
    batch->sum_sq[k] += static_cast<long long>(totals->sum_sq_change[k]);
    if (batch->count[k] > 0)
      estimate_class(batch->count[k], batch->sum[k], batch->sum_sq[k], batch->min_variance, batch->mean[k],
                     batch->variance[k]);
    batch->terms.of[k] = class_term_constants(batch->mean[k], batch->variance[k]);
  }
  batch->converged = (delta_energy < 0 ? -delta_energy : delta_energy) <= batch->tolerance;
  const bool last_allowed = batch->first.sweep_index + slot + 1 >= batch->max_sweeps;
  batch->finished = batch->converged || last_allowed || slot == batch->last_slot;
  cudaGraphSetConditional(loop, batch->finished ? 0u : 1u);
}


class GpuSweepEngine : public SweepEngine {
 public:
  explicit GpuSweepEngine(int device) : device_(device) {
    name_ = select_cuda_device(device);
    stream_.create("creating a stream");
    host_batch_.reserve(1, "allocating pinned memory");
    batch_.allocate(1, "allocating batch state on the GPU");
    totals_.allocate(kMaxBatch, "allocating totals on the GPU");
    class_table_.allocate(kIntensityCount, "allocating the class table on the GPU");
    decision_table_.allocate(kIntensityCount, "allocating the decision table on the GPU");
  }

  std::string description() const override { return "CUDA device " + std::to_string(device_) + " (" + name_ + ")"; }

  void load(const Volume& volume, const std::vector<std::uint8_t>& labels) override {
    volume_ = &volume;
    voxel_count_ = volume.size();
    words_ = (volume.nx + kWordVoxels - 1) / kWordVoxels;
    const std::size_t word_count = rows() * words_;
    intensity_.allocate(word_count * kWordVoxels, "allocating the volume on the GPU");
    labels_.allocate(word_count, "allocating labels on the GPU");
    // The padding of the split intensities is read by the vector loads: zero it.
    check_cuda(cudaMemsetAsync(intensity_.data, 0, intensity_.count * sizeof(std::int16_t), stream_),
               "clearing the volume");
    {  // host layouts through staging buffers (upload() waits until they have landed)
      DeviceBuffer<std::int16_t> raw_intensity;
      DeviceBuffer<std::uint8_t> raw_labels;
      raw_intensity.upload(volume.voxels.data(), volume.voxels.size(), "copying the volume to the GPU");
      raw_labels.upload(labels.data(), labels.size(), "copying labels to the GPU");
      const VolumeView view = device_view();
      const unsigned row_count = static_cast<unsigned>(rows());
      split_intensities_kernel<<<voxel_blocks(), kBlockThreads, 0, stream_>>>(raw_intensity.data, view, row_count,
                                                                              intensity_.data);
      pack_labels_kernel<<<static_cast<unsigned>((word_count + kBlockThreads - 1) / kBlockThreads), kBlockThreads, 0,
                           stream_>>>(raw_labels.data, view, row_count);
      check_cuda(cudaGetLastError(), "launching the layout kernels");
      stream_.synchronize("laying the volume out on the GPU");  // before the staging buffers go
    }
    sums_ = device_class_sums();
    capture_batch_graph();
  }

  // One sweep with the classes of `model`, no stopping rule.
  SweepStats sweep(const ClassModel& model, const SweepConstants& constants) override {
    const DeviceBatchState& state = run_batch(model, constants, 1, 1.0, -1, ~0u);
    SweepStats stats;
    stats.delta_energy = state.delta_energy[0];
    stats.labels_changed = state.labels_changed[0];
    stats.sums = sums_;
    return stats;
  }

  SweepBatch run_sweeps(const ClassModel& model, const MrfParams& params, std::uint32_t first_sweep,
                        int count) override {
    const DeviceBatchState& state =
        run_batch(model, sweep_constants(params, first_sweep), count, params.min_variance,
                  energy_tolerance_fixed(params, voxel_count_), static_cast<std::uint32_t>(params.max_sweeps));
    SweepBatch batch;
    for (int slot = 0; slot < state.sweeps_run; ++slot)
      batch.records.push_back({first_sweep + slot + 1, state.delta_energy[slot], state.labels_changed[slot]});
    for (int k = 0; k < kClassCount; ++k) batch.model.mean[k] = state.mean[k], batch.model.variance[k] = state.variance[k];
    batch.converged = state.converged;
    return batch;
  }

  int sweeps_per_batch() const override { return kMaxBatch; }

  ClassSums class_sums(const Volume&) override { return sums_; }

  std::int64_t labelling_energy(const Volume&, const ClassModel& model, const SweepConstants& constants) override {
    const VolumeView view = device_view();
    DeviceBuffer<unsigned long long> energy;
    energy.allocate(1, "allocating the energy total on the GPU");
    check_cuda(cudaMemsetAsync(energy.data, 0, sizeof(unsigned long long), stream_), "clearing the energy");
    energy_kernel<<<column_grid(), dim3(kBlockX, kBlockY), 0, stream_>>>(view, class_terms(model), constants,
                                                                        energy.data);
    check_cuda(cudaGetLastError(), "launching the energy kernel");
    unsigned long long total = 0;
    check_cuda(cudaMemcpyAsync(&total, energy.data, sizeof total, cudaMemcpyDeviceToHost, stream_),
               "reading the energy");
    stream_.synchronize("computing the energy on the GPU");
    return static_cast<std::int64_t>(total);  // two's complement, as summed
  }

  std::vector<std::uint8_t> labels() override {
    DeviceBuffer<std::uint8_t> bytes;
    bytes.allocate(volume_->size(), "allocating the label bytes on the GPU");
    unpack_labels_kernel<<<voxel_blocks(), kBlockThreads, 0, stream_>>>(device_view(), static_cast<unsigned>(rows()),
                                                                        bytes.data);
    check_cuda(cudaGetLastError(), "launching the label unpacking");
    std::vector<std::uint8_t> host(volume_->size());
    check_cuda(cudaMemcpyAsync(host.data(), bytes.data, host.size(), cudaMemcpyDeviceToHost, stream_),
               "reading labels");
    stream_.synchronize("reading labels");
    return host;
  }

 private:
  // class_statistics() of the labels on the device (as load() leaves them).
  ClassSums device_class_sums() {
    const VolumeView view = device_view();
    DeviceBuffer<DeviceClassSums> total;
    total.allocate(1, "allocating the class sums on the GPU");
    check_cuda(cudaMemsetAsync(total.data, 0, sizeof(DeviceClassSums), stream_), "clearing the class sums");
    class_sums_kernel<<<column_grid(), dim3(kBlockX, kBlockY), 0, stream_>>>(view, total.data);
    check_cuda(cudaGetLastError(), "launching the class sums kernel");
    DeviceClassSums host;
    check_cuda(cudaMemcpyAsync(&host, total.data, sizeof host, cudaMemcpyDeviceToHost, stream_),
               "reading the class sums");
    stream_.synchronize("summing the classes on the GPU");
    ClassSums sums;
    for (int k = 0; k < kClassCount; ++k) {  // two's complement, as summed
      sums.count[k] = static_cast<std::int64_t>(host.count[k]);
      sums.sum[k] = static_cast<std::int64_t>(host.sum[k]);
      sums.sum_sq[k] = static_cast<std::int64_t>(host.sum_sq[k]);
    }
    return sums;
  }

  // The loaded volume and labels as the kernels see them.
  VolumeView device_view() const {
    return {intensity_.data, labels_.data, volume_->nx, volume_->ny, volume_->nz, words_};
  }

  std::size_t rows() const { return static_cast<std::size_t>(volume_->ny) * volume_->nz; }

  // One thread per voxel, in blocks of kBlockThreads.
  unsigned voxel_blocks() const {
    return static_cast<unsigned>((volume_->size() + kBlockThreads - 1) / kBlockThreads);
  }

  // The tables indexed by intensity (from kIntensityMin).
  const int2* class_middle() const { return class_table_.data - kIntensityMin; }
  const uint2* decision_middle() const { return decision_table_.data - kIntensityMin; }

  // One thread per (x, y) column of the volume, in kBlockX x kBlockY blocks.
  dim3 column_grid() const {
    return dim3((volume_->nx + kBlockX - 1) / kBlockX, (volume_->ny + kBlockY - 1) / kBlockY);
  }

  // Records one batch as a CUDA graph for this volume: a loop whose turn is
  // a sweep (two colour passes, the end-of-sweep step, the next sweep's
  // tables) and which the end-of-sweep step stops. Every sweep unrolled
  // (130 nodes for 32 sweeps) cost the host about 0.25 ms a batch to launch
  // (7 % of one core while the GPU works); the loop costs the device about
  // 14 us a sweep more (a batch of 21 sweeps on the H100: 3.79 -> 4.08 ms,
  // the same with four sweeps a turn). The trade is taken: the sweeps stay
  // past 4e11 updates/s, and a pegged host core is what volunteers mind.
  void capture_batch_graph() {
    const VolumeView view = device_view();
    const dim3 block(kBlockX, kBlockY);
    // One thread per (word, row) pair and slice group.
    const dim3 grid(static_cast<unsigned>((static_cast<std::size_t>(words_) * volume_->ny + kBlockThreads - 1) /
                                          kBlockThreads),
                    (volume_->nz + kSlicesPerThread - 1) / kSlicesPerThread);
    const int table_blocks = (kIntensityCount + 255) / 256;
    batch_graph_.capture_while(
        stream_, "capturing the sweep batch", "instantiating the sweep batch",
        [&] {
          cudaMemsetAsync(totals_.data, 0, kMaxBatch * sizeof(DeviceTotals), stream_);
          class_table_kernel<<<table_blocks, 256, 0, stream_>>>(batch_.data, class_table_.data, decision_table_.data);
        },
        [&](cudaGraphConditionalHandle loop) {
          for (int colour = 0; colour < 2; ++colour)
            colour_update_kernel<<<grid, block, 0, stream_>>>(view, batch_.data, colour, class_middle(),
                                                              decision_middle(), totals_.data);
          end_of_sweep_kernel<<<1, 1, 0, stream_>>>(totals_.data, batch_.data, loop);
          class_table_kernel<<<table_blocks, 256, 0, stream_>>>(batch_.data, class_table_.data, decision_table_.data);
        });
  }

  // Runs up to `count` sweeps from constants.sweep_index with one graph launch
  // and one synchronisation; the sweep whose index + 1 reaches max_sweeps is
  // the last. Returns the batch state as read back (pinned memory).
  const DeviceBatchState& run_batch(const ClassModel& model, const SweepConstants& constants, int count,
                                    double min_variance, long long tolerance, std::uint32_t max_sweeps) {
    DeviceBatchState& state = *host_batch_.data;
    state.first = constants;
    state.last_slot = (count < kMaxBatch ? count : kMaxBatch) - 1;
    state.max_sweeps = max_sweeps;
    state.min_variance = min_variance;
    state.tolerance = tolerance;
    for (int k = 0; k < kClassCount; ++k) {
      state.count[k] = sums_.count[k], state.sum[k] = sums_.sum[k], state.sum_sq[k] = sums_.sum_sq[k];
      state.mean[k] = model.mean[k], state.variance[k] = model.variance[k];
    }
    state.terms = class_terms(model);
    state.finished = state.converged = state.sweeps_run = 0;
    check_cuda(cudaMemcpyAsync(batch_.data, host_batch_.data, sizeof(DeviceBatchState), cudaMemcpyHostToDevice,
                               stream_),
               "uploading the batch state");
    batch_graph_.launch(stream_, "launching MRF sweeps");
    check_cuda(cudaMemcpyAsync(host_batch_.data, batch_.data, sizeof(DeviceBatchState), cudaMemcpyDeviceToHost,
                               stream_),
               "reading the batch state");
    stream_.synchronize("running MRF sweeps");
    for (int k = 0; k < kClassCount; ++k)
      sums_.count[k] = state.count[k], sums_.sum[k] = state.sum[k], sums_.sum_sq[k] = state.sum_sq[k];
    return state;
  }

  int device_;
  std::string name_;
  CudaStream stream_;
  PinnedBuffer<DeviceBatchState> host_batch_;  // the batch state's upload and read-back
  const Volume* volume_ = nullptr;
  int words_ = 0;  // per row
  ClassSums sums_;  // of the labels on the device, kept up to date by run_batch()
  DeviceBuffer<std::int16_t> intensity_;
  DeviceBuffer<uint2> labels_;  // bit-sliced words
  DeviceBuffer<DeviceTotals> totals_;  // one per sweep of a batch
  DeviceBuffer<int2> class_table_;      // term_over_air of every int16 intensity, for the current sweep
  DeviceBuffer<uint2> decision_table_;  // minimum balances of every int16 intensity, for the current sweep
  DeviceBuffer<DeviceBatchState> batch_;
  CudaGraph batch_graph_;  // one batch's launches, for the loaded volume
};

}  // namespace

std::unique_ptr<SweepEngine> make_gpu_engine(int device) { return std::make_unique<GpuSweepEngine>(device); }

}  // namespace helix::mrf
