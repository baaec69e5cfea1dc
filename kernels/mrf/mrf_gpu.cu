// mrf_gpu.cu: the CUDA sweep engine of the mrf kind.
//
// Layers (CUB style): GpuSweepEngine (host: owns device memory, launches a
// batch of sweeps, one synchronisation per batch) -> colour_update_kernel (one
// colour of the checkerboard) and end_of_sweep_kernel (class re-estimation and
// the stopping rule) -> accumulate_block (block-level integer reduction, the
// device layer's BlockReduce) -> update_voxel (per-voxel decision, shared
// with the CPU via mrf_model.h). The stream, pinned batch state and batch
// graph are the device layer's (core/device_stream.h).
//
// Exactness: the kernels compare integer energies (class terms from
// class_term_fixed(), the CPU table's own formula), draw proposals from the
// counter-based generator, and reduce with integer atomics (associative and
// commutative), so labels and statistics equal the CPU reference's bit for
// bit, on any GPU and launch shape.
#include <cuda_runtime.h>

#include <string>

#include "core/cuda_support.h"
#include "core/device_stream.h"
#include "core/errors.h"
#include "core/warp_reduce.cuh"
#include "mrf.h"

namespace helix::mrf {
namespace {

// Tile shape: a thread owns kVoxelsPerThread = 4 consecutive voxels along x
// (two of each colour) in each of kSlicesPerThread slices; a block is
// kBlockX x kBlockY threads. Several voxels per thread amortise the block
// reduction over more work.
constexpr int kVoxelsPerThread = 4;
constexpr int kSlicesPerThread = 8;
constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kBlockThreads = kBlockX * kBlockY;
// Ask for registers for four resident blocks per SM (64 registers a thread):
// more warps in flight hide the latency of the neighbour loads.
constexpr int kMinBlocksPerSm = 4;

// What one colour pass adds up, in device memory. Signed values are summed as
// two's complement in unsigned 64-bit words (integer atomics: exact, any order).
// The class sums are *changes*: the absolute sums live in DeviceBatchState,
// so a pass only touches the (few) voxels whose label changed.
struct DeviceTotals {
  unsigned long long delta_energy;
  unsigned long long labels_changed;
  unsigned long long count_change[kClassCount];
  unsigned long long sum_change[kClassCount];
  unsigned long long sum_sq_change[kClassCount];
};

// Sweeps run in batches of up to kMaxBatch without the host: after each
// sweep a one-thread kernel re-estimates the classes and decides, by the
// solver's rules, whether the batch goes on; kernels of a finished batch
// return at once. A batch is one CUDA graph (captured once per loaded volume)
// whose only inputs are in DeviceBatchState, so the host spends three API
// calls and one sleeping synchronisation per batch.
constexpr int kMaxBatch = 32;

// The solver's bookkeeping on the device during a batch.
struct DeviceBatchState {
  // Set by the host before the batch.
  SweepConstants first;      // constants of the batch's first sweep
  int last_slot;             // the batch ends after this slot at the latest
  std::uint32_t max_sweeps;  // the solver's limit: the sweep with index + 1 == max_sweeps is the last
  double min_variance;
  long long tolerance;       // fixed point; negative: never converged
  // Kept up to date on the device.
  long long count[kClassCount], sum[kClassCount], sum_sq[kClassCount];  // class sums of the current labels
  double mean[kClassCount], variance[kClassCount];                      // class model
  ClassTerms terms;                                                      // constants of the next sweep
  int finished;                                                          // no further sweep in this batch
  int converged;
  int sweeps_run;
  long long delta_energy[kMaxBatch], labels_changed[kMaxBatch];
};

// Device layout: rows padded to a pitch that is a multiple of
// kVoxelsPerThread, so that a thread loads its four labels (one 32-bit word) and four
// intensities (short4) with one aligned access each. Padding voxels count as no
// neighbour: they hold the absent label. Indices fit 32 bits:
// (nx + 4) * ny * nz < 2^32 under the volume format's limits.
struct VolumeView {
  const std::int16_t* intensity;
  std::uint8_t* labels;
  int nx, ny, nz;
  int pitch;  // elements per padded row
};


// A label value that no class has: it stands for "no neighbour here" (outside
// the volume), so neighbour counting needs no bounds tests. The padding of
// every device row holds it, and rows beyond the volume read as all-absent.
constexpr unsigned kAbsent = 3;
constexpr unsigned kAbsentWord = 0x03030303u;
static_assert(kClassCount == 3, "kAbsent must differ from every class label");

// One thread's row segment, as packed label words (byte j = voxel x0 + j) of
// this row and the rows around it, each shifted right by `odd` bytes so that
// byte 0 is the colour's first voxel and byte 2 its second.
struct Segment {
  unsigned centre, y_minus, y_plus, z_minus, z_plus;
  unsigned left_of_first, right_of_second;  // x neighbours that lie outside the centre word
};

__device__ unsigned load_word(const std::uint8_t* labels, unsigned index) {
  return *reinterpret_cast<const unsigned*>(labels + index);
}

__device__ Segment load_segment(const VolumeView& v, int x0, int y, int z, unsigned row, int odd) {
  const unsigned slice = static_cast<unsigned>(v.pitch) * v.ny;
  const unsigned shift = 8u * odd;
  const unsigned centre = load_word(v.labels, row + x0);
  Segment s;
  s.centre = centre >> shift;
  s.y_minus = (y > 0 ? load_word(v.labels, row - v.pitch + x0) : kAbsentWord) >> shift;
  s.y_plus = (y + 1 < v.ny ? load_word(v.labels, row + v.pitch + x0) : kAbsentWord) >> shift;
  s.z_minus = (z > 0 ? load_word(v.labels, row - slice + x0) : kAbsentWord) >> shift;
  s.z_plus = (z + 1 < v.nz ? load_word(v.labels, row + slice + x0) : kAbsentWord) >> shift;
  // First voxel's left: x0 - 1 (odd = 0) or byte 0 (odd = 1). Second voxel's
  // right: byte 3 (odd = 0) or x0 + 4, which the row padding always provides.
  const unsigned before = x0 > 0 ? v.labels[row + x0 - 1] : kAbsent;
  s.left_of_first = odd ? (centre & 0xffu) : before;
  s.right_of_second = odd ? v.labels[row + x0 + kVoxelsPerThread] : (centre >> 24);
  return s;
}

// Neighbour counts of one voxel as bytes of one word: byte k counts the
// neighbours labelled k (byte 3 the absent ones). Adding 1 << (8 * label) per
// neighbour replaces six compare-and-count steps per class.
__device__ unsigned count_neighbours(unsigned left, unsigned right, unsigned y_minus, unsigned y_plus,
                                     unsigned z_minus, unsigned z_plus) {
  return (1u << (left << 3)) + (1u << (right << 3)) + (1u << (y_minus << 3)) + (1u << (y_plus << 3)) +
         (1u << (z_minus << 3)) + (1u << (z_plus << 3));
}

// Per-thread running totals of a colour pass.
struct ThreadTotals {
  long long delta_energy = 0;
  int changed = 0;
  int count_change[kClassCount] = {0, 0, 0};
  int sum_change[kClassCount] = {0, 0, 0};
  long long sum_sq_change[kClassCount] = {0, 0, 0};
};

// The fixed-point class term of `label` at `intensity` (the energy kernel's,
// once per labelling). All three terms are computed and the wanted one
// selected: indexing the kernel argument at run time would copy it to local
// memory.
__device__ std::int32_t class_term_of(const ClassTerms& terms, int label, int intensity) {
  const std::int32_t air = class_term_fixed(intensity, terms.of[0]);
  const std::int32_t bone = class_term_fixed(intensity, terms.of[1]);
  const std::int32_t liver = class_term_fixed(intensity, terms.of[2]);
  return label == 0 ? air : label == 1 ? bone : liver;
}

// The class terms of one intensity relative to air's: (T_bone - T_air,
// T_liver - T_air), each T exactly class_term_fixed() (clamped to 2^26, so a
// difference fits 28 bits). A proposal's energy change needs only T_proposed -
// T_current, which these give exactly, with one 8-byte load per voxel from a
// table of every int16 intensity (the few entries a volume uses stay in the
// L1: neighbouring voxels have near intensities) instead of three FP64 class
// terms and their conversions: 1.39e11 -> 1.86e11 voxel updates/s on the H100.
// The class table covers every int16 intensity (512 KB, computed in a few
// microseconds a sweep): no scan of the volume on the host for its range.
constexpr int kIntensityMin = -32768;
constexpr int kIntensityCount = 65536;

__device__ __forceinline__ std::int32_t term_over_air(int2 differences, int label) {
  return label == 0 ? 0 : label == 1 ? differences.x : differences.y;
}

__device__ void update_voxel(const VolumeView& v, int current, unsigned counts, int intensity, unsigned index,
                             int coin, const int2* class_table, const SweepConstants& constants,
                             ThreadTotals& totals) {
  const int proposed = proposed_label(current, coin);
  const int same_current = (counts >> (current << 3)) & 0xffu;
  const int same_proposed = (counts >> (proposed << 3)) & 0xffu;
  const int neighbours = 6 - static_cast<int>(counts >> 24);
  const int2 differences = __ldg(class_table + (intensity - kIntensityMin));
  bool accepted = false;
  // Both energies shifted by T_air: their difference, and so the decision, is unchanged.
  totals.delta_energy += proposal_delta(term_over_air(differences, current), term_over_air(differences, proposed),
                                        same_current, same_proposed, neighbours, constants, accepted);
  if (accepted) {  // rare after the first sweeps: only changed labels are stored
    v.labels[index] = static_cast<std::uint8_t>(proposed);
    ++totals.changed;
    const long long square = static_cast<long long>(intensity * intensity);  // |intensity| <= 2^15
#pragma unroll
    for (int k = 0; k < kClassCount; ++k) {
      const int moved = (k == proposed) - (k == current);
      totals.count_change[k] += moved;
      totals.sum_change[k] += moved * intensity;
      totals.sum_sq_change[k] += moved * square;
    }
  }
}

// The coin of one voxel (proposal_coin()), from the coin word of the
// segment's first group or of the next one.
__device__ int coin_of(std::uint32_t voxel, std::uint32_t group, std::uint32_t word, std::uint32_t next_word) {
  return static_cast<int>((((voxel >> 5) == group ? word : next_word) >> (voxel & 31)) & 1u);
}

// The kernels' blocks as the device layer's block reduction sees them.
using BlockSum = BlockReduce<unsigned long long, kBlockX, kBlockY>;

// Block-level sum of one 64-bit value per thread; thread 0 adds it to *total.
__device__ void block_accumulate(unsigned long long value, unsigned long long* total, BlockSum::TempStorage& scratch) {
  const unsigned long long block_total = BlockSum::sum(value, scratch);
  if (BlockSum::thread_rank() == 0 && block_total) atomicAdd(total, block_total);
  __syncthreads();  // the scratch is free for the next sum
}

__device__ unsigned long long as_word(long long value) { return static_cast<unsigned long long>(value); }

// Adds a block's totals to the pass totals. Blocks where no label changed
// (most of them after the first sweeps) skip the reduction: all their
// contributions are zero.
__device__ void accumulate_block(const ThreadTotals& mine, DeviceTotals* totals, BlockSum::TempStorage& scratch) {
  if (!__syncthreads_or(mine.changed)) return;
  block_accumulate(as_word(mine.delta_energy), &totals->delta_energy, scratch);
  block_accumulate(as_word(mine.changed), &totals->labels_changed, scratch);
#pragma unroll
  for (int k = 0; k < kClassCount; ++k) {
    block_accumulate(as_word(mine.count_change[k]), &totals->count_change[k], scratch);
    block_accumulate(as_word(mine.sum_change[k]), &totals->sum_change[k], scratch);
    block_accumulate(as_word(mine.sum_sq_change[k]), &totals->sum_sq_change[k], scratch);
  }
}

// Updates every voxel of colour `colour` in the thread's tile: in each slice,
// the two voxels of that colour among the thread's four. Does nothing once the
// batch has finished.
__global__ void __launch_bounds__(kBlockThreads, kMinBlocksPerSm)
    colour_update_kernel(VolumeView v, const DeviceBatchState* batch, int slot, int colour, const int2* class_table,
                         DeviceTotals* totals) {
  __shared__ BlockSum::TempStorage scratch;
  if (batch->finished) return;  // the same for every thread of the grid
  SweepConstants constants = batch->first;
  constants.sweep_index += slot;
  const std::uint32_t coin_key = sweep_coin_key(constants.seed, constants.sweep_index);
  const int x0 = (blockIdx.x * kBlockX + threadIdx.x) * kVoxelsPerThread;
  const int y = blockIdx.y * kBlockY + threadIdx.y;
  const int z0 = blockIdx.z * kSlicesPerThread;
  ThreadTotals mine;
  if (y < v.ny && x0 < v.nx) {
    for (int z = z0; z < min(z0 + kSlicesPerThread, v.nz); ++z) {
      const unsigned row = (static_cast<unsigned>(z) * v.ny + y) * v.pitch;
      const int odd = voxel_colour(x0, y, z) ^ colour;  // offset of the colour's first voxel in the segment
      const Segment s = load_segment(v, x0, y, z, row, odd);
      const short4 intensity = *reinterpret_cast<const short4*>(v.intensity + row + x0);
      // Unpadded voxel index (< 2^31: the volume format's limit).
      const std::uint32_t first = (static_cast<std::uint32_t>(z) * v.ny + y) * v.nx + x0 + odd;
      const std::uint32_t group = first >> 5;
      const std::uint32_t word = coin_word(coin_key, group);
      const std::uint32_t next_word = ((first + 2) >> 5) != group ? coin_word(coin_key, group + 1) : 0;
      if (x0 + odd < v.nx)
        update_voxel(v, s.centre & 0xffu,
                     count_neighbours(s.left_of_first, (s.centre >> 8) & 0xffu, s.y_minus & 0xffu,
                                      s.y_plus & 0xffu, s.z_minus & 0xffu, s.z_plus & 0xffu),
                     odd ? intensity.y : intensity.x, row + x0 + odd, coin_of(first, group, word, next_word),
                     class_table, constants, mine);
      if (x0 + odd + 2 < v.nx)
        update_voxel(v, (s.centre >> 16) & 0xffu,
                     count_neighbours((s.centre >> 8) & 0xffu, s.right_of_second, (s.y_minus >> 16) & 0xffu,
                                      (s.y_plus >> 16) & 0xffu, (s.z_minus >> 16) & 0xffu, (s.z_plus >> 16) & 0xffu),
                     odd ? intensity.w : intensity.z, row + x0 + odd + 2, coin_of(first + 2, group, word, next_word),
                     class_table, constants, mine);
    }
  }
  accumulate_block(mine, totals, scratch);
}

// class_statistics() of the labels on the device: count, sum and sum of
// squares of the intensities per class, one thread per (x, y) column.
struct DeviceClassSums {
  unsigned long long count[kClassCount], sum[kClassCount], sum_sq[kClassCount];
};

__global__ void __launch_bounds__(kBlockThreads) class_sums_kernel(VolumeView v, DeviceClassSums* total) {
  __shared__ BlockSum::TempStorage scratch;
  const int x = blockIdx.x * kBlockX + threadIdx.x;
  const int y = blockIdx.y * kBlockY + threadIdx.y;
  long long count[kClassCount] = {0, 0, 0}, sum[kClassCount] = {0, 0, 0}, sum_sq[kClassCount] = {0, 0, 0};
  if (x < v.nx && y < v.ny) {
    for (int z = 0; z < v.nz; ++z) {
      const unsigned index = (static_cast<unsigned>(z) * v.ny + y) * v.pitch + x;
      const int label = v.labels[index];
      const long long intensity = v.intensity[index];
#pragma unroll
      for (int k = 0; k < kClassCount; ++k) {
        const long long in_class = label == k;
        count[k] += in_class;
        sum[k] += in_class * intensity;
        sum_sq[k] += in_class * intensity * intensity;
      }
    }
  }
#pragma unroll
  for (int k = 0; k < kClassCount; ++k) {
    block_accumulate(as_word(count[k]), &total->count[k], scratch);
    block_accumulate(as_word(sum[k]), &total->sum[k], scratch);
    block_accumulate(as_word(sum_sq[k]), &total->sum_sq[k], scratch);
  }
}

// The labelling's total energy (total_energy(): every voxel's class term and
// every neighbouring pair once, through its right, lower and next-slice
// neighbour), one thread per (x, y) column of the volume.
__global__ void __launch_bounds__(kBlockThreads)
    energy_kernel(VolumeView v, ClassTerms terms, SweepConstants constants, unsigned long long* total) {
  __shared__ BlockSum::TempStorage scratch;
  const int x = blockIdx.x * kBlockX + threadIdx.x;
  const int y = blockIdx.y * kBlockY + threadIdx.y;
  long long energy = 0;
  if (x < v.nx && y < v.ny) {
    const unsigned slice = static_cast<unsigned>(v.ny) * v.pitch;
    for (int z = 0; z < v.nz; ++z) {
      const unsigned index = (static_cast<unsigned>(z) * v.ny + y) * v.pitch + x;
      const int label = v.labels[index];
      energy += class_term_of(terms, label, v.intensity[index]);
      auto pair = [&](unsigned neighbour) {
        return v.labels[neighbour] == label ? -constants.beta_in_fixed : -constants.beta_out_fixed;
      };
      if (x + 1 < v.nx) energy += pair(index + 1);
      if (y + 1 < v.ny) energy += pair(index + v.pitch);
      if (z + 1 < v.nz) energy += pair(index + slice);
    }
  }
  block_accumulate(as_word(energy), total, scratch);
}

// The class table (term_over_air) of every int16 intensity for the batch's
// current class terms; nothing once the batch has finished.
__global__ void class_table_kernel(const DeviceBatchState* batch, int2* table) {
  if (batch->finished) return;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kIntensityCount) return;
  const int intensity = kIntensityMin + i;
  const std::int32_t air = class_term_fixed(intensity, batch->terms.of[0]);
  table[i] = make_int2(class_term_fixed(intensity, batch->terms.of[1]) - air,
                       class_term_fixed(intensity, batch->terms.of[2]) - air);
}

// After sweep `slot` of a batch: records it, moves the class sums by the
// sweep's changes, re-estimates the classes (estimate_class() and
// class_term_constants(), the host's own functions) and applies the solver's
// stopping rule. One thread: a handful of FP64 operations.
__global__ void end_of_sweep_kernel(const DeviceTotals* totals, DeviceBatchState* batch, int slot) {
  if (batch->finished) return;
  const long long delta_energy = static_cast<long long>(totals->delta_energy);
  batch->delta_energy[slot] = delta_energy;
  batch->labels_changed[slot] = static_cast<long long>(totals->labels_changed);
  batch->sweeps_run = slot + 1;
  for (int k = 0; k < kClassCount; ++k) {
    batch->count[k] += static_cast<long long>(totals->count_change[k]);
    batch->sum[k] += static_cast<long long>(totals->sum_change[k]);
    batch->sum_sq[k] += static_cast<long long>(totals->sum_sq_change[k]);
    if (batch->count[k] > 0)
      estimate_class(batch->count[k], batch->sum[k], batch->sum_sq[k], batch->min_variance, batch->mean[k],
                     batch->variance[k]);
    batch->terms.of[k] = class_term_constants(batch->mean[k], batch->variance[k]);
  }
  batch->converged = (delta_energy < 0 ? -delta_energy : delta_energy) <= batch->tolerance;
  const bool last_allowed = batch->first.sweep_index + slot + 1 >= batch->max_sweeps;
  batch->finished = batch->converged || last_allowed || slot == batch->last_slot;
}


class GpuSweepEngine : public SweepEngine {
 public:
  explicit GpuSweepEngine(int device) : device_(device) {
    name_ = select_cuda_device(device);
    stream_.create("creating a stream");
    host_batch_.reserve(1, "allocating pinned memory");
    batch_.allocate(1, "allocating batch state on the GPU");
    totals_.allocate(kMaxBatch, "allocating totals on the GPU");
    class_table_.allocate(kIntensityCount, "allocating the class table on the GPU");
  }

