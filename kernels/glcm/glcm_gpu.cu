// glcm_gpu.cu: the CUDA engine of the glcm kind (see glcm_engine.h).
//
// One warp slides one GLCM along one segment of up to 32 consecutive windows
// of a row, for one displacement. The GLCM (one 16-bit count per unordered
// level pair, two to a 32-bit word) and its marginal, sum and difference
// histograms live in the warp's slice of shared memory; lanes add and remove
// pairs with shared-memory atomics. The old count an atomic returns is all a
// lane needs to update the exact integer sums (sum c^2, the X = 2^44 x ln x
// sums), and integer sums do not care in which order the lanes got there, so
// the warp's GlcmSums equal the CPU's exactly. Lane t keeps the sums of the
// segment's t-th window; at the end each lane turns its window's sums into the
// 13 features (the shared haralick_features) and adds their fixed-point values
// to the window's totals with 64-bit atomics (again order-free integers).
// Streams, pinned memory and the integer warp and block reductions are the
// device layer's (core/device_stream.h, core/warp_reduce.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/cuda_support.h"
#include "core/device_stream.h"
#include "core/warp_reduce.cuh"
#include "glcm_engine.h"

namespace helix::glcm {
namespace {

constexpr int kWarpsPerBlock = 8;
constexpr int kSegmentLength = 32;  // windows per warp task: one per lane at the end

// Where one displacement's pair lists start in the packed offset array
// (offsets are pixel-index differences in the loaded image).
struct DevicePlan {
  int delta;
  int all_first, all_count;
  // One step's pairs: removed_count removed ones (relative to the window at
  // x), then added_count added ones (relative to x too: the host adds the 1).
  int step_first, removed_count, added_count;
};

template <int kLevels>
struct SharedLayout {
  static constexpr int kCellCount = kLevels * (kLevels + 1) / 2;  // unordered level pairs
  static constexpr int kCellWords = (kCellCount + 1) / 2;        // two 16-bit counts per word
  static constexpr int kMarginal = kCellWords;
  static constexpr int kSumHistogram = kMarginal + kLevels;
  static constexpr int kDifferenceHistogram = kSumHistogram + 2 * kLevels - 1;
  static constexpr int kWordsPerWarp = kDifferenceHistogram + kLevels;
};

__device__ __forceinline__ int cell_index(int low, int high, int levels) {
  return low * levels - low * (low - 1) / 2 + (high - low);  // row-major upper triangle
}

// Adds `amount` (may be negative) to a shared counter; returns the old value.
__device__ __forceinline__ int add_to_bin(unsigned* bin, int amount) {
  return static_cast<int>(atomicAdd(bin, static_cast<unsigned>(amount)));
}

// One window's sums as the kernel keeps them. A window has S <= 1594 < 2^11
// and levels < 64, so every count moment fits in 32 bits (S^2 and S 63^2 are
// below 2^23); only the X sums need 64. The other GlcmSums fields follow from
// these five (to_glcm_sums), so lanes neither add nor reduce them.
struct WindowSums {
  int counts_squared;    // sum c^2
  int cross_moment;      // sum i j c(i,j)
  int marginal_first;    // sum i r(i)
  int marginal_second;   // sum i^2 r(i)
  int difference_first;  // sum k d(k)
  long long cell_xlogx, marginal_xlogx, sum_xlogx, difference_xlogx;

