// hmm_dp.h: the full dynamic-programming matrices behind hmmsearch's domain
// definition: what HMMER 3.3.2 computes after
// a target passes the Forward filter.
//
// Contents:
//   OddsProfile    the search profile in odds ratios for one length model and
//                  one mode (multihit for the whole target and for sampling,
//                  unihit for rescoring one envelope), as p7_oprofile's
//                  ReconfigLength / ReconfigMultihit / ReconfigUnihit set it.
//   DpMatrix       M, D, I cells for rows 0..L and nodes 1..M, the special
//                  states E, N, J, B, C per row, and the row scale factors of
//                  HMMER's sparse rescaling.
//   Trace          a state path (HMMER's P7_TRACE), with its domain index.
//   forward_matrix / backward_matrix, posterior_decoding, domain_decoding,
//   null2_by_expectation, optimal_accuracy / optimal_accuracy_trace.
//
// Values are odds ratios (probability over the null model's), rescaled per
// row as HMMER's optimized Forward does (a row whose E value exceeds 1e4 is
// divided by it); scores are in nats.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "hmm_dp_rows.h"
#include "hmm_envelope_rows.h"
#include "hmm_filters.h"
#include "hmm_profile.h"

namespace helix::hmmsearch {

// The profile's core odds (shared by every mode and length) and the special
// states' transitions for one of them.
struct OddsProfile {
  ForwardView core;  // match emission odds and transitions of the profile (insert odds are 1)
  SpecialOdds special;
  int length_model = 0;  // the L the specials were configured for
  bool multihit = true;
  // The core odds in HMMER's striped vectors (p7_oprofile's tfv and rfv):
  // per segment q the lanes of B->M, M->M, I->M, D->M, M->D, M->I, I->I at
  // [(q * 7 + t) * 4 + lane], then D->D at [(7 * Q + q) * 4 + lane]; match
  // odds of code x at [(x * Q + q) * 4 + lane]. Lanes past M hold 0.
  std::vector<float> striped_transitions, striped_match;

  StripedOdds striped() const {
    return {core.M, forward_segments(core.M), striped_transitions.data(), striped_match.data(), special};
  }
};

// hmmsearch's configurations: multihit (E -> J = E -> C = 1/2, one expected
// J per target) or unihit (E -> C = 1, no J), for a target of length L.
OddsProfile odds_profile(const SearchProfile& profile, int L, bool multihit);
// Just the special states' part of it.
SpecialOdds special_odds(int L, bool multihit);

// Cells are stored in HMMER's striped order (node k in segment (k-1) % Q,
// lane (k-1) / Q, Q = forward_segments(M)) so that the recursions can add
// in HMMER's order; the accessors take plain (i, k).
class DpMatrix {
 public:
  // every_row false keeps the cells of two rows only (row i in slot i % 2):
  // enough for a parser pass (HMMER's ForwardParser/BackwardParser), whose
  // callers need only the special states of every row.
  void resize(int M, int L, bool every_row = true);
  int M() const { return M_; }
  int L() const { return L_; }
  int Q() const { return Q_; }

  // Cells of row i = 0..L and node k = 1..M.
  float& m(int i, int k) { return cells_[index(i, k)]; }
  float& d(int i, int k) { return cells_[index(i, k) + 4]; }
  float& ins(int i, int k) { return cells_[index(i, k) + 8]; }
  float m(int i, int k) const { return cells_[index(i, k)]; }
  float d(int i, int k) const { return cells_[index(i, k) + 4]; }
  float ins(int i, int k) const { return cells_[index(i, k) + 8]; }
  // Special states of row i; x(i, kXScale) is the factor row i was divided
  // by (1 when it was not rescaled).
  float& x(int i, int cell) { return specials_[static_cast<std::size_t>(i) * kSpecialCells + cell]; }
  float x(int i, int cell) const { return specials_[static_cast<std::size_t>(i) * kSpecialCells + cell]; }
  // Row i as HMMER lays it out: [(q * 3 + {M, D, I}) * 4 + lane].
  float* row(int i) { return cells_.data() + slot(i) * 12 * Q_; }
  const float* row(int i) const { return cells_.data() + slot(i) * 12 * Q_; }

  // The storage as hmm_dp_rows.h's recursions take it.
  float* cells() { return cells_.data(); }
  const float* cells() const { return cells_.data(); }
  float* specials() { return specials_.data(); }
  const float* specials() const { return specials_.data(); }
  bool every_row() const { return every_row_; }

  float total_scale = 0;        // sum of log(scale) over the rows, nats
  bool has_own_scales = true;   // false for a Backward matrix that reuses Forward's scales

