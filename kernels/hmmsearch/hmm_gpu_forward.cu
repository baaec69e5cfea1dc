// hmm_gpu_forward.cu: the Forward filter on the GPU (hmm_gpu_filters.cuh),
// also domain definition's Forward passes (rows' specials kept; regions and
// envelopes with every row kept).
//
// Forward, one warp per target (a block of warps for the longest, see
// forward_warp_kernel). HMMER's ForwardParser works on four SSE elements
// (z), each a stripe of Q cells; what it computes cell by cell (M and I
// from the previous row, D's first term from the cell before) does not
// depend on order, so eight lanes (a block: blockDim / 4) share each
// stripe for that part; what
// does (the row's running sum for E, and the D->D chains along the stripe,
// pass after pass) runs on one lane per stripe in HMMER's order. The same
// float operations in the same order as ForwardParser and forward_score():
// equal scores bit for bit. Rows: previous and current M, D, I, [z][q],
// in shared memory (global for very long models).
#include "core/cuda_support.h"
#include "hmm_gpu_filters.cuh"
#include "hmm_warp.cuh"
#include "hmm_dp_rows.h"

namespace helix::hmmsearch {
namespace {

// Cells whose operands the kernel loads together (their latencies overlap).
constexpr int kCellsAhead = 4;
constexpr int kForwardHelpers = kWarp / kForwardLanes;    // lanes per stripe
static_assert(kForwardHelpers == kStripeLanes, "the stripe leaders are lanes 0, 8, 16, 24 (hmm_warp.cuh)");

constexpr int kAhead = 8;                                 // operands loaded ahead in the serial chains

// The serial parts of a Forward row, eight cells at a time: all operands
// loaded first, then the chain. kGuard: the stripe ends inside the group.
template <bool kGuard>
__device__ __forceinline__ void first_pass_group(int q0, int Q, const float* m_stripe, float* stripe_d,
                                                 const float* stripe_dd, float& sum_m, float& dcv, float& lowest) {
  float m[kAhead], d[kAhead], dd[kAhead];
#pragma unroll
  for (int a = 0; a < kAhead; ++a)
    if (!kGuard || q0 + a < Q) m[a] = m_stripe[q0 + a], d[a] = stripe_d[q0 + a], dd[a] = stripe_dd[q0 + a];
#pragma unroll
  for (int a = 0; a < kAhead; ++a)
    if (!kGuard || q0 + a < Q) {
      sum_m = sum_m + m[a];
      d[a] = dcv + d[a];
      dcv = d[a] * dd[a];
      lowest = fminf(lowest, d[a]);
      stripe_d[q0 + a] = d[a];
    }
}

// A later pass's group: its D cells and D->D odds, cells q0, q0 + 1, ...
template <bool kGuard>
__device__ __forceinline__ void load_later_group(int q0, int Q, const float* stripe_d, const float* stripe_dd,
                                                 float (&d)[kAhead], float (&dd)[kAhead]) {
#pragma unroll
  for (int a = 0; a < kAhead; ++a)
    if (!kGuard || q0 + a < Q) d[a] = stripe_d[q0 + a], dd[a] = stripe_dd[q0 + a];
}

template <bool kGuard>
__device__ __forceinline__ void later_pass_group(int q0, int Q, float* stripe_d, const float* stripe_dd, float& dcv,
                                                 float& sum, bool& changed) {
  float d[kAhead], dd[kAhead];
  load_later_group<kGuard>(q0, Q, stripe_d, stripe_dd, d, dd);
#pragma unroll
  for (int a = 0; a < kAhead; ++a)
    if (!kGuard || q0 + a < Q) {
      const float with_dd = dcv + d[a];
      changed = changed || with_dd > d[a];
      stripe_d[q0 + a] = with_dd;
      sum = with_dd + sum;
      dcv = dcv * dd[a];
    }
}

// The rest of a later pass once its `dcv` rounds away on the stripe's least
// D cell (see forward_entry), a whole group: no cell changes, so only E's
// running sum over the D cells and the product handed to the next stripe
// go on.
__device__ __forceinline__ void later_pass_tail_group(int q0, const float* stripe_d, const float* stripe_dd,
                                                      float& dcv, float& sum) {
  float d[kAhead], dd[kAhead];
  load_later_group<false>(q0, 0, stripe_d, stripe_dd, d, dd);
#pragma unroll
  for (int a = 0; a < kAhead; ++a) {
    sum = d[a] + sum;
    dcv = dcv * dd[a];
  }
}

__device__ __forceinline__ void forward_entry(const ForwardEntries& e, unsigned b, float* rows, const Team& team) {
  const ForwardStriped& f = e.f;
  const std::uint8_t* codes = e.codes;
  const RegionJob* regions = e.regions;
  const int lane = threadIdx.x % kWarp, helpers = team.size / kForwardLanes;
  const int z = team.rank / helpers, helper = team.rank % helpers;
  const int Q = f.Q;
  float* dd_by_stripe = rows + 6 * kForwardLanes * Q;  // [z][q]
  float* dcv_out = dd_by_stripe + kForwardLanes * Q;
  // Two row buffers, each M, D, I of 4Q; buffer s at rows + s * row_floats
  // (arithmetic, not an array of two pointers: that would live in local
  // memory, a wait at the start of every row).
  const int row_floats = 3 * kForwardLanes * Q;
  const bool leader = team.rank < kWarp && team.rank % kForwardHelpers == 0;
  const int lz = team.rank / kForwardHelpers;  // a leader's stripe
  {
    const BatchTarget target = e.batch[b];
    const std::uint64_t offset = regions ? regions[b].codes_at : e.offsets[target.target];
    const int L = regions ? regions[b].L : static_cast<int>(e.offsets[target.target + 1] - offset);
    float* every_row = regions ? e.region_rows + regions[b].rows_at : nullptr;
    if (every_row)
      for (int c = team.rank; c < 3 * kForwardLanes * Q; c += team.size) every_row[c] = 0.0f;
    const float move = target.config.fwd_move, loop = target.config.fwd_loop;
    for (int c = team.rank; c < 6 * kForwardLanes * Q; c += team.size) rows[c] = 0.0f;
    team.sync();
    float xN = 1.f, xJ = 0.f, xB = move, xC = 0.f, totscale = 0.0f;
    float* row_specials = e.specials ? e.specials + e.special_offsets[b] : nullptr;
    if (row_specials && team.rank == 0) rows::store_specials(row_specials, 0.0f, xN, xJ, xB, xC, 1.0f);
    int residues = 0;  // lane j holds residue i0 + j of the current block of 32 rows
    for (int i = 0; i < L; ++i) {
      if (i % kWarp == 0) residues = i + lane < L ? codes[offset + i + lane] : 0;
      const int x = __shfl_sync(kFullMask, residues, i % kWarp);
      const float* pm = rows + ((i + 1) & 1) * row_floats;  // previous row
      const float* pd = pm + kForwardLanes * Q;
      const float* pi = pd + kForwardLanes * Q;
      float* cm = rows + (i & 1) * row_floats;
      float* cd = cm + kForwardLanes * Q;
      float* ci = cd + kForwardLanes * Q;
      // Cell by cell, in parallel along each stripe, the stripe's lanes on
      // consecutive cells (their odds' loads coalesce: CellOdds); a few
      // cells' operands are loaded before any is computed, so their
      // latencies overlap.
      const float* emission = f.odds.emissions(x);
      for (int q0 = helper; q0 < Q; q0 += kCellsAhead * helpers) {
        CellTransitions<float> t[kCellsAhead];
        float e[kCellsAhead], mpv[kCellsAhead], dpv[kCellsAhead], ipv[kCellsAhead], m_same[kCellsAhead],
            i_same[kCellsAhead];
#pragma unroll
        for (int a = 0; a < kCellsAhead; ++a) {
          const int q = q0 + a * helpers, c = z * Q + q;
          if (q >= Q) break;
          t[a].bm = f.odds.transition(kCellBM, c), t[a].mm = f.odds.transition(kCellMM, c);
          t[a].im = f.odds.transition(kCellIM, c), t[a].dm = f.odds.transition(kCellDM, c);
          t[a].md = f.odds.transition(kCellMD, c), t[a].mi = f.odds.transition(kCellMI, c);
          t[a].ii = f.odds.transition(kCellII, c);
          e[a] = emission[c];
          // The cell before in HMMER's striping: (z, q-1), or (z-1, Q-1) when q == 0.
          mpv[a] = c > 0 ? pm[c - 1] : 0.0f;
          dpv[a] = c > 0 ? pd[c - 1] : 0.0f;
          ipv[a] = c > 0 ? pi[c - 1] : 0.0f;
          m_same[a] = pm[c], i_same[a] = pi[c];
        }
#pragma unroll
        for (int a = 0; a < kCellsAhead; ++a) {
          const int q = q0 + a * helpers, c = z * Q + q;
          if (q >= Q) break;
          float sv = xB * t[a].bm;
          sv = sv + mpv[a] * t[a].mm;
          sv = sv + ipv[a] * t[a].im;
          sv = sv + dpv[a] * t[a].dm;
          sv = sv * e[a];
          cm[c] = sv;
          if (q + 1 < Q) cd[c + 1] = sv * t[a].md;
          else dcv_out[z] = sv * t[a].md;
          const float from_m = m_same[a] * t[a].mi;
          ci[c] = from_m + i_same[a] * t[a].ii;
        }
      }
      team.sync();
      // In HMMER's order, one lane per stripe: E's running sum and the D->D chains.
      float xE = 0.0f;
      if (leader) {
        // The chains are serial; their operands are not: load them eight
        // cells ahead so each step waits for arithmetic, not for memory.
        const float* stripe_dd = dd_by_stripe + lz * Q;
        float* stripe_d = cd + lz * Q;
        // Pass 1 (M->D, then D->D along the stripe) alongside the running
        // sum of the row's M cells: two independent chains.
        float sum_m = 0.0f;
        float dcv = lz > 0 ? dcv_out[lz - 1] : 0.0f;
        float lowest = __int_as_float(0x7f800000);  // +infinity, then the stripe's least D cell
        stripe_d[0] = 0.0f;
        int q0 = 0;
        for (; q0 + kAhead <= Q; q0 += kAhead)
          first_pass_group<false>(q0, Q, cm + lz * Q, stripe_d, stripe_dd, sum_m, dcv, lowest);
        if (q0 < Q) first_pass_group<true>(q0, Q, cm + lz * Q, stripe_d, stripe_dd, sum_m, dcv, lowest);
        // A pass after the first of these that provably changes no D cell
        // in any stripe is skipped: each value it would add is `dcv` times
        // D->D odds (at most 1), which rounds away (hmm_warp.cuh) on the
        // least D cell it could meet (`lowest`, from pass 1: later passes
        // only add to D). The cells and E's sum (which the first
        // of them completes with the D cells) stay those of the pass
        // before, as the pass would leave them. With M >= 100 HMMER stops
        // after such a pass, so each stripe's own least cell decides; below
        // 100 it runs all three passes, and a skip must hold for every pass
        // after it too: the least cell of all stripes decides (a later
        // pass's addends are at most an earlier pass's first addend of some
        // stripe).
        if (f.M < 100) lowest = leaders_min(lowest);
        // Passes 2-4 carry D->D across stripes; each also sums the row's D
        // cells after the M's (HMMER's order), which is final once a pass
        // is the last.
        float xEv = sum_m;
        for (int pass = 1; pass < 4; ++pass) {
          const float shifted = __shfl_up_sync(kStripeLeaders, dcv, kForwardHelpers);
          dcv = lz > 0 ? shifted : 0.0f;
          if (pass > 1 && __all_sync(kStripeLeaders, rounds_away(dcv, lowest))) break;
          bool changed = false;
          xEv = sum_m;
          q0 = 0;
          // Within a pass `dcv` only shrinks: once it rounds away on the
          // stripe's least D cell, no cell the pass has left in the stripe
          // changes, and what remains is E's sum and the product handed on
          // (kept exact: the next stripe's cells may be smaller). The tail
          // starts when that holds in all four stripes, as one warp's
          // leaders take one branch at a time. Titin against Pkinase: the
          // tail is about 40 of a pass's 65 steps; against SMC_N 150 of 286.
          for (; q0 + kAhead <= Q && __any_sync(kStripeLeaders, !rounds_away(dcv, lowest)); q0 += kAhead)
            later_pass_group<false>(q0, Q, stripe_d, stripe_dd, dcv, xEv, changed);
          for (; q0 + kAhead <= Q; q0 += kAhead) later_pass_tail_group(q0, stripe_d, stripe_dd, dcv, xEv);
          if (q0 < Q) later_pass_group<true>(q0, Q, stripe_d, stripe_dd, dcv, xEv, changed);
          if (f.M >= 100 && __ballot_sync(kStripeLeaders, changed) == 0) break;
        }
        xE = leaders_sum(xEv);
      }
      team.sync();
      xE = team.from_first(xE);
      xN = xN * loop;
      xC = (xC * loop) + (xE * f.e_move);
      xJ = (xJ * loop) + (xE * f.e_loop);
      xB = (xJ * move) + (xN * move);
      float row_scale = 1.0f;
      if (xE > 1.0e4) {
        xN = xN / xE, xC = xC / xE, xJ = xJ / xE, xB = xB / xE;
        const float scale = static_cast<float>(1.0 / xE);
        for (int c = team.rank; c < kForwardLanes * Q; c += team.size)
          cm[c] = cm[c] * scale, cd[c] = cd[c] * scale, ci[c] = ci[c] * scale;
        totscale = static_cast<float>(totscale + log(static_cast<double>(xE)));
        row_scale = xE, xE = 1.0f;
      }
      if (every_row) {  // [z][q] per state here, [(q * 3 + state) * 4 + z] there
        float* row = every_row + static_cast<std::size_t>(i + 1) * 3 * kForwardLanes * Q;
        for (int c = team.rank; c < kForwardLanes * Q; c += team.size) {
          const int cell = (c % Q) * 3 * kForwardLanes + c / Q;
          row[cell] = cm[c], row[cell + kForwardLanes] = cd[c], row[cell + 2 * kForwardLanes] = ci[c];
        }
      }
      if (row_specials && team.rank == 0)
        rows::store_specials(row_specials + (i + 1) * kSpecialCells, xE, xN, xJ, xB, xC, row_scale);
      team.sync();
    }
    if (team.rank == 0) e.out[b] = static_cast<float>(totscale + log(static_cast<double>(xC * move)));
    team.sync();
  }
}

// With `specials` (domain definition's parser pass), each row's E, N, J, B,
// C and scale factor are kept too, at specials + special_offsets[b]. With
// `regions` (domain definition's sampling and rescoring), entry b is the
// residues of regions[b] instead of its whole target, and every row's cells
// are kept as well, in hmm_dp_rows.h's layout, at region_rows +
// regions[b].rows_at. The first `long_blocks` blocks take the longest
// entries [0, long_count) (batches run longest first) one per block, then
// their warps join the others, one entry per warp.
// kSharedRows (the launch's shared_rows): known at compile time so that the
// rows' loads are shared-memory loads, not generic ones.
template <bool kSharedRows>
__global__ void forward_warp_kernel(ForwardEntries e, std::uint32_t count, float* global_rows, unsigned* next,
                                    unsigned long_count, unsigned long_blocks) {
  constexpr bool shared_rows = kSharedRows;
  extern __shared__ float shared_scratch[];
  __shared__ float slot;
  const int Q = e.f.Q;
  const std::size_t stride = forward_warp_floats(Q);
  auto load_dd = [&](float* rows, int rank, int size) {
    float* dd_by_stripe = rows + 6 * kForwardLanes * Q;
    for (int c = rank; c < kForwardLanes * Q; c += size) dd_by_stripe[c] = e.f.odds.transition(kCellDD, c);
  };
  if (blockIdx.x < long_blocks) {
    const std::size_t first_warp = static_cast<std::size_t>(blockIdx.x) * (blockDim.x / kWarp);
    float* rows = shared_rows ? shared_scratch : global_rows + first_warp * stride;
    const Team team{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), &slot};
    load_dd(rows, team.rank, team.size);
    __syncthreads();
    for (unsigned b; (b = next_block_slot(next + 1, long_count)) < long_count;) forward_entry(e, b, rows, team);
    __syncthreads();
  }
  float* rows = warp_scratch(shared_scratch, global_rows, shared_rows, stride);
  const int lane = threadIdx.x % kWarp;
  load_dd(rows, lane, kWarp);
  __syncwarp();
  for (;;) {
    const unsigned b = long_count + next_warp_slot(next);
    if (b >= count) return;
    forward_entry(e, b, rows, Team{lane, kWarp, nullptr});
  }
}

}  // namespace

void allow_forward_shared_rows() {
  allow_all_dynamic_shared(forward_warp_kernel<true>, "Forward kernel shared memory");
}

void launch_forward_warps(int blocks, std::size_t shared_bytes, const ForwardEntries& e, std::uint32_t count,
                          float* global_rows, bool shared_rows, unsigned* next, unsigned long_count,
                          unsigned long_blocks, cudaStream_t stream) {
  if (shared_rows)
    forward_warp_kernel<true><<<blocks, kForwardWarpsPerBlock * kWarp, shared_bytes, stream>>>(
        e, count, global_rows, next, long_count, long_blocks);
  else
    forward_warp_kernel<false><<<blocks, kForwardWarpsPerBlock * kWarp, shared_bytes, stream>>>(
        e, count, global_rows, next, long_count, long_blocks);
}

}  // namespace helix::hmmsearch