  std::string description() const override { return "CUDA device " + std::to_string(device_) + " (" + name_ + ")"; }

  void load(const Volume& volume, const std::vector<std::uint8_t>& labels) override {
    volume_ = &volume;
    voxel_count_ = volume.size();
    // At least one padding voxel per row: the right neighbour of x = nx - 1 reads it.
    pitch_ = (volume.nx + kVoxelsPerThread) / kVoxelsPerThread * kVoxelsPerThread;
    const std::size_t rows = static_cast<std::size_t>(volume.ny) * volume.nz;
    intensity_.allocate(rows * pitch_, "allocating the volume on the GPU");
    // kVoxelsPerThread guard bytes: the last segment of the last row reads x0 + 4.
    labels_.allocate(rows * pitch_ + kVoxelsPerThread, "allocating labels on the GPU");
    // Initialise the padding once: vector loads read it, neighbour counts see it as absent.
    check_cuda(cudaMemset(intensity_.data, 0, rows * pitch_ * sizeof(std::int16_t)), "clearing the volume");
    check_cuda(cudaMemset(labels_.data, kAbsent, labels_.count), "marking label padding absent");
    check_cuda(cudaMemcpy2D(intensity_.data, pitch_ * sizeof(std::int16_t), volume.voxels.data(),
                            volume.nx * sizeof(std::int16_t), volume.nx * sizeof(std::int16_t), rows,
                            cudaMemcpyHostToDevice), "copying the volume to the GPU");
    check_cuda(cudaMemcpy2D(labels_.data, pitch_, labels.data(), volume.nx, volume.nx, rows, cudaMemcpyHostToDevice),
               "copying labels to the GPU");
    // The copies ran on the legacy stream, which does not order with stream_,
    // and the last DMA from pageable memory may still be in flight: wait.
    check_cuda(cudaStreamSynchronize(cudaStreamLegacy), "copying labels to the GPU");
    sums_ = device_class_sums();
    capture_batch_graph();
  }

