// hmm_domains.cpp: domain definition and the per-target scores after it, in
// the order and float arithmetic of HMMER 3.3.2's
// p7_domaindef_ByPosteriorHeuristics and p7_Pipeline (see hmm_domains.h and
// docs/hmmsearch.md, "Part 2").
#include "hmm_domains.h"

#include <algorithm>
#include <cmath>

#include "hmm_alidisplay.h"
#include "hmm_filters.h"
#include "hmm_float_mode.h"
#include "hmm_pipeline.h"
#include "hmm_sampling.h"

namespace helix::hmm {
namespace {

// HMMER's null model's "omega": the prior weight of the null2 hypothesis.
constexpr float kNull2Omega = 1.0f / 256.0f;

// The null2 bias of a domain or target, nats: log(1 + omega e^correction).
float null2_bias(float correction_nats) {
  return hmmer_flogsum(0.0f, static_cast<float>(std::log(static_cast<double>(kNull2Omega)) + correction_nats));
}

// A region looks like several domains when, somewhere inside it, both the
// expected ends before and the expected starts after reach rt3.
bool is_multidomain_region(const DomainPosteriors& post, int i, int j, float rt3) {
  float best = -1.0f;
  for (int z = i; z <= j; ++z) {
    const float expected = std::min(post.etot[z] - post.etot[i - 1], post.btot[j] - post.btot[z - 1]);
    best = std::max(best, expected);
  }
  return best >= rt3;
}

class DomainDefiner {
 public:
  DomainDefiner(const SearchProfile& profile, const std::uint8_t* codes, int L, const DomainDefinitionOptions& options)
      : profile_(profile), codes_(codes), L_(L), options_(options), random_(options.seed),
        multihit_(odds_profile(profile, L, true)), unihit_(odds_profile(profile, L, false)) {}

  DomainDefinition run(const DomainPosteriors& post) {
    result_.null2_scores.assign(L_ + 1, 0.0f);
    result_.nexpected = post.btot[L_];
    scan_regions(post);
    return std::move(result_);
  }

 private:
  // Regions start where a domain is likely to begin (mocc reaches rt1,
  // extended back to where mocc minus the starts there fell below rt2) and
  // end where mocc minus the ends there falls below rt2.
  void scan_regions(const DomainPosteriors& post) {
    int i = -1;
    bool triggered = false;
    for (int j = 1; j <= L_; ++j) {
      if (!triggered) {
        if (post.mocc[j] - (post.btot[j] - post.btot[j - 1]) < options_.rt2) i = j;
        else if (i == -1) i = j;
        if (post.mocc[j] >= options_.rt1) triggered = true;
      } else if (post.mocc[j] - (post.etot[j] - post.etot[j - 1]) < options_.rt2) {
        define_region(post, i, j);
        i = -1;
        triggered = false;
      }
    }
  }

  void define_region(const DomainPosteriors& post, int i, int j) {
    ++result_.nregions;
    if (!is_multidomain_region(post, i, j, options_.rt3)) {
      ++result_.nenvelopes;
      rescore_envelope(i, j, false);
      return;
    }
    ++result_.nclustered;
    DpMatrix region_forward;
    forward_matrix(codes_ + i - 1, j - i + 1, multihit_, region_forward);
    const std::vector<RegionEnvelope> envelopes = sample_region_envelopes(
        multihit_, codes_, i, j, region_forward, options_, random_, result_.null2_scores);
    int last_j = 0;
    for (const RegionEnvelope& envelope : envelopes) {
      if (envelope.i <= last_j) ++result_.noverlaps;
      ++result_.nenvelopes;
      if (rescore_envelope(envelope.i, envelope.j, true)) last_j = envelope.j;
    }
  }

