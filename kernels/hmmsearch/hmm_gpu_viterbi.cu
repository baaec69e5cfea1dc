// hmm_gpu_viterbi.cu: the Viterbi filter on the GPU (hmm_gpu_filters.cuh).
//
// Viterbi filter, one warp per target, the model striped over the lanes as
// HMMER stripes it over vector elements: lane z holds cells k = q+1+zQ,
// q = 0..Q-1, Q = ceil(M/32). Rows live in global scratch, [q][lane] per
// warp (coalesced). Saturating 16-bit arithmetic is emulated on ints; the D
// chain (when the lazy-F rule asks for it) is carried across lanes pass
// after pass until no lane improves, which is the serial chain's fixpoint.
#include "core/cuda_support.h"
#include "hmm_gpu_filters.cuh"
#include "hmm_warp.cuh"

namespace helix::hmmsearch {
namespace {

// Cells whose operands the kernel loads together (their latencies overlap).
constexpr int kCellsAhead = 4;

__device__ __forceinline__ int sat_low(int v) { return max(v, -32768); }
__device__ __forceinline__ int sat_both(int v) { return min(max(v, -32768), 32767); }

__global__ void viterbi_warp_kernel(const std::uint8_t* codes, const std::uint64_t* offsets, const BatchTarget* batch,
                                    std::uint32_t count, ViterbiStriped v, std::int16_t* global_rows,
                                    bool shared_rows, int* out_xc, unsigned* next) {
  extern __shared__ std::int16_t shared_rows_words[];
  const int lane = threadIdx.x % kWarp;
  const int Q = v.Q;
  const std::size_t stride = 3 * static_cast<std::size_t>(Q) * kWarp;
  std::int16_t* mrow = warp_scratch(shared_rows_words, global_rows, shared_rows, stride);
  std::int16_t* irow = mrow + Q * kWarp;
  std::int16_t* drow = irow + Q * kWarp;
  for (;;) {
    const unsigned b = next_warp_slot(next);
    if (b >= count) return;
    const BatchTarget target = batch[b];
    const std::uint64_t offset = offsets[target.target];
    const int L = static_cast<int>(offsets[target.target + 1] - offset);
    for (int q = 0; q < Q; ++q) mrow[q * kWarp + lane] = irow[q * kWarp + lane] = drow[q * kWarp + lane] = -32768;
    const int xN = SearchProfile::kVitBase, move = target.config.vit_move;
    int xB = xN + move, xJ = -32768, xC = -32768;
    bool overflow = false;
    for (int i0 = 0; i0 < L && !overflow; i0 += kWarp) {
      const int mine = i0 + lane < L ? codes[offset + i0 + lane] : 0;
      const int n = min(kWarp, L - i0);
      for (int j = 0; j < n; ++j) {
        const int x = __shfl_sync(kFullMask, mine, j);
        const std::int16_t* emission = v.match + static_cast<std::size_t>(x) * Q * kWarp + lane;
        int mpv = __shfl_up_sync(kFullMask, static_cast<int>(mrow[(Q - 1) * kWarp + lane]), 1);
        int dpv = __shfl_up_sync(kFullMask, static_cast<int>(drow[(Q - 1) * kWarp + lane]), 1);
        int ipv = __shfl_up_sync(kFullMask, static_cast<int>(irow[(Q - 1) * kWarp + lane]), 1);
        if (lane == 0) mpv = dpv = ipv = -32768;
        int dcv = -32768, xE = -32768, dmax = -32768;
        for (int q0 = 0; q0 < Q; q0 += kCellsAhead) {
          // Operands of a few cells first (their latencies overlap), then the cells in order.
          CellTransitions<std::int16_t> t[kCellsAhead];
          int e[kCellsAhead], m_old[kCellsAhead], d_old[kCellsAhead], i_old[kCellsAhead];
#pragma unroll
          for (int a = 0; a < kCellsAhead; ++a) {
            const int c = (q0 + a) * kWarp + lane;
            if (q0 + a >= Q) break;
            t[a] = v.transitions[c];
            e[a] = emission[(q0 + a) * kWarp];
            m_old[a] = mrow[c], d_old[a] = drow[c], i_old[a] = irow[c];
          }
#pragma unroll
          for (int a = 0; a < kCellsAhead; ++a) {
            const int c = (q0 + a) * kWarp + lane;
            if (q0 + a >= Q) break;
            int sv = max(max(sat_low(xB + t[a].bm), sat_low(mpv + t[a].mm)),
                         max(sat_low(ipv + t[a].im), sat_low(dpv + t[a].dm)));
            sv = sat_both(sv + e[a]);
            xE = max(xE, sv);
            mpv = m_old[a], dpv = d_old[a], ipv = i_old[a];  // now (i-1, k): next cell's diagonal
            mrow[c] = static_cast<std::int16_t>(sv);
            drow[c] = static_cast<std::int16_t>(dcv);
            dcv = sat_low(sv + t[a].md);
            dmax = max(dmax, dcv);
            irow[c] = static_cast<std::int16_t>(max(sat_low(mpv + t[a].mi), sat_low(ipv + t[a].ii)));
          }
        }
        xE = warp_max(xE);
        if (xE >= 32767) {
          overflow = true;
          break;
        }
        xC = static_cast<std::int16_t>(max(xC, xE + v.e_move));
        xJ = static_cast<std::int16_t>(max(xJ, xE + v.e_loop));
        xB = static_cast<std::int16_t>(max(xJ + move, xN + move));
        dmax = warp_max(dmax);
        int carry = __shfl_up_sync(kFullMask, dcv, 1);
        if (lane == 0) carry = -32768;
        if (dmax + v.dd_bound > xB) {
          for (int q = 0; q < Q; ++q) {  // first pass: M->D and D->D within the lane's stripe
            const int c = q * kWarp + lane;
            const int d = max(carry, static_cast<int>(drow[c]));
            drow[c] = static_cast<std::int16_t>(d);
            carry = sat_low(d + v.transitions[c].dd);
          }
          bool improved = true;
          while (__any_sync(kFullMask, improved)) {  // carry D->D across stripes until nothing improves
            carry = __shfl_up_sync(kFullMask, carry, 1);
            if (lane == 0) carry = -32768;
            improved = false;
            bool stopped = false;
            for (int q = 0; q < Q && !stopped; ++q) {
              const int c = q * kWarp + lane;
              stopped = carry <= drow[c];
              if (stopped) break;
              drow[c] = static_cast<std::int16_t>(carry);
              improved = true;
              carry = sat_low(carry + v.transitions[c].dd);
            }
            if (stopped || !improved) carry = -32768;  // nothing new leaves this stripe
          }
        } else {
          drow[lane] = static_cast<std::int16_t>(carry);  // q = 0 takes M->D from the lane before
        }
      }
    }
    if (lane == 0) out_xc[b] = overflow ? 32767 : xC;
  }
}

}  // namespace

void allow_viterbi_shared_rows() { allow_all_dynamic_shared(viterbi_warp_kernel, "Viterbi kernel shared memory"); }

void launch_viterbi_warps(int blocks, int block_threads, std::size_t shared_bytes, const std::uint8_t* codes,
                          const std::uint64_t* offsets, const BatchTarget* batch, std::uint32_t count,
                          ViterbiStriped v, std::int16_t* global_rows, bool shared_rows, int* out_xc,
                          unsigned* next, cudaStream_t stream) {
  viterbi_warp_kernel<<<blocks, block_threads, shared_bytes, stream>>>(codes, offsets, batch, count, v, global_rows,
                                                                        shared_rows, out_xc, next);
}

}  // namespace helix::hmmsearch
