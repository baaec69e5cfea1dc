// hmm_gpu.cu: the CUDA engine of the hmmsearch kind.
//
// MSV, which every target goes through, runs one warp per target: the
// model's cells are split into 32 consecutive segments (one per lane) of 2W
// cells, held in registers as W pairs of 16-bit values, and each residue is a
// row: a cell takes its upper-left neighbour (one byte permute; a shuffle at
// the segment edge), the better of that and B, adds the biased emission score
// and clamps at zero, all in Hopper's DPX 16x2 instructions; the row's best
// cell is a warp reduction. HMMER's bytes saturate at 255; here the 16-bit
// lanes do not, and that is exact: a cell can only reach the saturation zone
// after a row whose best cell already signalled overflow, which ends the
// target with +infinity just as MSVFilter does (docs/hmmsearch.md).
//
// Viterbi and Forward run on the few targets that pass the filters before
// them, one thread per target, with the very functions the CPU reference
// uses (hmm_filters.h), so their scores are the reference's bit for bit.
// Targets are scheduled longest first; the chunk stays resident on the GPU
// across profiles.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/cuda_support.h"
#include "hmm_engine.h"
#include "hmm_filters.h"

namespace helix::hmm {
namespace {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kMsvBlock = 256;
// Words per lane of the MSV kernels; larger models take the next size up.
constexpr int kMsvWordSizes[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64};
// Profiles up to this many words per lane are copied to shared memory.
constexpr int kSharedMsvWords = 24;

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
      xE = __reduce_max_sync(kFullMask, xE);
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
    unsigned slot = 0;
    if (lane == 0) slot = atomicAdd(a.next, 1u);
    slot = __shfl_sync(kFullMask, slot, 0);
    if (slot >= a.count) return;
    const std::uint32_t t = a.order[slot];
    const int xj = msv_one_target<W>(a, scores, t, lane);
    if (lane == 0) a.xj[t] = xj;
  }
}

// Targets of a Viterbi or Forward batch: which target, its length config.
struct ThreadTarget {
  std::uint32_t target;
  std::int16_t vit_move;
  float fwd_move, fwd_loop;
};

__global__ void viterbi_thread_kernel(const std::uint8_t* codes, const std::uint64_t* offsets,
                                      const ThreadTarget* batch, std::uint32_t count, ViterbiView view,
                                      std::int16_t* scratch, float* out) {
  const std::uint32_t threads = gridDim.x * blockDim.x;
  const std::uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
  std::int16_t* rows = scratch + static_cast<std::size_t>(id) * viterbi_scratch_words(view.M);
  for (std::uint32_t b = id; b < count; b += threads) {
    const ThreadTarget& target = batch[b];
    const std::uint64_t offset = offsets[target.target];
    const int L = static_cast<int>(offsets[target.target + 1] - offset);
    out[b] = viterbi_filter_score(codes + offset, L, view, target.vit_move, rows);
  }
}

__global__ void forward_thread_kernel(const std::uint8_t* codes, const std::uint64_t* offsets,
                                      const ThreadTarget* batch, std::uint32_t count, ForwardView view,
                                      float* scratch, float* out) {
  const std::uint32_t threads = gridDim.x * blockDim.x;
  const std::uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
  float* rows = scratch + static_cast<std::size_t>(id) * forward_scratch_floats(view.M);
  for (std::uint32_t b = id; b < count; b += threads) {
    const ThreadTarget& target = batch[b];
    const std::uint64_t offset = offsets[target.target];
    const int L = static_cast<int>(offsets[target.target + 1] - offset);
    out[b] = forward_score(codes + offset, L, view, target.fwd_move, target.fwd_loop, rows);
  }
}

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

template <int W>
void launch_msv(const MsvKernelArgs& args, int sms) {
  const std::size_t shared = W <= kSharedMsvWords ? sizeof(std::uint32_t) * kCodes * W * kWarp : 0;
  check_cuda(cudaFuncSetAttribute(msv_warp_kernel<W>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(shared)),
             "MSV kernel shared memory");
  int per_sm = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, msv_warp_kernel<W>, kMsvBlock, shared),
             "MSV kernel occupancy");
  msv_warp_kernel<W><<<std::max(1, per_sm) * sms, kMsvBlock, shared>>>(args);
  check_cuda(cudaGetLastError(), "MSV kernel launch");
}

