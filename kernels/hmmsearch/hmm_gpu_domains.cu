// hmm_gpu_domains.cu: the GPU's share of hmmsearch's domain definition: for
// every target that passed Forward, the multihit Forward and Backward parser
// passes over the whole target (O(L M) each: the costly part for long
// targets), keeping the special states of every row. The host turns those
// into domain posteriors (O(L)) and defines domains from them.
//
// One thread per target runs hmm_dp_rows.h's recursions, the very code the
// CPU reference runs (compiled with --fmad=false), so the specials, and
// everything decided from them, are the CPU's bit for bit. Threads take
// targets longest first from a work counter; each keeps its two DP rows in
// global memory (L2-resident for typical models).
#include "hmm_gpu_domains.h"

#include "core/cuda_support.h"
#include "hmm_dp_rows.h"

namespace helix::hmm {
namespace {

__global__ void domain_parser_kernel(DomainParserBatch batch) {
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  float* rows = batch.rows + static_cast<std::size_t>(thread) * 24 * batch.Q;
  for (;;) {
    const unsigned b = atomicAdd(batch.next, 1u);
    if (b >= batch.count) return;
    const std::uint32_t t = batch.targets[b];
    const std::uint8_t* codes = batch.codes + batch.offsets[t];
    const int L = static_cast<int>(batch.offsets[t + 1] - batch.offsets[t]);
    const StripedOdds odds{batch.M, batch.Q, batch.transitions, batch.match, batch.specials[b]};
    float* forward = batch.forward_specials + batch.special_offsets[b];
    float* backward = batch.backward_specials + batch.special_offsets[b];
    float total_scale = 0.0f;
    bool own_scales = false;
    forward_rows(codes, L, odds, rows, false, forward, total_scale);
    backward_rows(codes, L, odds, forward, rows, false, backward, total_scale, own_scales);
    batch.own_scales[b] = own_scales ? 1 : 0;
  }
}

}  // namespace

void launch_domain_parsers(const DomainParserBatch& batch, int blocks, int threads_per_block) {
  domain_parser_kernel<<<blocks, threads_per_block>>>(batch);
  check_cuda(cudaGetLastError(), "domain parser kernel launch");
}

}  // namespace helix::hmm
