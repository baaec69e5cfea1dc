// hmm_gpu_bias.cu: the bias filter on the GPU (hmm_gpu_filters.cuh): one
// warp per MSV survivor, with the reference's own row steps
// (BiasFilterRows, hmm_filters.h).
//
// A row's recurrence is two divisions and a few products; the log of its
// scale, in double as the reference takes it, costs far more, and no row
// needs an earlier row's log. So one lane runs the recurrence 32 rows at a
// time, keeping each row's scale; the 32 lanes take those rows' logs at
// once; and the logs are added in row order, as the reference adds them.
// With a thread per target a batch lasted as long as its longest target's
// thread: the long targets' bias stage took 12.4 ms of a Pkinase search,
// and their filters now take 4.5 ms less (bench/RESULTS.md).
#include "core/cuda_support.h"
#include "hmm_gpu_filters.cuh"
#include "hmm_warp.cuh"

namespace helix::hmmsearch {
namespace {

constexpr int kBiasWarpsPerBlock = 4;

// Lane 0 runs rows i0 .. i0+n-1 of the recurrence (the next row's residue
// from the warp's codes, loaded together), keeping each row's scale.
__device__ __forceinline__ void recurrence_rows(BiasFilterRows& rows, const BiasFilterHmm& filter, int i0, int n,
                                                int L, const std::uint8_t* next_codes, float* scales) {
#pragma unroll 4
  for (int j = 0; j < n; ++j) {
    scales[j] = rows.scale_row();
    if (i0 + j + 1 < L) rows.next_row(next_codes[j], filter);
  }
}

__global__ void bias_warp_kernel(const std::uint8_t* codes, const std::uint64_t* offsets, const BatchTarget* batch,
                                 std::uint32_t count, BiasFilterHmm filter, float* out, unsigned* next) {
  __shared__ float row_scales[kBiasWarpsPerBlock][kWarp];
  __shared__ std::uint8_t next_codes[kBiasWarpsPerBlock][kWarp];
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  for (;;) {
    const unsigned b = next_warp_slot(next);
    if (b >= count) return;
    const std::uint64_t offset = offsets[batch[b].target];
    const int L = static_cast<int>(offsets[batch[b].target + 1] - offset);
    const std::uint8_t* sequence = codes + offset;
    BiasFilterRows rows(sequence[0], filter, batch[b].config);  // lane 0's is the one carried
    float log_score = 0.0;                                      // the same on every lane
    for (int i0 = 0; i0 < L; i0 += kWarp) {
      const int n = min(kWarp, L - i0);
      if (i0 + lane + 1 < L) next_codes[warp][lane] = sequence[i0 + lane + 1];
      __syncwarp();
      if (lane == 0) recurrence_rows(rows, filter, i0, n, L, next_codes[warp], row_scales[warp]);
      __syncwarp();
      const float row_log = lane < n ? bias_filter_log(row_scales[warp][lane]) : 0.0f;
      for (int j = 0; j < n; ++j) log_score += __shfl_sync(kFullMask, row_log, j);
      __syncwarp();  // the shared rows are refilled next
    }
    if (lane == 0) out[b] = bias_filter_total(log_score + bias_filter_log(rows.end()), L, batch[b].config);
  }
}

}  // namespace

int bias_filter_block_threads() { return kBiasWarpsPerBlock * kWarp; }

void launch_bias_filter(int blocks, const std::uint8_t* codes, const std::uint64_t* offsets,
                        const BatchTarget* batch, std::uint32_t count, BiasFilterHmm filter, float* out,
                        unsigned* next, cudaStream_t stream) {
  bias_warp_kernel<<<blocks, kBiasWarpsPerBlock * kWarp, 0, stream>>>(codes, offsets, batch, count, filter, out,
                                                                      next);
}

}  // namespace helix::hmmsearch