  __device__ void add(const WindowSums& o) {
    counts_squared += o.counts_squared, cross_moment += o.cross_moment;
    marginal_first += o.marginal_first, marginal_second += o.marginal_second;
    difference_first += o.difference_first;
    cell_xlogx += o.cell_xlogx, marginal_xlogx += o.marginal_xlogx;
    sum_xlogx += o.sum_xlogx, difference_xlogx += o.difference_xlogx;
  }
};
static_assert(2 * 63 * 63 * 2048 < (1u << 31), "a window's moments fit in int");

// The GlcmSums of a window from its WindowSums. Per pair (a, b) the sum and
// difference moments are 2 (a + b), 2 (a + b)^2 = 2 (a^2 + b^2) + 4ab and
// 2 (a - b)^2 = 2 (a^2 + b^2) - 4ab, so they are exact integer combinations of
// the marginal moments and the cross moment; S is 2 x the pairs of the disc.
__device__ GlcmSums to_glcm_sums(const WindowSums& w, int pair_count, double idm_numerator) {
  GlcmSums g{};
  g.total = 2 * pair_count;
  g.sum_counts_squared = w.counts_squared;
  g.cross_moment = w.cross_moment;
  g.marginal_first = w.marginal_first;
  g.marginal_second = w.marginal_second;
  g.sum_first = 2 * static_cast<long long>(w.marginal_first);
  g.sum_second = 2 * (static_cast<long long>(w.marginal_second) + w.cross_moment);
  g.difference_first = w.difference_first;
  g.difference_second = 2 * (static_cast<long long>(w.marginal_second) - w.cross_moment);
  g.cell_xlogx = w.cell_xlogx;
  g.marginal_xlogx = w.marginal_xlogx;
  g.sum_xlogx = w.sum_xlogx;
  g.difference_xlogx = w.difference_xlogx;
  g.idm_numerator = idm_numerator;
  return g;
}

// The warp's total of a 64-bit value by shuffles (warp_sum of a 64-bit
// type): exact for any values.
__device__ __forceinline__ long long warp_sum_any(long long v) { return warp_sum(v); }

// The warp's total of a 64-bit value with two 32-bit warp reductions (one
// instruction each on sm_80 and later, against five rounds of two shuffles):
// the low 26 bits summed unsigned (< 2^31), the rest, an arithmetic shift,
// summed signed. Exact when every |v| < 2^51 (the rests then sum below 2^30).
constexpr int kSplitBits = 26;
__device__ __forceinline__ long long warp_sum_small(long long v) {
  const unsigned low = warp_sum(static_cast<unsigned>(v & ((1ll << kSplitBits) - 1)));
  const int high = warp_sum(static_cast<int>(v >> kSplitBits));
  return (static_cast<long long>(high) << kSplitBits) + low;
}
// A pair changes one X sum by at most 2 (X(1595) - X(1594)) < 2^48.1, so a lane
// may handle this many pairs of one step and stay under warp_sum_small's 2^51.
constexpr int kMaxPairsPerLaneAndStep = 6;

// The warp's total of every lane's share; `small` says warp_sum_small applies.
__device__ WindowSums warp_total(const WindowSums& p, bool small) {
  WindowSums t;
  t.counts_squared = warp_sum(p.counts_squared);
  t.cross_moment = warp_sum(p.cross_moment);
  t.marginal_first = warp_sum(p.marginal_first);
  t.marginal_second = warp_sum(p.marginal_second);
  t.difference_first = warp_sum(p.difference_first);
  if (small) {
    t.cell_xlogx = warp_sum_small(p.cell_xlogx), t.marginal_xlogx = warp_sum_small(p.marginal_xlogx);
    t.sum_xlogx = warp_sum_small(p.sum_xlogx), t.difference_xlogx = warp_sum_small(p.difference_xlogx);
  } else {
    t.cell_xlogx = warp_sum_any(p.cell_xlogx), t.marginal_xlogx = warp_sum_any(p.marginal_xlogx);
    t.sum_xlogx = warp_sum_any(p.sum_xlogx), t.difference_xlogx = warp_sum_any(p.difference_xlogx);
  }
  return t;
}

template <int kLevels>
struct WarpGlcm {
  unsigned* words;            // this warp's SharedLayout<kLevels>
  const long long* xlogx;     // shared table X(0..max)

  __device__ void clear(int lane) const {
    for (int w = lane; w < SharedLayout<kLevels>::kWordsPerWarp; w += 32) words[w] = 0;
    __syncwarp();
  }

