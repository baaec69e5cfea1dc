// hmm_gpu_bias.cu: the bias filter on the GPU (hmm_gpu_filters.cuh): one
// thread per MSV survivor with the reference's own function
// (bias_filter_score, hmm_filters.h).
#include "core/cuda_support.h"
#include "hmm_gpu_filters.cuh"
#include "hmm_warp.cuh"

namespace helix::hmmsearch {
namespace {

// The bias filter's null, one thread per target.
__global__ void bias_thread_kernel(const std::uint8_t* codes, const std::uint64_t* offsets, const BatchTarget* batch,
                                   std::uint32_t count, BiasFilterHmm filter, float* out, unsigned* next) {
  for (;;) {
    const unsigned b = atomicAdd(next, 1u);
    if (b >= count) return;
    const std::uint64_t offset = offsets[batch[b].target];
    const int L = static_cast<int>(offsets[batch[b].target + 1] - offset);
    out[b] = bias_filter_score(codes + offset, L, filter, batch[b].config);
  }
}

}  // namespace

void launch_bias_filter(int blocks, int block_threads, const std::uint8_t* codes, const std::uint64_t* offsets,
                        const BatchTarget* batch, std::uint32_t count, BiasFilterHmm filter, float* out,
                        unsigned* next, cudaStream_t stream) {
  bias_thread_kernel<<<blocks, block_threads, 0, stream>>>(codes, offsets, batch, count, filter, out, next);
}

}  // namespace helix::hmmsearch
