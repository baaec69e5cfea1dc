#include "hmm_search.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <stdexcept>
#include <thread>

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
                                                    const std::vector<const TargetSequence*>& passed_targets,
                                                    const std::vector<std::uint32_t>& passed, HmmEngine& engine,
                                                    int host_threads) {
  const std::vector<DomainPosteriors> posteriors = engine.domain_posteriors(passed);
  auto codes = [&](std::size_t p) { return passed_targets[p]->codes.data(); };
  auto length = [&](std::size_t p) { return static_cast<int>(passed_targets[p]->codes.size()); };
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

ChunkLegs split_chunk(const std::vector<TargetSequence>& targets, std::size_t first, std::size_t count, bool split) {
  ChunkLegs legs;
  legs.first = first, legs.count = count;
  // Each leg's arrays sized once: grown by doubling, they were copied and
  // their fresh pages touched several times over (a round is ~100 MB).
  auto is_long = [&](std::size_t t) { return split && targets[first + t].codes.size() >= kLongLegResidues; };
  std::size_t long_count = 0, long_residues = 0, all_residues = 0;
  for (std::size_t t = 0; t < count; ++t) {
    const std::size_t length = targets[first + t].codes.size();
    all_residues += length;
    if (is_long(t)) ++long_count, long_residues += length;
  }
  legs.longest.reserve(long_count), legs.rest.reserve(count - long_count);
  legs.long_targets.residues.reserve(long_residues), legs.long_targets.offsets.reserve(long_count + 1);
  legs.rest_targets.residues.reserve(all_residues - long_residues);
  legs.rest_targets.offsets.reserve(count - long_count + 1);
  for (std::size_t t = 0; t < count; ++t) {
    const std::vector<std::uint8_t>& codes = targets[first + t].codes;
    const bool long_one = is_long(t);
    (long_one ? legs.longest : legs.rest).push_back(static_cast<std::uint32_t>(t));
    (long_one ? legs.long_targets : legs.rest_targets).append(codes);
  }
  if (legs.rest.empty()) {  // only long targets: one leg, as without a split
    legs.rest.swap(legs.longest);
    std::swap(legs.rest_targets, legs.long_targets);
  }
  return legs;
}

namespace {

// One leg's search: its engine's indices, then the chunk's (`chunk_index`).
ProfileSearch search_leg(const SearchProfile& profile, const std::vector<TargetSequence>& targets, std::size_t first,
                         const SequenceSet& leg, const std::vector<std::uint32_t>& chunk_index, HmmEngine& engine,
                         const PipelineOptions& options, int host_threads) {
  PhaseClock clock(PhaseClock::Cpu::kThisThread);
  engine.load_profile(profile);
  ProfileSearch found{search_chunk(profile, leg, engine, options), {}, {}, {}};
  found.filters = clock.lap();
  std::vector<std::uint32_t> passed;
  std::vector<const TargetSequence*> passed_targets;
  for (PassedTarget& target : found.search.passed) {
    passed.push_back(target.target);
    target.target = chunk_index[target.target];
    passed_targets.push_back(&targets[first + target.target]);
  }
  found.definitions = define_passed_domains(profile, passed_targets, passed, engine, host_threads);
  found.domains = clock.lap();
  return found;
}

// The two legs' searches as one: counts added, passed targets in target order.
ProfileSearch merged(ProfileSearch rest, ProfileSearch longest) {
  ProfileSearch all;
  all.search.counts = rest.search.counts;
  all.search.counts += longest.search.counts;
  all.filters = rest.filters, all.domains = rest.domains;
  all.filters += longest.filters, all.domains += longest.domains;
  const std::size_t n = rest.search.passed.size() + longest.search.passed.size();
  all.search.passed.reserve(n), all.definitions.reserve(n);
  std::size_t r = 0, l = 0;
  while (r < rest.search.passed.size() || l < longest.search.passed.size()) {
    const bool from_rest = l == longest.search.passed.size() ||
                           (r < rest.search.passed.size() &&
                            rest.search.passed[r].target < longest.search.passed[l].target);
    ProfileSearch& leg = from_rest ? rest : longest;
    std::size_t& k = from_rest ? r : l;
    all.search.passed.push_back(leg.search.passed[k]);
    all.definitions.push_back(std::move(leg.definitions[k]));
    ++k;
  }
  return all;
}

}  // namespace

ProfileSearch search_and_define(const SearchProfile& profile, const std::vector<TargetSequence>& targets,
                                const ChunkLegs& legs, HmmEngine& engine, HmmEngine* long_engine,
                                const PipelineOptions& options, int host_threads) {
  // Each leg is part of the chunk: its E-values are the chunk's (or the database's).
  PipelineOptions leg_options = options;
  if (leg_options.database_sequences <= 0) leg_options.database_sequences = static_cast<double>(legs.count);
  if (legs.longest.empty())
    return search_leg(profile, targets, legs.first, legs.rest_targets, legs.rest, engine, leg_options, host_threads);
  // A split chunk's long targets are in no other leg: without their engine
  // they would be left out of the search, not searched by `engine`.
  if (!long_engine) throw std::invalid_argument("search_and_define: a chunk split in two legs needs a long engine");
  ProfileSearch longest;
  std::exception_ptr long_failure;
  std::thread long_leg([&] {
    try {
      long_engine->use_on_this_thread();
      longest = search_leg(profile, targets, legs.first, legs.long_targets, legs.longest, *long_engine, leg_options, 1);
    } catch (...) {
      long_failure = std::current_exception();
    }
  });
  ProfileSearch rest;
  try {
    rest = search_leg(profile, targets, legs.first, legs.rest_targets, legs.rest, engine, leg_options, host_threads);
  } catch (...) {
    long_leg.join();
    throw;
  }
  long_leg.join();
  if (long_failure) std::rethrow_exception(long_failure);
  return merged(std::move(rest), std::move(longest));
}

std::vector<ReportTarget> report_hits(const SearchProfile& profile, const std::vector<TargetSequence>& targets,
                                      std::size_t first, const ChunkSearch& search,
                                      std::vector<DomainDefinition> definitions, const PipelineOptions& options,
                                      std::size_t chunk_size, int host_threads) {
  const double Z = options.database_sequences > 0 ? options.database_sequences : static_cast<double>(chunk_size);
  // Each passed target's record, or nothing when hmmsearch would not keep it.
  std::vector<std::optional<ReportTarget>> kept(search.passed.size());
  share_among_threads(kept.size(), host_threads, [&](std::size_t p) {
    const PassedTarget& result = search.passed[p];
    const TargetSequence& target = targets[first + result.target];
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

std::vector<ReportTarget> domain_hits(const SearchProfile& profile, const std::vector<TargetSequence>& targets,
                                      const ChunkSearch& search, HmmEngine& engine, const PipelineOptions& options,
                                      int host_threads) {
  std::vector<std::uint32_t> passed;
  std::vector<const TargetSequence*> passed_targets;
  for (const PassedTarget& target : search.passed) {
    passed.push_back(target.target);
    passed_targets.push_back(&targets[target.target]);
  }
  return report_hits(profile, targets, 0, search,
                     define_passed_domains(profile, passed_targets, passed, engine, host_threads), options,
                     targets.size(), host_threads);
}

}  // namespace helix::hmmsearch