void launch_msv_words(int W, const MsvKernelArgs& args, int sms) {
  switch (W) {
#define HELIX_MSV_CASE(n) \
  case n:                 \
    return launch_msv<n>(args, sms);
    HELIX_MSV_CASE(1) HELIX_MSV_CASE(2) HELIX_MSV_CASE(3) HELIX_MSV_CASE(4) HELIX_MSV_CASE(5) HELIX_MSV_CASE(6)
    HELIX_MSV_CASE(8) HELIX_MSV_CASE(10) HELIX_MSV_CASE(12) HELIX_MSV_CASE(16) HELIX_MSV_CASE(20)
    HELIX_MSV_CASE(24) HELIX_MSV_CASE(32) HELIX_MSV_CASE(48) HELIX_MSV_CASE(64)
#undef HELIX_MSV_CASE
  }
  throw GpuError("no MSV kernel for " + std::to_string(W) + " words per lane");
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

class GpuEngine : public HmmEngine {
 public:
  GpuEngine(int device, bool warp_msv) : warp_msv_(warp_msv) {
    name_ = select_cuda_device(device);
    check_cuda(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device), "reading the SM count");
  }

  std::string description() const override { return "cuda:" + name_; }

  void load_targets(const TargetChunk& targets) override {
    targets_ = &targets;
    codes_.upload(targets.codes.data(), targets.codes.size(), "uploading target residues");
    offsets_.upload(targets.offsets.data(), targets.offsets.size(), "uploading target offsets");
    std::vector<std::uint32_t> order(targets.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return targets.length(a) > targets.length(b); });
    order_.upload(order.data(), order.size(), "uploading the target order");
    std::vector<std::uint8_t> tjb(targets.size());
    for (std::size_t t = 0; t < targets.size(); ++t) tjb[t] = length_config(std::max(targets.length(t), 1)).msv_tjb;
    tjb_host_ = tjb;
    tjb_.upload(tjb.data(), tjb.size(), "uploading length costs");
    xj_.allocate(targets.size(), "allocating MSV results");
  }

  void load_profile(const SearchProfile& profile) override {
    profile_ = &profile;
    msv_words_ = warp_msv_ ? msv_words_for(profile.M) : 0;
    if (msv_words_ > 0) {
      const std::vector<std::uint32_t> pairs = msv_score_pairs(profile, msv_words_);
      msv_pairs_.upload(pairs.data(), pairs.size(), "uploading MSV scores");
    }
    msv_cost_.upload(profile.msv_cost.data(), profile.msv_cost.size(), "uploading MSV costs");
    vit_match_.upload(profile.vit_match.data(), profile.vit_match.size(), "uploading Viterbi scores");
    vit_transitions_.upload(profile.vit_transitions.data(), profile.vit_transitions.size(),
                            "uploading Viterbi transitions");
    fwd_match_.upload(profile.fwd_match.data(), profile.fwd_match.size(), "uploading Forward odds");
    fwd_transitions_.upload(profile.fwd_transitions.data(), profile.fwd_transitions.size(),
                            "uploading Forward transitions");
  }

  std::vector<float> msv_scores() override {
    const std::uint32_t count = static_cast<std::uint32_t>(targets_->size());
    std::vector<float> scores(count, -std::numeric_limits<float>::infinity());
    if (count == 0) return scores;
    if (msv_words_ > 0) {
      DeviceBuffer<unsigned> next;
      const unsigned zero = 0;
      next.upload(&zero, 1, "MSV work counter");
      const MsvKernelArgs args{codes_.data, offsets_.data, order_.data, count, msv_pairs_.data, tjb_.data,
                               profile_->msv_bias, profile_->msv_tec, profile_->msv_tbm, xj_.data, next.data};
      launch_msv_words(msv_words_, args, sms_);
    } else {
      const int threads = std::min<int>(count, sms_ * 256);
      DeviceBuffer<std::uint8_t> scratch;
      scratch.allocate(static_cast<std::size_t>(threads) * msv_scratch_bytes(profile_->M), "MSV scratch");
      const MsvView view{profile_->M, msv_cost_.data, profile_->msv_bias, profile_->msv_tbm, profile_->msv_tec};
      msv_thread_kernel<<<(threads + 127) / 128, 128>>>(codes_.data, offsets_.data, order_.data, count, view,
                                                        tjb_.data, scratch.data, xj_.data);
      check_cuda(cudaGetLastError(), "MSV thread kernel launch");
    }
    std::vector<int> xj(count);
    check_cuda(cudaMemcpy(xj.data(), xj_.data, count * sizeof(int), cudaMemcpyDeviceToHost), "MSV results");
    for (std::uint32_t t = 0; t < count; ++t) {
      if (targets_->length(t) == 0) continue;
      scores[t] = xj[t] < 0 ? std::numeric_limits<float>::infinity() : msv_score_of_xj(xj[t], tjb_host_[t]);
    }
    return scores;
  }

  std::vector<float> viterbi_scores(const std::vector<std::uint32_t>& which) override {
    const ViterbiView view{profile_->M, vit_match_.data, vit_transitions_.data, profile_->vit_e_loop,
                           profile_->vit_e_move, profile_->vit_dd_bound};
    return per_thread_scores(which, viterbi_scratch_words(profile_->M) * sizeof(std::int16_t),
                             [&](const ThreadTarget* batch, std::uint32_t count, int blocks, void* scratch, float* out) {
                               viterbi_thread_kernel<<<blocks, kThreadBlock>>>(codes_.data, offsets_.data, batch, count,
                                                                               view, static_cast<std::int16_t*>(scratch),
                                                                               out);
                             });
  }

  std::vector<float> forward_scores(const std::vector<std::uint32_t>& which) override {
    const ForwardView view{profile_->M, fwd_match_.data, fwd_transitions_.data, profile_->fwd_e_loop,
                           profile_->fwd_e_move};
    return per_thread_scores(which, forward_scratch_floats(profile_->M) * sizeof(float),
                             [&](const ThreadTarget* batch, std::uint32_t count, int blocks, void* scratch, float* out) {
                               forward_thread_kernel<<<blocks, kThreadBlock>>>(codes_.data, offsets_.data, batch, count,
                                                                               view, static_cast<float*>(scratch), out);
                             });
  }

 private:
  static constexpr int kThreadBlock = 64;
  static constexpr std::size_t kScratchBudget = std::size_t(1) << 30;  // bytes of per-thread DP rows

  // Runs a one-thread-per-target kernel over `which`, longest first, and
  // returns the scores in `which`'s order.
  template <typename Launch>
  std::vector<float> per_thread_scores(const std::vector<std::uint32_t>& which, std::size_t scratch_bytes,
                                       Launch launch) {
    const std::uint32_t count = static_cast<std::uint32_t>(which.size());
    std::vector<float> scores(count);
    if (count == 0) return scores;
    std::vector<std::uint32_t> by_length(count);
    std::iota(by_length.begin(), by_length.end(), 0u);
    std::stable_sort(by_length.begin(), by_length.end(), [&](std::uint32_t a, std::uint32_t b) {
      return targets_->length(which[a]) > targets_->length(which[b]);
    });
    std::vector<ThreadTarget> batch(count);
    for (std::uint32_t b = 0; b < count; ++b) {
      const LengthConfig config = length_config(targets_->length(which[by_length[b]]));
      batch[b] = {which[by_length[b]], config.vit_move, config.fwd_move, config.fwd_loop};
    }
    DeviceBuffer<ThreadTarget> device_batch;
    device_batch.upload(batch.data(), count, "uploading a filter batch");
    const std::size_t most_threads = std::max<std::size_t>(kThreadBlock, kScratchBudget / scratch_bytes);
    const int blocks = static_cast<int>(
        std::min<std::size_t>((count + kThreadBlock - 1) / kThreadBlock, most_threads / kThreadBlock));
    DeviceBuffer<unsigned char> scratch;
    scratch.allocate(static_cast<std::size_t>(blocks) * kThreadBlock * scratch_bytes, "filter scratch");
    DeviceBuffer<float> out;
    out.allocate(count, "filter scores");
    launch(device_batch.data, count, blocks, scratch.data, out.data);
    check_cuda(cudaGetLastError(), "filter kernel launch");
    std::vector<float> sorted(count);
    check_cuda(cudaMemcpy(sorted.data(), out.data, count * sizeof(float), cudaMemcpyDeviceToHost), "filter scores");
    for (std::uint32_t b = 0; b < count; ++b) scores[by_length[b]] = sorted[b];
    return scores;
  }

  std::string name_;
  int sms_ = 1;
  bool warp_msv_ = true;
  const TargetChunk* targets_ = nullptr;
  const SearchProfile* profile_ = nullptr;
  int msv_words_ = 0;
  std::vector<std::uint8_t> tjb_host_;
  DeviceBuffer<std::uint8_t> codes_, tjb_, msv_cost_;
  DeviceBuffer<std::uint64_t> offsets_;
  DeviceBuffer<std::uint32_t> order_, msv_pairs_;
  DeviceBuffer<int> xj_;
  DeviceBuffer<std::int16_t> vit_match_;
  DeviceBuffer<CellTransitions<std::int16_t>> vit_transitions_;
  DeviceBuffer<float> fwd_match_;
  DeviceBuffer<CellTransitions<float>> fwd_transitions_;
};

}  // namespace

std::unique_ptr<HmmEngine> make_gpu_engine(int device, bool warp_msv) {
  return std::make_unique<GpuEngine>(device, warp_msv);
}

int hmm_gpu_device_count() { return cuda_device_count(); }

}  // namespace helix::hmm
