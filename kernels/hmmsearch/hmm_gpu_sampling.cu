// hmm_gpu_sampling.cu: the GPU's sampling of multi-domain regions in domain
// definition: for every such region of a block's passed targets, its
// multihit Forward matrix (hmm_dp_rows.h) and the stochastic tracebacks,
// segment pairs and null2 sums of hmm_sampling_rows.h, the same functions
// the CPU reference runs, so the same draws and floats. One thread per
// region: the draws of a region's traces come one after another from one
// generator stream, so a region's samples cannot be split.
#include "hmm_gpu_sampling.h"

#include "core/cuda_support.h"

namespace helix::hmm {
namespace {

constexpr int kThreadsPerBlock = 32;

__global__ void sample_regions_kernel(RegionBatch b) {
  const unsigned n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= b.count) return;
  const RegionJob job = b.jobs[n];
  const StripedOdds p{b.M, b.Q, b.transitions, b.match, job.special};
  const std::uint8_t* codes = b.codes + job.codes_at;
  float* rows = b.rows + job.rows_at;
  float* specials = b.specials + job.x_at;
  float total_scale = 0.0f;
  forward_rows(codes, job.L, p, rows, true, specials, total_scale);
  const SamplingScratch scratch{b.usage + job.usage_at, b.used + job.used_at, b.pairs + job.pairs_at, job.room,
                                b.sums + job.sums_at};
  int count = 0;
  b.status[n] = sample_region_rows(p, b.members, codes, job.L, rows, specials, b.samples, b.rng_state, scratch, count);
  b.pair_count[n] = count;
}

}  // namespace

void launch_region_sampling(const RegionBatch& batch) {
  if (batch.count == 0) return;
  const unsigned blocks = (batch.count + kThreadsPerBlock - 1) / kThreadsPerBlock;
  sample_regions_kernel<<<blocks, kThreadsPerBlock>>>(batch);
  check_cuda(cudaGetLastError(), "region sampling kernel launch");
}

}  // namespace helix::hmm
