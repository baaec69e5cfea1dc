// hmm_gpu_domains.h: launch of the domain-definition parser kernel
// (hmm_gpu_domains.cu), for the CUDA engine (hmm_gpu.cu). All pointers are
// device memory.
#pragma once
#include <cstdint>

#include "hmm_dp_rows.h"

namespace helix::hmm {

struct DomainParserBatch {
  const std::uint8_t* codes = nullptr;     // the chunk's residues
  const std::uint64_t* offsets = nullptr;  // target t is codes[offsets[t] .. offsets[t + 1])
  const std::uint32_t* targets = nullptr;  // the batch's targets, longest first
  std::uint32_t count = 0;
  const SpecialOdds* specials = nullptr;   // per batch entry: multihit, its length model
  const std::uint64_t* special_offsets = nullptr;  // per entry: its (L + 1) * kSpecialCells floats
  float* forward_specials = nullptr;
  float* backward_specials = nullptr;
  std::uint8_t* own_scales = nullptr;      // per entry: Backward used its own scale factors
  float* rows = nullptr;                   // per thread: two rows of 12 Q floats
  int M = 0, Q = 0;
  const float* transitions = nullptr;      // StripedOdds' striped core odds
  const float* match = nullptr;
  unsigned* next = nullptr;                // work counter, zeroed
};

void launch_domain_parsers(const DomainParserBatch& batch, int blocks, int threads_per_block);

}  // namespace helix::hmm