  // One sweep with the classes of `model`, no stopping rule.
  SweepStats sweep(const ClassModel& model, const SweepConstants& constants) override {
    const DeviceBatchState& state = run_batch(model, constants, 1, 1.0, -1, ~0u);
    SweepStats stats;
    stats.delta_energy = state.delta_energy[0];
    stats.labels_changed = state.labels_changed[0];
    stats.sums = sums_;
    return stats;
  }

  SweepBatch run_sweeps(const ClassModel& model, const MrfParams& params, std::uint32_t first_sweep,
                        int count) override {
    const DeviceBatchState& state =
        run_batch(model, sweep_constants(params, first_sweep), count, params.min_variance,
                  energy_tolerance_fixed(params, voxel_count_), static_cast<std::uint32_t>(params.max_sweeps));
    SweepBatch batch;
    for (int slot = 0; slot < state.sweeps_run; ++slot)
      batch.records.push_back({first_sweep + slot + 1, state.delta_energy[slot], state.labels_changed[slot]});
    for (int k = 0; k < kClassCount; ++k) batch.model.mean[k] = state.mean[k], batch.model.variance[k] = state.variance[k];
    batch.converged = state.converged;
    return batch;
  }

  int sweeps_per_batch() const override { return kMaxBatch; }

  ClassSums class_sums(const Volume&) override { return sums_; }