  // One envelope rescored alone (unihit, the target's length model): its
  // Forward score, posteriors, null2 (unless sampling set it), and the
  // optimal-accuracy alignment. False when the posteriors overflow (HMMER
  // then takes the envelope for repetitive garbage and drops it).
  bool rescore_envelope(int i, int j, bool null2_is_done) {
    const int Ld = j - i + 1;
    const std::uint8_t* envelope = codes_ + i - 1;
    DpMatrix fwd, bck, pp, oa;
    const float envsc = forward_matrix(envelope, Ld, unihit_, fwd);
    backward_matrix(envelope, Ld, unihit_, fwd, bck);
    if (!posterior_decoding(unihit_, fwd, bck, pp)) return false;
    const float oasc = optimal_accuracy(unihit_, pp, oa);
    Trace trace = optimal_accuracy_trace(unihit_, pp, oa);
    for (int z = 0; z < trace.size(); ++z)
      if (trace.i[z] > 0) trace.i[z] += i - 1;  // envelope to target coordinates

    DomainHit domain;
    domain.alignment = make_alignment_display(trace, profile_, codes_, L_);
    if (!null2_is_done) {
      const std::array<float, kCodes> null2 = null2_by_expectation(unihit_, pp);
      for (int pos = i; pos <= j; ++pos) result_.null2_scores[pos] = std::log(null2[codes_[pos - 1]]);
    }
    float correction = 0.0f;
    for (int pos = i; pos <= j; ++pos) correction += result_.null2_scores[pos];
    domain.domcorrection_nats = correction;
    domain.iali = static_cast<int>(domain.alignment.sqfrom);
    domain.jali = static_cast<int>(domain.alignment.sqto);
    domain.ienv = i, domain.jenv = j;
    domain.envsc_nats = envsc;
    domain.oasc = oasc;
    result_.domains.push_back(std::move(domain));
    return true;
  }

  const SearchProfile& profile_;
  const std::uint8_t* codes_;
  int L_;
  DomainDefinitionOptions options_;
  EaselFastRandom random_;
  OddsProfile multihit_, unihit_;
  DomainDefinition result_;
};

// log(L / (L + 3)) per residue outside the domains: the cost of the
// unaligned residues under the N/C/J length model, as p7_Pipeline adds it.
double outside_residue_nats(int L) {
  return std::log(static_cast<float>(L) / static_cast<float>(L + 3));
}

}  // namespace

DomainDefinition define_domains(const SearchProfile& profile, const std::uint8_t* codes, int L,
                                const DomainPosteriors* posteriors, const DomainDefinitionOptions& options) {
  const HmmerFloatMode hmmer_mode;
  DomainDefiner definer(profile, codes, L, options);
  if (posteriors) return definer.run(*posteriors);
  return definer.run(whole_target_posteriors(profile, codes, L));
}

TargetScores score_target(const SearchProfile& profile, float forward_nats, float null_nats, int L,
                          DomainDefinition& definition) {
  const HmmerFloatMode hmmer_mode;
  TargetScores scores;
  if (definition.nregions == 0 || definition.nenvelopes == 0 || definition.domains.empty()) {
    scores.dropped = true;  // passed Forward, but no discrete domain
    return scores;
  }
  // The null2-corrected score of the whole target.
  const float target_bias = null2_bias(easel_float_sum(definition.null2_scores.data(), L + 1));
  float pre_score = static_cast<float>((forward_nats - null_nats) / kLn2);
  float seq_score = static_cast<float>((forward_nats - (null_nats + target_bias)) / kLn2);

  // The "reconstruction" score: the sum of the domains whose envelope score
  // survives their own null2 correction.
  float sum_score = 0.0f, sum_bias = 0.0f;
  int Ld = 0;
  for (const DomainHit& d : definition.domains)
    if (d.envsc_nats - d.domcorrection_nats > 0.0f) {
      sum_score += d.envsc_nats;
      Ld += d.jenv - d.ienv + 1;
      sum_bias += d.domcorrection_nats;
    }
  sum_bias = null2_bias(sum_bias);
  sum_score = static_cast<float>(sum_score + (L - Ld) * outside_residue_nats(L));
  const float pre2_score = static_cast<float>((sum_score - null_nats) / kLn2);
  sum_score = static_cast<float>((sum_score - (null_nats + sum_bias)) / kLn2);
  if (Ld > 0 && sum_score > seq_score) seq_score = sum_score, pre_score = pre2_score;

  scores.score_bits = seq_score;
  scores.pre_score_bits = pre_score;
  scores.sum_score_bits = sum_score;
  scores.ln_p = exponential_log_survival(seq_score, profile.forward_tau, profile.forward_lambda);

  // Each domain scored as if it were the target's only one.
  for (std::size_t d = 0; d < definition.domains.size(); ++d) {
    DomainHit& domain = definition.domains[d];
    const int length = domain.jenv - domain.ienv + 1;
    float bits = static_cast<float>(domain.envsc_nats + (L - length) * outside_residue_nats(L));
    domain.dombias_nats = null2_bias(domain.domcorrection_nats);
    domain.bitscore = static_cast<float>((bits - (null_nats + domain.dombias_nats)) / kLn2);
    domain.ln_p = exponential_log_survival(domain.bitscore, profile.forward_tau, profile.forward_lambda);
    if (domain.bitscore > definition.domains[scores.best_domain].bitscore) scores.best_domain = static_cast<int>(d);
  }
  return scores;
}

}  // namespace helix::hmm
