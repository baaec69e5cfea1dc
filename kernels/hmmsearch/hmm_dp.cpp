// hmm_dp.cpp: HMMER 3.3.2's optimized Forward, Backward, posterior decoding,
// null2 and optimal-accuracy recursions, in scalar C++ that adds and
// multiplies in the same order as its 4-lane SSE code, so the floats match
// (see hmm_dp.h). V4 stands for one SSE vector: lane z of segment q is node
// k = q + 1 + z * Q.
#include "hmm_dp.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace helix::hmm {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

struct V4 {
  float lane[4];
};
V4 splat(float x) { return {{x, x, x, x}}; }
V4 operator+(const V4& a, const V4& b) {
  return {{a.lane[0] + b.lane[0], a.lane[1] + b.lane[1], a.lane[2] + b.lane[2], a.lane[3] + b.lane[3]}};
}
V4 operator*(const V4& a, const V4& b) {
  return {{a.lane[0] * b.lane[0], a.lane[1] * b.lane[1], a.lane[2] * b.lane[2], a.lane[3] * b.lane[3]}};
}
V4 max(const V4& a, const V4& b) {
  V4 r;
  for (int z = 0; z < 4; ++z) r.lane[z] = std::max(a.lane[z], b.lane[z]);
  return r;
}
// Lanes move up one (node k-1 -> k across the segment wrap), `fill` enters lane 0.
V4 right_shift(const V4& a, float fill) { return {{fill, a.lane[0], a.lane[1], a.lane[2]}}; }
// Lanes move down one (node k+1 -> k), 0 enters lane 3.
V4 left_shift(const V4& a) { return {{a.lane[1], a.lane[2], a.lane[3], 0.0f}}; }
// SSE's two-step horizontal sum: (a0 + a1) + (a2 + a3).
float horizontal_sum(const V4& a) { return (a.lane[0] + a.lane[1]) + (a.lane[2] + a.lane[3]); }
// Keeps a's lanes where the transition t is possible (t > 0), else `otherwise`.
V4 where_possible(const V4& t, const V4& a, float otherwise) {
  V4 r;
  for (int z = 0; z < 4; ++z) r.lane[z] = t.lane[z] > 0.0f ? a.lane[z] : otherwise;
  return r;
}

enum StripedTransition : int { kTBM = 0, kTMM, kTIM, kTDM, kTMD, kTMI, kTII };
enum CellKind : int { kCellM = 0, kCellD = 1, kCellI = 2 };

// Vector access to a striped row and to the profile's striped odds.
V4& cell(float* row, int q, int kind) { return *reinterpret_cast<V4*>(row + (q * 3 + kind) * 4); }
const V4& cell(const float* row, int q, int kind) { return *reinterpret_cast<const V4*>(row + (q * 3 + kind) * 4); }
const V4& transition(const OddsProfile& p, int q, int t) {
  return *reinterpret_cast<const V4*>(p.striped_transitions.data() + (q * 7 + t) * 4);
}
const V4& dd_transition(const OddsProfile& p, int q) {
  const int Q = forward_segments(p.core.M);
  return *reinterpret_cast<const V4*>(p.striped_transitions.data() + (7 * Q + q) * 4);
}
const V4& match_odds(const OddsProfile& p, int code, int q) {
  const int Q = forward_segments(p.core.M);
  return *reinterpret_cast<const V4*>(p.striped_match.data() + (code * Q + q) * 4);
}

void stripe_profile(OddsProfile& p) {
  const int M = p.core.M, Q = forward_segments(M);
  p.striped_transitions.assign(8 * Q * 4, 0.0f);
  p.striped_match.assign(static_cast<std::size_t>(kCodes) * Q * 4, 0.0f);
  for (int q = 0; q < Q; ++q)
    for (int z = 0; z < 4; ++z) {
      const int k = q + 1 + z * Q;
      if (k > M) continue;
      const CellTransitions<float>& t = p.core.transitions[k - 1];
      const float values[7] = {t.bm, t.mm, t.im, t.dm, t.md, t.mi, t.ii};
      for (int s = 0; s < 7; ++s) p.striped_transitions[(q * 7 + s) * 4 + z] = values[s];
      p.striped_transitions[(7 * Q + q) * 4 + z] = t.dd;
      for (int x = 0; x < kCodes; ++x) p.striped_match[(x * Q + q) * 4 + z] = p.core.match[x * M + k - 1];
    }
}

