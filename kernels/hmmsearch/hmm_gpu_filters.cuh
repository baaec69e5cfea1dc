// hmm_gpu_filters.cuh: launches of the four filter kernels of the hmmsearch
// CUDA engine (hmm_gpu.cu, which holds the profile and the chunk on the GPU
// and calls these), each stage in its own file:
//   MSV          hmm_gpu_msv.cu       one warp per target (a thread per target for very long models)
//   bias filter  hmm_gpu_bias.cu      one warp per MSV survivor
//   Viterbi      hmm_gpu_viterbi.cu   one warp per target
//   Forward      hmm_gpu_forward.cu   one warp per target, a block for the longest; also domain
//                                     definition's Forward passes over targets, regions and envelopes
// Every kernel equals its CPU reference in hmm_filters.h bit for bit. All
// pointers are device memory; a launcher queues its kernel on the `stream` it
// is given (the engine's, non-blocking) and returns.
// Include from the kind's .cu files only.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hmm_filters.h"
#include "hmm_gpu_domains.h"
#include "hmm_gpu_sampling.h"
#include "hmm_profile.h"

namespace helix::hmmsearch {

// Targets of a Viterbi or Forward batch: which target, its length config.
struct BatchTarget {
  std::uint32_t target;
  LengthConfig config;
};

// ---------------------------------------------------------------- MSV (hmm_gpu_msv.cu)

struct MsvKernelArgs {
  const std::uint8_t* codes;
  const std::uint64_t* offsets;
  const std::uint32_t* order;  // targets, longest first
  std::uint32_t count;
  const std::uint32_t* scores;  // [code][word][lane]: (bias - cost) pairs, cells 2w, 2w+1 of the lane's segment
  const std::uint8_t* tjb;      // per target
  std::uint8_t bias, tec, tbm;
  int* xj;                      // per target: final J byte, or -1 on overflow
  unsigned* next;               // work counter
};

// The MSV scores of a profile in the warp kernel's layout (see MsvKernelArgs).
std::vector<std::uint32_t> msv_score_pairs(const SearchProfile& profile, int W);
// Words per lane of the warp kernel for a model of M nodes; 0: too long for
// the warp kernels (the thread kernel runs it).
int msv_words_for(int M);
// The warp kernel for W words per lane, on enough blocks to fill `sms` SMs;
// GpuError when no kernel has W words.
void launch_msv_words(int W, const MsvKernelArgs& args, int sms, cudaStream_t stream);
// msv_filter_xj (hmm_filters.h) per target, `threads` threads each with its
// own row of msv_scratch_bytes(view.M) bytes in `scratch`: xj[t] per target.
void launch_msv_threads(int threads, const std::uint8_t* codes, const std::uint64_t* offsets,
                        const std::uint32_t* order, std::uint32_t count, MsvView view, const std::uint8_t* tjb,
                        std::uint8_t* scratch, int* xj, cudaStream_t stream);

// ---------------------------------------------------------------- bias filter (hmm_gpu_bias.cu)

// bias_filter_score (hmm_filters.h) of every entry of `batch`, one warp
// each, in blocks of bias_filter_block_threads(): out[b]. `next`: the
// batch's work counter, zeroed.
int bias_filter_block_threads();
void launch_bias_filter(int blocks, const std::uint8_t* codes, const std::uint64_t* offsets, const BatchTarget* batch,
                        std::uint32_t count, BiasFilterHmm filter, float* out, unsigned* next, cudaStream_t stream);

// ---------------------------------------------------------------- Viterbi (hmm_gpu_viterbi.cu)

// A profile's Viterbi scores striped over the 32 lanes (hmm_gpu_viterbi.cu).
struct ViterbiStriped {
  int M, Q;
  const std::int16_t* match;                            // [code][q][lane]
  const CellTransitions<std::int16_t>* transitions;     // [q][lane]
  std::int16_t e_loop, e_move;
  int dd_bound;
};

// Lets the Viterbi kernel take all the dynamic shared memory a block may
// have (its rows, when a block's fit; core/cuda_support.h says why all).
void allow_viterbi_shared_rows();
// The Viterbi filter over `batch`, one warp per entry: out_xc[b], the final C
// word, or 32767 on overflow. Rows in shared memory (`shared_bytes` per
// block) when `shared_rows`, else 3 * Q * 32 words per warp of `global_rows`.
void launch_viterbi_warps(int blocks, int block_threads, std::size_t shared_bytes, const std::uint8_t* codes,
                          const std::uint64_t* offsets, const BatchTarget* batch, std::uint32_t count,
                          ViterbiStriped v, std::int16_t* global_rows, bool shared_rows, int* out_xc,
                          unsigned* next, cudaStream_t stream);

// ---------------------------------------------------------------- Forward (hmm_gpu_forward.cu)

// A profile's Forward odds for HMMER's striping of Q segments
// (hmm_gpu_forward.cu), in cell order (CellOdds, hmm_gpu_domains.h).
struct ForwardStriped {
  int M, Q;
  CellOdds odds;
  float e_loop, e_move;
};
constexpr int kForwardLanes = 4;                          // HMMER's SSE elements
constexpr int kForwardWarpsPerBlock = 4;

// Per warp: two rows of M, D, I (4Q each), the stripes' D->D odds (4Q), and
// the four stripes' outgoing M->D.
__host__ __device__ inline std::size_t forward_warp_floats(int Q) {
  return 7 * kForwardLanes * static_cast<std::size_t>(Q) + kForwardLanes;
}

// What the Forward kernel computes for entries [0, count) (see
// launch_forward_warps).
// Everything of one entry b for the Forward kernel below, by a warp or a
// block (Team): each stripe's cells shared by size / 4 threads, the chains
// on lanes 0, 8, 16 and 24 of the first warp.
struct ForwardEntries {
  const std::uint8_t* codes;
  const std::uint64_t* offsets;
  const BatchTarget* batch;
  ForwardStriped f;
  float* out;
  float* specials;
  const std::uint64_t* special_offsets;
  const RegionJob* regions;
  float* region_rows;
};

// Lets the Forward kernel take all the dynamic shared memory a block may
// have (its rows, when a block's fit; core/cuda_support.h says why all).
void allow_forward_shared_rows();
// The Forward kernel over entries [0, count), kForwardWarpsPerBlock warps per
// block: e.out[b], the score in nats. Rows in shared memory (`shared_bytes`
// per block) when `shared_rows`, else forward_warp_floats(Q) per warp of
// `global_rows`. With e.specials (domain definition's parser pass), each
// row's E, N, J, B, C and scale factor are kept too, at specials +
// special_offsets[b]. With e.regions (domain definition's sampling and
// rescoring), entry b is the residues of regions[b] instead of its whole
// target, and every row's cells are kept as well, in hmm_dp_rows.h's layout,
// at region_rows + regions[b].rows_at. The first `long_blocks` blocks take
// the longest entries [0, long_count) (batches run longest first) one per
// block, then their warps join the others, one entry per warp. `next`: two
// work counters, zeroed.
void launch_forward_warps(int blocks, std::size_t shared_bytes, const ForwardEntries& e, std::uint32_t count,
                          float* global_rows, bool shared_rows, unsigned* next, unsigned long_count,
                          unsigned long_blocks, cudaStream_t stream);

}  // namespace helix::hmmsearch
