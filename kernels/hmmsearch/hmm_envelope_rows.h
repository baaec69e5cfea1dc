// hmm_envelope_rows.h: the rescoring of one envelope in hmmsearch's domain
// definition, written once for the CPU reference (hmm_dp.cpp, hmm_domains.cpp)
// and the CUDA engine (hmm_gpu_envelopes.cu): every function is
// __host__ __device__ and works on raw striped rows (hmm_dp_rows.h's layout),
// so both give the same floats. In HMMER 3.3.2 this is rescore_isolated_domain:
// Forward and Backward over the envelope alone (unihit), posterior decoding
// (p7_Decoding), the optimal-accuracy DP and its traceback (p7_OptimalAccuracy,
// p7_OATrace) and the null2 model by expectation (p7_Null2_ByExpectation),
// each adding and multiplying in the order of HMMER's 4-lane SSE code.
//
// Every function takes rows of every residue: rows + i * 12Q, specials
// x + i * kSpecialCells. The decoding may write over Backward's rows and the
// optimal-accuracy DP over Forward's (each row is read before it is written),
// which is how rescore_envelope_rows() keeps two matrices per envelope.
#pragma once
#include <cstdint>

#include "hmm_alphabet.h"
#include "hmm_dp_rows.h"

namespace helix::hmmsearch {

// A state path's states, in HMMER's numbering (P7_TRACE).
enum TraceState : std::uint8_t {
  kTraceBogus = 0, kTraceM = 1, kTraceD = 2, kTraceI = 3, kTraceS = 4, kTraceN = 5, kTraceB = 6,
  kTraceE = 7, kTraceC = 8, kTraceT = 9, kTraceJ = 10
};

// One p7_trace_AppendWithPP call of the OA traceback, in the order the
// traceback makes them (from the end of the path); Trace::append and
// Trace::reverse (hmm_dp.h) turn a list of them into the path.
struct TraceStep {
  std::uint8_t state = kTraceBogus;
  int k = 0, i = 0;
  float pp = 0;
};

// What rescoring one envelope gives. `ok` is false when the posteriors
// overflowed (HMMER's eslERANGE: the envelope is skipped as repetitive
// garbage) or, which cannot happen for a unihit path, when the traceback
// outgrew its room; then nothing else is set.
struct EnvelopeScores {
  int ok = 0;
  float envsc = 0;                 // Forward score of the envelope alone, nats
  float oasc = 0;                  // expected correctly aligned residues
  int steps = 0;                   // TraceSteps written
  float null2_residues[kResidues]; // null2 odds of the 20 residues (when asked)
};

// Room for the OA traceback of an envelope of L residues, unihit: T, S, E,
// B, at most L + 2 N/C states and L M/I states in all, at most M D states.
HELIX_HMM_HD int envelope_trace_room(int L, int M) { return L + M + 16; }

namespace rows {

// std::max and HMMER's masked transitions, lane by lane.
HELIX_HMM_HD float max_of(float a, float b) { return a < b ? b : a; }
HELIX_HMM_HD V4 max_of(const V4& a, const V4& b) {
  return {{max_of(a.lane[0], b.lane[0]), max_of(a.lane[1], b.lane[1]), max_of(a.lane[2], b.lane[2]),
           max_of(a.lane[3], b.lane[3])}};
}
// Keeps a's lanes where the transition t is possible (t > 0), else `otherwise`.
HELIX_HMM_HD V4 where_possible(const V4& t, const V4& a, float otherwise) {
  V4 r;
  for (int z = 0; z < 4; ++z) r.lane[z] = t.lane[z] > 0.0f ? a.lane[z] : otherwise;
  return r;
}
HELIX_HMM_HD bool is_infinite(float x) { return x > 3.40282347e38f || x < -3.40282347e38f; }
constexpr float kMinusInfinity = -__builtin_huge_valf();

// Node k's segment q = (k - 1) % Q and lane z = (k - 1) / Q, for
// 1 <= k <= 4Q: three comparisons instead of a division by a Q known only at
// run time (a long sequence of instructions on the GPU, where the walks and
// tracebacks look up nodes at every step).
struct NodeStripe {
  int q, z;
};
HELIX_HMM_HD NodeStripe node_stripe(int Q, int k) {
  const int c = k - 1;
  const int z = (c >= Q ? 1 : 0) + (c >= 2 * Q ? 1 : 0) + (c >= 3 * Q ? 1 : 0);
  return {c - z * Q, z};
}
// Node k's transition t (kTBM ... kTII) and D->D, from the striped vectors.
HELIX_HMM_HD float node_transition(const StripedOdds& p, int k, int t) {
  const NodeStripe s = node_stripe(p.Q, k);
  return p.transitions[(s.q * 7 + t) * 4 + s.z];
}
HELIX_HMM_HD float node_dd(const StripedOdds& p, int k) {
  const NodeStripe s = node_stripe(p.Q, k);
  return p.transitions[(7 * p.Q + s.q) * 4 + s.z];
}
// Cell (i, k) of kind M, D or I in rows of every residue.
HELIX_HMM_HD float node_cell(const float* rows, int Q, int i, int k, int kind) {
  const NodeStripe s = node_stripe(Q, k);
  return rows[static_cast<std::size_t>(i) * 12 * Q + s.q * 12 + kind * 4 + s.z];
}

}  // namespace rows

// Decoding's special cells of row i: N, J and C emitting residue i (from
// Forward's row i - 1 and Backward's row i), E, B and the scale 0. `px` may
// be `bx` (each is read before it is written).
HELIX_HMM_HD void posterior_specials(const SpecialOdds& sx, const float* fx, const float* bx, float scale_product,
                                     float* px) {
  px[kXN] = fx[kXN] * bx[kXN] * sx.n_loop * scale_product;
  px[kXJ] = fx[kXJ] * bx[kXJ] * sx.j_loop * scale_product;
  px[kXC] = fx[kXC] * bx[kXC] * sx.c_loop * scale_product;
  px[kXE] = 0.0f, px[kXB] = 0.0f, px[kXScale] = 0.0f;
}

// p7_Decoding: the posterior probability of every M and I cell and of N, J,
// C emitting residue i; D, E and B get 0, as does row 0. False when the
// running scale product overflowed.
HELIX_HMM_HD bool posterior_rows(const StripedOdds& p, int L, const float* fwd, const float* fwd_x, const float* bck,
                                 const float* bck_x, bool bck_own_scales, float* pp, float* pp_x) {
  using namespace rows;
  const int Q = p.Q;
  const SpecialOdds& sx = p.special;
  float scale_product = 1.0f / bck_x[kXN];
  for (int i = 1; i <= L; ++i) {
    const float* f = row_of(const_cast<float*>(fwd), i, Q, true);
    const float* b = row_of(const_cast<float*>(bck), i, Q, true);
    float* out = row_of(pp, i, Q, true);
    const V4 total = splat(scale_product * fwd_x[i * kSpecialCells + kXScale]);
    for (int q = 0; q < Q; ++q) {
      cell(out, q, kCellM) = (cell(f, q, kCellM) * cell(b, q, kCellM)) * total;
      cell(out, q, kCellD) = splat(0.0f);
      cell(out, q, kCellI) = (cell(f, q, kCellI) * cell(b, q, kCellI)) * total;
    }
    const float bscale = bck_x[i * kSpecialCells + kXScale];
    posterior_specials(sx, fwd_x + (i - 1) * kSpecialCells, bck_x + i * kSpecialCells, scale_product,
                       pp_x + i * kSpecialCells);
    if (bck_own_scales) scale_product *= fwd_x[i * kSpecialCells + kXScale] / bscale;
  }
  for (int c = 0; c < 12 * Q; ++c) pp[c] = 0.0f;
  for (int c = 0; c < kSpecialCells; ++c) pp_x[c] = 0.0f;
  return !is_infinite(scale_product);
}

// p7_Null2_ByExpectation's odds of the 20 residues (the degenerate codes are
// averaged from them on the host): each emitting state's expected use over
// the envelope, as frequencies, times its emission odds. `scratch` holds 8Q
// floats.
HELIX_HMM_HD void null2_residue_odds(const StripedOdds& p, int L, const float* pp, const float* pp_x, float* scratch,
                                     float* null2) {
  using namespace rows;
  const int Q = p.Q;
  V4* m_use = reinterpret_cast<V4*>(scratch);
  V4* i_use = m_use + Q;
  const float* first = row_of(const_cast<float*>(pp), 1, Q, true);
  for (int q = 0; q < Q; ++q) m_use[q] = cell(first, q, kCellM), i_use[q] = cell(first, q, kCellI);
  float n_use = pp_x[kSpecialCells + kXN], c_use = pp_x[kSpecialCells + kXC], j_use = pp_x[kSpecialCells + kXJ];
  for (int i = 2; i <= L; ++i) {
    const float* row = row_of(const_cast<float*>(pp), i, Q, true);
    for (int q = 0; q < Q; ++q) {
      m_use[q] = cell(row, q, kCellM) + m_use[q];
      i_use[q] = cell(row, q, kCellI) + i_use[q];
    }
    const float* x = pp_x + i * kSpecialCells;
    n_use += x[kXN], c_use += x[kXC], j_use += x[kXJ];
  }
  const float norm = static_cast<float>(1.0 / static_cast<float>(L));
  for (int q = 0; q < Q; ++q) m_use[q] = m_use[q] * splat(norm), i_use[q] = i_use[q] * splat(norm);
  n_use *= norm, c_use *= norm, j_use *= norm;
  const float outside = n_use + c_use + j_use;
  for (int x = 0; x < kResidues; ++x) {
    V4 sum = splat(0.0f);
    for (int q = 0; q < Q; ++q) {
      sum = sum + m_use[q] * match_odds(p, x, q);
      sum = sum + i_use[q];  // insert odds are 1
    }
    null2[x] = horizontal_sum(sum) + outside;
  }
}

// The optimal-accuracy DP's special cells of a row, from the row before's
// (`before`), the row's posteriors (`px`) and its E.
HELIX_HMM_HD void optimal_accuracy_specials(const SpecialOdds& sx, const float* before, const float* px, float xE,
                                            float* x) {
  using rows::max_of;
  x[kXE] = xE;
  // As HMMER: a special path whose transition is impossible counts 0.
  float t1 = sx.j_loop == 0.0f ? 0.0f : before[kXJ] + px[kXJ];
  float t2 = sx.e_loop == 0.0f ? 0.0f : xE;
  x[kXJ] = max_of(t1, t2);
  t1 = sx.c_loop == 0.0f ? 0.0f : before[kXC] + px[kXC];
  t2 = sx.e_move == 0.0f ? 0.0f : xE;
  x[kXC] = max_of(t1, t2);
  x[kXN] = sx.n_loop == 0.0f ? 0.0f : before[kXN] + px[kXN];
  t1 = sx.n_move == 0.0f ? 0.0f : x[kXN];
  t2 = sx.j_move == 0.0f ? 0.0f : x[kXJ];
  x[kXB] = max_of(t1, t2);
  x[kXScale] = 0.0f;
}

// p7_OptimalAccuracy: the path maximizing the summed posteriors of the
// residues it aligns, in the profile's mode. Returns its value (C at row L).
HELIX_HMM_HD float optimal_accuracy_rows(const StripedOdds& p, int L, const float* pp, const float* pp_x, float* oa,
                                         float* oa_x) {
  using namespace rows;
  const int Q = p.Q;
  const SpecialOdds& sx = p.special;
  const V4 minus_inf = splat(kMinusInfinity);
  for (int q = 0; q < Q; ++q) cell(oa, q, kCellM) = cell(oa, q, kCellI) = cell(oa, q, kCellD) = minus_inf;
  oa_x[kXE] = kMinusInfinity, oa_x[kXN] = 0.0f, oa_x[kXJ] = kMinusInfinity, oa_x[kXB] = 0.0f;
  oa_x[kXC] = kMinusInfinity, oa_x[kXScale] = 0.0f;
  for (int i = 1; i <= L; ++i) {
    const float* prev = row_of(oa, i - 1, Q, true);
    float* cur = row_of(oa, i, Q, true);
    const float* post = row_of(const_cast<float*>(pp), i, Q, true);
    const float* px = pp_x + i * kSpecialCells;
    const float* before = oa_x + (i - 1) * kSpecialCells;
    float* x = oa_x + i * kSpecialCells;
    V4 dcv = minus_inf, xEv = minus_inf;
    const V4 xBv = splat(before[kXB]);
    V4 mpv = right_shift(cell(prev, Q - 1, kCellM), kMinusInfinity);
    V4 dpv = right_shift(cell(prev, Q - 1, kCellD), kMinusInfinity);
    V4 ipv = right_shift(cell(prev, Q - 1, kCellI), kMinusInfinity);
    // A possible transition's source keeps its value; an impossible one gives
    // 0 (HMMER masks with a compare, so "impossible" reads as 0, not -inf).
    for (int q = 0; q < Q; ++q) {
      V4 sv = where_possible(transition(p, q, kTBM), xBv, 0.0f);
      sv = max_of(sv, where_possible(transition(p, q, kTMM), mpv, 0.0f));
      sv = max_of(sv, where_possible(transition(p, q, kTIM), ipv, 0.0f));
      sv = max_of(sv, where_possible(transition(p, q, kTDM), dpv, 0.0f));
      sv = sv + cell(post, q, kCellM);
      xEv = max_of(xEv, sv);
      mpv = cell(prev, q, kCellM), dpv = cell(prev, q, kCellD), ipv = cell(prev, q, kCellI);
      cell(cur, q, kCellM) = sv;
      cell(cur, q, kCellD) = dcv;
      dcv = where_possible(transition(p, q, kTMD), sv, 0.0f);
      V4 iv = where_possible(transition(p, q, kTMI), mpv, 0.0f);
      iv = max_of(iv, where_possible(transition(p, q, kTII), ipv, 0.0f));
      cell(cur, q, kCellI) = iv + cell(post, q, kCellI);
    }
    dcv = right_shift(dcv, kMinusInfinity);
    for (int q = 0; q < Q; ++q) {
      cell(cur, q, kCellD) = max_of(dcv, cell(cur, q, kCellD));
      dcv = where_possible(dd_transition(p, q), cell(cur, q, kCellD), 0.0f);
    }
    for (int pass = 1; pass < 4; ++pass) {
      dcv = right_shift(dcv, kMinusInfinity);
      for (int q = 0; q < Q; ++q) {
        cell(cur, q, kCellD) = max_of(dcv, cell(cur, q, kCellD));
        dcv = where_possible(dd_transition(p, q), dcv, 0.0f);
      }
    }
    for (int q = 0; q < Q; ++q) xEv = max_of(xEv, cell(cur, q, kCellD));
    const float xE = max_of(max_of(xEv.lane[0], xEv.lane[1]), max_of(xEv.lane[2], xEv.lane[3]));
    optimal_accuracy_specials(sx, before, px, xE, x);
  }
  return oa_x[L * kSpecialCells + kXC];
}

namespace rows {

// The OA traceback's choices, each as HMMER's select_* makes it (ties and
// impossible transitions included).
struct OaChoices {
  const StripedOdds& p;
  const float *pp, *pp_x, *oa, *oa_x;

