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
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/cuda_support.h"
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
  int removed_first, removed_count;
  int added_first, added_count;
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

template <int kLevels>
struct WarpGlcm {
  unsigned* words;            // this warp's SharedLayout<kLevels>
  const long long* xlogx;     // shared table X(0..max)

  __device__ void clear(int lane) const {
    for (int w = lane; w < SharedLayout<kLevels>::kWordsPerWarp; w += 32) words[w] = 0;
    __syncwarp();
  }

  // One pair (a, b) in (sign +1) or out (sign -1), into this lane's partial sums.
  __device__ void update(GlcmSums& g, int a, int b, int sign) const {
    const int low = min(a, b), high = max(a, b), difference = high - low;
    add_pair_linear(g, a, b, sign);
    const int index = cell_index(low, high, kLevels);
    const int shift = (index & 1) * 16;
    const int amount = difference == 0 ? 2 : 1;  // c(a,a) grows by 2; c(a,b), c(b,a) by 1 each
    const unsigned word = atomicAdd(&words[index >> 1], static_cast<unsigned>(sign * amount) << shift);
    const int old = (word >> shift) & 0xFFFF;
    const int now = old + sign * amount;
    const int weight = difference == 0 ? 1 : 2;
    g.sum_counts_squared += weight * (static_cast<long long>(now) * now - static_cast<long long>(old) * old);
    g.cell_xlogx += weight * (xlogx[now] - xlogx[old]);
    bump(words + SharedLayout<kLevels>::kMarginal + a, sign, g.marginal_xlogx);
    bump(words + SharedLayout<kLevels>::kMarginal + b, sign, g.marginal_xlogx);
    bump(words + SharedLayout<kLevels>::kSumHistogram + a + b, 2 * sign, g.sum_xlogx);
    bump(words + SharedLayout<kLevels>::kDifferenceHistogram + difference, 2 * sign, g.difference_xlogx);
  }

  __device__ void bump(unsigned* bin, int amount, std::int64_t& xlogx_sum) const {
    const int old = add_to_bin(bin, amount);
    xlogx_sum += xlogx[old + amount] - xlogx[old];
  }

  // idm_numerator() of the difference histogram, in its tree: lane l holds
  // bins l and l + 32, the xor shuffles are the tree's rounds.
  __device__ double idm_numerator_now(int lane) const {
    const unsigned* histogram = words + SharedLayout<kLevels>::kDifferenceHistogram;
    const double low = lane < kLevels ? idm_bin_term(static_cast<int>(histogram[lane]), lane) : 0.0;
    const double high = lane + 32 < kLevels ? idm_bin_term(static_cast<int>(histogram[lane + 32]), lane + 32) : 0.0;
    double t = low + high;
    for (int step = 16; step >= 1; step /= 2) t = t + __shfl_xor_sync(0xffffffffu, t, step);
    return t;
  }
};

__device__ __forceinline__ long long warp_sum(long long v) {
  for (int step = 16; step >= 1; step /= 2) v += __shfl_xor_sync(0xffffffffu, v, step);
  return v;
}

// Adds every lane's partial sums into `total` (same result in all lanes).
__device__ void accumulate_warp(GlcmSums& total, const GlcmSums& partial) {
  total.total += warp_sum(partial.total);
  total.sum_counts_squared += warp_sum(partial.sum_counts_squared);
  total.cross_moment += warp_sum(partial.cross_moment);
  total.marginal_first += warp_sum(partial.marginal_first);
  total.marginal_second += warp_sum(partial.marginal_second);
  total.sum_first += warp_sum(partial.sum_first);
  total.sum_second += warp_sum(partial.sum_second);
  total.difference_first += warp_sum(partial.difference_first);
  total.difference_second += warp_sum(partial.difference_second);
  total.cell_xlogx += warp_sum(partial.cell_xlogx);
  total.marginal_xlogx += warp_sum(partial.marginal_xlogx);
  total.sum_xlogx += warp_sum(partial.sum_xlogx);
  total.difference_xlogx += warp_sum(partial.difference_xlogx);
}

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

template <int kLevels>
__device__ void pass(const WarpGlcm<kLevels>& glcm, GlcmSums& partial, const unsigned char* image, int centre,
                     int delta, int shift, const int* offsets, int count, int sign, int lane) {
  for (int k = lane; k < count; k += 32) {
    const int p = centre + offsets[k];
    glcm.update(partial, __ldg(image + p) >> shift, __ldg(image + p + delta) >> shift, sign);
  }
  __syncwarp();
}

