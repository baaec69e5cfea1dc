// hmm_dp.cpp: HMMER 3.3.2's optimized Forward, Backward, posterior decoding,
// null2 and optimal-accuracy recursions, in scalar C++ that adds and
// multiplies in the same order as its 4-lane SSE code, so the floats match
// (see hmm_dp.h). V4 stands for one SSE vector: lane z of segment q is node
// k = q + 1 + z * Q.
#include "hmm_dp.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hmm_float_mode.h"

namespace helix::hmm {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

using namespace rows;

V4 max(const V4& a, const V4& b) {
  V4 r;
  for (int z = 0; z < 4; ++z) r.lane[z] = std::max(a.lane[z], b.lane[z]);
  return r;
}
// Keeps a's lanes where the transition t is possible (t > 0), else `otherwise`.
V4 where_possible(const V4& t, const V4& a, float otherwise) {
  V4 r;
  for (int z = 0; z < 4; ++z) r.lane[z] = t.lane[z] > 0.0f ? a.lane[z] : otherwise;
  return r;
}
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

}  // namespace

SpecialOdds special_odds(int L, bool multihit) {
  SpecialOdds x;
  x.e_move = multihit ? 0.5f : 1.0f;
  x.e_loop = multihit ? 0.5f : 0.0f;
  const float nj = multihit ? 1.0f : 0.0f;  // expected J visits
  const float move = (2.0f + nj) / (static_cast<float>(L) + 2.0f + nj);
  x.n_move = x.j_move = x.c_move = move;
  x.n_loop = x.j_loop = x.c_loop = 1.0f - move;
  return x;
}

OddsProfile odds_profile(const SearchProfile& profile, int L, bool multihit) {
  OddsProfile odds;
  odds.special = special_odds(L, multihit);
  odds.core = ForwardView{profile.M, profile.fwd_match.data(), profile.fwd_transitions.data(), odds.special.e_loop,
                          odds.special.e_move};
  odds.length_model = L;
  odds.multihit = multihit;
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
  fwd.resize(p.core.M, L, every_row);
  fwd.has_own_scales = true;
  return forward_rows(codes, L, p.striped(), fwd.cells(), every_row, fwd.specials(), fwd.total_scale);
}

float backward_matrix(const std::uint8_t* codes, int L, const OddsProfile& p, const DpMatrix& fwd, DpMatrix& bck,
                      bool every_row) {
  bck.resize(p.core.M, L, every_row);
  return backward_rows(codes, L, p.striped(), fwd.specials(), bck.cells(), every_row, bck.specials(),
                       bck.total_scale, bck.has_own_scales);
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

DomainPosteriors domain_decoding(const SpecialOdds& sx, const DpMatrix& fwd, const DpMatrix& bck) {
  const int L = fwd.L();
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

DomainPosteriors whole_target_posteriors(const SearchProfile& profile, const std::uint8_t* codes, int L) {
  const HmmerFloatMode hmmer_mode;
  const OddsProfile multihit = odds_profile(profile, L, true);
  DpMatrix fwd, bck;  // specials of every row, cells of two
  forward_matrix(codes, L, multihit, fwd, false);
  backward_matrix(codes, L, multihit, fwd, bck, false);
  return domain_decoding(multihit.special, fwd, bck);
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

float easel_float_sum(const float* values, int n) {
  float sum = 0.0f, compensation = 0.0f;
  for (int i = 0; i < n; ++i) {
    const float y = values[i] - compensation;
    const float t = sum + y;
    compensation = (t - sum) - y;
    sum = t;
  }
  return sum;
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