  std::int64_t labelling_energy(const Volume&, const ClassModel& model, const SweepConstants& constants) override {
    const VolumeView view = device_view();
    DeviceBuffer<unsigned long long> energy;
    energy.allocate(1, "allocating the energy total on the GPU");
    check_cuda(cudaMemsetAsync(energy.data, 0, sizeof(unsigned long long), stream_), "clearing the energy");
    energy_kernel<<<column_grid(), dim3(kBlockX, kBlockY), 0, stream_>>>(view, class_terms(model), constants,
                                                                        energy.data);
    check_cuda(cudaGetLastError(), "launching the energy kernel");
    unsigned long long total = 0;
    check_cuda(cudaMemcpyAsync(&total, energy.data, sizeof total, cudaMemcpyDeviceToHost, stream_),
               "reading the energy");
    stream_.synchronize("computing the energy on the GPU");
    return static_cast<std::int64_t>(total);  // two's complement, as summed
  }

  std::vector<std::uint8_t> labels() override {
    std::vector<std::uint8_t> host(volume_->size());
    check_cuda(cudaMemcpy2D(host.data(), volume_->nx, labels_.data, pitch_, volume_->nx,
                            static_cast<std::size_t>(volume_->ny) * volume_->nz, cudaMemcpyDeviceToHost),
               "reading labels");
    return host;
  }

