// hmm_gpu_domains.cu: the GPU's share of hmmsearch's domain definition: for
// every target that passed Forward, the multihit Backward parser pass over
// the whole target (O(L M): with Forward, the costly part for long targets),
// keeping the special states of every row. Forward's specials come from the
// Forward warp kernel (hmm_gpu_forward.cu); the host turns both into domain
// posteriors (O(L)) and defines domains from them.
//
// One warp per target, as Forward (the longest entries, 2,000 residues or
// more, a block of warps: a Team, hmm_warp.cuh): HMMER's BackwardParser works on four SSE
// elements z, each a stripe of Q cells. What it computes cell by cell from
// the next row (I, D's first term, M's terms through I and M, each cell's
// B->M product) does not depend on order, so eight lanes share each stripe;
// what does (B's running sum, then the D->D chains with E, pass after pass,
// from the stripe's end to its start) runs on one lane per stripe in
// HMMER's order; M->D and the E term of M are per cell again. The same float
// operations in the same order as hmm_dp_rows.h's backward_rows(): equal
// specials bit for bit (hmm_gpu_test).
#include "hmm_gpu_domains.h"

#include "core/cuda_support.h"
#include "hmm_warp.cuh"

namespace helix::hmmsearch {
namespace {

constexpr int kLanes = 4;                        // HMMER's SSE elements
constexpr int kHelpers = kWarp / kLanes;         // lanes per stripe
static_assert(kHelpers == kStripeLanes, "the stripe leaders are lanes 0, 8, 16, 24 (hmm_warp.cuh)");

// Per warp: two rows of M, D, I ([z][q], 4Q each), each cell's B->M term,
// and the stripes' D->D odds.
__host__ __device__ inline std::size_t backward_warp_floats(int Q) {
  return 8 * kLanes * static_cast<std::size_t>(Q);
}

// Row slot s (0 or 1) of each state is found by arithmetic, not from an
// array of pointers indexed by the row's parity: such an array lives in
// local memory, and every phase of a row first waited for a pointer from it.
struct WarpRows {
  float* base;
  int stride;      // 4Q floats: one state's row
  float* b_terms;  // [z][q]: (M(i+1,k) e_k(x_i+1)) * t(B->M_k)
  float* dd;       // [z][q]
  __device__ float* m(int s) const { return base + (3 * s + 0) * stride; }
  __device__ float* d(int s) const { return base + (3 * s + 1) * stride; }
  __device__ float* i(int s) const { return base + (3 * s + 2) * stride; }
};

__device__ WarpRows warp_rows(float* base, int Q) {
  WarpRows r;
  r.base = base, r.stride = kLanes * Q;
  r.b_terms = base + 6 * kLanes * Q;
  r.dd = base + 7 * kLanes * Q;
  return r;
}

constexpr int kAhead = 8;  // operands loaded ahead in the serial chains

// The serial chains below run on one lane per stripe, from the stripe's
// last cell to its first, kAhead cells at a time: all of a group's operands
// are loaded before its steps run, so a step waits for arithmetic, not for
// memory (a lone long target's warp has nothing to hide that behind).
// kGuard: the stripe's first cell lies inside the group. Only that last
// group tests bounds: a bounds test on every load made the compiler pair
// each load with its step, one memory wait per cell (the B sum took 3,300
// cycles a row at Q = 65).
// A group's D cells and D->D odds, cells top, top - 1, ...
template <bool kGuard>
__device__ __forceinline__ void load_dd_group(int top, const float* stripe_d, const float* stripe_dd,
                                              float (&d)[kAhead], float (&dd)[kAhead]) {
#pragma unroll
  for (int a = 0; a < kAhead; ++a)
    if (!kGuard || top - a >= 0) d[a] = stripe_d[top - a], dd[a] = stripe_dd[top - a];
}

template <bool kGuard>
__device__ __forceinline__ void first_dd_group(int top, float* __restrict__ stripe_d,
                                               const float* __restrict__ stripe_dd, bool with_e, float xE, float& dpv,
                                               float& dcv, float& lowest) {
  float d[kAhead], dd[kAhead];
  load_dd_group<kGuard>(top, stripe_d, stripe_dd, d, dd);
#pragma unroll
  for (int a = 0; a < kAhead; ++a)
    if (!kGuard || top - a >= 0) {
      dcv = dpv * dd[a];
      d[a] = with_e ? d[a] + (dcv + xE) : d[a] + dcv;
      lowest = fminf(lowest, d[a]);
      stripe_d[top - a] = d[a];
      dpv = d[a];
    }
}

template <bool kGuard>
__device__ __forceinline__ void later_dd_group(int top, float* __restrict__ stripe_d,
                                               const float* __restrict__ stripe_dd, float& dcv) {
  float d[kAhead], dd[kAhead];
  load_dd_group<kGuard>(top, stripe_d, stripe_dd, d, dd);
#pragma unroll
  for (int a = 0; a < kAhead; ++a)
    if (!kGuard || top - a >= 0) {
      dcv = dcv * dd[a];
      stripe_d[top - a] = d[a] + dcv;
    }
}

// Whether the later D->D passes from here on provably change no D cell:
// every value they would add rounds away (rounds_away, hmm_warp.cuh) on the
// least D cell of all stripes (`lowest`, from pass 1: later passes only add
// to D). A pass adds its stripe's first value times D->D odds (at most 1),
// and each pass's first value is a product of an earlier pass's values, so
// none exceeds the greatest `dcv` of the four stripes now.
__device__ __forceinline__ bool passes_change_nothing(float dcv, float lowest) {
  return __all_sync(kStripeLeaders, rounds_away(dcv, lowest));
}

// One lane per stripe: D->D from the stripe's end to its start, three more
// passes carrying across stripes (always all four, as HMMER's Backward,
// unless the rest provably change nothing). `dpv` is what enters the
// stripe's last cell; `with_e` adds E to each D.
__device__ void stripe_dd_passes(float* stripe_d, const float* stripe_dd, int z, int Q, float dpv, bool with_e,
                                 float xE) {
  float dcv = 0.0f;
  float lowest = __int_as_float(0x7f800000);  // +infinity, then the stripe's least D cell
  int top = Q - 1;
#pragma unroll 2
  for (; top >= kAhead - 1; top -= kAhead)
    first_dd_group<false>(top, stripe_d, stripe_dd, with_e, xE, dpv, dcv, lowest);
  if (top >= 0) first_dd_group<true>(top, stripe_d, stripe_dd, with_e, xE, dpv, dcv, lowest);
  lowest = leaders_min(lowest);  // of all four stripes
  for (int pass = 1; pass < 4; ++pass) {
    const float shifted = __shfl_down_sync(kStripeLeaders, dcv, kHelpers);
    dcv = z + 1 < kLanes ? shifted : 0.0f;
    if (passes_change_nothing(dcv, lowest)) break;
    // These passes carry only dcv, a product that only shrinks (D->D odds
    // are at most 1). Once it rounds away on the least D cell, every cell
    // the pass has left gains less than half an ulp and keeps its value,
    // and so does every cell of the later passes that this product reaches
    // through the stripe before: the stripe's pass stops there (at a
    // group's end; the group's cells already added are no-ops too). On
    // real rows that is after a few groups: titin against Pkinase needs
    // about 22 of the later passes' 195 steps a row, against SMC_N 45 of
    // 858. A stopped stripe hands on its dcv as it stands, an upper bound
    // of the product that also rounds away, so the stripe before stops at
    // once.
    top = Q - 1;
    for (; top >= kAhead - 1 && !rounds_away(dcv, lowest); top -= kAhead)
      later_dd_group<false>(top, stripe_d, stripe_dd, dcv);
    if (top >= 0 && !rounds_away(dcv, lowest)) later_dd_group<true>(top, stripe_d, stripe_dd, dcv);
  }
}

// One lane per stripe: the stripe's B->M terms summed from its end to its
// start (HMMER's order), grouped as the chains are.
template <bool kGuard>
__device__ __forceinline__ void b_sum_group(int top, const float* stripe_terms, float& sum) {
  float t[kAhead];
#pragma unroll
  for (int a = 0; a < kAhead; ++a)
    if (!kGuard || top - a >= 0) t[a] = stripe_terms[top - a];
#pragma unroll
  for (int a = 0; a < kAhead; ++a)
    if (!kGuard || top - a >= 0) sum = sum + t[a];
}
__device__ float stripe_b_sum(const float* stripe_terms, int Q) {
  float sum = 0.0f;
  int top = Q - 1;
#pragma unroll 2
  for (; top >= kAhead - 1; top -= kAhead) b_sum_group<false>(top, stripe_terms, sum);
  if (top >= 0) b_sum_group<true>(top, stripe_terms, sum);
  return sum;
}

// A lane's cells are c = lane, lane + 32, ... in [z][q] order; their (z, q)
// are stepped along without a division per cell.
__device__ __forceinline__ void step_cell(int Q, int step, int& z, int& q) {
  q += step;
  while (q >= Q) q -= Q, ++z;
}

constexpr int kCellsAhead = 4;  // a lane's cells whose operands are loaded before any is computed

// Row i < L from row i + 1, cell by cell: I, D's first term, M's terms
// through I and M, and each cell's B->M term (`code` is residue i + 1's).
// Cell c + 1 is node k + 1 (hmm_gpu_domains.h's cell order).
__device__ void cells_from_next(const BackwardWarpBatch& a, const WarpRows& r, int cur, int code, const Team& team) {
  const int nxt = cur ^ 1, cells = a.odds.cells;
  const float* emission = a.odds.emissions(code);
  const float* m_next_row = r.m(nxt);
  const float* i_next_row = r.i(nxt);
  for (int c0 = team.rank; c0 < cells; c0 += kCellsAhead * team.size) {
    float t_ii[kCellsAhead], t_mi[kCellsAhead], t_bm[kCellsAhead], e_here[kCellsAhead], m_here[kCellsAhead],
        i_next[kCellsAhead], m_next[kCellsAhead], e_next[kCellsAhead], t_mm[kCellsAhead], t_im[kCellsAhead],
        t_dm[kCellsAhead];
    // Every lane loads a valid cell (past the row: the last one) and keeps
    // nothing of it: loads without branches, so that all of them are in
    // flight before the first is used.
#pragma unroll
    for (int g = 0; g < kCellsAhead; ++g) {
      const int c = min(c0 + g * team.size, cells - 1);
      const int after = min(c + 1, cells - 1);  // node k+1 (cell c + 1): 0 past the last node, below
      t_ii[g] = a.odds.transition(kCellII, c), t_mi[g] = a.odds.transition(kCellMI, c);
      t_bm[g] = a.odds.transition(kCellBM, c);
      e_here[g] = emission[c];
      m_here[g] = m_next_row[c], i_next[g] = i_next_row[c];
      m_next[g] = m_next_row[after], e_next[g] = emission[after];
      t_mm[g] = a.odds.transition(kCellMM, after), t_im[g] = a.odds.transition(kCellIM, after);
      t_dm[g] = a.odds.transition(kCellDM, after);
    }
#pragma unroll
    for (int g = 0; g < kCellsAhead; ++g) {
      const int c = c0 + g * team.size;
      const bool last = c + 1 >= cells;
      const float m_e = last ? 0.0f : m_next[g] * e_next[g];
      const float tim = last ? 0.0f : t_im[g], tdm = last ? 0.0f : t_dm[g], tmm = last ? 0.0f : t_mm[g];
      if (c < cells) {
        r.i(cur)[c] = i_next[g] * t_ii[g] + m_e * tim;
        r.d(cur)[c] = m_e * tdm;
        r.m(cur)[c] = i_next[g] * t_mi[g] + m_e * tmm;
        r.b_terms[c] = (m_here[g] * e_here[g]) * t_bm[g];
      }
    }
  }
}

// Per cell: M gains E (rows below L) and M_k -> D_k+1.
__device__ void add_md_paths(const BackwardWarpBatch& a, float* cm, const float* cd, const Team& team, bool with_e,
                             float xE) {
  const int cells = a.odds.cells;
  for (int c0 = team.rank; c0 < cells; c0 += kCellsAhead * team.size) {
    float m[kCellsAhead], d_next[kCellsAhead], t_md[kCellsAhead];
#pragma unroll
    for (int g = 0; g < kCellsAhead; ++g) {
      const int c = c0 + g * team.size;
      if (c < cells) {
        m[g] = cm[c], t_md[g] = a.odds.transition(kCellMD, c);
        d_next[g] = c + 1 < cells ? cd[c + 1] : 0.0f;  // 0 past the last node
      }
    }
#pragma unroll
    for (int g = 0; g < kCellsAhead; ++g) {
      const int c = c0 + g * team.size;
      if (c < cells) cm[c] = (with_e ? m[g] + xE : m[g]) + d_next[g] * t_md[g];
    }
  }
}

__device__ void rescale_cells(float* cm, float* cd, float* ci, int Q, const Team& team, float scale) {
  const float factor = static_cast<float>(1.0 / scale);
  const int cells = kLanes * Q, size = team.size;
  for (int c0 = team.rank; c0 < cells; c0 += kCellsAhead * size) {
    float m[kCellsAhead], d[kCellsAhead], i[kCellsAhead];
#pragma unroll
    for (int g = 0; g < kCellsAhead; ++g)
      if (c0 + g * size < cells) m[g] = cm[c0 + g * size], d[g] = cd[c0 + g * size], i[g] = ci[c0 + g * size];
#pragma unroll
    for (int g = 0; g < kCellsAhead; ++g)
      if (c0 + g * size < cells)
        cm[c0 + g * size] = m[g] * factor, cd[c0 + g * size] = d[g] * factor, ci[c0 + g * size] = i[g] * factor;
  }
}

// Envelope mode: the row's cells, [z][q] per state here, into hmm_dp_rows.h's
// [(q * 3 + state) * 4 + z].
__device__ void keep_row(float* row, const WarpRows& r, int cur, int Q, const Team& team) {
  int z = 0, q = 0;
  step_cell(Q, team.rank, z, q);
  for (int c = team.rank; c < kLanes * Q; c += team.size) {
    float* cell = row + q * 3 * kLanes + z;
    cell[0] = r.m(cur)[c], cell[kLanes] = r.d(cur)[c], cell[2 * kLanes] = r.i(cur)[c];
    step_cell(Q, team.size, z, q);
  }
}

__device__ void store_row(float* out, float e, float n, float j, float b, float c, float scale) {
  out[0] = e, out[1] = n, out[2] = j, out[3] = b, out[4] = c, out[5] = scale;
}

__device__ __forceinline__ void backward_target(const BackwardWarpBatch& a, const WarpRows& r, unsigned b,
                                                const Team& team) {
  const int Q = a.Q, z = team.rank / kHelpers;
  const bool leader = team.rank < kWarp && team.rank % kHelpers == 0;
  const RegionJob* span = a.regions ? a.regions + b : nullptr;
  const std::uint64_t first = span ? span->codes_at : a.offsets[a.targets[b]];
  const std::uint8_t* codes = a.codes + first;
  const int L = span ? span->L : static_cast<int>(a.offsets[a.targets[b] + 1] - first);
  float* every_row = span ? a.region_rows + span->rows_at : nullptr;
  const std::size_t row_floats = 3 * kLanes * static_cast<std::size_t>(Q);
  const SpecialOdds sx = a.specials[b];
  const float* fwd = a.forward_specials + a.forward_offsets[b];
  float* out = a.backward_specials + a.special_offsets[b];

  // Row L: only paths to E.
  int cur = L & 1;
  float xJ = 0.0f, xB = 0.0f, xN = 0.0f, xC = sx.c_move, xE = xC * sx.e_move;
  for (int c = team.rank; c < kLanes * Q; c += team.size) r.m(cur)[c] = r.d(cur)[c] = xE, r.i(cur)[c] = 0.0f;
  team.sync();
  if (leader) stripe_dd_passes(r.d(cur) + z * Q, r.dd + z * Q, z, Q, z + 1 < kLanes ? xE : 0.0f, false, 0.0f);
  team.sync();
  add_md_paths(a, r.m(cur), r.d(cur), team, false, 0.0f);
  team.sync();
  float scale = fwd[L * kSpecialCells + kXScale];
  if (scale > 1.0f) {
    xE = xE / scale, xN = xN / scale, xC = xC / scale, xJ = xJ / scale, xB = xB / scale;
    rescale_cells(r.m(cur), r.d(cur), r.i(cur), Q, team, scale);
  }
  if (every_row) keep_row(every_row + L * row_floats, r, cur, Q, team);
  if (team.rank == 0) store_row(out + L * kSpecialCells, xE, xN, xJ, xB, xC, scale);
  bool own_scales = false;
  team.sync();

  // Each row's residue and Forward scale factor come from global memory.
  // Lane j of every warp holds those of row top - j for a block of 32 rows,
  // and the next block's are loaded one block early: no row's work waits
  // for a global load (one a row, read at its start, cost every row a
  // round trip to L2 on a lone long target).
  const int lane = threadIdx.x % kWarp;
  auto fetch_rows = [&](int top, int& code, float& row_scale) {
    const int row = top - lane;
    code = row >= 1 ? codes[row] : 0;
    row_scale = row >= 1 ? fwd[row * kSpecialCells + kXScale] : 1.0f;
  };
  int block_codes = 0, next_codes = 0;
  float block_scales = 1.0f, next_scales = 1.0f;
  fetch_rows(L - 1, next_codes, next_scales);
  for (int i = L - 1; i >= 1; --i) {
    cur = i & 1;
    const int in_block = (L - 1 - i) % kWarp;
    if (in_block == 0) {
      block_codes = next_codes, block_scales = next_scales;
      fetch_rows(i - kWarp, next_codes, next_scales);
    }
    const int code = __shfl_sync(kFullMask, block_codes, in_block);
    const float forward_scale = __shfl_sync(kFullMask, block_scales, in_block);
    cells_from_next(a, r, cur, code, team);
    team.sync();
    float b_sum = 0.0f;
    if (leader) b_sum = leaders_sum(stripe_b_sum(r.b_terms + z * Q, Q));
    xB = team.from_first(b_sum);
    xC = xC * sx.c_loop;
    xJ = (xB * sx.j_move) + (xJ * sx.j_loop);
    xN = (xB * sx.n_move) + (xN * sx.n_loop);
    xE = (xC * sx.e_move) + (xJ * sx.e_loop);
    if (leader) {
      // What enters each stripe's last cell: the next stripe's first D, plus E.
      const float first_d = z + 1 < kLanes ? r.d(cur)[(z + 1) * Q] + xE : 0.0f;
      __syncwarp(kStripeLeaders);  // every leader has read before any writes
      stripe_dd_passes(r.d(cur) + z * Q, r.dd + z * Q, z, Q, first_d, true, xE);
    }
    team.sync();
    add_md_paths(a, r.m(cur), r.d(cur), team, true, xE);
    team.sync();
    if (xB > 1.0e16f) own_scales = true;  // Forward's scales no longer suffice
    scale = own_scales ? (xB > 1.0e4f ? xB : 1.0f) : forward_scale;
    if (scale > 1.0f) {
      xE /= scale, xN /= scale, xJ /= scale, xB /= scale, xC /= scale;
      rescale_cells(r.m(cur), r.d(cur), r.i(cur), Q, team, scale);
    }
    if (every_row) keep_row(every_row + i * row_floats, r, cur, Q, team);
    if (team.rank == 0) store_row(out + i * kSpecialCells, xE, xN, xJ, xB, xC, scale);
    team.sync();
  }

  // Row 0: only N and B, from row 1's M cells in segment order.
  const float* emission = a.odds.emissions(codes[0]);
  float b_sum = 0.0f;
  if (leader)
    for (int c = z * Q; c < (z + 1) * Q; ++c) b_sum = b_sum + (r.m(1)[c] * emission[c]) * a.odds.transition(kCellBM, c);
  if (leader) b_sum = leaders_sum(b_sum);
  xB = team.from_first(b_sum);
  xN = (xB * sx.n_move) + (xN * sx.n_loop);
  if (team.rank == 0) {
    store_row(out, 0.0f, xN, 0.0f, xB, 0.0f, 1.0f);
    a.own_scales[b] = own_scales ? 1 : 0;
  }
  team.sync();
}

__device__ void load_dd(const BackwardWarpBatch& a, const WarpRows& r, int rank, int size) {
  for (int c = rank; c < a.odds.cells; c += size) r.dd[c] = a.odds.transition(kCellDD, c);
}

// The first `long_blocks` blocks take the batch's longest entries
// [0, long_count) one per block, then join the rest; every other warp takes
// entries [long_count, count) one at a time.
// kSharedRows: the rows are in shared memory (the batch's a.shared_rows), known
// at compile time so that the chains' loads are shared-memory loads, not
// generic ones.
template <bool kSharedRows>
__global__ void backward_warp_kernel(BackwardWarpBatch a) {
  extern __shared__ float shared_scratch[];
  __shared__ float slot;
  const std::size_t stride = backward_warp_floats(a.Q);
  const int lane = threadIdx.x % kWarp;
  if (blockIdx.x < a.long_blocks) {
    const std::size_t first_warp = static_cast<std::size_t>(blockIdx.x) * (blockDim.x / kWarp);
    const WarpRows r = warp_rows(kSharedRows ? shared_scratch : a.rows + first_warp * stride, a.Q);
    const Team team{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), &slot};
    load_dd(a, r, team.rank, team.size);
    __syncthreads();
    for (unsigned b; (b = next_block_slot(a.next_long, a.long_count)) < a.long_count;) backward_target(a, r, b, team);
    __syncthreads();
  }
  const WarpRows r = warp_rows(warp_scratch(shared_scratch, a.rows, kSharedRows, stride), a.Q);
  const Team team{lane, kWarp, nullptr};
  load_dd(a, r, lane, kWarp);
  __syncwarp();
  for (;;) {
    const unsigned b = a.long_count + next_warp_slot(a.next);
    if (b >= a.count) return;
    backward_target(a, r, b, team);
  }
}

// One thread per entry: the decoding is one serial chain of sums per target.
__global__ void domain_decoding_kernel(DomainDecodingBatch batch) {
  const std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= batch.count) return;
  const std::uint32_t t = batch.targets[b];
  const int L = static_cast<int>(batch.offsets[t + 1] - batch.offsets[t]);
  float* mocc = batch.posteriors + batch.special_offsets[b] / 2;
  float* btot = mocc + (L + 1);
  float* etot = btot + (L + 1);
  decode_domain_rows(batch.specials[b], L, batch.forward_specials + batch.forward_at[b],
                     batch.backward_specials + batch.special_offsets[b], batch.own_scales[b] != 0, mocc, btot, etot);
}

}  // namespace

void launch_domain_decoding(const DomainDecodingBatch& batch, cudaStream_t stream) {
  if (batch.count == 0) return;
  constexpr unsigned kThreads = 128;
  domain_decoding_kernel<<<(batch.count + kThreads - 1) / kThreads, kThreads, 0, stream>>>(batch);
  check_cuda(cudaGetLastError(), "domain decoding launch");
}

std::size_t backward_warp_bytes(int Q) { return sizeof(float) * backward_warp_floats(Q); }

void launch_backward_warps(const BackwardWarpBatch& batch, int blocks, int warps_per_block, cudaStream_t stream) {
  const std::size_t shared = batch.shared_rows ? backward_warp_bytes(batch.Q) * warps_per_block : 0;
  if (batch.shared_rows) {
    allow_all_dynamic_shared(backward_warp_kernel<true>, "Backward kernel shared memory");
    backward_warp_kernel<true><<<blocks, warps_per_block * kWarp, shared, stream>>>(batch);
  } else {
    backward_warp_kernel<false><<<blocks, warps_per_block * kWarp, 0, stream>>>(batch);
  }
  check_cuda(cudaGetLastError(), "Backward kernel launch");
}

}  // namespace helix::hmmsearch
