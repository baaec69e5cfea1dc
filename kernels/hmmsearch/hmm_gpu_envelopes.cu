// hmm_gpu_envelopes.cu: the GPU's envelope rescoring in domain definition:
// for every envelope of a block's passed targets, Forward and Backward over
// the envelope, decoding, optimal accuracy, its traceback and null2
// (hmm_envelope_rows.h, the same functions the CPU reference runs, so the
// same floats). One lane of a warp per envelope: a block has hundreds to thousands
// of envelopes, the host sorts them longest first.
#include "hmm_gpu_envelopes.h"

#include "core/cuda_support.h"

namespace helix::hmm {
namespace {

// One lane per warp works: the walks of different tasks branch apart at
// every step, and lanes of one warp that branch apart take turns, which
// made 32 tasks to a warp about 32 times slower than one.
constexpr int kWarpSize = 32, kWarpsPerBlock = 4;

__global__ void rescore_envelopes_kernel(EnvelopeBatch b) {
  const unsigned n = (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize;
  if (threadIdx.x % kWarpSize != 0 || n >= b.count) return;
  const EnvelopeJob job = b.jobs[n];
  const StripedOdds p{b.M, b.Q, b.transitions, b.match, job.special};
  const std::size_t cells = static_cast<std::size_t>(job.L + 1) * 12 * b.Q;
  const std::size_t specials = static_cast<std::size_t>(job.L + 1) * kSpecialCells;
  const EnvelopeScratch scratch{b.rows + job.rows_at,          b.specials + job.x_at,
                                b.rows + job.rows_at + cells,  b.specials + job.x_at + specials,
                                b.steps + job.steps_at,        job.room};
  EnvelopeScores scores;
  rescore_envelope_rows(b.codes + job.codes_at, job.L, p, job.null2 != 0, scratch, scores);
  b.out[n] = scores;
}

}  // namespace

void launch_envelope_rescoring(const EnvelopeBatch& batch) {
  if (batch.count == 0) return;
  const unsigned blocks = (batch.count + kWarpsPerBlock - 1) / kWarpsPerBlock;
  rescore_envelopes_kernel<<<blocks, kWarpsPerBlock * kWarpSize>>>(batch);
  check_cuda(cudaGetLastError(), "envelope rescoring kernel launch");
}

}  // namespace helix::hmm
