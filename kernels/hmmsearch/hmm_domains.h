// hmm_domains.h: hmmsearch's domain definition for one target that passed
// the Forward filter (HMMER 3.3.2's p7_domaindef_ByPosteriorHeuristics and
// what p7_Pipeline does with its result), and the per-target outcome that the
// reports print.
//
// Contents: AlignmentDisplay, DomainHit, DomainDefinition, FoundRegion /
// find_regions(), PlannedEnvelope / DomainPlan / plan_domains() /
// finish_domains(), define_domains(),
// TargetScores / score_target().
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hmm_dp.h"
#include "hmm_engine.h"
#include "hmm_profile.h"

namespace helix::hmmsearch {

// One domain's alignment as hmmsearch prints it (HMMER's P7_ALIDISPLAY):
// equal-length lines; optional ones are empty when the model lacks them.
struct AlignmentDisplay {
  std::string rfline, mmline, csline;  // reference, model mask, structure annotation
  std::string model;                   // the model's consensus, aligned
  std::string mline;                   // identities, '+' for positive scores
  std::string aseq;                    // the target, aligned
  std::string ppline;                  // posterior probabilities, 0-9 and '*'
  int hmmfrom = 0, hmmto = 0, M = 0;
  long sqfrom = 0, sqto = 0, L = 0;
};

struct DomainHit {
  int ienv = 0, jenv = 0;            // envelope, residues 1..L
  int iali = 0, jali = 0;            // optimal-accuracy alignment's ends
  float envsc_nats = 0;              // Forward score of the envelope alone
  float domcorrection_nats = 0;      // null2 sum over the envelope
  float dombias_nats = 0;            // FLogsum(0, log omega + domcorrection)
  float oasc = 0;                    // expected correctly aligned residues
  float bitscore = 0;                // as if the only domain of the target
  double ln_p = 0;                   // log P-value of bitscore
  bool reported = false, included = false;
  AlignmentDisplay alignment;
};

// What domain definition found on one target; counts are the tblout's
// exp, reg, clu, ov and env columns.
struct DomainDefinition {
  float nexpected = 0;
  int nregions = 0, nclustered = 0, noverlaps = 0, nenvelopes = 0;
  std::vector<DomainHit> domains;  // in sequence order
  std::vector<float> null2_scores; // n2sc[0..L], nats per residue (0 outside domains)
};

// The thresholds and sampling of p7_domaindef_Create's defaults.
struct DomainDefinitionOptions {
  float rt1 = 0.25f, rt2 = 0.10f, rt3 = 0.20f;
  int samples = 200;
  float min_overlap = 0.8f;
  bool of_smaller = true;
  int max_diagdiff = 4;
  float min_posterior = 0.25f, min_endpointp = 0.02f;
  std::uint32_t seed = 42;  // Easel's fast generator, reseeded for every clustered region
};

// Domain definition in steps, so that an engine can sample the regions and
// rescore the envelopes of many targets at once (define_passed_domains() in
// hmm_search.h): find_regions() finds the regions; those that look like
// several domains are sampled (HmmEngine::sample_regions); plan_domains()
// clusters the samples into envelopes; each envelope is rescored
// (HmmEngine::rescore_envelopes); finish_domains() makes the domains.
struct PlannedEnvelope {
  int i = 0, j = 0;     // residues 1..L of the target
  int region = 0;       // the region's number in the target
  bool sampled = false; // from a sampled region: null2 comes from the sampling
};
struct DomainPlan {
  DomainDefinition definition;  // nexpected, nregions, nclustered; null2 of sampled regions
  std::vector<PlannedEnvelope> envelopes;  // in sequence order
};
// The regions of a target (residues i..j), in order; `multidomain` ones get
// their envelopes by sampling.
struct FoundRegion {
  int i = 0, j = 0;
  bool multidomain = false;
};
std::vector<FoundRegion> find_regions(const DomainPosteriors& posteriors, int L,
                                      const DomainDefinitionOptions& options = {});
// `samples`: the sampling of the target's multi-domain regions in order
// (HmmEngine::sample_regions), or null to sample them here on the CPU.
DomainPlan plan_domains(const SearchProfile& profile, const std::uint8_t* codes, int L,
                        const DomainPosteriors& posteriors, const DomainDefinitionOptions& options = {},
                        const RegionSamples* samples = nullptr);
// `rescored[n]` is the rescoring of plan.envelopes[n].
DomainDefinition finish_domains(const SearchProfile& profile, const std::uint8_t* codes, int L, DomainPlan plan,
                                const EnvelopeRescore* rescored);

// Domain definition for target codes[0..L-1] (HMMER's dsq 1..L), all three
// steps on this thread.
// `posteriors`: the target's whole_target_posteriors() when an engine has
// computed them already (the GPU does); computed here when null.
DomainDefinition define_domains(const SearchProfile& profile, const std::uint8_t* codes, int L,
                                const DomainPosteriors* posteriors = nullptr,
                                const DomainDefinitionOptions& options = {});

// hmmsearch's per-target scores after domain definition (bits): the
// null2-corrected Forward score, or the sum of its domains when higher; the
// bias; each domain's bitscore and P-value. `dropped` when domain definition
// found no region, envelope or domain (hmmsearch then reports nothing).
struct TargetScores {
  bool dropped = false;
  float score_bits = 0, pre_score_bits = 0, sum_score_bits = 0;
  double ln_p = 0;
  int best_domain = 0;
};
TargetScores score_target(const SearchProfile& profile, float forward_nats, float null_nats, int L,
                          DomainDefinition& definition);

}  // namespace helix::hmmsearch