  HELIX_HMM_HD float x(const float* specials, int i, int cell) const { return specials[i * kSpecialCells + cell]; }
  HELIX_HMM_HD int before_m(int i, int k) const {
    float path[4];  // M, I, D, B: the first of equal maxima wins
    path[3] = node_transition(p, k, kTBM) == 0.0f ? kMinusInfinity : x(oa_x, i - 1, kXB);
    path[0] = node_transition(p, k, kTMM) == 0.0f || k == 1 ? kMinusInfinity : node_cell(oa, p.Q, i - 1, k - 1, kCellM);
    path[1] = node_transition(p, k, kTIM) == 0.0f || k == 1 ? kMinusInfinity : node_cell(oa, p.Q, i - 1, k - 1, kCellI);
    path[2] = node_transition(p, k, kTDM) == 0.0f || k == 1 ? kMinusInfinity : node_cell(oa, p.Q, i - 1, k - 1, kCellD);
    const int states[4] = {kTraceM, kTraceI, kTraceD, kTraceB};
    int best = 0;
    for (int s = 1; s < 4; ++s)
      if (path[best] < path[s]) best = s;
    return states[best];
  }
  HELIX_HMM_HD int before_d(int i, int k) const {
    if (k == 1) return kTraceM;  // both paths impossible; HMMER's tie goes to M
    const float via_m = node_transition(p, k - 1, kTMD) == 0.0f ? kMinusInfinity : node_cell(oa, p.Q, i, k - 1, kCellM);
    const float via_d = node_dd(p, k - 1) == 0.0f ? kMinusInfinity : node_cell(oa, p.Q, i, k - 1, kCellD);
    return via_m >= via_d ? kTraceM : kTraceD;
  }
  HELIX_HMM_HD int before_i(int i, int k) const {
    const float via_m = node_transition(p, k, kTMI) == 0.0f ? kMinusInfinity : node_cell(oa, p.Q, i - 1, k, kCellM);
    const float via_i = node_transition(p, k, kTII) == 0.0f ? kMinusInfinity : node_cell(oa, p.Q, i - 1, k, kCellI);
    return via_m >= via_i ? kTraceM : kTraceI;
  }
  HELIX_HMM_HD int before_c(int i) const {
    const float loop = p.special.c_loop == 0.0f ? kMinusInfinity : x(oa_x, i - 1, kXC) + x(pp_x, i, kXC);
    const float end = p.special.e_move == 0.0f ? kMinusInfinity : x(oa_x, i, kXE);
    return loop > end ? kTraceC : kTraceE;
  }
  HELIX_HMM_HD int before_j(int i) const {
    const float loop = p.special.j_loop == 0.0f ? kMinusInfinity : x(oa_x, i - 1, kXJ) + x(pp_x, i, kXJ);
    const float end = p.special.e_loop == 0.0f ? kMinusInfinity : x(oa_x, i, kXE);
    return loop > end ? kTraceJ : kTraceE;
  }
  HELIX_HMM_HD int before_b(int i) const {
    const float from_n = p.special.n_move == 0.0f ? kMinusInfinity : x(oa_x, i, kXN);
    const float from_j = p.special.j_move == 0.0f ? kMinusInfinity : x(oa_x, i, kXJ);
    return from_n > from_j ? kTraceN : kTraceJ;
  }
  // E's predecessor: the best M (ties to the last in striped order) or a
  // strictly better D.
  HELIX_HMM_HD int before_e(int i, int& k) const {
    const int Q = p.Q;
    const float* row = row_of(const_cast<float*>(oa), i, Q, true);
    float best = kMinusInfinity;
    int state = kTraceM;
    for (int q = 0; q < Q; ++q) {
      for (int z = 0; z < 4; ++z)
        if (cell(row, q, kCellM).lane[z] >= best) best = cell(row, q, kCellM).lane[z], state = kTraceM, k = z * Q + q + 1;
      for (int z = 0; z < 4; ++z)
        if (cell(row, q, kCellD).lane[z] > best) best = cell(row, q, kCellD).lane[z], state = kTraceD, k = z * Q + q + 1;
    }
    return state;
  }
  // The posterior a state emitting residue i carries (N, C, J only when they
  // follow themselves: they emit on the transition).
  HELIX_HMM_HD float posterior(int state, int previous, int k, int i) const {
    if (state == kTraceM) return node_cell(pp, p.Q, i, k, kCellM);
    if (state == kTraceI) return node_cell(pp, p.Q, i, k, kCellI);
    if (previous != state) return 0.0f;
    if (state == kTraceN) return x(pp_x, i, kXN);
    if (state == kTraceC) return x(pp_x, i, kXC);
    if (state == kTraceJ) return x(pp_x, i, kXJ);
    return 0.0f;
  }
};

}  // namespace rows

// p7_OATrace: the optimal-accuracy path from its end, one TraceStep per
// state appended, into steps[0 .. room). Returns the number of steps, or -1
// when they would not fit.
HELIX_HMM_HD int oa_trace_steps(const StripedOdds& p, int L, const float* pp, const float* pp_x, const float* oa,
                                const float* oa_x, TraceStep* steps, int room) {
  const rows::OaChoices choose{p, pp, pp_x, oa, oa_x};
  int n = 0, i = L, k = 0;
  auto append = [&](int state, float posterior) {
    if (n < room) steps[n].state = static_cast<std::uint8_t>(state), steps[n].k = k, steps[n].i = i, steps[n].pp = posterior;
    ++n;
  };
  append(kTraceT, 0.0f);
  append(kTraceC, 0.0f);
  int s0 = kTraceC;
  while (s0 != kTraceS && n <= room) {
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
      default: n = room + 1; break;  // no state leads here: a broken matrix
    }
    if (n > room) break;
    append(s1, choose.posterior(s1, s0, k, i));
    if ((s1 == kTraceN || s1 == kTraceJ || s1 == kTraceC) && s1 == s0) --i;
    s0 = s1;
  }
  return n <= room ? n : -1;
}

