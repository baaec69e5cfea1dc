// hmm_warp.cuh: what the kind's warp-per-target kernels share (MSV, Viterbi
// and Forward in hmm_gpu_msv.cu, hmm_gpu_viterbi.cu and hmm_gpu_forward.cu,
// Backward in hmm_gpu_domains.cu): the warp's constants, taking the next
// target of a batch, finding the warp's scratch rows, the Team (a warp, or a
// block for the longest entries of Forward and Backward) with its block's
// next entry, and the stripe leaders of the Forward and Backward rows'
// serial chains.
// Maxima over a warp are the device layer's warp_max (core/warp_reduce.cuh,
// included here): one __reduce_max_sync for ints on sm_80+, a butterfly on
// sm_75. Include from the kind's .cu files only.
#pragma once
#include <cstddef>

#include "core/warp_reduce.cuh"
#include "hmm_profile.h"

namespace helix::hmmsearch {

constexpr int kWarp = kWarpThreads;
constexpr unsigned kFullMask = kFullWarpMask;

// The next slot of a batch for the whole warp: lane 0 takes it from the
// batch's counter, every lane gets it. Warps take targets as they finish
// (batches run longest first), so one long target never holds up the rest.
__device__ __forceinline__ unsigned next_warp_slot(unsigned* next) {
  unsigned slot = 0;
  if (threadIdx.x % kWarp == 0) slot = atomicAdd(next, 1u);
  return __shfl_sync(kFullMask, slot, 0);
}

// This warp's `per_warp` elements of scratch: in the block's dynamic shared
// memory when the rows fit there, else the warp's own stretch of `global`.
template <typename T>
__device__ __forceinline__ T* warp_scratch(T* shared, T* global, bool in_shared, std::size_t per_warp) {
  if (in_shared) return shared + (threadIdx.x / kWarp) * per_warp;
  return global + ((blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / kWarp) * per_warp;
}

// The threads working on one target: a warp, or for the longest targets a
// whole block (their rows are long, and one warp's share of each row's
// cell work would set the time). The serial chains stay on lanes of the
// first warp either way.
struct Team {
  int rank, size;
  float* slot;  // the block's shared word for broadcasts (block teams)
  __device__ bool whole_block() const { return size > kWarp; }
  __device__ void sync() const {
    if (whole_block()) __syncthreads();
    else __syncwarp();
  }
  // Thread 0's value, for every thread of the team.
  __device__ float from_first(float v) const {
    if (!whole_block()) return __shfl_sync(kFullMask, v, 0);
    if (rank == 0) *slot = v;
    __syncthreads();
    const float shared = *slot;
    __syncthreads();
    return shared;
  }
};

// The Forward and Backward rows' serial chains (E's sum, B's sum, the D->D
// passes) run in HMMER's order on one lane per stripe of HMMER's four SSE
// elements: lanes 0, 8, 16 and 24, each leading the eight lanes of its
// stripe's cell work.
constexpr int kStripeLanes = 8;
constexpr unsigned kStripeLeaders = 0x01010101u;

// The four stripe leaders' values summed as SSE's horizontal sum, (v0 + v1)
// + (v2 + v3), on every leader.
__device__ __forceinline__ float leaders_sum(float v) {
  const float pair = v + __shfl_xor_sync(kStripeLeaders, v, kStripeLanes);
  return pair + __shfl_xor_sync(kStripeLeaders, pair, 2 * kStripeLanes);
}

// The least of the four stripe leaders' values, on every leader.
__device__ __forceinline__ float leaders_min(float v) {
  const float pair = fminf(v, __shfl_xor_sync(kStripeLeaders, v, kStripeLanes));
  return fminf(pair, __shfl_xor_sync(kStripeLeaders, pair, 2 * kStripeLanes));
}

// Whether adding any value up to `addend` to a float of at least `least`
// provably leaves it as it is: below 2^-25 of it, the addend is under half
// an ulp, and the sum rounds back. (Should least * 2^-25 flush to zero, the
// test fails, and the caller adds.) The D->D passes' skips rest on this;
// each kernel says why its `least` bounds every cell a pass meets.
__device__ __forceinline__ bool rounds_away(float addend, float least) {
  return addend == 0.0f || addend < least * 0x1p-25f;
}

// The next entry of the longest ones [0, long_count) for a whole block, or
// long_count when they are all taken.
__device__ __forceinline__ unsigned next_block_slot(unsigned* next, unsigned long_count) {
  __shared__ unsigned slot;
  if (threadIdx.x == 0) slot = atomicAdd(next, 1u);
  __syncthreads();
  const unsigned taken = slot < long_count ? slot : long_count;
  __syncthreads();
  return taken;
}

}  // namespace helix::hmmsearch
