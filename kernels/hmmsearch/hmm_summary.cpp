// hmm_summary.cpp: the hmmsearch result's "summary" output (hmm_summary.h).
#include "hmm_summary.h"

#include <nlohmann/json.hpp>

#include "hmm_params.h"

namespace helix::hmmsearch {

std::string hmm_summary_json(const HmmJobResult& result) {
  nlohmann::json profiles = nlohmann::json::array();
  for (const ProfileOutcome& p : result.profiles)
    profiles.push_back({{"name", p.name},
                        {"accession", p.accession},
                        {"description", p.description},
                        {"M", p.M},
                        {"targets", p.counts.targets},
                        {"residues", p.counts.residues},
                        {"past_msv", p.counts.past_msv},
                        {"past_bias", p.counts.past_bias},
                        {"past_viterbi", p.counts.past_viterbi},
                        {"past_forward", p.counts.past_forward}});
  const nlohmann::json summary = {
      {"kind", "hmmsearch"}, {"engine", result.engine}, {"params", hmm_params_json(result.params)}, {"profiles", profiles}};
  return summary.dump(1) + "\n";
}

}  // namespace helix::hmmsearch
