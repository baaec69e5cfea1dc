// sw_gpu.cu: the CUDA engine of the swsearch kind (sw_engine.h): best local
// alignment scores of one query against every loaded target.
//
// Inter-sequence parallelism: one thread per target, targets sorted by length
// so that a warp's 32 targets end together. A thread walks its DP matrix in
// horizontal strips of kStripRows query rows held in registers, sweeping the
// whole target per strip; between strips it keeps the last row's H and F in
// scratch memory. Per cell the recurrences of the reference, in 32-bit
// integers (no overflow is possible: |score| < 128 x length < 2^31), with
// Hopper's DPX instructions (__viaddmax_s32: max(a + b, c); __vimax3_s32_relu:
// max(0, a, b, c)), which other GPUs emulate. Only the best score is kept:
// the maximum is the same whatever the order cells are visited in, so the
// score is exactly the reference's.
//
// Memory layout, per warp of 32 targets (warp w, lane l): target residues
// packed four to a word and interleaved by lane (word k of lane l at
// base_w + 32 k + l), and the scratch row the same way, so a warp's loads
// are coalesced. The query profile (score of each residue code against each
// query row, strip by strip) is read through the read-only cache.
#include <cuda_runtime.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "core/cuda_support.h"
#include "sw_engine.h"

namespace helix::sw {
namespace {

constexpr int kStripRows = 16;  // query rows per strip, in registers
constexpr int kThreadsPerBlock = 128;
constexpr int kNegativeInfinity = -(1 << 29);  // below any score, and no overflow when penalties are subtracted
// A padded query row scores this against everything: such rows can never
// hold a value above a real row's maximum.
constexpr std::int8_t kPaddingScore = -127;

struct WarpSlice {
  std::uint64_t word_base;     // first packed-residue word of the warp (lane 0)
  std::uint64_t scratch_base;  // first scratch entry of the warp (lane 0)
};

struct KernelArguments {
  const std::uint32_t* packed_residues;  // per warp: word k of lane l at word_base + 32 k + l
  const WarpSlice* warps;
  const std::uint32_t* lengths;          // sorted order
  std::uint32_t target_count;
  const char4* profile;                  // [strip][code][kStripRows / 4] as char4
  int strips;
  int gap_open, gap_extend;
  int2* scratch;                         // per warp, entry j of lane l at scratch_base + 32 j + l: (H, F) of the strip's last row
  std::int32_t* scores;                  // sorted order
};

__device__ __forceinline__ int residue_at(const KernelArguments& a, const WarpSlice& warp, int lane, std::uint32_t j) {
  const std::uint32_t word = __ldg(a.packed_residues + warp.word_base + 32ull * (j / 4) + lane);
  return (word >> (8 * (j % 4))) & 0xFF;
}

__global__ void __launch_bounds__(kThreadsPerBlock) score_kernel(KernelArguments a) {
  const std::uint32_t target = blockIdx.x * kThreadsPerBlock + threadIdx.x;
  if (target >= a.target_count) return;
  const int lane = threadIdx.x % 32;
  const WarpSlice warp = a.warps[target / 32];
  const std::uint32_t length = a.lengths[target];
  int best = 0;
  for (int strip = 0; strip < a.strips; ++strip) {
    int h[kStripRows], e[kStripRows];
#pragma unroll
    for (int r = 0; r < kStripRows; ++r) h[r] = 0, e[r] = kNegativeInfinity;
    int boundary_h_previous = 0;  // H of the row above the strip, column j - 1 (0 at j = 0)
    const char4* strip_profile = a.profile + static_cast<std::size_t>(strip) * kAlphabetSize * (kStripRows / 4);
    for (std::uint32_t j = 0; j < length; ++j) {
      const int code = residue_at(a, warp, lane, j);
      int2* boundary = a.scratch + warp.scratch_base + 32ull * j + lane;
      int h_above = 0, f = kNegativeInfinity;  // H and F of the row above the strip, column j
      if (strip > 0) {
        const int2 saved = *boundary;
        h_above = saved.x, f = saved.y;
      }
      int diagonal = boundary_h_previous;
      boundary_h_previous = h_above;
      char4 scores[kStripRows / 4];
#pragma unroll
      for (int k = 0; k < kStripRows / 4; ++k) scores[k] = __ldg(strip_profile + code * (kStripRows / 4) + k);
      const signed char* s = reinterpret_cast<const signed char*>(scores);
#pragma unroll
      for (int r = 0; r < kStripRows; ++r) {
        e[r] = __viaddmax_s32(h[r], -a.gap_open, e[r] - a.gap_extend);  // h[r] is H(row, j - 1)
        f = __viaddmax_s32(h_above, -a.gap_open, f - a.gap_extend);
        const int h_new = __vimax3_s32_relu(diagonal + s[r], e[r], f);
        diagonal = h[r];
        h[r] = h_new;
        h_above = h_new;
        best = max(best, h_new);
      }
      *boundary = make_int2(h_above, f);
    }
  }
  a.scores[target] = best;
}

class GpuEngine final : public SwEngine {
 public:
  explicit GpuEngine(int device) {
    name_ = select_cuda_device(device);
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
  }
  ~GpuEngine() override {
    if (stream_) cudaStreamDestroy(stream_);
  }
  std::string description() const override { return "GPU " + name_ + " (inter-sequence, 32-bit DPX)"; }