// Where rescore_envelope_rows() works: two matrices of L + 1 rows
// (12Q floats each) and their specials, and room for the traceback.
struct EnvelopeScratch {
  float* fwd_rows;  // Forward, then the optimal-accuracy DP, then null2's 8Q floats
  float* fwd_x;
  float* bck_rows;  // Backward, then the posteriors
  float* bck_x;
  TraceStep* steps;
  int room;
};

// The whole rescoring of envelope codes[0 .. L-1] (profile `p` configured
// unihit for the target's length): Forward, Backward with Forward's scales,
// decoding, optimal accuracy and its traceback, and the null2 odds when
// `null2` is set.
HELIX_HMM_HD void rescore_envelope_rows(const std::uint8_t* codes, int L, const StripedOdds& p, bool null2,
                                        const EnvelopeScratch& s, EnvelopeScores& out) {
  out.ok = 0;
  float fwd_scale = 0.0f, bck_scale = 0.0f;
  bool own_scales = false;
  out.envsc = forward_rows(codes, L, p, s.fwd_rows, true, s.fwd_x, fwd_scale);
  backward_rows(codes, L, p, s.fwd_x, s.bck_rows, true, s.bck_x, bck_scale, own_scales);
  if (!posterior_rows(p, L, s.fwd_rows, s.fwd_x, s.bck_rows, s.bck_x, own_scales, s.bck_rows, s.bck_x)) return;
  out.oasc = optimal_accuracy_rows(p, L, s.bck_rows, s.bck_x, s.fwd_rows, s.fwd_x);
  out.steps = oa_trace_steps(p, L, s.bck_rows, s.bck_x, s.fwd_rows, s.fwd_x, s.steps, s.room);
  if (out.steps < 0) return;
  if (null2) null2_residue_odds(p, L, s.bck_rows, s.bck_x, s.fwd_rows, out.null2_residues);
  out.ok = 1;
}

}  // namespace helix::hmmsearch
