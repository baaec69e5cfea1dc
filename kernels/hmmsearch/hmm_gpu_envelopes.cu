// hmm_gpu_envelopes.cu: the GPU's envelope rescoring in domain definition
// after Forward and Backward (the warp kernels' envelope modes): for every
// envelope, one warp decodes (p7_Decoding), runs the optimal-accuracy DP
// (p7_OptimalAccuracy) and its traceback (p7_OATrace), and the null2 odds
// (p7_Null2_ByExpectation), giving the floats of hmm_envelope_rows.h's
// rescore_envelope_rows(), which the CPU reference runs:
// - decoding multiplies cell by cell, so the lanes share each row's floats;
// - the optimal-accuracy DP only takes maxima, which are exact in any order:
//   M and I cell by cell, D's chain along the nodes as a scan over the lanes;
// - null2's sums run over rows in order, one lane per cell, then one lane
//   per residue and SSE element over the segments in order;
// - the traceback is one path: lane 0 walks it.
#include "hmm_gpu_envelopes.h"

#include "core/cuda_support.h"
#include "hmm_warp.cuh"

namespace helix::hmmsearch {
namespace {

using rows::is_infinite;
using rows::kMinusInfinity;
using rows::max_of;

constexpr int kWarpsPerBlock = 4;
constexpr int kElements = 4;  // HMMER's SSE elements

// p7_Decoding as posterior_rows(), the row's floats over the lanes. `bck`
// becomes the posteriors.
__device__ bool warp_posteriors(const StripedOdds& p, int L, const float* fwd, const float* fwd_x, float* bck,
                                float* bck_x, bool own_scales, int lane) {
  const int row_floats = 12 * p.Q;
  float scale_product = 1.0f / bck_x[kXN];
  for (int i = 1; i <= L; ++i) {
    const float forward_scale = fwd_x[i * kSpecialCells + kXScale];
    const float backward_scale = bck_x[i * kSpecialCells + kXScale];
    const float total = scale_product * forward_scale;
    const float* f = fwd + static_cast<std::size_t>(i) * row_floats;
    float* b = bck + static_cast<std::size_t>(i) * row_floats;
    for (int at = lane; at < row_floats; at += kWarp) b[at] = (at >> 2) % 3 == rows::kCellD ? 0.0f : (f[at] * b[at]) * total;
    __syncwarp();  // every lane has read the row's scale
    if (lane == 0)
      posterior_specials(p.special, fwd_x + (i - 1) * kSpecialCells, bck_x + i * kSpecialCells, scale_product,
                         bck_x + i * kSpecialCells);
    if (own_scales) scale_product *= forward_scale / backward_scale;
  }
  for (int at = lane; at < row_floats; at += kWarp) bck[at] = 0.0f;
  if (lane < kSpecialCells) bck_x[lane] = 0.0f;
  __syncwarp();
  return !is_infinite(scale_product);
}

// A step of D's chain as a function of what enters node k: out = max(a, in)
// when D_k -> D_k+1 is possible (passes), else 0 whatever enters. Composing
// two keeps the form, so the lanes scan their stretches of nodes.
struct DChain {
  float a;
  bool passes;
};
__device__ __forceinline__ DChain after(const DChain& first, const DChain& then) {
  return {then.passes ? max_of(then.a, first.a) : then.a, then.passes && first.passes};
}

// A node k = z * Q + q + 1 by its place in the striped rows, stepped along
// without dividing by Q.
struct Node {
  int q, z;
  __device__ void advance(int Q, int by) {
    q += by;
    while (q >= Q) q -= Q, ++z;
  }
  __device__ bool first() const { return q == 0 && z == 0; }
  __device__ Node before(int Q) const { return q > 0 ? Node{q - 1, z} : Node{Q - 1, z - 1}; }
  __device__ int cell(int kind) const { return (q * 3 + kind) * kElements + z; }
  __device__ float transition(const StripedOdds& p, int t) const { return p.transitions[(q * 7 + t) * kElements + z]; }
  __device__ float dd(const StripedOdds& p) const { return p.transitions[(7 * p.Q + q) * kElements + z]; }
};
__device__ Node node_of(int Q, int k) {
  const rows::NodeStripe s = rows::node_stripe(Q, k);
  return {s.q, s.z};
}

// A possible transition's source keeps its value, an impossible one gives 0
// (as HMMER's masks).
__device__ __forceinline__ float gate(float t, float value) { return t > 0.0f ? value : 0.0f; }

// One row of the optimal-accuracy DP (optimal_accuracy_rows()'s row i).
__device__ void warp_oa_row(const StripedOdds& p, int i, const float* pp, const float* pp_x, float* oa, float* oa_x,
                            int lane) {
  const int Q = p.Q, nodes = kElements * Q, row_floats = 12 * Q;
  const float* prev = oa + static_cast<std::size_t>(i - 1) * row_floats;
  float* cur = oa + static_cast<std::size_t>(i) * row_floats;
  const float* post = pp + static_cast<std::size_t>(i) * row_floats;
  const float xB = oa_x[(i - 1) * kSpecialCells + kXB];
  // M and I, cell by cell.
  float best = kMinusInfinity;
  Node n = node_of(Q, lane + 1);
  for (int k = lane + 1; k <= nodes; k += kWarp, n.advance(Q, kWarp)) {
    const int m = n.cell(rows::kCellM), ins = n.cell(rows::kCellI);
    float mpv = kMinusInfinity, dpv = kMinusInfinity, ipv = kMinusInfinity;
    if (!n.first()) {
      const int before = n.before(Q).cell(rows::kCellM);
      mpv = prev[before], dpv = prev[before + kElements], ipv = prev[before + 2 * kElements];
    }
    float sv = gate(n.transition(p, rows::kTBM), xB);
    sv = max_of(sv, gate(n.transition(p, rows::kTMM), mpv));
    sv = max_of(sv, gate(n.transition(p, rows::kTIM), ipv));
    sv = max_of(sv, gate(n.transition(p, rows::kTDM), dpv));
    sv = sv + post[m];
    cur[m] = sv;
    best = max_of(best, sv);
    const float iv = max_of(gate(n.transition(p, rows::kTMI), prev[m]), gate(n.transition(p, rows::kTII), prev[ins]));
    cur[ins] = iv + post[ins];
  }
  __syncwarp();
  // D along the nodes: D_k = max(M_k-1 -> D_k, D_k-1 -> D_k), each through
  // its transition's gate; lane l takes nodes [l * span + 1, (l + 1) * span].
  const int span = (nodes + kWarp - 1) / kWarp, first = lane * span + 1, last = min(nodes, first + span - 1);
  const Node stretch = node_of(Q, min(first, nodes));
  auto from_m = [&](const Node& at) {
    if (at.first()) return kMinusInfinity;
    const Node before = at.before(Q);
    return gate(before.transition(p, rows::kTMD), cur[before.cell(rows::kCellM)]);
  };
  DChain mine{kMinusInfinity, true};
  n = stretch;
  for (int k = first; k <= last; ++k, n.advance(Q, 1)) {
    const bool passes = n.dd(p) > 0.0f;
    mine = after(mine, DChain{passes ? from_m(n) : 0.0f, passes});
  }
  // Inclusive scan of the lanes' stretches, then what enters each stretch.
  DChain scan = mine;
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const float a = __shfl_up_sync(kFullMask, scan.a, offset);
    const bool passes = __shfl_up_sync(kFullMask, scan.passes ? 1 : 0, offset) != 0;
    if (lane >= offset) scan = after(DChain{a, passes}, scan);
  }
  const float out_of_stretch = scan.a;  // what leaves the lane's stretch when -inf enters node 1
  float carry = __shfl_up_sync(kFullMask, out_of_stretch, 1);
  if (lane == 0) carry = kMinusInfinity;
  n = stretch;
  for (int k = first; k <= last; ++k, n.advance(Q, 1)) {
    const float dv = max_of(from_m(n), carry);
    cur[n.cell(rows::kCellD)] = dv;
    best = max_of(best, dv);
    carry = gate(n.dd(p), dv);
  }
  // The row's best over the lanes: core's butterfly (offsets 16 .. 1) with
  // ReduceMax, b > a ? b : a, which is max_of(a, b) = a < b ? b : a operand
  // for operand (NaN and -0 included), so every bit is the hand-written one's.
  best = warp_max(best);
  if (lane == 0)
    optimal_accuracy_specials(p.special, oa_x + (i - 1) * kSpecialCells, pp_x + i * kSpecialCells, best,
                              oa_x + i * kSpecialCells);
  __syncwarp();
}

// p7_OptimalAccuracy as optimal_accuracy_rows(); returns C at row L.
__device__ float warp_optimal_accuracy(const StripedOdds& p, int L, const float* pp, const float* pp_x, float* oa,
                                       float* oa_x, int lane) {
  for (int at = lane; at < 12 * p.Q; at += kWarp) oa[at] = kMinusInfinity;
  if (lane == 0) {
    oa_x[kXE] = kMinusInfinity, oa_x[kXN] = 0.0f, oa_x[kXJ] = kMinusInfinity, oa_x[kXB] = 0.0f;
    oa_x[kXC] = kMinusInfinity, oa_x[kXScale] = 0.0f;
  }
  __syncwarp();
  for (int i = 1; i <= L; ++i) warp_oa_row(p, i, pp, pp_x, oa, oa_x, lane);
  return oa_x[L * kSpecialCells + kXC];
}

// p7_Null2_ByExpectation as null2_residue_odds(): each M and I cell's use
// summed over the rows in order (a lane per cell), then per residue and SSE
// element the segments in order. `scratch` holds 8Q floats, `element_sums`
// kResidues * 4.
__device__ void warp_null2(const StripedOdds& p, int L, const float* pp, const float* pp_x, float* scratch,
                           float* element_sums, float* null2, int lane) {
  const int Q = p.Q, row_floats = 12 * Q;
  const float norm = static_cast<float>(1.0 / static_cast<float>(L));
  // scratch[q * 4 + z]: M's use of node (q, z); scratch[(Q + q) * 4 + z]: I's.
  for (int at = lane; at < 8 * Q; at += kWarp) {
    const bool is_match = at < 4 * Q;
    const int q = is_match ? at / kElements : at / kElements - Q, z = at % kElements;
    const int kind = is_match ? rows::kCellM : rows::kCellI;
    const int cell = (q * 3 + kind) * kElements + z;
    float use = pp[row_floats + cell];
    for (int i = 2; i <= L; ++i) use = pp[static_cast<std::size_t>(i) * row_floats + cell] + use;
    scratch[at] = use * norm;
  }
  float outside = 0.0f;
  if (lane == 0) {
    float n_use = pp_x[kSpecialCells + kXN], c_use = pp_x[kSpecialCells + kXC], j_use = pp_x[kSpecialCells + kXJ];
    for (int i = 2; i <= L; ++i) {
      const float* x = pp_x + i * kSpecialCells;
      n_use += x[kXN], c_use += x[kXC], j_use += x[kXJ];
    }
    n_use *= norm, c_use *= norm, j_use *= norm;
    outside = n_use + c_use + j_use;
  }
  outside = __shfl_sync(kFullMask, outside, 0);
  __syncwarp();
  for (int chain = lane; chain < kResidues * kElements; chain += kWarp) {
    const int x = chain / kElements, z = chain % kElements;
    float sum = 0.0f;
    for (int q = 0; q < Q; ++q) {
      sum = sum + scratch[q * kElements + z] * p.match[(x * Q + q) * kElements + z];
      sum = sum + scratch[(Q + q) * kElements + z];  // insert odds are 1
    }
    element_sums[chain] = sum;
  }
  __syncwarp();
  if (lane < kResidues) {
    const float* s = element_sums + lane * kElements;
    null2[lane] = ((s[0] + s[1]) + (s[2] + s[3])) + outside;
  }
  __syncwarp();
}

__global__ void decode_envelopes_kernel(EnvelopeBatch b) {
  __shared__ float element_sums[kWarpsPerBlock][kResidues * kElements];
  const unsigned n = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (n >= b.count) return;
  const EnvelopeJob job = b.jobs[n];
  const StripedOdds p{b.M, b.Q, b.transitions, b.match, job.special};
  const std::size_t cells = static_cast<std::size_t>(job.L + 1) * 12 * b.Q;
  const std::size_t specials = static_cast<std::size_t>(job.L + 1) * kSpecialCells;
  float* fwd = b.rows + job.rows_at;  // Forward, then the optimal-accuracy DP, then null2's scratch
  float* fwd_x = b.specials + job.x_at;
  float* bck = fwd + cells;           // Backward, then the posteriors
  float* bck_x = fwd_x + specials;
  EnvelopeScores& out = b.out[n];
  if (lane == 0) out.ok = 0, out.envsc = b.forward_scores[n];
  if (!warp_posteriors(p, job.L, fwd, fwd_x, bck, bck_x, b.own_scales[n] != 0, lane)) return;
  const float oasc = warp_optimal_accuracy(p, job.L, bck, bck_x, fwd, fwd_x, lane);
  int steps = 0;
  if (lane == 0) steps = oa_trace_steps(p, job.L, bck, bck_x, fwd, fwd_x, b.steps + job.steps_at, job.room);
  steps = __shfl_sync(kFullMask, steps, 0);
  __syncwarp();  // the traceback has read the DP before null2 writes over it
  if (steps < 0) return;
  if (job.null2)
    warp_null2(p, job.L, bck, bck_x, fwd, element_sums[threadIdx.x / kWarp], out.null2_residues, lane);
  if (lane == 0) out.oasc = oasc, out.steps = steps, out.ok = 1;
}

}  // namespace

void launch_envelope_decoding(const EnvelopeBatch& batch, cudaStream_t stream) {
  if (batch.count == 0) return;
  const unsigned blocks = (batch.count + kWarpsPerBlock - 1) / kWarpsPerBlock;
  decode_envelopes_kernel<<<blocks, kWarpsPerBlock * kWarp, 0, stream>>>(batch);
  check_cuda(cudaGetLastError(), "envelope decoding kernel launch");
}

}  // namespace helix::hmmsearch