// Divides a row (cells) by `scale` as HMMER does: by multiplying with the
// float of the double 1/scale.
void rescale_row(float* row, int Q, float scale) {
  const V4 factor = splat(static_cast<float>(1.0 / scale));
  for (int q = 0; q < Q; ++q)
    for (int kind = 0; kind < 3; ++kind) cell(row, q, kind) = cell(row, q, kind) * factor;
}

// Forward's D->D paths of one row: a first pass, then up to three more that
// carry paths across segment boundaries; models of 100 nodes or more stop
// as soon as a pass changes nothing (HMMER's lazy serialization).
void forward_dd_paths(const OddsProfile& p, float* row, V4 dcv, int Q, V4& xEv) {
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
    if (p.core.M >= 100 && !changed) break;
  }
  for (int q = 0; q < Q; ++q) xEv = cell(row, q, kCellD) + xEv;
}

}  // namespace

OddsProfile odds_profile(const SearchProfile& profile, int L, bool multihit) {
  OddsProfile odds;
  odds.core = ForwardView{profile.M, profile.fwd_match.data(), profile.fwd_transitions.data(), 0, 0};
  odds.length_model = L;
  odds.multihit = multihit;
  SpecialOdds& x = odds.special;
  x.e_move = multihit ? 0.5f : 1.0f;
  x.e_loop = multihit ? 0.5f : 0.0f;
  odds.core.e_move = x.e_move, odds.core.e_loop = x.e_loop;
  const float nj = multihit ? 1.0f : 0.0f;
  const float move = (2.0f + nj) / (static_cast<float>(L) + 2.0f + nj);
  const float loop = 1.0f - move;
  x.n_move = x.j_move = x.c_move = move;
  x.n_loop = x.j_loop = x.c_loop = loop;
  stripe_profile(odds);
  return odds;
}

void DpMatrix::resize(int M, int L, bool every_row) {
  M_ = M, L_ = L, Q_ = forward_segments(M), every_row_ = every_row;
  cells_.assign(static_cast<std::size_t>(every_row ? L + 1 : 2) * 12 * Q_, 0.0f);
  specials_.assign(static_cast<std::size_t>(L + 1) * kSpecialCells, 0.0f);
  total_scale = 0, has_own_scales = true;
}

float forward_matrix(const std::uint8_t* codes, int L, const OddsProfile& p, DpMatrix& fwd, bool every_row) {
  const int Q = forward_segments(p.core.M);
  const SpecialOdds& sx = p.special;
  fwd.resize(p.core.M, L, every_row);
  float xE = 0.0f, xN = 1.0f, xJ = 0.0f, xB = sx.n_move, xC = 0.0f;
  fwd.x(0, kXE) = xE, fwd.x(0, kXN) = xN, fwd.x(0, kXJ) = xJ, fwd.x(0, kXB) = xB, fwd.x(0, kXC) = xC;
  fwd.x(0, kXScale) = 1.0f;
  fwd.total_scale = 0.0f;
  for (int i = 1; i <= L; ++i) {
    const float* prev = fwd.row(i - 1);
    float* cur = fwd.row(i);
    const int code = codes[i - 1];
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
    forward_dd_paths(p, cur, dcv, Q, xEv);
    xE = horizontal_sum(xEv);
    xN = xN * sx.n_loop;
    xC = (xC * sx.c_loop) + (xE * sx.e_move);
    xJ = (xJ * sx.j_loop) + (xE * sx.e_loop);
    xB = (xJ * sx.j_move) + (xN * sx.n_move);
    if (xE > 1.0e4f) {  // sparse rescaling keeps the odds in float range
      xN = xN / xE, xC = xC / xE, xJ = xJ / xE, xB = xB / xE;
      rescale_row(cur, Q, xE);
      fwd.x(i, kXScale) = xE;
      fwd.total_scale = static_cast<float>(fwd.total_scale + std::log(static_cast<double>(xE)));
      xE = 1.0f;
    } else {
      fwd.x(i, kXScale) = 1.0f;
    }
    fwd.x(i, kXE) = xE, fwd.x(i, kXN) = xN, fwd.x(i, kXJ) = xJ, fwd.x(i, kXB) = xB, fwd.x(i, kXC) = xC;
  }
  return static_cast<float>(fwd.total_scale + std::log(static_cast<double>(xC * sx.c_move)));
}

