// hmm_dp_rows.h: the Forward and Backward recursions of domain definition
// over HMMER's striped rows, written once for the CPU reference (hmm_dp.cpp)
// and the CUDA engine (every function is __host__ __device__), so that both
// give the same floats: each adds and multiplies in the order of HMMER
// 3.3.2's 4-lane SSE code (fwdback.c). V4 stands for one SSE vector: lane z
// of segment q is node k = q + 1 + z * Q; lanes past M hold zero odds.
//
// A row is [(q * 3 + {M, D, I}) * 4 + lane] floats; `rows` holds every row
// (i * 12Q) or, for the parser passes, two (slot i % 2). Specials are
// [i * kSpecialCells + {E, N, J, B, C, scale}].
#pragma once
#include <cmath>
#include <cstdint>

#include "hmm_filters.h"

namespace helix::hmmsearch {

enum SpecialCell : int { kXE = 0, kXN = 1, kXJ = 2, kXB = 3, kXC = 4, kXScale = 5, kSpecialCells = 6 };

// The special states' transitions for one mode and length model.
struct SpecialOdds {
  float e_move = 0, e_loop = 0;  // E -> C, E -> J
  float n_move = 0, n_loop = 0;  // N -> B, N -> N
  float j_move = 0, j_loop = 0;  // J -> B, J -> J
  float c_move = 0, c_loop = 0;  // C -> T, C -> C
};

// The profile's odds in HMMER's striped vectors (p7_oprofile's tfv, rfv):
// per segment q the lanes of B->M, M->M, I->M, D->M, M->D, M->I, I->I at
// [(q * 7 + t) * 4 + lane], then D->D at [(7 * Q + q) * 4 + lane]; match odds
// of code x at [(x * Q + q) * 4 + lane].
struct StripedOdds {
  int M = 0, Q = 0;
  const float* transitions = nullptr;
  const float* match = nullptr;
  SpecialOdds special;
};

// Easel's esl_vec_FSum: compensated (Kahan) float summation, in order. The
// null2 bias and the sampler's normalizations sum through it.
HELIX_HMM_HD float easel_float_sum(const float* values, int n) {
  float sum = 0.0f, compensation = 0.0f;
  HELIX_HMM_UNROLL
  for (int i = 0; i < n; ++i) {
    const float y = values[i] - compensation;
    const float t = sum + y;
    compensation = (t - sum) - y;
    sum = t;
  }
  return sum;
}

namespace rows {

struct V4 {
  float lane[4];
};
HELIX_HMM_HD V4 splat(float x) { return {{x, x, x, x}}; }
HELIX_HMM_HD V4 operator+(const V4& a, const V4& b) {
  return {{a.lane[0] + b.lane[0], a.lane[1] + b.lane[1], a.lane[2] + b.lane[2], a.lane[3] + b.lane[3]}};
}
HELIX_HMM_HD V4 operator*(const V4& a, const V4& b) {
  return {{a.lane[0] * b.lane[0], a.lane[1] * b.lane[1], a.lane[2] * b.lane[2], a.lane[3] * b.lane[3]}};
}
// Lanes move up one (node k-1 -> k across the segment wrap), `fill` enters lane 0.
HELIX_HMM_HD V4 right_shift(const V4& a, float fill) { return {{fill, a.lane[0], a.lane[1], a.lane[2]}}; }
// Lanes move down one (node k+1 -> k), 0 enters lane 3.
HELIX_HMM_HD V4 left_shift(const V4& a) { return {{a.lane[1], a.lane[2], a.lane[3], 0.0f}}; }
// SSE's two-step horizontal sum: (a0 + a1) + (a2 + a3).
HELIX_HMM_HD float horizontal_sum(const V4& a) { return (a.lane[0] + a.lane[1]) + (a.lane[2] + a.lane[3]); }

enum StripedTransition : int { kTBM = 0, kTMM, kTIM, kTDM, kTMD, kTMI, kTII };
enum CellKind : int { kCellM = 0, kCellD = 1, kCellI = 2 };

HELIX_HMM_HD V4& cell(float* row, int q, int kind) { return *reinterpret_cast<V4*>(row + (q * 3 + kind) * 4); }
HELIX_HMM_HD const V4& cell(const float* row, int q, int kind) {
  return *reinterpret_cast<const V4*>(row + (q * 3 + kind) * 4);
}
HELIX_HMM_HD const V4& transition(const StripedOdds& p, int q, int t) {
  return *reinterpret_cast<const V4*>(p.transitions + (q * 7 + t) * 4);
}
HELIX_HMM_HD const V4& dd_transition(const StripedOdds& p, int q) {
  return *reinterpret_cast<const V4*>(p.transitions + (7 * p.Q + q) * 4);
}
HELIX_HMM_HD const V4& match_odds(const StripedOdds& p, int code, int q) {
  return *reinterpret_cast<const V4*>(p.match + (code * p.Q + q) * 4);
}
HELIX_HMM_HD float* row_of(float* rows, int i, int Q, bool every_row) {
  return rows + static_cast<std::size_t>(every_row ? i : (i & 1)) * 12 * Q;
}
HELIX_HMM_HD void store_specials(float* x, float e, float n, float j, float b, float c, float scale) {
  x[kXE] = e, x[kXN] = n, x[kXJ] = j, x[kXB] = b, x[kXC] = c, x[kXScale] = scale;
}

// Divides a row by `scale` as HMMER does: multiplying by the float of the
// double 1/scale.
HELIX_HMM_HD void rescale_row(float* row, int Q, float scale) {
  const V4 factor = splat(static_cast<float>(1.0 / scale));
  for (int q = 0; q < Q; ++q)
    for (int kind = 0; kind < 3; ++kind) cell(row, q, kind) = cell(row, q, kind) * factor;
}

// Forward's D->D paths of one row: a first pass, then up to three more that
// carry paths across segment boundaries; models of 100 nodes or more stop
// as soon as a pass changes nothing (HMMER's lazy serialization).
HELIX_HMM_HD void forward_dd_paths(const StripedOdds& p, float* row, V4 dcv, V4& xEv) {
  const int Q = p.Q;
  dcv = right_shift(dcv, 0.0f);
  cell(row, 0, kCellD) = splat(0.0f);
  for (int q = 0; q < Q; ++q) {
    cell(row, q, kCellD) = dcv + cell(row, q, kCellD);
    dcv = cell(row, q, kCellD) * dd_transition(p, q);
  }
  for (int pass = 1; pass < 4; ++pass) {
    dcv = right_shift(dcv, 0.0f);
    bool changed = false;
    for (int q = 0; q < Q; ++q) {
      const V4 sum = dcv + cell(row, q, kCellD);
      for (int z = 0; z < 4; ++z) changed = changed || sum.lane[z] > cell(row, q, kCellD).lane[z];
      cell(row, q, kCellD) = sum;
      dcv = dcv * dd_transition(p, q);
    }
    if (p.M >= 100 && !changed) break;
  }
  for (int q = 0; q < Q; ++q) xEv = cell(row, q, kCellD) + xEv;
}

// One Forward row from the previous one; returns E's sum over the row.
HELIX_HMM_HD float forward_row(const StripedOdds& p, int code, const float* prev, float* cur, float xB) {
  const int Q = p.Q;
  V4 xEv = splat(0.0f), dcv = splat(0.0f);
  const V4 xBv = splat(xB);
  V4 mpv = right_shift(cell(prev, Q - 1, kCellM), 0.0f);
  V4 dpv = right_shift(cell(prev, Q - 1, kCellD), 0.0f);
  V4 ipv = right_shift(cell(prev, Q - 1, kCellI), 0.0f);
  for (int q = 0; q < Q; ++q) {
    V4 sv = xBv * transition(p, q, kTBM);
    sv = sv + mpv * transition(p, q, kTMM);
    sv = sv + ipv * transition(p, q, kTIM);
    sv = sv + dpv * transition(p, q, kTDM);
    sv = sv * match_odds(p, code, q);
    xEv = xEv + sv;
    mpv = cell(prev, q, kCellM), dpv = cell(prev, q, kCellD), ipv = cell(prev, q, kCellI);
    cell(cur, q, kCellM) = sv;
    cell(cur, q, kCellD) = dcv;
    dcv = sv * transition(p, q, kTMD);
    cell(cur, q, kCellI) = mpv * transition(p, q, kTMI) + ipv * transition(p, q, kTII);
  }
  forward_dd_paths(p, cur, dcv, xEv);
  return horizontal_sum(xEv);
}

// Backward's D->D and M->D paths of a row whose D cells hold their other
// terms: one pass that starts from `dpv` (lane-shifted), adding E to M and D
// when `add_e`, three more that carry across segments (always all four:
// HMMER's Backward has no lazy rule), then M_k -> D_k+1.
HELIX_HMM_HD void backward_dd_and_md(const StripedOdds& p, float* row, V4 dpv, bool add_e, const V4& xEv) {
  const int Q = p.Q;
  V4 dcv = splat(0.0f);
  dpv = left_shift(dpv);
  for (int q = Q - 1; q >= 0; --q) {
    dcv = dpv * dd_transition(p, q);
    cell(row, q, kCellD) = add_e ? cell(row, q, kCellD) + (dcv + xEv) : cell(row, q, kCellD) + dcv;
    dpv = cell(row, q, kCellD);
    if (add_e) cell(row, q, kCellM) = cell(row, q, kCellM) + xEv;
  }
  for (int pass = 1; pass < 4; ++pass) {
    dcv = left_shift(dcv);
    for (int q = Q - 1; q >= 0; --q) {
      dcv = dcv * dd_transition(p, q);
      cell(row, q, kCellD) = cell(row, q, kCellD) + dcv;
    }
  }
  dcv = left_shift(cell(row, 0, kCellD));
  for (int q = Q - 1; q >= 0; --q) {
    cell(row, q, kCellM) = cell(row, q, kCellM) + dcv * transition(p, q, kTMD);
    dcv = cell(row, q, kCellD);
  }
}

// Row i < L of Backward before its specials: I complete, M and D without
// their paths through D and E; returns B(i)'s sum over B -> M_k.
HELIX_HMM_HD float backward_row_from_next(const StripedOdds& p, const float* next, float* cur, int next_code) {
  const int Q = p.Q;
  V4 tmmv = left_shift(transition(p, 0, kTMM));
  V4 timv = left_shift(transition(p, 0, kTIM));
  V4 tdmv = left_shift(transition(p, 0, kTDM));
  V4 mpv = left_shift(cell(next, 0, kCellM) * match_odds(p, next_code, 0));
  V4 xBv = splat(0.0f);
  for (int q = Q - 1; q >= 0; --q) {
    const V4 ipv = cell(next, q, kCellI);  // insert odds are 1
    cell(cur, q, kCellI) = ipv * transition(p, q, kTII) + mpv * timv;
    cell(cur, q, kCellD) = mpv * tdmv;
    const V4 mcv = ipv * transition(p, q, kTMI) + mpv * tmmv;
    mpv = cell(next, q, kCellM) * match_odds(p, next_code, q);
    cell(cur, q, kCellM) = mcv;
    tdmv = transition(p, q, kTDM), timv = transition(p, q, kTIM), tmmv = transition(p, q, kTMM);
    xBv = xBv + mpv * transition(p, q, kTBM);
  }
  return horizontal_sum(xBv);
}

}  // namespace rows

// HMMER's Forward (p7_Forward / p7_ForwardParser) over codes[0..L-1]:
// fills `rows` and the specials of every row, returns the score in nats and
// the sum of log scale factors in `total_scale`.
HELIX_HMM_HD float forward_rows(const std::uint8_t* codes, int L, const StripedOdds& p, float* rows, bool every_row,
                                float* specials, float& total_scale) {
  using namespace rows;
  const int Q = p.Q;
  const SpecialOdds& sx = p.special;
  float* first = row_of(rows, 0, Q, every_row);
  for (int c = 0; c < 12 * Q; ++c) first[c] = 0.0f;
  float xE = 0.0f, xN = 1.0f, xJ = 0.0f, xB = sx.n_move, xC = 0.0f;
  store_specials(specials, xE, xN, xJ, xB, xC, 1.0f);
  total_scale = 0.0f;
  for (int i = 1; i <= L; ++i) {
    float* cur = row_of(rows, i, Q, every_row);
    xE = forward_row(p, codes[i - 1], row_of(rows, i - 1, Q, every_row), cur, xB);
    xN = xN * sx.n_loop;
    xC = (xC * sx.c_loop) + (xE * sx.e_move);
    xJ = (xJ * sx.j_loop) + (xE * sx.e_loop);
    xB = (xJ * sx.j_move) + (xN * sx.n_move);
    float scale = 1.0f;
    if (xE > 1.0e4f) {  // sparse rescaling keeps the odds in float range
      xN = xN / xE, xC = xC / xE, xJ = xJ / xE, xB = xB / xE;
      rescale_row(cur, Q, xE);
      scale = xE;
      total_scale = static_cast<float>(total_scale + log(static_cast<double>(xE)));
      xE = 1.0f;
    }
    store_specials(specials + i * kSpecialCells, xE, xN, xJ, xB, xC, scale);
  }
  return static_cast<float>(total_scale + log(static_cast<double>(xC * sx.c_move)));
}

// HMMER's Backward (p7_Backward / p7_BackwardParser) with the scale factors
// of `fwd_specials` (switching to its own where Backward would overflow them:
// `has_own_scales`); returns the score in nats.
HELIX_HMM_HD float backward_rows(const std::uint8_t* codes, int L, const StripedOdds& p, const float* fwd_specials,
                                 float* rows, bool every_row, float* specials, float& total_scale,
                                 bool& has_own_scales) {
  using namespace rows;
  const int Q = p.Q;
  const SpecialOdds& sx = p.special;
  has_own_scales = false;
  float xJ = 0.0f, xB = 0.0f, xN = 0.0f, xC = sx.c_move, xE = xC * sx.e_move;
  {  // row L: only paths to E
    float* row = row_of(rows, L, Q, every_row);
    const V4 xEv = splat(xE);
    for (int q = 0; q < Q; ++q) cell(row, q, kCellM) = cell(row, q, kCellD) = xEv;
    for (int q = 0; q < Q; ++q) cell(row, q, kCellI) = splat(0.0f);
    backward_dd_and_md(p, row, cell(row, Q - 1, kCellD), false, xEv);
    const float scale = fwd_specials[L * kSpecialCells + kXScale];
    if (scale > 1.0f) {
      xE = xE / scale, xN = xN / scale, xC = xC / scale, xJ = xJ / scale, xB = xB / scale;
      rescale_row(row, Q, scale);
    }
    total_scale = static_cast<float>(log(static_cast<double>(scale)));
    store_specials(specials + L * kSpecialCells, xE, xN, xJ, xB, xC, scale);
  }
  for (int i = L - 1; i >= 1; --i) {
    float* cur = row_of(rows, i, Q, every_row);
    xB = backward_row_from_next(p, row_of(rows, i + 1, Q, every_row), cur, codes[i]);
    xC = xC * sx.c_loop;
    xJ = (xB * sx.j_move) + (xJ * sx.j_loop);
    xN = (xB * sx.n_move) + (xN * sx.n_loop);
    xE = (xC * sx.e_move) + (xJ * sx.e_loop);
    const V4 xEv = splat(xE);
    backward_dd_and_md(p, cur, cell(cur, 0, kCellD) + xEv, true, xEv);
    if (xB > 1.0e16f) has_own_scales = true;  // Forward's scales no longer suffice
    const float scale = has_own_scales ? (xB > 1.0e4f ? xB : 1.0f) : fwd_specials[i * kSpecialCells + kXScale];
    if (scale > 1.0f) {
      xE /= scale, xN /= scale, xJ /= scale, xB /= scale, xC /= scale;
      rescale_row(cur, Q, scale);
      total_scale = static_cast<float>(total_scale + log(static_cast<double>(scale)));
    }
    store_specials(specials + i * kSpecialCells, xE, xN, xJ, xB, xC, scale);
  }
  // Row 0: only N and B.
  const float* first = row_of(rows, 1, Q, every_row);
  V4 xBv = splat(0.0f);
  for (int q = 0; q < Q; ++q) xBv = xBv + (cell(first, q, kCellM) * match_odds(p, codes[0], q)) * transition(p, q, kTBM);
  xB = horizontal_sum(xBv);
  xN = (xB * sx.n_move) + (xN * sx.n_loop);
  store_specials(specials, 0.0f, xN, 0.0f, xB, 0.0f, 1.0f);
  return static_cast<float>(total_scale + log(static_cast<double>(xN)));
}

// Domain definition's decoding (HMMER's p7_DomainDecoding) of one target's
// parser passes, from the special rows alone: Forward's (`fwd`) and
// Backward's (`bck`, scaled by its own factors when `bck_own_scales`, else
// by Forward's), rows 0..L. For i = 1..L: the expected number of domains
// begun before row i (btot[i], cumulative), ended by row i (etot[i],
// cumulative), and the probability that residue i is in a domain (mocc[i]);
// index 0 of each is 0. The sums run in HMMER's order, each a float.
HELIX_HMM_HD void decode_domain_rows(const SpecialOdds& sx, int L, const float* fwd, const float* bck,
                                     bool bck_own_scales, float* mocc, float* btot, float* etot) {
  const auto f = [&](int i, int cell) { return fwd[static_cast<std::size_t>(i) * kSpecialCells + cell]; };
  const auto b = [&](int i, int cell) { return bck[static_cast<std::size_t>(i) * kSpecialCells + cell]; };
  mocc[0] = btot[0] = etot[0] = 0.0f;
  float scale_product = 1.0f / b(0, kXN);
  for (int i = 1; i <= L; ++i) {
    btot[i] = btot[i - 1] + (f(i - 1, kXB) * b(i - 1, kXB) * f(i - 1, kXScale) * scale_product);
    if (bck_own_scales) scale_product *= f(i - 1, kXScale) / b(i - 1, kXScale);
    etot[i] = etot[i - 1] + (f(i, kXE) * b(i, kXE) * f(i, kXScale) * scale_product);
    float outside = f(i - 1, kXN) * b(i, kXN) * sx.n_loop * scale_product;
    outside += f(i - 1, kXJ) * b(i, kXJ) * sx.j_loop * scale_product;
    outside += f(i - 1, kXC) * b(i, kXC) * sx.c_loop * scale_product;
    mocc[i] = 1.0f - outside;
  }
}

}  // namespace helix::hmmsearch