  // One pair (a, b) in (sign +1) or out (sign -1), into this lane's share.
  __device__ void update(WindowSums& g, int a, int b, int sign) const {
    const int low = min(a, b), high = max(a, b), difference = high - low;
    g.cross_moment += 2 * sign * a * b;
    g.marginal_first += sign * (a + b);
    g.marginal_second += sign * (a * a + b * b);
    g.difference_first += 2 * sign * difference;
    const int index = cell_index(low, high, kLevels);
    const int shift = (index & 1) * 16;
    const int amount = difference == 0 ? 2 : 1;  // c(a,a) grows by 2; c(a,b), c(b,a) by 1 each
    const unsigned word = atomicAdd(&words[index >> 1], static_cast<unsigned>(sign * amount) << shift);
    const int old = (word >> shift) & 0xFFFF;
    const int now = old + sign * amount;
    const int weight = difference == 0 ? 1 : 2;
    g.counts_squared += weight * (now * now - old * old);
    g.cell_xlogx += weight * (xlogx[now] - xlogx[old]);
    bump(words + SharedLayout<kLevels>::kMarginal + a, sign, g.marginal_xlogx);
    bump(words + SharedLayout<kLevels>::kMarginal + b, sign, g.marginal_xlogx);
    bump(words + SharedLayout<kLevels>::kSumHistogram + a + b, 2 * sign, g.sum_xlogx);
    bump(words + SharedLayout<kLevels>::kDifferenceHistogram + difference, 2 * sign, g.difference_xlogx);
  }

  __device__ void bump(unsigned* bin, int amount, long long& xlogx_sum) const {
    const int old = add_to_bin(bin, amount);
    xlogx_sum += xlogx[old + amount] - xlogx[old];
  }
};

// idm_numerator() of the difference histogram, in its tree: lane l holds bins
// l and l + 32, the xor shuffles are the tree's rounds. A step changes a few
// bins, so each lane keeps its two terms and divides again only when its
// bins' counts changed (the quotient of the same operands is the same double).
struct IdmTerms {
  int low_count = -1, high_count = -1;
  double low = 0, high = 0;