  void load_targets(const TargetSet& targets) override {
    const std::size_t n = targets.size();
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::size_t x, std::size_t y) { return targets.length(x) < targets.length(y); });
    std::vector<std::uint32_t> lengths(n);
    std::vector<WarpSlice> warps((n + 31) / 32);
    std::uint64_t words = 0, scratch = 0;
    for (std::size_t w = 0; w < warps.size(); ++w) {
      const std::size_t last = std::min(n, 32 * w + 32) - 1;
      const std::uint64_t longest = targets.length(order_[last]);  // sorted: the warp's longest
      warps[w] = {words, scratch};
      words += 32 * ((longest + 3) / 4);
      scratch += 32 * longest;
    }
    std::vector<std::uint32_t> packed(words, 0);
    for (std::size_t t = 0; t < n; ++t) {
      const std::size_t original = order_[t];
      lengths[t] = static_cast<std::uint32_t>(targets.length(original));
      const std::uint8_t* residues = targets.begin(original);
      const WarpSlice& warp = warps[t / 32];
      for (std::uint32_t j = 0; j < lengths[t]; ++j)
        packed[warp.word_base + 32 * (j / 4) + t % 32] |= static_cast<std::uint32_t>(residues[j]) << (8 * (j % 4));
    }
    packed_.upload(packed.data(), packed.size(), "copying targets to the GPU");
    warps_.upload(warps.data(), warps.size(), "copying target layout to the GPU");
    lengths_.upload(lengths.data(), lengths.size(), "copying target lengths to the GPU");
    scratch_.allocate(scratch, "allocating the DP scratch rows on the GPU");
    scores_.allocate(n, "allocating scores on the GPU");
    target_count_ = n;
  }

  std::vector<std::int32_t> scores(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix,
                                   const GapPenalties& gaps) override {
    std::vector<std::int32_t> result(target_count_, 0);
    if (target_count_ == 0 || query.empty()) return result;
    const int strips = static_cast<int>((query.size() + kStripRows - 1) / kStripRows);
    std::vector<std::int8_t> profile(static_cast<std::size_t>(strips) * kAlphabetSize * kStripRows, kPaddingScore);
    for (int strip = 0; strip < strips; ++strip)
      for (int code = 0; code < kAlphabetSize; ++code)
        for (int r = 0; r < kStripRows; ++r) {
          const std::size_t row = static_cast<std::size_t>(strip) * kStripRows + r;
          if (row < query.size())
            profile[(static_cast<std::size_t>(strip) * kAlphabetSize + code) * kStripRows + r] =
                matrix.score[code][query[row]];
        }
    profile_.upload(reinterpret_cast<const char4*>(profile.data()), profile.size() / 4, "copying the query profile");
    KernelArguments args{packed_.data, warps_.data, lengths_.data, static_cast<std::uint32_t>(target_count_),
                         profile_.data, strips, gaps.open, gaps.extend, scratch_.data, scores_.data};
    const unsigned blocks = static_cast<unsigned>((target_count_ + kThreadsPerBlock - 1) / kThreadsPerBlock);
    score_kernel<<<blocks, kThreadsPerBlock, 0, stream_>>>(args);
    check_cuda(cudaGetLastError(), "launching the SW kernel");
    std::vector<std::int32_t> sorted(target_count_);
    check_cuda(cudaMemcpyAsync(sorted.data(), scores_.data, target_count_ * sizeof(std::int32_t),
                               cudaMemcpyDeviceToHost, stream_),
               "copying scores back");
    check_cuda(cudaStreamSynchronize(stream_), "scoring on the GPU");
    for (std::size_t t = 0; t < target_count_; ++t) result[order_[t]] = sorted[t];
    return result;
  }

 private:
  std::string name_;
  cudaStream_t stream_ = nullptr;
  std::vector<std::size_t> order_;  // sorted position -> original target index
  std::size_t target_count_ = 0;
  DeviceBuffer<std::uint32_t> packed_;
  DeviceBuffer<WarpSlice> warps_;
  DeviceBuffer<std::uint32_t> lengths_;
  DeviceBuffer<int2> scratch_;
  DeviceBuffer<std::int32_t> scores_;
  DeviceBuffer<char4> profile_;
};

}  // namespace

std::unique_ptr<SwEngine> make_gpu_engine(int device) { return std::make_unique<GpuEngine>(device); }
int sw_gpu_device_count() { return cuda_device_count(); }

}  // namespace helix::sw
