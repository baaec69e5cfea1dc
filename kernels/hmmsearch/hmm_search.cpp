#include "hmm_search.h"

#include <cmath>

namespace helix::hmm {

std::vector<ReportTarget> domain_hits(const SearchProfile& profile, const std::vector<TargetSequence>& targets,
                                      const ChunkSearch& search, HmmEngine& engine, const PipelineOptions& options) {
  std::vector<std::uint32_t> passed;
  for (const PassedTarget& target : search.passed) passed.push_back(target.target);
  const std::vector<DomainPosteriors> posteriors = engine.domain_posteriors(passed);
  const double Z = options.database_sequences > 0 ? options.database_sequences : static_cast<double>(targets.size());
  std::vector<ReportTarget> hits;
  for (std::size_t p = 0; p < search.passed.size(); ++p) {
    const PassedTarget& result = search.passed[p];
    const TargetSequence& target = targets[result.target];
    const int L = static_cast<int>(target.codes.size());
    DomainDefinition definition = define_domains(profile, target.codes.data(), L, &posteriors[p]);
    const TargetScores scores = score_target(profile, result.forward_nats, result.null_nats, L, definition);
    if (scores.dropped || std::exp(scores.ln_p) * Z > options.report_evalue) continue;
    hits.push_back(report_target(target.name, "", target.description, L, scores, std::move(definition)));
  }
  return hits;
}

}  // namespace helix::hmm
