// hmm_gpu_sampling.cu: the GPU's sampling of multi-domain regions in domain
// definition: for every such region of a block's passed targets, from its
// multihit Forward matrix (which the Forward warp kernel of hmm_gpu_forward.cu
// writes, cell for cell what the CPU's forward_matrix() gives), the
// stochastic tracebacks, segment pairs and null2 sums of
// hmm_sampling_rows.h, the same functions the CPU reference runs, so the
// same draws and floats. One warp per region: the draws of a region's
// traces come one after another from one generator stream, so a region's
// samples cannot be split.
#include "hmm_gpu_sampling.h"

#include "core/cuda_support.h"

namespace helix::hmmsearch {
namespace {

// One region per warp: the walks of different regions branch apart at
// every step, and lanes of one warp that branch apart take turns (32
// regions to a warp ran about 32 times slower than one). All 32 lanes walk
// the region's traces in step, so that they can share the work of a step
// (hmm_sampling_rows.h): the windows of choices made ahead, runs of up to 32
// steps at once, the scan of an E state's 2M predecessors, a domain's null2;
// one lane keeps what only one must write.
constexpr int kWarpSize = 32, kWarpsPerBlock = 4;

__global__ void sample_regions_kernel(RegionBatch b) {
  const unsigned n = (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize;
  if (n >= b.count) return;  // whole warps: all their lanes walk the region in step
  const RegionJob job = b.jobs[n];
  const StripedOdds p{b.M, b.Q, b.transitions, b.match, job.special};
  const std::uint8_t* codes = b.codes + job.codes_at;
  float* rows = b.rows + job.rows_at;
  float* specials = b.specials + job.x_at;
  const bool keeper = threadIdx.x % kWarpSize == 0;  // the lane that writes
  const SamplingScratch scratch{b.usage + job.usage_at, b.used + job.used_at, b.pairs + job.pairs_at, job.room,
                                b.sums + job.sums_at, keeper};
  int count = 0;
  const int status = sample_region_rows(p, b.members, codes, job.L, rows, specials, b.samples, b.rng_state, scratch,
                                        count);
  if (keeper) b.status[n] = status, b.pair_count[n] = count;
}

}  // namespace

void launch_region_sampling(const RegionBatch& batch, cudaStream_t stream) {
  if (batch.count == 0) return;
  const unsigned blocks = (batch.count + kWarpsPerBlock - 1) / kWarpsPerBlock;
  sample_regions_kernel<<<blocks, kWarpsPerBlock * kWarpSize, 0, stream>>>(batch);
  check_cuda(cudaGetLastError(), "region sampling kernel launch");
}

}  // namespace helix::hmmsearch