 private:
  // class_statistics() of the labels on the device (as load() leaves them).
  ClassSums device_class_sums() {
    const VolumeView view = device_view();
    DeviceBuffer<DeviceClassSums> total;
    total.allocate(1, "allocating the class sums on the GPU");
    check_cuda(cudaMemsetAsync(total.data, 0, sizeof(DeviceClassSums), stream_), "clearing the class sums");
    class_sums_kernel<<<column_grid(), dim3(kBlockX, kBlockY), 0, stream_>>>(view, total.data);
    check_cuda(cudaGetLastError(), "launching the class sums kernel");
    DeviceClassSums host;
    check_cuda(cudaMemcpyAsync(&host, total.data, sizeof host, cudaMemcpyDeviceToHost, stream_),
               "reading the class sums");
    stream_.synchronize("summing the classes on the GPU");
    ClassSums sums;
    for (int k = 0; k < kClassCount; ++k) {  // two's complement, as summed
      sums.count[k] = static_cast<std::int64_t>(host.count[k]);
      sums.sum[k] = static_cast<std::int64_t>(host.sum[k]);
      sums.sum_sq[k] = static_cast<std::int64_t>(host.sum_sq[k]);
    }
    return sums;
  }

  // The loaded volume and labels as the kernels see them.
  VolumeView device_view() const {
    return {intensity_.data, labels_.data, volume_->nx, volume_->ny, volume_->nz, pitch_};
  }