  template <int kLevels>
  __device__ double numerator_now(const unsigned* histogram, int lane) {
    const int low_now = lane < kLevels ? static_cast<int>(histogram[lane]) : 0;
    const int high_now = lane + 32 < kLevels ? static_cast<int>(histogram[lane + 32]) : 0;
    if (low_now != low_count) low_count = low_now, low = idm_bin_term(low_now, lane);
    if (high_now != high_count) high_count = high_now, high = idm_bin_term(high_now, lane + 32);
    double t = low + high;
    // A double sum in the tree's own order, written out: not one for the
    // device layer's reductions, which promise no floating-point order.
    for (int step = 16; step >= 1; step /= 2) t = t + __shfl_xor_sync(kFullWarpMask, t, step);
    return t;
  }
};

struct KernelArguments {
  const unsigned char* image;  // 8-bit grey, row-major
  int width;
  int level_shift;             // level = value >> shift (divisor 4, 8, 16)
  const WindowRun* segments;
  int segment_count;
  const DevicePlan* plans;     // this distance's displacements
  int plan_count;
  const int* offsets;
  const long long* xlogx;      // global copy of the table
  int xlogx_count;
  unsigned long long* window_sums;  // windows x kFeatureCount, two's complement int64
};

// Adds (sign +1) or removes (-1) the pairs offsets[0..count) of the window at
// `centre` into the lane's share; with a `first_added` below count, pairs from
// there on are added and the ones before removed (one step of the slide).
template <int kLevels>
__device__ void pass(const WarpGlcm<kLevels>& glcm, WindowSums& share, const unsigned char* image, int centre,
                     int delta, int shift, const int* offsets, int count, int first_added, int lane) {
  for (int k = lane; k < count; k += 32) {
    const int p = centre + offsets[k];
    glcm.update(share, __ldg(image + p) >> shift, __ldg(image + p + delta) >> shift, k < first_added ? -1 : +1);
  }
  __syncwarp();
}

// Four blocks per SM: 64 registers a thread. With the 72 it would take
// unbounded, three fit (24 warps); at 64 levels the shared memory allows four.
// Measured on the H100: 76 -> 69 ms for the Help Conquer Cancer image.
constexpr int kBlocksPerSm = 4;

template <int kLevels>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, kBlocksPerSm) slide_kernel(KernelArguments args) {
  extern __shared__ long long shared_tables[];
  long long* xlogx = shared_tables;
  for (int i = threadIdx.x; i < args.xlogx_count; i += blockDim.x) xlogx[i] = args.xlogx[i];
  unsigned* warp_words = reinterpret_cast<unsigned*>(xlogx + args.xlogx_count) +
                         (threadIdx.x / 32) * SharedLayout<kLevels>::kWordsPerWarp;
  __syncthreads();

  const int lane = threadIdx.x % 32;
  const int task = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
  if (task >= args.segment_count * args.plan_count) return;
  // Neighbouring warps share a segment (same pixels, different displacements).
  const WindowRun segment = args.segments[task / args.plan_count];
  const DevicePlan plan = args.plans[task % args.plan_count];
  const WarpGlcm<kLevels> glcm{warp_words, xlogx};
  const unsigned* difference_histogram = warp_words + SharedLayout<kLevels>::kDifferenceHistogram;
  glcm.clear(lane);

  // Lane t ends with window t's sums: the first window's, plus every later
  // step's change up to its own.
  int centre = segment.y * args.width + segment.x;
  WindowSums share{};
  pass(glcm, share, args.image, centre, plan.delta, args.level_shift, args.offsets + plan.all_first,
       plan.all_count, 0, lane);
  WindowSums mine = warp_total(share, false);
  IdmTerms idm;
  double my_idm = idm.numerator_now<kLevels>(difference_histogram, lane);
  for (int step = 1; step < segment.count; ++step) {
    share = WindowSums{};
    pass(glcm, share, args.image, centre, plan.delta, args.level_shift, args.offsets + plan.step_first,
         plan.removed_count + plan.added_count, plan.removed_count, lane);
    centre += 1;
    const WindowSums change = warp_total(share, true);
    if (lane >= step) mine.add(change);
    const double idm_now = idm.numerator_now<kLevels>(difference_histogram, lane);
    if (lane == step) my_idm = idm_now;
  }
  if (lane < segment.count) {
    double features[kFeatureCount];
    const GlcmSums sums = to_glcm_sums(mine, plan.all_count, my_idm);
    haralick_features(sums, xlogx[sums.total], features);
    unsigned long long* out = args.window_sums + static_cast<std::size_t>(segment.first + lane) * kFeatureCount;
    for (int k = 0; k < kFeatureCount; ++k)
      atomicAdd(out + k, static_cast<unsigned long long>(feature_to_fixed(k, features[k])));
  }
}

// ------------------------------------------------------------ block reduction
//
// reduce_windows() on the device, so the host receives 13 maxima, minima,
// their windows and totals instead of every window's sums. One thread block
// per feature; ties go to the lower window index, as on the host. The block
// reductions are the device layer's (BlockReduce): a total is an integer sum,
// and the extremes are chosen by a strict order on (value, window), so the
// result is the same in any order of reduction.
constexpr int kReduceThreads = 512;

struct DeviceReduction {
  long long max[kFeatureCount], min[kFeatureCount];
  int max_window[kFeatureCount], min_window[kFeatureCount];
  __int128 total[kFeatureCount];
};

struct Extreme {
  long long value;
  int window;
};
__device__ __forceinline__ void keep_larger(Extreme& a, Extreme b) {
  if (b.value > a.value || (b.value == a.value && b.window < a.window)) a = b;
}
__device__ __forceinline__ void keep_smaller(Extreme& a, Extreme b) {
  if (b.value < a.value || (b.value == a.value && b.window < a.window)) a = b;
}
// The same as reduction operators.
struct KeepLarger {
  __device__ Extreme operator()(Extreme a, Extreme b) const {
    keep_larger(a, b);
    return a;
  }
};
struct KeepSmaller {
  __device__ Extreme operator()(Extreme a, Extreme b) const {
    keep_smaller(a, b);
    return a;
  }
};

__global__ void __launch_bounds__(kReduceThreads) reduce_kernel(const long long* window_sums, int windows,
                                                                DeviceReduction* out) {
  using Extremes = BlockReduce<Extreme, kReduceThreads>;
  using Totals = BlockReduce<__int128, kReduceThreads>;
  __shared__ typename Extremes::TempStorage largest_of_warp, smallest_of_warp;
  __shared__ typename Totals::TempStorage total_of_warp;
  const int feature = blockIdx.x, t = threadIdx.x;
  Extreme high{window_sums[feature], 0}, low = high;
  __int128 total = 0;
  for (int w = t; w < windows; w += kReduceThreads) {
    const long long v = window_sums[static_cast<std::size_t>(w) * kFeatureCount + feature];
    keep_larger(high, Extreme{v, w});
    keep_smaller(low, Extreme{v, w});
    total += v;
  }
  const Extreme largest = Extremes::reduce(high, KeepLarger{}, largest_of_warp);
  const Extreme smallest = Extremes::reduce(low, KeepSmaller{}, smallest_of_warp);
  total = Totals::sum(total, total_of_warp);
  if (t == 0) {  // the blocks' results are thread 0's
    out->max[feature] = largest.value, out->max_window[feature] = largest.window;
    out->min[feature] = smallest.value, out->min_window[feature] = smallest.window;
    out->total[feature] = total;
  }
}

class GpuEngine final : public GlcmEngine {
 public:
  explicit GpuEngine(int device) {
    name_ = select_cuda_device(device);
    stream_.create("creating a stream");
    host_reduction_.reserve(1, "allocating pinned memory");
    reduction_.allocate(1, "allocating the block reduction on the GPU");
    const std::vector<std::int64_t> table = xlogx_table(max_window_total(kWindowRadius) + 2);
    xlogx_count_ = static_cast<int>(table.size());
    xlogx_.upload(reinterpret_cast<const long long*>(table.data()), table.size(), "copying the X table");
  }

