// hmm_profile.h: a profile HMM configured for search as hmmsearch 3.3.2
// configures it (local multihit, HMMER's amino background, the length model
// reset for each target), in the limited-precision forms its filters score
// with. Built to reproduce hmmsearch's filter decisions exactly, so every
// rounding step follows HMMER's (documented in docs/hmmsearch.md):
//   - probabilities p = expf(-x) of the file's -ln p, in float;
//   - generic scores in nats, float: match log(p / f) (degenerate codes the
//     background-weighted mean), transitions log t, local entry from match
//     occupancy, E->C = E->J = -ln 2; insert emissions score 0;
//   - MSV filter: unsigned bytes, 1/3-bit units, costs biased by the best
//     match score, base 190;
//   - Viterbi filter: signed 16-bit, 1/500-bit units, base 12000, N/C/J loops
//     0 and a -3 nat correction at the end;
//   - Forward: odds ratios in float, from Easel's SSE expf polynomial;
//   - the bias ("null2-free composition") filter: a two-state HMM whose
//     second state emits the model's average composition.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "hmm_alphabet.h"
#include "hmm_file.h"

namespace helix::hmmsearch {

// HMMER's amino-acid background frequencies (p7_AminoFrequencies).
extern const std::array<float, kResidues> kBackground;

// Transitions that reach and leave match state k (into: from B, M, I, D at
// k-1; out: to D and I at k+1 and k, I's loop, D to D at k+1); impossible
// transitions at the model's end are the format's "minus infinity".
template <typename T>
struct CellTransitions {
  T bm, mm, im, dm, md, mi, ii, dd;
};

struct BiasFilterHmm {
  float emission_odds[kCodes * 2] = {};  // [code * 2 + state]
  float biased_to_normal = 0, biased_loop = 0;     // transitions out of state 1
  float start_normal = 0.999f, start_biased = 0.001f;
};

struct SearchProfile {
  std::string name, accession, description;
  int M = 0;
  float msv_mu = 0, msv_lambda = 0, viterbi_mu = 0, viterbi_lambda = 0, forward_tau = 0, forward_lambda = 0;

  // MSV filter (bytes): cost of each match emission, [code * M + k - 1].
  std::vector<std::uint8_t> msv_cost;
  std::uint8_t msv_bias = 0, msv_tbm = 0, msv_tec = 0;
  static constexpr std::uint8_t kMsvBase = 190;

  // Viterbi filter (16-bit): emission scores [code * M + k - 1], transitions [k - 1].
  std::vector<std::int16_t> vit_match;
  std::vector<CellTransitions<std::int16_t>> vit_transitions;
  std::int16_t vit_e_loop = 0, vit_e_move = 0;
  int vit_dd_bound = -32768;
  static constexpr std::int16_t kVitBase = 12000;

  // Forward (odds ratios): emissions [code * M + k - 1], transitions [k - 1].
  std::vector<float> fwd_match;
  std::vector<CellTransitions<float>> fwd_transitions;
  float fwd_e_loop = 0, fwd_e_move = 0;

  BiasFilterHmm bias_filter;

  // For alignment displays, indexed by node 1..M (index 0 is ' '): the
  // model's consensus residues, and its RF and CS annotation lines (empty
  // when the model has none).
  std::string consensus, reference, structure;
};

// The parts that depend on the target's length L (hmmsearch reconfigures the
// profile and the null model for every sequence).
struct LengthConfig {
  int L = 0;
  std::uint8_t msv_tjb = 0;        // N/J -> B cost, bytes
  std::int16_t vit_move = 0;       // N/C/J move score, words
  float fwd_move = 0, fwd_loop = 0;
  float null_p1 = 0;               // null model's self-loop L/(L+1)
  float null_score = 0;            // null model log-likelihood, nats
  float log_p1 = 0, log_1_minus_p1 = 0;  // logf(p1), logf(1 - p1): the bias filter's length terms
};

SearchProfile configure_profile(const ProfileHmm& hmm);
LengthConfig length_config(int L);

// length_config(L) for 0 <= L <= kMaxTargetLength, from one table a process
// shares (thread-safe): each page of 4,096 lengths is computed when one of
// its lengths is first asked for, and only those pages of the table are
// ever touched. A table per search or engine was touched anew up to its
// longest target every time (16 % of the hmmsearch app's page faults on a
// GPU-class WU). Throws std::out_of_range for any other L.
const LengthConfig& shared_length_config(int L);

// Easel's SSE expf, lane for lane in scalar float (the Forward filter's odds).
float easel_sse_expf(float x);

}  // namespace helix::hmmsearch