  // One thread per (x, y) column of the volume, in kBlockX x kBlockY blocks.
  dim3 column_grid() const {
    return dim3((volume_->nx + kBlockX - 1) / kBlockX, (volume_->ny + kBlockY - 1) / kBlockY);
  }

  // Records the launches of one full batch (kMaxBatch sweeps: two colour
  // passes and the end-of-sweep step each) as a CUDA graph for this volume.
  void capture_batch_graph() {
    const VolumeView view = device_view();
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid((volume_->nx + kBlockX * kVoxelsPerThread - 1) / (kBlockX * kVoxelsPerThread),
                    (volume_->ny + kBlockY - 1) / kBlockY, (volume_->nz + kSlicesPerThread - 1) / kSlicesPerThread);
    batch_graph_.capture(stream_, "capturing the sweep batch", "instantiating the sweep batch", [&] {
      cudaMemsetAsync(totals_.data, 0, kMaxBatch * sizeof(DeviceTotals), stream_);
      const int table_blocks = (kIntensityCount + 255) / 256;
      class_table_kernel<<<table_blocks, 256, 0, stream_>>>(batch_.data, class_table_.data);
      for (int slot = 0; slot < kMaxBatch; ++slot) {
        colour_update_kernel<<<grid, block, 0, stream_>>>(view, batch_.data, slot, 0, class_table_.data,
                                                          totals_.data + slot);
        colour_update_kernel<<<grid, block, 0, stream_>>>(view, batch_.data, slot, 1, class_table_.data,
                                                          totals_.data + slot);
        end_of_sweep_kernel<<<1, 1, 0, stream_>>>(totals_.data + slot, batch_.data, slot);
        class_table_kernel<<<table_blocks, 256, 0, stream_>>>(batch_.data, class_table_.data);
      }
    });
  }

