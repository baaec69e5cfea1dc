#include "hmm_search.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/shared_work.h"

namespace helix::hmmsearch {

namespace {

// Runs work(0 .. count-1) on `threads` host threads (this one included).
template <typename Work>
void share_among_threads(std::size_t count, int threads, Work work) {
  share_work(count, static_cast<std::size_t>(std::max(1, threads)), [](std::size_t) {},
             [&](std::size_t n, std::size_t) { work(n); });
}

}  // namespace

std::vector<DomainDefinition> define_passed_domains(const SearchProfile& profile,
                                                    const std::vector<TargetSequence>& targets, std::size_t first,
                                                    const std::vector<std::uint32_t>& passed, HmmEngine& engine,
                                                    int host_threads) {
  const std::vector<DomainPosteriors> posteriors = engine.domain_posteriors(passed);
  auto codes = [&](std::size_t p) { return targets[first + passed[p]].codes.data(); };
  auto length = [&](std::size_t p) { return static_cast<int>(targets[first + passed[p]].codes.size()); };
  const DomainDefinitionOptions options;

  // The multi-domain regions of every target, sampled in one call.
  std::vector<RegionTask> regions;
  std::vector<std::size_t> first_region(passed.size() + 1, 0);
  for (std::size_t p = 0; p < passed.size(); ++p) {
    for (const FoundRegion& r : find_regions(posteriors[p], length(p), options))
      if (r.multidomain) regions.push_back({passed[p], r.i, r.j});
    first_region[p + 1] = regions.size();
  }
  const std::vector<RegionSamples> sampled = engine.sample_regions(regions, options.samples, options.seed);

  std::vector<DomainPlan> plans(passed.size());
  share_among_threads(passed.size(), host_threads, [&](std::size_t p) {
    plans[p] = plan_domains(profile, codes(p), length(p), posteriors[p], options, sampled.data() + first_region[p]);
  });

  std::vector<EnvelopeTask> tasks;
  std::vector<std::size_t> first_task(passed.size() + 1, 0);
  for (std::size_t p = 0; p < passed.size(); ++p) {
    for (const PlannedEnvelope& e : plans[p].envelopes) tasks.push_back({passed[p], e.i, e.j, !e.sampled});
    first_task[p + 1] = tasks.size();
  }
  const std::vector<EnvelopeRescore> rescored = engine.rescore_envelopes(tasks);

  std::vector<DomainDefinition> definitions(passed.size());
  share_among_threads(passed.size(), host_threads, [&](std::size_t p) {
    definitions[p] = finish_domains(profile, codes(p), length(p), std::move(plans[p]), rescored.data() + first_task[p]);
  });
  return definitions;
}

std::vector<ReportTarget> domain_hits(const SearchProfile& profile, const std::vector<TargetSequence>& targets,
                                      const ChunkSearch& search, HmmEngine& engine, const PipelineOptions& options,
                                      int host_threads) {
  std::vector<std::uint32_t> passed;
  for (const PassedTarget& target : search.passed) passed.push_back(target.target);
  std::vector<DomainDefinition> definitions =
      define_passed_domains(profile, targets, 0, passed, engine, host_threads);
  const double Z = options.database_sequences > 0 ? options.database_sequences : static_cast<double>(targets.size());

  // Each passed target's record, or nothing when hmmsearch would not keep it.
  std::vector<std::optional<ReportTarget>> kept(search.passed.size());
  share_among_threads(kept.size(), host_threads, [&](std::size_t p) {
    const PassedTarget& result = search.passed[p];
    const TargetSequence& target = targets[result.target];
    const int L = static_cast<int>(target.codes.size());
    const TargetScores scores = score_target(profile, result.forward_nats, result.null_nats, L, definitions[p]);
    if (scores.dropped || hmmer_evalue(scores.ln_p, Z) > options.report_evalue) return;
    kept[p] = report_target(target.name, "", target.description, L, scores, std::move(definitions[p]));
  });

  std::vector<ReportTarget> hits;
  for (std::optional<ReportTarget>& hit : kept)
    if (hit) hits.push_back(std::move(*hit));
  return hits;
}

}  // namespace helix::hmmsearch
