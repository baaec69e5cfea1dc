// hmm_domains.cpp: domain definition and the per-target scores after it, in
// the order and float arithmetic of HMMER 3.3.2's
// p7_domaindef_ByPosteriorHeuristics and p7_Pipeline (see hmm_domains.h and
// docs/hmmsearch.md, "Part 2").
#include "hmm_domains.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "hmm_alidisplay.h"
#include "hmm_filters.h"
#include "hmm_float_mode.h"
#include "hmm_pipeline.h"
#include "hmm_sampling.h"

namespace helix::hmmsearch {
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

// The envelopes of a target's regions: everything of domain definition
// before the envelopes are rescored.
class DomainPlanner {
 public:
  DomainPlanner(const SearchProfile& profile, const std::uint8_t* codes, int L, const DomainDefinitionOptions& options,
                const RegionSamples* samples)
      : profile_(profile), codes_(codes), L_(L), options_(options), samples_(samples) {}

  DomainPlan run(const DomainPosteriors& post) {
    plan_.definition.null2_scores.assign(L_ + 1, 0.0f);
    plan_.definition.nexpected = post.btot[L_];
    for (const FoundRegion& region : find_regions(post, L_, options_)) plan_region(region);
    return std::move(plan_);
  }

 private:
  // A region of one domain is its own envelope; one that looks like several
  // gets the envelopes of stochastic traceback clustering (and its null2).
  void plan_region(const FoundRegion& r) {
    const int region = plan_.definition.nregions++;
    if (!r.multidomain) {
      plan_.envelopes.push_back({r.i, r.j, region, false});
      return;
    }
    ++plan_.definition.nclustered;
    RegionSamples sampled;
    if (!samples_) {
      if (!multihit_) multihit_ = odds_profile(profile_, L_, true);
      sampled = sample_target_region(*multihit_, codes_, r.i, r.j, options_.samples, options_.seed);
    }
    const RegionSamples& samples = samples_ ? samples_[next_sampled_++] : sampled;
    const std::vector<RegionEnvelope> envelopes =
        region_envelopes(samples, r.i, options_, plan_.definition.null2_scores.data() + r.i);
    for (const RegionEnvelope& envelope : envelopes) plan_.envelopes.push_back({envelope.i, envelope.j, region, true});
  }

  const SearchProfile& profile_;
  const std::uint8_t* codes_;
  int L_;
  DomainDefinitionOptions options_;
  const RegionSamples* samples_;
  std::size_t next_sampled_ = 0;
  std::optional<OddsProfile> multihit_;
  DomainPlan plan_;
};

// A rescored envelope as a domain: its alignment, null2 (unless sampling set
// it) and null2 correction. False when rescoring dropped it.
bool add_domain(const SearchProfile& profile, const std::uint8_t* codes, int L, const PlannedEnvelope& envelope,
                const EnvelopeRescore& rescored, DomainDefinition& result) {
  if (!rescored.scores.ok) return false;
  const int i = envelope.i, j = envelope.j;
  Trace trace = trace_of_steps(rescored.steps.data(), static_cast<int>(rescored.steps.size()));
  for (int z = 0; z < trace.size(); ++z)
    if (trace.i[z] > 0) trace.i[z] += i - 1;  // envelope to target coordinates

  DomainHit domain;
  domain.alignment = make_alignment_display(trace, profile, codes, L);
  if (!envelope.sampled) {
    const std::array<float, kCodes> null2 = complete_null2(rescored.scores.null2_residues);
    for (int pos = i; pos <= j; ++pos) result.null2_scores[pos] = std::log(null2[codes[pos - 1]]);
  }
  float correction = 0.0f;
  for (int pos = i; pos <= j; ++pos) correction += result.null2_scores[pos];
  domain.domcorrection_nats = correction;
  domain.iali = static_cast<int>(domain.alignment.sqfrom);
  domain.jali = static_cast<int>(domain.alignment.sqto);
  domain.ienv = i, domain.jenv = j;
  domain.envsc_nats = rescored.scores.envsc;
  domain.oasc = rescored.scores.oasc;
  result.domains.push_back(std::move(domain));
  return true;
}

// log(L / (L + 3)) per residue outside the domains: the cost of the
// unaligned residues under the N/C/J length model, as p7_Pipeline adds it.
double outside_residue_nats(int L) {
  return std::log(static_cast<float>(L) / static_cast<float>(L + 3));
}

}  // namespace

std::vector<FoundRegion> find_regions(const DomainPosteriors& post, int L, const DomainDefinitionOptions& options) {
  // Regions start where a domain is likely to begin (mocc reaches rt1,
  // extended back to where mocc minus the starts there fell below rt2) and
  // end where mocc minus the ends there falls below rt2.
  std::vector<FoundRegion> regions;
  int i = -1;
  bool triggered = false;
  for (int j = 1; j <= L; ++j) {
    if (!triggered) {
      if (post.mocc[j] - (post.btot[j] - post.btot[j - 1]) < options.rt2) i = j;
      else if (i == -1) i = j;
      if (post.mocc[j] >= options.rt1) triggered = true;
    } else if (post.mocc[j] - (post.etot[j] - post.etot[j - 1]) < options.rt2) {
      regions.push_back({i, j, is_multidomain_region(post, i, j, options.rt3)});
      i = -1;
      triggered = false;
    }
  }
  return regions;
}

DomainPlan plan_domains(const SearchProfile& profile, const std::uint8_t* codes, int L,
                        const DomainPosteriors& posteriors, const DomainDefinitionOptions& options,
                        const RegionSamples* samples) {
  const HmmerFloatMode hmmer_mode;
  return DomainPlanner(profile, codes, L, options, samples).run(posteriors);
}

DomainDefinition finish_domains(const SearchProfile& profile, const std::uint8_t* codes, int L, DomainPlan plan,
                                const EnvelopeRescore* rescored) {
  const HmmerFloatMode hmmer_mode;
  DomainDefinition result = std::move(plan.definition);
  int region = -1, last_j = 0;  // the end of the sampled region's last kept envelope
  for (std::size_t n = 0; n < plan.envelopes.size(); ++n) {
    const PlannedEnvelope& envelope = plan.envelopes[n];
    if (envelope.region != region) region = envelope.region, last_j = 0;
    if (envelope.sampled && envelope.i <= last_j) ++result.noverlaps;
    ++result.nenvelopes;
    if (add_domain(profile, codes, L, envelope, rescored[n], result) && envelope.sampled) last_j = envelope.j;
  }
  return result;
}

DomainDefinition define_domains(const SearchProfile& profile, const std::uint8_t* codes, int L,
                                const DomainPosteriors* posteriors, const DomainDefinitionOptions& options) {
  const HmmerFloatMode hmmer_mode;
  DomainPlan plan = posteriors ? plan_domains(profile, codes, L, *posteriors, options)
                               : plan_domains(profile, codes, L, whole_target_posteriors(profile, codes, L), options);
  const OddsProfile unihit = odds_profile(profile, L, false);
  std::vector<EnvelopeRescore> rescored;
  for (const PlannedEnvelope& envelope : plan.envelopes)
    rescored.push_back(rescore_envelope(unihit, codes, EnvelopeTask{0, envelope.i, envelope.j, !envelope.sampled}));
  return finish_domains(profile, codes, L, std::move(plan), rescored.data());
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

}  // namespace helix::hmmsearch