namespace {

// Backward's D->D and M->D paths of a row whose D cells hold their other
// terms: one pass that starts from `first` (lane-shifted), three more that
// carry across segments (always all four: HMMER's Backward has no lazy
// rule), then M_k -> D_k+1.
void backward_dd_and_md(const OddsProfile& p, float* row, int Q, V4 dpv, bool add_e, const V4& xEv) {
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
float backward_row_from_next(const OddsProfile& p, const float* next, float* cur, int next_code, int Q) {
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

}  // namespace

float backward_matrix(const std::uint8_t* codes, int L, const OddsProfile& p, const DpMatrix& fwd, DpMatrix& bck,
                      bool every_row) {
  const int Q = forward_segments(p.core.M);
  const SpecialOdds& sx = p.special;
  bck.resize(p.core.M, L, every_row);
  bck.has_own_scales = false;  // Forward's scale factors, unless Backward overflows them
  float xJ = 0.0f, xB = 0.0f, xN = 0.0f, xC = sx.c_move, xE = xC * sx.e_move;
  {  // row L: only paths to E
    float* row = bck.row(L);
    V4 xEv = splat(xE);
    for (int q = 0; q < Q; ++q) cell(row, q, kCellM) = cell(row, q, kCellD) = xEv;
    for (int q = 0; q < Q; ++q) cell(row, q, kCellI) = splat(0.0f);
    backward_dd_and_md(p, row, Q, cell(row, Q - 1, kCellD), false, xEv);
    const float scale = fwd.x(L, kXScale);
    if (scale > 1.0f) {
      xE = xE / scale, xN = xN / scale, xC = xC / scale, xJ = xJ / scale, xB = xB / scale;
      rescale_row(row, Q, scale);
    }
    bck.x(L, kXScale) = scale;
    bck.total_scale = static_cast<float>(std::log(static_cast<double>(scale)));
    bck.x(L, kXE) = xE, bck.x(L, kXN) = xN, bck.x(L, kXJ) = xJ, bck.x(L, kXB) = xB, bck.x(L, kXC) = xC;
  }
  for (int i = L - 1; i >= 1; --i) {
    float* cur = bck.row(i);
    xB = backward_row_from_next(p, bck.row(i + 1), cur, codes[i], Q);
    xC = xC * sx.c_loop;
    xJ = (xB * sx.j_move) + (xJ * sx.j_loop);
    xN = (xB * sx.n_move) + (xN * sx.n_loop);
    xE = (xC * sx.e_move) + (xJ * sx.e_loop);
    const V4 xEv = splat(xE);
    backward_dd_and_md(p, cur, Q, cell(cur, 0, kCellD) + xEv, true, xEv);
    if (xB > 1.0e16f) bck.has_own_scales = true;  // Forward's scales no longer suffice
    const float scale = bck.has_own_scales ? (xB > 1.0e4f ? xB : 1.0f) : fwd.x(i, kXScale);
    bck.x(i, kXScale) = scale;
    if (scale > 1.0f) {
      xE /= scale, xN /= scale, xJ /= scale, xB /= scale, xC /= scale;
      rescale_row(cur, Q, scale);
      bck.total_scale = static_cast<float>(bck.total_scale + std::log(static_cast<double>(scale)));
    }
    bck.x(i, kXE) = xE, bck.x(i, kXN) = xN, bck.x(i, kXJ) = xJ, bck.x(i, kXB) = xB, bck.x(i, kXC) = xC;
  }
  // Row 0: only N and B.
  const float* first = bck.row(1);
  V4 xBv = splat(0.0f);
  for (int q = 0; q < Q; ++q) xBv = xBv + (cell(first, q, kCellM) * match_odds(p, codes[0], q)) * transition(p, q, kTBM);
  xB = horizontal_sum(xBv);
  xN = (xB * sx.n_move) + (xN * sx.n_loop);
  bck.x(0, kXB) = xB, bck.x(0, kXC) = 0.0f, bck.x(0, kXJ) = 0.0f, bck.x(0, kXN) = xN, bck.x(0, kXE) = 0.0f;
  bck.x(0, kXScale) = 1.0f;
  return static_cast<float>(bck.total_scale + std::log(static_cast<double>(xN)));
}

bool posterior_decoding(const OddsProfile& p, const DpMatrix& fwd, const DpMatrix& bck, DpMatrix& pp) {
  const int L = fwd.L(), Q = fwd.Q();
  const SpecialOdds& sx = p.special;
  pp.resize(fwd.M(), L);
  float scale_product = 1.0f / bck.x(0, kXN);
  for (int i = 1; i <= L; ++i) {
    const float* f = fwd.row(i);
    const float* b = bck.row(i);
    float* out = pp.row(i);
    const V4 total = splat(scale_product * fwd.x(i, kXScale));
    for (int q = 0; q < Q; ++q) {
      cell(out, q, kCellM) = (cell(f, q, kCellM) * cell(b, q, kCellM)) * total;
      cell(out, q, kCellD) = splat(0.0f);
      cell(out, q, kCellI) = (cell(f, q, kCellI) * cell(b, q, kCellI)) * total;
    }
    pp.x(i, kXE) = 0.0f, pp.x(i, kXB) = 0.0f;
    pp.x(i, kXN) = fwd.x(i - 1, kXN) * bck.x(i, kXN) * sx.n_loop * scale_product;
    pp.x(i, kXJ) = fwd.x(i - 1, kXJ) * bck.x(i, kXJ) * sx.j_loop * scale_product;
    pp.x(i, kXC) = fwd.x(i - 1, kXC) * bck.x(i, kXC) * sx.c_loop * scale_product;
    if (bck.has_own_scales) scale_product *= fwd.x(i, kXScale) / bck.x(i, kXScale);
  }
  return !std::isinf(scale_product);
}

DomainPosteriors domain_decoding(const OddsProfile& p, const DpMatrix& fwd, const DpMatrix& bck) {
  const int L = fwd.L();
  const SpecialOdds& sx = p.special;
  DomainPosteriors post;
  post.mocc.assign(L + 1, 0.0f), post.btot.assign(L + 1, 0.0f), post.etot.assign(L + 1, 0.0f);
  float scale_product = 1.0f / bck.x(0, kXN);
  for (int i = 1; i <= L; ++i) {
    post.btot[i] = post.btot[i - 1] + (fwd.x(i - 1, kXB) * bck.x(i - 1, kXB) * fwd.x(i - 1, kXScale) * scale_product);
    if (bck.has_own_scales) scale_product *= fwd.x(i - 1, kXScale) / bck.x(i - 1, kXScale);
    post.etot[i] = post.etot[i - 1] + (fwd.x(i, kXE) * bck.x(i, kXE) * fwd.x(i, kXScale) * scale_product);
    float outside = fwd.x(i - 1, kXN) * bck.x(i, kXN) * sx.n_loop * scale_product;
    outside += fwd.x(i - 1, kXJ) * bck.x(i, kXJ) * sx.j_loop * scale_product;
    outside += fwd.x(i - 1, kXC) * bck.x(i, kXC) * sx.c_loop * scale_product;
    post.mocc[i] = 1.0f - outside;
  }
  return post;
}

std::array<float, kCodes> null2_by_expectation(const OddsProfile& p, const DpMatrix& pp) {
  const int L = pp.L(), Q = pp.Q();
  // Expected uses of each emitting state over the envelope, as frequencies.
  std::vector<V4> m_use(Q), i_use(Q);
  for (int q = 0; q < Q; ++q) m_use[q] = cell(pp.row(1), q, kCellM), i_use[q] = cell(pp.row(1), q, kCellI);
  float n_use = pp.x(1, kXN), c_use = pp.x(1, kXC), j_use = pp.x(1, kXJ);
  for (int i = 2; i <= L; ++i) {
    for (int q = 0; q < Q; ++q) {
      m_use[q] = cell(pp.row(i), q, kCellM) + m_use[q];
      i_use[q] = cell(pp.row(i), q, kCellI) + i_use[q];
    }
    n_use += pp.x(i, kXN), c_use += pp.x(i, kXC), j_use += pp.x(i, kXJ);
  }
  const float norm = static_cast<float>(1.0 / static_cast<float>(L));
  for (int q = 0; q < Q; ++q) m_use[q] = m_use[q] * splat(norm), i_use[q] = i_use[q] * splat(norm);
  n_use *= norm, c_use *= norm, j_use *= norm;
  const float outside = n_use + c_use + j_use;
  std::array<float, kCodes> null2{};
  for (int x = 0; x < kResidues; ++x) {
    V4 sum = splat(0.0f);
    for (int q = 0; q < Q; ++q) {
      sum = sum + m_use[q] * match_odds(p, x, q);
      sum = sum + i_use[q];  // insert odds are 1
    }
    null2[x] = horizontal_sum(sum) + outside;
  }
  // Degenerate codes: the plain mean of their residues' odds (Easel's FAvgScVec).
  for (int x = kFirstDegenerate; x <= kLastDegenerate; ++x) {
    float total = 0.0f;
    int members = 0;
    for (int y = 0; y < kResidues; ++y)
      if (code_includes(x, y)) total += null2[y], ++members;
    null2[x] = total / static_cast<float>(members);
  }
  null2[kGapCode] = null2[kNonresidueCode] = null2[kMissingCode] = 1.0f;
  return null2;
}

float optimal_accuracy(const OddsProfile& p, const DpMatrix& pp, DpMatrix& oa) {
  const int L = pp.L(), Q = pp.Q();
  const SpecialOdds& sx = p.special;
  oa.resize(pp.M(), L);
  const V4 minus_inf = splat(-kInfinity);
  for (int q = 0; q < Q; ++q)
    cell(oa.row(0), q, kCellM) = cell(oa.row(0), q, kCellI) = cell(oa.row(0), q, kCellD) = minus_inf;
  oa.x(0, kXE) = -kInfinity, oa.x(0, kXN) = 0.0f, oa.x(0, kXJ) = -kInfinity, oa.x(0, kXB) = 0.0f;
  oa.x(0, kXC) = -kInfinity;
  // A possible transition's source keeps its value; an impossible one gives
  // 0 (HMMER masks with a compare, so "impossible" reads as 0, not -inf).
  auto through = [](const V4& t, const V4& v) { return where_possible(t, v, 0.0f); };
  for (int i = 1; i <= L; ++i) {
    const float* prev = oa.row(i - 1);
    float* cur = oa.row(i);
    const float* post = pp.row(i);
    V4 dcv = minus_inf, xEv = minus_inf;
    const V4 xBv = splat(oa.x(i - 1, kXB));
    V4 mpv = right_shift(cell(prev, Q - 1, kCellM), -kInfinity);
    V4 dpv = right_shift(cell(prev, Q - 1, kCellD), -kInfinity);
    V4 ipv = right_shift(cell(prev, Q - 1, kCellI), -kInfinity);
    for (int q = 0; q < Q; ++q) {
      V4 sv = through(transition(p, q, kTBM), xBv);
      sv = max(sv, through(transition(p, q, kTMM), mpv));
      sv = max(sv, through(transition(p, q, kTIM), ipv));
      sv = max(sv, through(transition(p, q, kTDM), dpv));
      sv = sv + cell(post, q, kCellM);
      xEv = max(xEv, sv);
      mpv = cell(prev, q, kCellM), dpv = cell(prev, q, kCellD), ipv = cell(prev, q, kCellI);
      cell(cur, q, kCellM) = sv;
      cell(cur, q, kCellD) = dcv;
      dcv = through(transition(p, q, kTMD), sv);
      V4 iv = through(transition(p, q, kTMI), mpv);
      iv = max(iv, through(transition(p, q, kTII), ipv));
      cell(cur, q, kCellI) = iv + cell(post, q, kCellI);
    }
    dcv = right_shift(dcv, -kInfinity);
    for (int q = 0; q < Q; ++q) {
      cell(cur, q, kCellD) = max(dcv, cell(cur, q, kCellD));
      dcv = through(dd_transition(p, q), cell(cur, q, kCellD));
    }
    for (int pass = 1; pass < 4; ++pass) {
      dcv = right_shift(dcv, -kInfinity);
      for (int q = 0; q < Q; ++q) {
        cell(cur, q, kCellD) = max(dcv, cell(cur, q, kCellD));
        dcv = through(dd_transition(p, q), dcv);
      }
    }
    for (int q = 0; q < Q; ++q) xEv = max(xEv, cell(cur, q, kCellD));
    const float xE = std::max(std::max(xEv.lane[0], xEv.lane[1]), std::max(xEv.lane[2], xEv.lane[3]));
    oa.x(i, kXE) = xE;
    // As HMMER: a special path whose transition is impossible counts 0.
    float t1 = sx.j_loop == 0.0f ? 0.0f : oa.x(i - 1, kXJ) + pp.x(i, kXJ);
    float t2 = sx.e_loop == 0.0f ? 0.0f : xE;
    oa.x(i, kXJ) = std::max(t1, t2);
    t1 = sx.c_loop == 0.0f ? 0.0f : oa.x(i - 1, kXC) + pp.x(i, kXC);
    t2 = sx.e_move == 0.0f ? 0.0f : xE;
    oa.x(i, kXC) = std::max(t1, t2);
    oa.x(i, kXN) = sx.n_loop == 0.0f ? 0.0f : oa.x(i - 1, kXN) + pp.x(i, kXN);
    t1 = sx.n_move == 0.0f ? 0.0f : oa.x(i, kXN);
    t2 = sx.j_move == 0.0f ? 0.0f : oa.x(i, kXJ);
    oa.x(i, kXB) = std::max(t1, t2);
  }
  return oa.x(L, kXC);
}

namespace {

// The OA traceback's choices, each as HMMER's select_* makes it (ties and
// impossible transitions included).
class OaTraceback {
 public:
  OaTraceback(const OddsProfile& p, const DpMatrix& pp, const DpMatrix& oa) : p_(p), pp_(pp), oa_(oa) {}

  int before_m(int i, int k) const {
    const float xb = oa_.x(i - 1, kXB);
    const CellTransitions<float>& t = p_.core.transitions[k - 1];
    float path[4];
    path[3] = t.bm == 0.0f ? -kInfinity : xb;
    path[0] = t.mm == 0.0f || k == 1 ? -kInfinity : oa_.m(i - 1, k - 1);
    path[1] = t.im == 0.0f || k == 1 ? -kInfinity : oa_.ins(i - 1, k - 1);
    path[2] = t.dm == 0.0f || k == 1 ? -kInfinity : oa_.d(i - 1, k - 1);
    static constexpr int kStates[4] = {kTraceM, kTraceI, kTraceD, kTraceB};
    return kStates[std::max_element(path, path + 4) - path];  // first of equal maxima
  }
  int before_d(int i, int k) const {
    if (k == 1) return kTraceM;  // both paths impossible; HMMER's tie goes to M
    const CellTransitions<float>& from = p_.core.transitions[k - 2];
    const float via_m = from.md == 0.0f ? -kInfinity : oa_.m(i, k - 1);
    const float via_d = from.dd == 0.0f ? -kInfinity : oa_.d(i, k - 1);
    return via_m >= via_d ? kTraceM : kTraceD;
  }
  int before_i(int i, int k) const {
    const CellTransitions<float>& t = p_.core.transitions[k - 1];
    const float via_m = t.mi == 0.0f ? -kInfinity : oa_.m(i - 1, k);
    const float via_i = t.ii == 0.0f ? -kInfinity : oa_.ins(i - 1, k);
    return via_m >= via_i ? kTraceM : kTraceI;
  }
  int before_c(int i) const {
    const float loop = p_.special.c_loop == 0.0f ? -kInfinity : oa_.x(i - 1, kXC) + pp_.x(i, kXC);
    const float end = p_.special.e_move == 0.0f ? -kInfinity : oa_.x(i, kXE);
    return loop > end ? kTraceC : kTraceE;
  }
  int before_j(int i) const {
    const float loop = p_.special.j_loop == 0.0f ? -kInfinity : oa_.x(i - 1, kXJ) + pp_.x(i, kXJ);
    const float end = p_.special.e_loop == 0.0f ? -kInfinity : oa_.x(i, kXE);
    return loop > end ? kTraceJ : kTraceE;
  }
  int before_b(int i) const {
    const float from_n = p_.special.n_move == 0.0f ? -kInfinity : oa_.x(i, kXN);
    const float from_j = p_.special.j_move == 0.0f ? -kInfinity : oa_.x(i, kXJ);
    return from_n > from_j ? kTraceN : kTraceJ;
  }
  // E's predecessor: the best M (ties to the first in striped order) or a
  // strictly better D.
  int before_e(int i, int& k) const {
    const int Q = oa_.Q();
    const float* row = oa_.row(i);
    float best = -kInfinity;
    int state = kTraceM;
    for (int q = 0; q < Q; ++q) {
      for (int z = 0; z < 4; ++z)
        if (cell(row, q, kCellM).lane[z] >= best) best = cell(row, q, kCellM).lane[z], state = kTraceM, k = z * Q + q + 1;
      for (int z = 0; z < 4; ++z)
        if (cell(row, q, kCellD).lane[z] > best) best = cell(row, q, kCellD).lane[z], state = kTraceD, k = z * Q + q + 1;
    }
    return state;
  }
  float posterior(int state, int previous, int k, int i) const {
    switch (state) {
      case kTraceM: return pp_.m(i, k);
      case kTraceI: return pp_.ins(i, k);
      case kTraceN: if (previous == state) return pp_.x(i, kXN); [[fallthrough]];
      case kTraceC: if (previous == state) return pp_.x(i, kXC); [[fallthrough]];
      case kTraceJ: if (previous == state) return pp_.x(i, kXJ); [[fallthrough]];
      default: return 0.0f;
    }
  }

 private:
  const OddsProfile& p_;
  const DpMatrix& pp_;
  const DpMatrix& oa_;
};

}  // namespace

Trace optimal_accuracy_trace(const OddsProfile& p, const DpMatrix& pp, const DpMatrix& oa) {
  const OaTraceback choose(p, pp, oa);
  Trace reversed;  // built from the end, flipped at the end
  int i = oa.L(), k = 0;
  reversed.append(kTraceT, k, i, 0.0f);
  reversed.append(kTraceC, k, i, 0.0f);
  int s0 = kTraceC;
  while (s0 != kTraceS) {
    int s1 = kTraceBogus;
    switch (s0) {
      case kTraceM: s1 = choose.before_m(i, k); --k, --i; break;
      case kTraceD: s1 = choose.before_d(i, k); --k; break;
      case kTraceI: s1 = choose.before_i(i, k); --i; break;
      case kTraceN: s1 = i == 0 ? kTraceS : kTraceN; break;
      case kTraceC: s1 = choose.before_c(i); break;
      case kTraceJ: s1 = choose.before_j(i); break;
      case kTraceE: s1 = choose.before_e(i, k); break;
      case kTraceB: s1 = choose.before_b(i); break;
    }
    reversed.append(static_cast<TraceState>(s1), k, i, choose.posterior(s1, s0, k, i));
    if ((s1 == kTraceN || s1 == kTraceJ || s1 == kTraceC) && s1 == s0) --i;
    s0 = s1;
  }
  reversed.reverse();
  return reversed;
}

void Trace::append(TraceState s, int node, int residue, float posterior) {
  const bool repeats = !state.empty() && state.back() == s;
  switch (s) {
    case kTraceN: case kTraceC: case kTraceJ:
      node = 0;
      if (!repeats) residue = 0, posterior = 0.0f;
      break;
    case kTraceD: residue = 0, posterior = 0.0f; break;
    case kTraceM: case kTraceI: break;
    default: node = 0, residue = 0, posterior = 0.0f; break;
  }
  state.push_back(s), k.push_back(node), i.push_back(residue), pp.push_back(posterior);
}

void Trace::reverse() {
  const int n = size();
  for (int z = 0; z + 1 < n; ++z) {
    const bool emitting_special = state[z] == kTraceN || state[z] == kTraceC || state[z] == kTraceJ;
    if (emitting_special && state[z + 1] == state[z] && i[z] == 0 && i[z + 1] > 0) {
      i[z] = i[z + 1], i[z + 1] = 0;
      pp[z] = pp[z + 1], pp[z + 1] = 0.0f;
    }
  }
  std::reverse(state.begin(), state.end());
  std::reverse(k.begin(), k.end());
  std::reverse(i.begin(), i.end());
  std::reverse(pp.begin(), pp.end());
}

void Trace::index_domains() {
  domains.clear();
  for (int z = 0; z < size(); ++z) {
    switch (state[z]) {
      case kTraceB: domains.push_back(TraceDomain{z, 0, 0, 0, 0, 0}); break;
      case kTraceM: {
        TraceDomain& d = domains.back();
        if (d.sqfrom == 0) d.sqfrom = i[z];
        if (d.hmmfrom == 0) d.hmmfrom = k[z];
        d.sqto = i[z], d.hmmto = k[z];
        break;
      }
      case kTraceE: domains.back().tto = z; break;
      default: break;
    }
  }
}

float hmmer_flogsum(float a, float b) {
  static const std::vector<float> table = [] {
    std::vector<float> t(16000);
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<float>(std::log(1. + std::exp(-static_cast<double>(i) / 1000.)));
    return t;
  }();
  const float high = std::max(a, b), low = std::min(a, b);
  if (low == -kInfinity || (high - low) >= 15.7f) return high;
  return high + table[static_cast<int>((high - low) * 1000.f)];
}

}  // namespace helix::hmm