 private:
  std::size_t slot(int i) const { return static_cast<std::size_t>(every_row_ ? i : i & 1); }
  std::size_t index(int i, int k) const {
    const int q = (k - 1) % Q_, lane = (k - 1) / Q_;
    return slot(i) * 12 * Q_ + q * 12 + lane;
  }
  int M_ = 0, L_ = 0, Q_ = 0;
  bool every_row_ = true;
  std::vector<float> cells_;
  std::vector<float> specials_;  // [i * kSpecialCells + cell]
};

// Forward over codes[0..L-1] (the target's residues i = 1..L), every cell
// kept; returns the Forward score in nats (log odds, with the row scales).
// every_row false: the parser (specials of every row, cells of the last two).
float forward_matrix(const std::uint8_t* codes, int L, const OddsProfile& profile, DpMatrix& fwd,
                     bool every_row = true);
// Backward over the same residues, with the row scale factors `fwd` chose
// (so that fwd * bck gives posteriors); returns the Backward score in nats.
float backward_matrix(const std::uint8_t* codes, int L, const OddsProfile& profile, const DpMatrix& fwd,
                      DpMatrix& bck, bool every_row = true);

// Posterior probability of every cell (M, I per node; N, J, C per row: the
// probability the state emitted residue i). False when a value overflowed
// (HMMER's eslERANGE: the envelope is then skipped as repetitive garbage).
bool posterior_decoding(const OddsProfile& profile, const DpMatrix& fwd, const DpMatrix& bck, DpMatrix& pp);

// Per residue i = 1..L: mocc[i], the probability that i is inside a domain;
// btot[i] and etot[i], the expected numbers of domain starts (B) and ends
// (E) at or before i. Index 0 holds 0.
struct DomainPosteriors {
  std::vector<float> mocc, btot, etot;
};
// From the two passes' special rows (decode_domain_rows, hmm_dp_rows.h,
// which the GPU engine runs on the device).
DomainPosteriors domain_decoding(const SpecialOdds& special, const DpMatrix& fwd, const DpMatrix& bck);
// Domain definition's first step for a whole target: the multihit parser
// passes (Forward, then Backward with its scales) and domain_decoding.
DomainPosteriors whole_target_posteriors(const SearchProfile& profile, const std::uint8_t* codes, int L);

// HMMER's null2 model for one envelope, from its posterior matrix: the
// expected emission odds of each residue code (degenerate codes averaged).
std::array<float, kCodes> null2_by_expectation(const OddsProfile& profile, const DpMatrix& pp);

// A state path through the profile (HMMER's P7_TRACE), its states as
// hmm_envelope_rows.h numbers them; k is the node (0 for specials), i the
// residue emitted (0 when none), pp its posterior probability (OA traces only).
struct TraceDomain {
  int tfrom = 0, tto = 0;      // trace positions of its B and E
  int sqfrom = 0, sqto = 0;    // first and last residue in a match or insert
  int hmmfrom = 0, hmmto = 0;  // first and last node in a match
};

struct Trace {
  std::vector<std::uint8_t> state;
  std::vector<int> k, i;
  std::vector<float> pp;
  std::vector<TraceDomain> domains;  // filled by index_domains()

  // Appends a state as HMMER's p7_trace_AppendWithPP does: N, C and J carry
  // the residue (and its posterior) only when they follow themselves (they
  // emit on the transition), D keeps only its node, S/B/E/T neither.
  void append(TraceState s, int node, int residue, float posterior = 0.0f);
  // HMMER's p7_trace_Reverse, for traces built from the end: moves each
  // N/C/J residue to the first of two equal states, then reverses the path.
  void reverse();
  int size() const { return static_cast<int>(state.size()); }
  // HMMER's p7_trace_Index: one TraceDomain per B..E segment.
  void index_domains();
};

// Optimal accuracy: the path that maximizes the summed posterior of the
// residues it aligns (units: expected correctly aligned residues), in the
// profile's mode; and its traceback, with each residue's posterior.
float optimal_accuracy(const OddsProfile& profile, const DpMatrix& pp, DpMatrix& oa);
Trace optimal_accuracy_trace(const OddsProfile& profile, const DpMatrix& pp, const DpMatrix& oa);
// The path of the OA traceback's steps (hmm_envelope_rows.h), as HMMER
// builds it: each appended, then the whole reversed.
Trace trace_of_steps(const TraceStep* steps, int count);
// null2 odds of every code from those of the 20 residues: degenerate codes
// get the plain mean of their residues' (Easel's FAvgScVec), the rest 1.
std::array<float, kCodes> complete_null2(const float* residue_odds);


// HMMER's table-driven log(e^a + e^b) (p7_FLogsum, 0.001-nat steps): the
// null2 bias terms go through it, so its rounding shows in printed scores.
float hmmer_flogsum(float a, float b);

}  // namespace helix::hmmsearch
