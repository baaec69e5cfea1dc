// hmm_dp.cpp: HMMER 3.3.2's optimized Forward, Backward, posterior decoding,
// null2 and optimal-accuracy recursions, in scalar C++ that adds and
// multiplies in the same order as its 4-lane SSE code, so the floats match
// (see hmm_dp.h). V4 stands for one SSE vector: lane z of segment q is node
// k = q + 1 + z * Q.
#include "hmm_dp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "hmm_float_mode.h"

namespace helix::hmmsearch {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

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
  pp.resize(fwd.M(), fwd.L());
  const DpMatrix& f = fwd;
  const DpMatrix& b = bck;
  return posterior_rows(p.striped(), fwd.L(), const_cast<DpMatrix&>(f).cells(), f.specials(),
                        const_cast<DpMatrix&>(b).cells(), b.specials(), bck.has_own_scales, pp.cells(), pp.specials());
}

DomainPosteriors domain_decoding(const SpecialOdds& sx, const DpMatrix& fwd, const DpMatrix& bck) {
  const int L = fwd.L();
  DomainPosteriors post;
  post.mocc.resize(L + 1), post.btot.resize(L + 1), post.etot.resize(L + 1);
  decode_domain_rows(sx, L, fwd.specials(), bck.specials(), bck.has_own_scales, post.mocc.data(), post.btot.data(),
                     post.etot.data());
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
  std::vector<float> scratch(8 * static_cast<std::size_t>(pp.Q()));
  float residue_odds[kResidues];
  null2_residue_odds(p.striped(), pp.L(), const_cast<DpMatrix&>(pp).cells(), pp.specials(), scratch.data(),
                     residue_odds);
  return complete_null2(residue_odds);
}

std::array<float, kCodes> complete_null2(const float* residue_odds) {
  std::array<float, kCodes> null2{};
  for (int x = 0; x < kResidues; ++x) null2[x] = residue_odds[x];
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
  oa.resize(pp.M(), pp.L());
  return optimal_accuracy_rows(p.striped(), pp.L(), const_cast<DpMatrix&>(pp).cells(), pp.specials(), oa.cells(),
                               oa.specials());
}

Trace optimal_accuracy_trace(const OddsProfile& p, const DpMatrix& pp, const DpMatrix& oa) {
  // A unihit path fits envelope_trace_room(); a multihit one may need more.
  std::vector<TraceStep> steps(envelope_trace_room(oa.L(), oa.M()));
  for (;;) {
    const int count = oa_trace_steps(p.striped(), oa.L(), const_cast<DpMatrix&>(pp).cells(), pp.specials(),
                                     const_cast<DpMatrix&>(oa).cells(), oa.specials(), steps.data(),
                                     static_cast<int>(steps.size()));
    if (count >= 0) return trace_of_steps(steps.data(), count);
    if (steps.size() > 4 * (static_cast<std::size_t>(oa.L()) + 1) * (oa.M() + 1) + 64)
      throw std::logic_error("optimal_accuracy_trace: the path outgrew every bound");
    steps.resize(4 * steps.size());
  }
}

Trace trace_of_steps(const TraceStep* steps, int count) {
  Trace trace;
  for (int n = 0; n < count; ++n)
    trace.append(static_cast<TraceState>(steps[n].state), steps[n].k, steps[n].i, steps[n].pp);
  trace.reverse();
  return trace;
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

}  // namespace helix::hmmsearch
