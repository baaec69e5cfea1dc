#include "hmm_search.h"

#include <atomic>
#include <cmath>
#include <optional>
#include <thread>

namespace helix::hmm {

std::vector<ReportTarget> domain_hits(const SearchProfile& profile, const std::vector<TargetSequence>& targets,
                                      const ChunkSearch& search, HmmEngine& engine, const PipelineOptions& options,
                                      int host_threads) {
  std::vector<std::uint32_t> passed;
  for (const PassedTarget& target : search.passed) passed.push_back(target.target);
  const std::vector<DomainPosteriors> posteriors = engine.domain_posteriors(passed);
  const double Z = options.database_sequences > 0 ? options.database_sequences : static_cast<double>(targets.size());

  // Each passed target's record, or nothing when hmmsearch would not keep it.
  std::vector<std::optional<ReportTarget>> kept(search.passed.size());
  auto define = [&](std::size_t p) {
    const PassedTarget& result = search.passed[p];
    const TargetSequence& target = targets[result.target];
    const int L = static_cast<int>(target.codes.size());
    DomainDefinition definition = define_domains(profile, target.codes.data(), L, &posteriors[p]);
    const TargetScores scores = score_target(profile, result.forward_nats, result.null_nats, L, definition);
    if (scores.dropped || hmmer_evalue(scores.ln_p, Z) > options.report_evalue) return;
    kept[p] = report_target(target.name, "", target.description, L, scores, std::move(definition));
  };
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t p; (p = next.fetch_add(1)) < kept.size();) define(p);
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < host_threads; ++t) helpers.emplace_back(worker);
  worker();
  for (std::thread& helper : helpers) helper.join();

  std::vector<ReportTarget> hits;
  for (std::optional<ReportTarget>& hit : kept)
    if (hit) hits.push_back(std::move(*hit));
  return hits;
}

}  // namespace helix::hmm