template <int kLevels>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) slide_kernel(KernelArguments args) {
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
  glcm.clear(lane);

  int centre = segment.y * args.width + segment.x;
  GlcmSums running{}, mine{};
  GlcmSums partial{};
  pass(glcm, partial, args.image, centre, plan.delta, args.level_shift, args.offsets + plan.all_first,
       plan.all_count, +1, lane);
  accumulate_warp(running, partial);
  running.idm_numerator = glcm.idm_numerator_now(lane);
  if (lane == 0) mine = running;
  for (int step = 1; step < segment.count; ++step) {
    partial = GlcmSums{};
    pass(glcm, partial, args.image, centre, plan.delta, args.level_shift, args.offsets + plan.removed_first,
         plan.removed_count, -1, lane);
    centre += 1;
    pass(glcm, partial, args.image, centre, plan.delta, args.level_shift, args.offsets + plan.added_first,
         plan.added_count, +1, lane);
    accumulate_warp(running, partial);
    running.idm_numerator = glcm.idm_numerator_now(lane);
    if (lane == step) mine = running;
  }
  if (lane < segment.count) {
    double features[kFeatureCount];
    haralick_features(mine, xlogx[mine.total], features);
    unsigned long long* out = args.window_sums + static_cast<std::size_t>(segment.first + lane) * kFeatureCount;
    for (int k = 0; k < kFeatureCount; ++k)
      atomicAdd(out + k, static_cast<unsigned long long>(feature_to_fixed(k, features[k])));
  }
}

// ------------------------------------------------------------ block reduction
//
// reduce_windows() on the device, so the host receives 13 maxima, minima,
// their windows and totals instead of every window's sums. One thread block
// per feature; ties go to the lower window index, as on the host.
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

__global__ void __launch_bounds__(kReduceThreads) reduce_kernel(const long long* window_sums, int windows,
                                                                DeviceReduction* out) {
  __shared__ Extreme largest[kReduceThreads], smallest[kReduceThreads];
  __shared__ __int128 totals[kReduceThreads];
  const int feature = blockIdx.x, t = threadIdx.x;
  Extreme high{window_sums[feature], 0}, low = high;
  __int128 total = 0;
  for (int w = t; w < windows; w += kReduceThreads) {
    const long long v = window_sums[static_cast<std::size_t>(w) * kFeatureCount + feature];
    keep_larger(high, Extreme{v, w});
    keep_smaller(low, Extreme{v, w});
    total += v;
  }
  largest[t] = high, smallest[t] = low, totals[t] = total;
  __syncthreads();
  for (int half = kReduceThreads / 2; half > 0; half /= 2) {
    if (t < half) {
      keep_larger(largest[t], largest[t + half]);
      keep_smaller(smallest[t], smallest[t + half]);
      totals[t] += totals[t + half];
    }
    __syncthreads();
  }
  if (t == 0) {
    out->max[feature] = largest[0].value, out->max_window[feature] = largest[0].window;
    out->min[feature] = smallest[0].value, out->min_window[feature] = smallest[0].window;
    out->total[feature] = totals[0];
  }
}