  std::string description() const override { return "GPU " + name_ + " (sliding windows, a warp per segment)"; }

  void load(const GreyImage& image, const std::vector<WindowCentre>& centres) override {
    for (const WindowCentre& c : centres)
      if (c.x < kWindowRadius || c.y < kWindowRadius || c.x + kWindowRadius >= image.width ||
          c.y + kWindowRadius >= image.height)
        throw std::invalid_argument("glcm: a window centre is too close to the image border");
    window_count_ = centres.size();
    // The previous image's blocks have finished (each block synchronises), so
    // its buffers can take this image in place.
    image_.upload_reusing(image.pixels.data(), image.pixels.size(), "copying the image to the GPU");
    const std::vector<WindowRun> segments = window_runs(centres, kSegmentLength);
    segments_.upload_reusing(segments.data(), segments.size(), "copying window segments to the GPU");
    segment_count_ = static_cast<int>(segments.size());
    // The slide plans depend only on the image's width: made once for a WU's
    // images of one width (1,026 plans, ~20 ms of host CPU an image before).
    if (image.width != width_) {
      width_ = image.width;
      upload_plans();
    }
    if (window_sums_.capacity < window_count_ * kFeatureCount)
      window_sums_.allocate(window_count_ * kFeatureCount, "allocating window sums on the GPU");
    // Pinned, so the copy back is one DMA instead of a CPU copy through a
    // staging buffer; kept for the next image when it is large enough.
    host_sums_.reserve(window_count_, "allocating pinned memory for window sums");
  }

