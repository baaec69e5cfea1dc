// hmm_gpu_msv.cu: the MSV filter on the GPU (hmm_gpu_filters.cuh), which
// every target goes through.
//
// The warp kernel runs one warp per target: the model's cells are split into
// 32 consecutive segments (one per lane) of 2W cells, held in registers as W
// pairs of 16-bit values, and each residue is a row: a cell takes its
// upper-left neighbour (one byte permute; a shuffle at the segment edge), the
// better of that and B, adds the biased emission score and clamps at zero,
// all in Hopper's DPX 16x2 instructions; the row's best cell is a warp
// reduction. HMMER's bytes saturate at 255; here the 16-bit lanes do not, and
// that is exact: a cell can only reach the saturation zone after a row whose
// best cell already signalled overflow, which ends the target with +infinity
// just as MSVFilter does (docs/hmmsearch.md). Models too long for the warp
// kernels run one thread per target with the reference's own function
// (msv_filter_xj, hmm_filters.h).
#include <string>

#include "core/cuda_support.h"
#include "hmm_gpu_filters.cuh"
#include "hmm_warp.cuh"

namespace helix::hmmsearch {
namespace {

constexpr int kMsvBlock = 256;
// Words per lane of the MSV kernels; larger models take the next size up.
constexpr int kMsvWordSizes[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64};
// Profiles up to this many words per lane are copied to shared memory.
constexpr int kSharedMsvWords = 24;

__device__ __forceinline__ std::uint32_t pair_of(int value) {
  return static_cast<std::uint32_t>(value) | (static_cast<std::uint32_t>(value) << 16);
}

template <int W>
__device__ int msv_one_target(const MsvKernelArgs& a, const std::uint32_t* scores, std::uint32_t t, int lane) {
  const int base = SearchProfile::kMsvBase;
  const int tjbm = (a.tjb[t] + a.tbm) & 255;
  const std::uint64_t offset = a.offsets[t];
  const int L = static_cast<int>(a.offsets[t + 1] - offset);
  std::uint32_t row[W];
#pragma unroll
  for (int w = 0; w < W; ++w) row[w] = 0;
  int xJ = 0, xB = max(base - tjbm, 0);
  std::uint32_t xB2 = pair_of(xB);
  for (int i0 = 0; i0 < L; i0 += kWarp) {
    const int mine = i0 + lane < L ? a.codes[offset + i0 + lane] : 0;
    const int n = min(kWarp, L - i0);
    for (int j = 0; j < n; ++j) {
      const int x = __shfl_sync(kFullMask, mine, j);
      const std::uint32_t* s = scores + x * W * kWarp + lane;
      std::uint32_t left = __shfl_up_sync(kFullMask, row[W - 1], 1);
      if (lane == 0) left = 0;
      std::uint32_t best = 0;
#pragma unroll
      for (int w = W - 1; w >= 0; --w) {
        const std::uint32_t diagonal = __byte_perm(w == 0 ? left : row[w - 1], row[w], 0x5432);
        const std::uint32_t entered = __vimax_s16x2_relu(diagonal, xB2);
        row[w] = __viaddmax_s16x2_relu(entered, s[w * kWarp], 0);
        best = __vimax_s16x2_relu(best, row[w]);
      }
      int xE = max(static_cast<int>(best & 0xffff), static_cast<int>(best >> 16));
      xE = warp_max(xE);
      if (xE + a.bias >= 255) return -1;  // MSVFilter's overflow: the score is +infinity
      xE = max(xE - a.tec, 0);
      xJ = max(xJ, xE);
      xB = max(max(base, xJ) - tjbm, 0);
      xB2 = pair_of(xB);
    }
  }
  return xJ;
}

template <int W>
__global__ void __launch_bounds__(kMsvBlock) msv_warp_kernel(MsvKernelArgs a) {
  extern __shared__ std::uint32_t shared_scores[];
  const std::uint32_t* scores = a.scores;
  if (W <= kSharedMsvWords) {
    for (int c = threadIdx.x; c < kCodes * W * kWarp; c += blockDim.x) shared_scores[c] = a.scores[c];
    __syncthreads();
    scores = shared_scores;
  }
  const int lane = threadIdx.x % kWarp;
  for (;;) {
    const unsigned slot = next_warp_slot(a.next);
    if (slot >= a.count) return;
    const std::uint32_t t = a.order[slot];
    const int xj = msv_one_target<W>(a, scores, t, lane);
    if (lane == 0) a.xj[t] = xj;
  }
}

__global__ void msv_thread_kernel(const std::uint8_t* codes, const std::uint64_t* offsets, const std::uint32_t* order,
                                  std::uint32_t count, MsvView view, const std::uint8_t* tjb, std::uint8_t* scratch,
                                  int* xj) {
  const std::uint32_t threads = gridDim.x * blockDim.x;
  const std::uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
  std::uint8_t* row = scratch + static_cast<std::size_t>(id) * msv_scratch_bytes(view.M);
  for (std::uint32_t slot = id; slot < count; slot += threads) {
    const std::uint32_t t = order[slot];
    const std::uint64_t offset = offsets[t];
    const int L = static_cast<int>(offsets[t + 1] - offset);
    xj[t] = msv_filter_xj(codes + offset, L, view, tjb[t], row);
  }
}

template <int W>
void launch_msv(const MsvKernelArgs& args, int sms, cudaStream_t stream) {
  const std::size_t shared = W <= kSharedMsvWords ? sizeof(std::uint32_t) * kCodes * W * kWarp : 0;
  if (shared > 0) allow_all_dynamic_shared(msv_warp_kernel<W>, "MSV kernel shared memory");
  int per_sm = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, msv_warp_kernel<W>, kMsvBlock, shared),
             "MSV kernel occupancy");
  msv_warp_kernel<W><<<std::max(1, per_sm) * sms, kMsvBlock, shared, stream>>>(args);
  check_cuda(cudaGetLastError(), "MSV kernel launch");
}

}  // namespace

