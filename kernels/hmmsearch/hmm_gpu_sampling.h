// hmm_gpu_sampling.h: launch of the region sampling kernel of domain
// definition (hmm_gpu_sampling.cu), for the CUDA engine (hmm_gpu.cu), which
// first writes each region's Forward matrix with its Forward warp kernel.
// All pointers are device memory.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "hmm_sampling_rows.h"

namespace helix::hmmsearch {

// One region: where its residues and its working and result memory are.
struct RegionJob {
  std::uint64_t codes_at = 0;  // its first residue in the chunk's codes
  std::uint64_t rows_at = 0;   // its Forward matrix: (L + 1) * 12Q floats, written before
  std::uint64_t x_at = 0;      // its specials: (L + 1) * kSpecialCells floats, written before
  std::uint64_t usage_at = 0;  // M + 1 floats, zeroed
  std::uint64_t used_at = 0;   // M ints
  std::uint64_t sums_at = 0;   // L floats, zeroed
  std::uint64_t pairs_at = 0;  // `room` pairs
  int L = 0, room = 0;
  SpecialOdds special;         // multihit, the target's length model
};

struct RegionBatch {
  const std::uint8_t* codes = nullptr;
  const RegionJob* jobs = nullptr;
  unsigned count = 0;
  int M = 0, Q = 0;
  const float* transitions = nullptr;  // OddsProfile::striped_transitions
  const float* match = nullptr;        // OddsProfile::striped_match
  CodeMembers members{};
  int samples = 0;
  std::uint32_t rng_state = 0;         // the generator's state after each region's reseeding
  float* rows = nullptr;
  float* specials = nullptr;
  float* usage = nullptr;
  int* used = nullptr;
  float* sums = nullptr;
  SampledPair* pairs = nullptr;
  int* status = nullptr;      // per region: a SamplingStatus
  int* pair_count = nullptr;  // per region
};

// Room for a region's segment pairs on the GPU; a region that needs more is
// sampled again on the CPU.
inline int region_pair_room(int L, int samples) { return samples * (8 + L / 32); }

// One warp per region, queued on `stream`.
void launch_region_sampling(const RegionBatch& batch, cudaStream_t stream);

}  // namespace helix::hmmsearch
