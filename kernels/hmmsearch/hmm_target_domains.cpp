// hmm_target_domains.cpp: domain definition of one target past Forward and its
// per-target scores (hmm_target_domains.h).
#include "hmm_target_domains.h"

#include <utility>

namespace helix::hmmsearch {

TargetDomains target_domains(const SearchProfile& profile, const TargetSequence& target, const PassedTarget& passed,
                             const DomainPosteriors* posteriors) {
  const int L = static_cast<int>(target.codes.size());
  return scored_domains(profile, L, passed, define_domains(profile, target.codes.data(), L, posteriors));
}

TargetDomains scored_domains(const SearchProfile& profile, int L, const PassedTarget& passed,
                             DomainDefinition definition) {
  TargetDomains domains;
  domains.length = L;
  domains.definition = std::move(definition);
  domains.scores = score_target(profile, passed.forward_nats, passed.null_nats, L, domains.definition);
  // Only domain definition and score_target read the per-residue null2
  // scores; dropping them keeps checkpoints and results to what the reports print.
  domains.definition.null2_scores.clear();
  domains.definition.null2_scores.shrink_to_fit();
  return domains;
}

}  // namespace helix::hmmsearch