class GpuEngine final : public GlcmEngine {
 public:
  explicit GpuEngine(int device) {
    name_ = select_cuda_device(device);
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
    check_cuda(cudaMallocHost(&host_reduction_, sizeof(DeviceReduction)), "allocating pinned memory");
    reduction_.allocate(1, "allocating the block reduction on the GPU");
  }
  ~GpuEngine() override {
    if (host_reduction_) cudaFreeHost(host_reduction_);
    if (host_sums_) cudaFreeHost(host_sums_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  std::string description() const override { return "GPU " + name_ + " (sliding windows, a warp per segment)"; }

  void load(const GreyImage& image, const std::vector<WindowCentre>& centres) override {
    for (const WindowCentre& c : centres)
      if (c.x < kWindowRadius || c.y < kWindowRadius || c.x + kWindowRadius >= image.width ||
          c.y + kWindowRadius >= image.height)
        throw std::invalid_argument("glcm: a window centre is too close to the image border");
    width_ = image.width;
    window_count_ = centres.size();
    image_.upload(image.pixels.data(), image.pixels.size(), "copying the image to the GPU");
    const std::vector<WindowRun> segments = window_runs(centres, kSegmentLength);
    segments_.upload(segments.data(), segments.size(), "copying window segments to the GPU");
    segment_count_ = static_cast<int>(segments.size());
    const std::vector<std::int64_t> table = xlogx_table(max_window_total(kWindowRadius) + 2);
    xlogx_count_ = static_cast<int>(table.size());
    xlogx_.upload(reinterpret_cast<const long long*>(table.data()), table.size(), "copying the X table");
    upload_plans();
    window_sums_.allocate(window_count_ * kFeatureCount, "allocating window sums on the GPU");
    // Pinned, so the copy back is one DMA instead of a CPU copy through a staging buffer.
    if (host_sums_) cudaFreeHost(host_sums_), host_sums_ = nullptr;
    check_cuda(cudaMallocHost(&host_sums_, std::max<std::size_t>(window_count_, 1) * sizeof(FixedFeatures)),
               "allocating pinned memory for window sums");
  }

  std::vector<FixedFeatures> window_sums(int level_divisor, int distance) override {
    std::vector<FixedFeatures> sums(window_count_, FixedFeatures{});
    if (window_count_ == 0) return sums;
    compute(level_divisor, distance);
    copy_windows_back();
    check_cuda(cudaStreamSynchronize(stream_), "computing GLCM features");
    std::copy(host_sums_, host_sums_ + window_count_, sums.begin());
    return sums;
  }

  BlockOutput block(int level_divisor, int distance, bool keep_windows) override {
    if (window_count_ == 0) throw std::invalid_argument("glcm: no windows to reduce");
    compute(level_divisor, distance);
    reduce_kernel<<<kFeatureCount, kReduceThreads, 0, stream_>>>(
        reinterpret_cast<const long long*>(window_sums_.data), static_cast<int>(window_count_), reduction_.data);
    check_cuda(cudaGetLastError(), "launching the block reduction");
    check_cuda(cudaMemcpyAsync(host_reduction_, reduction_.data, sizeof(DeviceReduction), cudaMemcpyDeviceToHost,
                               stream_),
               "copying the block reduction back");
    BlockOutput out;
    if (keep_windows) out.windows.resize(window_count_), copy_windows_back();
    check_cuda(cudaStreamSynchronize(stream_), "computing GLCM features");
    if (keep_windows) std::copy(host_sums_, host_sums_ + window_count_, out.windows.begin());
    for (int k = 0; k < kFeatureCount; ++k) {
      out.reduction.max[k] = host_reduction_->max[k], out.reduction.min[k] = host_reduction_->min[k];
      out.reduction.max_window[k] = host_reduction_->max_window[k];
      out.reduction.min_window[k] = host_reduction_->min_window[k];
      out.reduction.total[k] = host_reduction_->total[k];
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
  // Queues the copy of every window's sums into pinned memory (complete after a sync).
  void copy_windows_back() {
    check_cuda(cudaMemcpyAsync(host_sums_, window_sums_.data, window_count_ * sizeof(FixedFeatures),
                               cudaMemcpyDeviceToHost, stream_),
               "copying window sums back");
  }

  // All distances' slide plans, packed once per image (offsets depend on its width).
  void upload_plans() {
    std::vector<DevicePlan> plans;
    std::vector<int> offsets;
    auto append = [&](const std::vector<Offset>& list, int& first, int& count) {
      first = static_cast<int>(offsets.size());
      count = static_cast<int>(list.size());
      for (const Offset& o : list) offsets.push_back(o.dy * width_ + o.dx);
    };
    for (int d = 1; d <= kMaxDistance; ++d) {
      plan_first_[d] = static_cast<int>(plans.size());
      for (const Displacement& delta : displacement_set(d)) {
        const SlidePlan plan = slide_plan(kWindowRadius, delta);
        DevicePlan device{delta.dy * width_ + delta.dx, 0, 0, 0, 0, 0, 0};
        append(plan.all_pairs, device.all_first, device.all_count);
        append(plan.removed_pairs, device.removed_first, device.removed_count);
        append(plan.added_pairs, device.added_first, device.added_count);
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
  cudaStream_t stream_ = nullptr;
  FixedFeatures* host_sums_ = nullptr;  // pinned, window_count_ entries
  DeviceReduction* host_reduction_ = nullptr;  // pinned
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
int glcm_gpu_device_count() { return cuda_device_count(); }

}  // namespace helix::glcm