  std::vector<FixedFeatures> window_sums(int level_divisor, int distance) override {
    std::vector<FixedFeatures> sums(window_count_, FixedFeatures{});
    if (window_count_ == 0) return sums;
    compute(level_divisor, distance);
    copy_windows_back(host_sums_.data);
    stream_.synchronize("computing GLCM features");
    std::copy(host_sums_.data, host_sums_.data + window_count_, sums.begin());
    return sums;
  }

  BlockOutput block(int level_divisor, int distance, bool keep_windows) override {
    return std::move(blocks({{level_divisor, distance, keep_windows}}).front());
  }

  std::size_t blocks_per_call() const override { return std::numeric_limits<std::size_t>::max(); }

  // Every block queued on the stream, each reduced into its own slot and its
  // windows (when kept) copied into their own pinned room; one wait for all.
  std::vector<BlockOutput> blocks(const std::vector<BlockRequest>& requests) override {
    if (window_count_ == 0) throw std::invalid_argument("glcm: no windows to reduce");
    const std::size_t n = requests.size();
    std::size_t kept = 0;
    for (const BlockRequest& r : requests) kept += r.keep_windows;
    if (reduction_.capacity < n) reduction_.allocate(n, "allocating block reductions on the GPU");
    host_reduction_.reserve(n, "allocating pinned memory for block reductions");
    host_sums_.reserve(std::max<std::size_t>(kept, 1) * window_count_, "allocating pinned memory for window sums");
    std::size_t kept_at = 0;
    for (std::size_t b = 0; b < n; ++b) {
      compute(requests[b].level_divisor, requests[b].distance);
      reduce_kernel<<<kFeatureCount, kReduceThreads, 0, stream_>>>(
          reinterpret_cast<const long long*>(window_sums_.data), static_cast<int>(window_count_), reduction_.data + b);
      check_cuda(cudaGetLastError(), "launching the block reduction");
      if (requests[b].keep_windows) copy_windows_back(host_sums_.data + window_count_ * kept_at++);
    }
    check_cuda(cudaMemcpyAsync(host_reduction_.data, reduction_.data, n * sizeof(DeviceReduction),
                               cudaMemcpyDeviceToHost, stream_),
               "copying the block reductions back");
    stream_.synchronize("computing GLCM features");
    std::vector<BlockOutput> out(n);
    kept_at = 0;
    for (std::size_t b = 0; b < n; ++b) {
      if (requests[b].keep_windows) {
        const FixedFeatures* sums = host_sums_.data + window_count_ * kept_at++;
        out[b].windows.assign(sums, sums + window_count_);
      }
      const DeviceReduction& reduction = host_reduction_.data[b];
      for (int k = 0; k < kFeatureCount; ++k) {
        out[b].reduction.max[k] = reduction.max[k], out[b].reduction.min[k] = reduction.min[k];
        out[b].reduction.max_window[k] = reduction.max_window[k];
        out[b].reduction.min_window[k] = reduction.min_window[k];
        out[b].reduction.total[k] = reduction.total[k];
      }
    }
    return out;
  }

 private:
  // Launches the block's kernel into window_sums_ (asynchronously).
  void compute(int level_divisor, int distance) {
    if (distance < 1 || distance > kMaxDistance) throw std::invalid_argument("glcm: distance out of 1..25");
    check_cuda(cudaMemsetAsync(window_sums_.data, 0, window_count_ * sizeof(FixedFeatures), stream_),
               "clearing window sums");
    switch (level_divisor) {
      case 4: launch<64>(2, distance); break;
      case 8: launch<32>(3, distance); break;
      case 16: launch<16>(4, distance); break;
      default: throw std::invalid_argument("glcm: level divisor must be 4, 8 or 16");
    }
  }
  // Queues the copy of every window's sums into pinned memory at `to` (complete after a sync).
  void copy_windows_back(FixedFeatures* to) {
    check_cuda(cudaMemcpyAsync(to, window_sums_.data, window_count_ * sizeof(FixedFeatures),
                               cudaMemcpyDeviceToHost, stream_),
               "copying window sums back");
  }

