// hmm_gpu_envelopes.h: the last kernel of the GPU's envelope rescoring in
// domain definition (hmm_gpu_envelopes.cu), for the CUDA engine (hmm_gpu.cu).
// All pointers are device memory.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "hmm_envelope_rows.h"

namespace helix::hmmsearch {

// One envelope: where its residues, rows, specials and trace steps are.
struct EnvelopeJob {
  std::uint64_t codes_at = 0;  // its first residue in the chunk's codes
  std::uint64_t rows_at = 0;   // Forward's rows there, Backward's (L + 1) * 12Q floats on
  std::uint64_t x_at = 0;      // Forward's specials there, Backward's (L + 1) * kSpecialCells floats on
  std::uint64_t steps_at = 0;
  int L = 0, room = 0, null2 = 0;
  SpecialOdds special;         // unihit, the target's length model
};

// The envelopes' Forward and Backward matrices are in place (the Forward and
// Backward warp kernels' envelope modes); this kernel decodes them.
struct EnvelopeBatch {
  const EnvelopeJob* jobs = nullptr;
  unsigned count = 0;
  int M = 0, Q = 0;
  const float* transitions = nullptr;  // OddsProfile::striped_transitions
  const float* match = nullptr;        // OddsProfile::striped_match
  float* rows = nullptr;
  float* specials = nullptr;
  const float* forward_scores = nullptr;   // per envelope: Forward's score, nats
  const std::uint8_t* own_scales = nullptr;  // per envelope: Backward used its own scale factors
  TraceStep* steps = nullptr;
  EnvelopeScores* out = nullptr;
};

// Floats of rows and of specials one envelope of L residues needs.
inline std::size_t envelope_row_floats(int L, int Q) { return 2 * static_cast<std::size_t>(L + 1) * 12 * Q; }
inline std::size_t envelope_special_floats(int L) { return 2 * static_cast<std::size_t>(L + 1) * kSpecialCells; }

// One warp per envelope: posterior decoding, the optimal-accuracy DP, its
// traceback and the null2 odds. Queued on `stream`.
void launch_envelope_decoding(const EnvelopeBatch& batch, cudaStream_t stream);

}  // namespace helix::hmmsearch