  // Runs up to `count` sweeps from constants.sweep_index with one graph launch
  // and one synchronisation; the sweep whose index + 1 reaches max_sweeps is
  // the last. Returns the batch state as read back (pinned memory).
  const DeviceBatchState& run_batch(const ClassModel& model, const SweepConstants& constants, int count,
                                    double min_variance, long long tolerance, std::uint32_t max_sweeps) {
    DeviceBatchState& state = *host_batch_.data;
    state.first = constants;
    state.last_slot = (count < kMaxBatch ? count : kMaxBatch) - 1;
    state.max_sweeps = max_sweeps;
    state.min_variance = min_variance;
    state.tolerance = tolerance;
    for (int k = 0; k < kClassCount; ++k) {
      state.count[k] = sums_.count[k], state.sum[k] = sums_.sum[k], state.sum_sq[k] = sums_.sum_sq[k];
      state.mean[k] = model.mean[k], state.variance[k] = model.variance[k];
    }
    state.terms = class_terms(model);
    state.finished = state.converged = state.sweeps_run = 0;
    check_cuda(cudaMemcpyAsync(batch_.data, host_batch_.data, sizeof(DeviceBatchState), cudaMemcpyHostToDevice,
                               stream_),
               "uploading the batch state");
    batch_graph_.launch(stream_, "launching MRF sweeps");
    check_cuda(cudaMemcpyAsync(host_batch_.data, batch_.data, sizeof(DeviceBatchState), cudaMemcpyDeviceToHost,
                               stream_),
               "reading the batch state");
    stream_.synchronize("running MRF sweeps");
    for (int k = 0; k < kClassCount; ++k)
      sums_.count[k] = state.count[k], sums_.sum[k] = state.sum[k], sums_.sum_sq[k] = state.sum_sq[k];
    return state;
  }

  int device_;
  std::string name_;
  CudaStream stream_;
  PinnedBuffer<DeviceBatchState> host_batch_;  // the batch state's upload and read-back
  const Volume* volume_ = nullptr;
  int pitch_ = 0;
  ClassSums sums_;  // of the labels on the device, kept up to date by run_batch()
  DeviceBuffer<std::int16_t> intensity_;
  DeviceBuffer<std::uint8_t> labels_;
  DeviceBuffer<DeviceTotals> totals_;  // one per sweep of a batch
  DeviceBuffer<int2> class_table_;  // term_over_air of every int16 intensity, for the current sweep
  DeviceBuffer<DeviceBatchState> batch_;
  CudaGraph batch_graph_;  // one batch's launches, for the loaded volume
};

}  // namespace

std::unique_ptr<SweepEngine> make_gpu_engine(int device) { return std::make_unique<GpuSweepEngine>(device); }

}  // namespace helix::mrf