  // All distances' slide plans, packed once per image (offsets depend on its width).
  void upload_plans() {
    std::vector<DevicePlan> plans;
    std::vector<int> offsets;
    auto append = [&](const std::vector<Offset>& list, int shift) {
      for (const Offset& o : list) offsets.push_back(o.dy * width_ + o.dx + shift);
      return static_cast<int>(list.size());
    };
    for (int d = 1; d <= kMaxDistance; ++d) {
      plan_first_[d] = static_cast<int>(plans.size());
      for (const Displacement& delta : displacement_set(d)) {
        const SlidePlan plan = slide_plan(kWindowRadius, delta);
        DevicePlan device{};
        device.delta = delta.dy * width_ + delta.dx;
        device.all_first = static_cast<int>(offsets.size());
        device.all_count = append(plan.all_pairs, 0);
        device.step_first = static_cast<int>(offsets.size());
        device.removed_count = append(plan.removed_pairs, 0);
        device.added_count = append(plan.added_pairs, 1);  // the added pairs belong to the window at x + 1
        if (device.removed_count + device.added_count > 32 * kMaxPairsPerLaneAndStep)
          throw std::logic_error("glcm: a slide step changes more pairs than the GPU's step sums allow");
        plans.push_back(device);
      }
    }
    plan_first_[kMaxDistance + 1] = static_cast<int>(plans.size());
    plans_.upload(plans.data(), plans.size(), "copying slide plans to the GPU");
    offsets_.upload(offsets.data(), offsets.size(), "copying pair offsets to the GPU");
  }

  template <int kLevels>
  void launch(int level_shift, int distance) {
    KernelArguments args{};
    args.image = image_.data;
    args.width = width_;
    args.level_shift = level_shift;
    args.segments = segments_.data;
    args.segment_count = segment_count_;
    args.plans = plans_.data + plan_first_[distance];
    args.plan_count = plan_first_[distance + 1] - plan_first_[distance];
    args.offsets = offsets_.data;
    args.xlogx = xlogx_.data;
    args.xlogx_count = xlogx_count_;
    args.window_sums = window_sums_.data;
    const std::size_t shared_bytes = xlogx_count_ * sizeof(long long) +
                                     kWarpsPerBlock * SharedLayout<kLevels>::kWordsPerWarp * sizeof(unsigned);
    check_cuda(cudaFuncSetAttribute(slide_kernel<kLevels>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared_bytes)),
               "allowing the GLCM kernel its shared memory");
    const long long tasks = static_cast<long long>(segment_count_) * args.plan_count;
    const int blocks = static_cast<int>((tasks + kWarpsPerBlock - 1) / kWarpsPerBlock);
    slide_kernel<kLevels><<<blocks, kWarpsPerBlock * 32, shared_bytes, stream_>>>(args);
    check_cuda(cudaGetLastError(), "launching the GLCM kernel");
  }

  std::string name_;
  CudaStream stream_;
  PinnedBuffer<FixedFeatures> host_sums_;  // window_count_ entries per kept block of a call
  PinnedBuffer<DeviceReduction> host_reduction_;  // one per block of a call
  DeviceBuffer<DeviceReduction> reduction_;
  int width_ = 0;
  std::size_t window_count_ = 0;
  int segment_count_ = 0;
  int xlogx_count_ = 0;
  int plan_first_[kMaxDistance + 2] = {};
  DeviceBuffer<unsigned char> image_;
  DeviceBuffer<WindowRun> segments_;
  DeviceBuffer<DevicePlan> plans_;
  DeviceBuffer<int> offsets_;
  DeviceBuffer<long long> xlogx_;
  DeviceBuffer<unsigned long long> window_sums_;
};

}  // namespace

std::unique_ptr<GlcmEngine> make_gpu_engine(int device) { return std::make_unique<GpuEngine>(device); }
}  // namespace helix::glcm