// The MSV scores of a profile in the warp kernel's layout (see MsvKernelArgs).
std::vector<std::uint32_t> msv_score_pairs(const SearchProfile& profile, int W) {
  const int M = profile.M, S = 2 * W;
  std::vector<std::uint32_t> pairs(static_cast<std::size_t>(kCodes) * W * kWarp);
  auto score = [&](int code, int cell) -> std::uint32_t {
    const int cost = cell < M ? profile.msv_cost[code * M + cell] : 255;
    return static_cast<std::uint16_t>(static_cast<std::int16_t>(profile.msv_bias - cost));
  };
  for (int x = 0; x < kCodes; ++x)
    for (int w = 0; w < W; ++w)
      for (int lane = 0; lane < kWarp; ++lane) {
        const int cell = lane * S + 2 * w;
        pairs[(x * W + w) * kWarp + lane] = score(x, cell) | (score(x, cell + 1) << 16);
      }
  return pairs;
}

int msv_words_for(int M) {
  const int needed = (M + 2 * kWarp - 1) / (2 * kWarp);
  for (int w : kMsvWordSizes)
    if (w >= needed) return w;
  return 0;  // too long for the warp kernels
}

void launch_msv_words(int W, const MsvKernelArgs& args, int sms, cudaStream_t stream) {
  switch (W) {
#define HELIX_MSV_CASE(n) \
  case n:                 \
    return launch_msv<n>(args, sms, stream);
    HELIX_MSV_CASE(1) HELIX_MSV_CASE(2) HELIX_MSV_CASE(3) HELIX_MSV_CASE(4) HELIX_MSV_CASE(5) HELIX_MSV_CASE(6)
    HELIX_MSV_CASE(8) HELIX_MSV_CASE(10) HELIX_MSV_CASE(12) HELIX_MSV_CASE(16) HELIX_MSV_CASE(20)
    HELIX_MSV_CASE(24) HELIX_MSV_CASE(32) HELIX_MSV_CASE(48) HELIX_MSV_CASE(64)
#undef HELIX_MSV_CASE
  }
  throw GpuError("no MSV kernel for " + std::to_string(W) + " words per lane");
}

void launch_msv_threads(int threads, const std::uint8_t* codes, const std::uint64_t* offsets,
                        const std::uint32_t* order, std::uint32_t count, MsvView view, const std::uint8_t* tjb,
                        std::uint8_t* scratch, int* xj, cudaStream_t stream) {
  msv_thread_kernel<<<(threads + 127) / 128, 128, 0, stream>>>(codes, offsets, order, count, view, tjb, scratch, xj);
  check_cuda(cudaGetLastError(), "MSV thread kernel launch");
}

}  // namespace helix::hmmsearch
