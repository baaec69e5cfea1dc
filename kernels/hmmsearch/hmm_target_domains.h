// hmm_target_domains.h: domain definition of one target that passed the
// Forward filter, as hmmsearch's reports print it: the one place the job and
// the validator run define_domains and score_target (hmm_domains.h).
//
// Contents:
//   TargetDomains      a target's length, per-target scores and domains
//   target_domains()   domain definition, then the scores
//   scored_domains()   the scores of a target whose domains are defined
#pragma once
#include "hmm_domains.h"
#include "hmm_pipeline.h"
#include "hmm_profile.h"

namespace helix::hmmsearch {

// Domain definition of one target past Forward (hmm_domains.h): what
// hmmsearch's reports print of it. definition.null2_scores is not kept (the
// reports never print it; the scores and domains derived from it are kept).
struct TargetDomains {
  long length = 0;              // L, residues
  TargetScores scores;          // scores.dropped: no domain, not in any report
  DomainDefinition definition;  // counts and domains (each with its alignment display)
};

// Domain definition and hmmsearch's per-target scores for one target that
// passed the Forward filter (define_domains then score_target). `posteriors`:
// the target's whole-target posteriors when an engine computed them
// (HmmEngine::domain_posteriors), else the CPU computes them here. The one
// place the job and the validator run it.
TargetDomains target_domains(const SearchProfile& profile, const TargetSequence& target, const PassedTarget& passed,
                             const DomainPosteriors* posteriors = nullptr);
// The scores of a target whose domains are defined (score_target), its null2
// scores dropped.
TargetDomains scored_domains(const SearchProfile& profile, int L, const PassedTarget& passed,
                             DomainDefinition definition);

}  // namespace helix::hmmsearch
