// mrf_gpu.cu: the CUDA sweep engine of the mrf kind.
//
// Layers (CUB style): GpuSweepEngine (host: owns device memory, launches, one
// synchronisation per sweep) -> colour_update_kernel (one colour of the
// checkerboard) -> block_accumulate (block-level integer reduction) ->
// update_voxel (per-voxel decision, shared with the CPU via mrf_model.h).
//
// Exactness: the kernels use only integer arithmetic, read the class terms from
// the host-built table, draw proposals from the counter-based generator, and
// reduce with integer atomics (associative and commutative), so labels and
// statistics equal the CPU reference's bit for bit, on any GPU and launch shape.
#include <cuda_runtime.h>

#include <string>

#include "core/errors.h"
#include "mrf.h"

namespace helix::mrf {
namespace {

// Tile shape: a thread owns kVoxelsPerThread consecutive voxels along x (two
// of each colour) in each of kSlicesPerThread slices; a block is
// kBlockX x kBlockY threads. Several voxels per thread amortise the atomics of
// the reduction over more work.
constexpr int kVoxelsPerThread = 4;
constexpr int kSlicesPerThread = 8;
constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kBlockThreads = kBlockX * kBlockY;

// Accumulator layout in device memory (all 64-bit integers).
struct DeviceTotals {
  unsigned long long delta_energy;  // two's complement sum of signed deltas
  unsigned long long labels_changed;
  unsigned long long count[kClassCount];
  unsigned long long sum[kClassCount];  // two's complement
  unsigned long long sum_sq[kClassCount];
};

struct VolumeView {
  const std::int16_t* intensity;
  std::uint8_t* labels;
  const std::int32_t* table;
  std::int32_t table_min;
  std::int32_t table_range;
  int nx, ny, nz;
};

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw GpuError(std::string(what) + ": " + cudaGetErrorString(status));
}

// Per-voxel decision; returns the accepted energy change and updates the label.
__device__ std::int32_t update_voxel(const VolumeView& v, int x, int y, int z, std::size_t index,
                                     const SweepConstants& constants, int& changed) {
  const std::size_t row = v.nx, slice = static_cast<std::size_t>(v.nx) * v.ny;
  int with_label[kClassCount] = {0, 0, 0};
  int neighbours = 0;
  if (x > 0) ++with_label[v.labels[index - 1]], ++neighbours;
  if (x + 1 < v.nx) ++with_label[v.labels[index + 1]], ++neighbours;
  if (y > 0) ++with_label[v.labels[index - row]], ++neighbours;
  if (y + 1 < v.ny) ++with_label[v.labels[index + row]], ++neighbours;
  if (z > 0) ++with_label[v.labels[index - slice]], ++neighbours;
  if (z + 1 < v.nz) ++with_label[v.labels[index + slice]], ++neighbours;
  const int current = v.labels[index];
  const int proposed = proposed_label(current, proposal_bits(constants.seed, constants.sweep_index, index));
  const int offset = v.intensity[index] - v.table_min;
  bool accepted = false;
  const std::int32_t delta =
      proposal_delta(__ldg(v.table + current * v.table_range + offset), __ldg(v.table + proposed * v.table_range + offset),
                     with_label[current], with_label[proposed], neighbours, constants, accepted);
  if (accepted) {
    v.labels[index] = static_cast<std::uint8_t>(proposed);
    ++changed;
  }
  return delta;
}

// Block-level sum of one 64-bit value per thread; thread 0 adds it to *total.
__device__ void block_accumulate(unsigned long long value, unsigned long long* total, unsigned long long* scratch) {
  for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(0xffffffffu, value, offset);
  const int thread = threadIdx.x + threadIdx.y * kBlockX;
  if ((thread & 31) == 0) scratch[thread >> 5] = value;
  __syncthreads();
  if (thread == 0) {
    unsigned long long block_total = 0;
    for (int warp = 0; warp < kBlockThreads / 32; ++warp) block_total += scratch[warp];
    if (block_total) atomicAdd(total, block_total);
  }
  __syncthreads();
}

// Updates every voxel of colour `colour` in the thread's tile. With
// kWithClassSums (the second colour, after which all labels are final) it also
// sums counts, intensities and squared intensities per class over the tile.
template <bool kWithClassSums>
__global__ void __launch_bounds__(kBlockThreads)
    colour_update_kernel(VolumeView v, SweepConstants constants, int colour, DeviceTotals* totals) {
  __shared__ unsigned long long scratch[kBlockThreads / 32];
  const int x0 = (blockIdx.x * kBlockX + threadIdx.x) * kVoxelsPerThread;
  const int y = blockIdx.y * kBlockY + threadIdx.y;
  const int z0 = blockIdx.z * kSlicesPerThread;
  long long delta_energy = 0;
  int changed = 0;
  long long count[kClassCount] = {0, 0, 0}, sum[kClassCount] = {0, 0, 0}, sum_sq[kClassCount] = {0, 0, 0};
  if (y < v.ny) {
    for (int z = z0; z < min(z0 + kSlicesPerThread, v.nz); ++z) {
      const std::size_t row_start = static_cast<std::size_t>(z) * v.ny * v.nx + static_cast<std::size_t>(y) * v.nx;
      // First x of this colour in the tile; the other is two further on.
      for (int x = x0 + ((x0 + y + z + colour) & 1); x < min(x0 + kVoxelsPerThread, v.nx); x += 2)
        delta_energy += update_voxel(v, x, y, z, row_start + x, constants, changed);
      if (kWithClassSums) {
        for (int x = x0; x < min(x0 + kVoxelsPerThread, v.nx); ++x) {
          const int label = v.labels[row_start + x];
          const long long intensity = v.intensity[row_start + x];
          for (int k = 0; k < kClassCount; ++k) {  // unrolled select: no local-memory indexing
            const bool mine = label == k;
            count[k] += mine;
            sum[k] += mine ? intensity : 0;
            sum_sq[k] += mine ? intensity * intensity : 0;
          }
        }
      }
    }
  }
  block_accumulate(static_cast<unsigned long long>(delta_energy), &totals->delta_energy, scratch);
  block_accumulate(static_cast<unsigned long long>(changed), &totals->labels_changed, scratch);
  if (kWithClassSums) {
    for (int k = 0; k < kClassCount; ++k) {
      block_accumulate(static_cast<unsigned long long>(count[k]), &totals->count[k], scratch);
      block_accumulate(static_cast<unsigned long long>(sum[k]), &totals->sum[k], scratch);
      block_accumulate(static_cast<unsigned long long>(sum_sq[k]), &totals->sum_sq[k], scratch);
    }
  }
}

template <typename T>
struct DeviceBuffer {
  T* data = nullptr;
  std::size_t count = 0;
  void allocate(std::size_t n, const char* what) {
    release();
    check_cuda(cudaMalloc(&data, n * sizeof(T)), what);
    count = n;
  }
  void release() {
    if (data) cudaFree(data);
    data = nullptr, count = 0;
  }
  ~DeviceBuffer() { release(); }
};

class GpuSweepEngine : public SweepEngine {
 public:
  explicit GpuSweepEngine(int device) : device_(device) {
    check_cuda(cudaSetDevice(device), "selecting the CUDA device");
    // Sleep in cudaStreamSynchronize instead of spinning: volunteers' CPUs stay idle.
    cudaError_t flags = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
    if (flags != cudaSuccess && flags != cudaErrorSetOnActiveProcess) check_cuda(flags, "setting blocking sync");
    cudaGetLastError();  // clear a harmless cudaErrorSetOnActiveProcess
    cudaDeviceProp properties;
    check_cuda(cudaGetDeviceProperties(&properties, device), "reading device properties");
    name_ = properties.name;
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
    check_cuda(cudaMallocHost(&host_totals_, sizeof(DeviceTotals)), "allocating pinned memory");
  }
  ~GpuSweepEngine() override {
    if (host_totals_) cudaFreeHost(host_totals_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  std::string description() const override { return "CUDA device " + std::to_string(device_) + " (" + name_ + ")"; }

  void load(const Volume& volume, const std::vector<std::uint8_t>& labels) override {
    volume_ = &volume;
    intensity_.allocate(volume.size(), "allocating the volume on the GPU");
    labels_.allocate(volume.size(), "allocating labels on the GPU");
    totals_.allocate(1, "allocating totals on the GPU");
    check_cuda(cudaMemcpy(intensity_.data, volume.voxels.data(), volume.size() * sizeof(std::int16_t),
                          cudaMemcpyHostToDevice), "copying the volume to the GPU");
    check_cuda(cudaMemcpy(labels_.data, labels.data(), labels.size(), cudaMemcpyHostToDevice),
               "copying labels to the GPU");
  }

  SweepStats sweep(const EnergyTable& table, const SweepConstants& constants) override {
    if (table_.count != table.terms.size()) table_.allocate(table.terms.size(), "allocating the energy table");
    check_cuda(cudaMemcpyAsync(table_.data, table.terms.data(), table.terms.size() * sizeof(std::int32_t),
                               cudaMemcpyHostToDevice, stream_), "uploading the energy table");
    check_cuda(cudaMemsetAsync(totals_.data, 0, sizeof(DeviceTotals), stream_), "clearing totals");
    const VolumeView view{intensity_.data, labels_.data, table_.data, table.min_intensity, table.range,
                          volume_->nx, volume_->ny, volume_->nz};
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid((volume_->nx + kBlockX * kVoxelsPerThread - 1) / (kBlockX * kVoxelsPerThread),
                    (volume_->ny + kBlockY - 1) / kBlockY, (volume_->nz + kSlicesPerThread - 1) / kSlicesPerThread);
    colour_update_kernel<false><<<grid, block, 0, stream_>>>(view, constants, 0, totals_.data);
    colour_update_kernel<true><<<grid, block, 0, stream_>>>(view, constants, 1, totals_.data);
    check_cuda(cudaGetLastError(), "launching the MRF sweep");
    check_cuda(cudaMemcpyAsync(host_totals_, totals_.data, sizeof(DeviceTotals), cudaMemcpyDeviceToHost, stream_),
               "reading sweep totals");
    check_cuda(cudaStreamSynchronize(stream_), "running the MRF sweep");
    return to_stats(*host_totals_);
  }

  std::vector<std::uint8_t> labels() override {
    std::vector<std::uint8_t> host(labels_.count);
    check_cuda(cudaMemcpy(host.data(), labels_.data, host.size(), cudaMemcpyDeviceToHost), "reading labels");
    return host;
  }

 private:
  static SweepStats to_stats(const DeviceTotals& totals) {
    SweepStats stats;
    stats.delta_energy = static_cast<std::int64_t>(totals.delta_energy);
    stats.labels_changed = static_cast<std::int64_t>(totals.labels_changed);
    for (int k = 0; k < kClassCount; ++k) {
      stats.sums.count[k] = static_cast<std::int64_t>(totals.count[k]);
      stats.sums.sum[k] = static_cast<std::int64_t>(totals.sum[k]);
      stats.sums.sum_sq[k] = static_cast<std::int64_t>(totals.sum_sq[k]);
    }
    return stats;
  }

  int device_;
  std::string name_;
  cudaStream_t stream_ = nullptr;
  DeviceTotals* host_totals_ = nullptr;
  const Volume* volume_ = nullptr;
  DeviceBuffer<std::int16_t> intensity_;
  DeviceBuffer<std::uint8_t> labels_;
  DeviceBuffer<std::int32_t> table_;
  DeviceBuffer<DeviceTotals> totals_;
};

}  // namespace

std::unique_ptr<SweepEngine> make_gpu_engine(int device) { return std::make_unique<GpuSweepEngine>(device); }

int gpu_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

}  // namespace helix::mrf
