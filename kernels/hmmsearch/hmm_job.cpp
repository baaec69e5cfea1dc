// hmm_job.cpp: an hmmsearch work unit from inputs to result (hmm_job.h): the
// inputs read and checked against the params, then every round of blocks of
// targets searched for every profile, its passed targets' domains defined
// (and self-checked), checkpointed between rounds (hmm_state.h).
#include "hmm_job.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "core/checkpoint.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/shared_work.h"
#include "hmm_file.h"
#include "hmm_profile.h"
#include "hmm_search.h"
#include "hmm_state.h"

namespace helix::hmmsearch {
namespace {

// One profile's search of one round: the filters and domain definition of
// the passed targets (search_and_define: on `engine`, and the round's long
// targets on `long_engine` at once when there is one), and the self-checks.
struct ProfileRound {
  ChunkSearch search;
  std::vector<TargetDomains> domains;
};
ProfileRound search_profile(const SearchProfile& profile, const std::vector<TargetSequence>& targets,
                            const ChunkLegs& legs, HmmEngine& engine, HmmEngine* long_engine,
                            const PipelineOptions& options, bool self_check, std::uint32_t block, HmmPhases& phases) {
  ProfileSearch found = search_and_define(profile, targets, legs, engine, long_engine, options);
  phases.filters += found.filters, phases.domains += found.domains;
  PhaseClock clock(PhaseClock::Cpu::kThisThread);
  const std::size_t first = legs.first;
  ProfileRound round{std::move(found.search), {}};
  if (self_check) self_check_block(profile, targets, first, legs.count, round.search, options, block);
  phases.self_check += clock.lap();
  round.domains.reserve(round.search.passed.size());
  for (std::size_t k = 0; k < round.search.passed.size(); ++k)
    round.domains.push_back(scored_domains(profile,
                                           static_cast<int>(targets[first + round.search.passed[k].target].codes.size()),
                                           round.search.passed[k], std::move(found.definitions[k])));
  phases.domains += clock.lap();
  if (self_check) self_check_domains(profile, targets, first, round.search, round.domains);
  phases.self_check += clock.lap();
  return round;
}

// Loads the round's legs into every engine (the rest into the engines, the
// long targets into the long engines): the first of each kind uploads them,
// the others share its copy when they can (one device), else load their own.
// On this thread, while no engine works, so no shared copy is freed under one.
void load_legs(const std::vector<HmmEngine*>& engines, const SequenceSet& leg) {
  for (std::size_t e = 0; e < engines.size(); ++e) {
    engines[e]->use_on_this_thread();
    if (e == 0 || !engines[e]->share_targets(*engines.front())) engines[e]->load_targets(leg);
  }
}

// Runs work(p, engine, long engine or null, phases) for p = 0 .. count-1,
// shared among the engines (core/shared_work.h), each on its own host
// thread, after the round's legs are loaded (load_legs). Phases add up over
// the threads.
template <typename Work>
void share_among_engines(std::size_t count, const std::vector<HmmEngine*>& engines,
                         const std::vector<HmmEngine*>& long_engines, const ChunkLegs& legs, HmmPhases& phases,
                         Work work) {
  std::vector<HmmPhases> engine_phases(engines.size());
  const bool two_legs = !legs.longest.empty();
  if (two_legs) load_legs(long_engines, legs.long_targets);
  load_legs(engines, legs.rest_targets);
  auto prepare = [&](std::size_t e) {
    if (two_legs) long_engines[e]->use_on_this_thread();
    engines[e]->use_on_this_thread();
  };
  share_work(count, engines.size(), prepare, [&](std::size_t p, std::size_t e) {
    work(p, *engines[e], two_legs ? long_engines[e] : nullptr, engine_phases[e]);
  });
  for (const HmmPhases& t : engine_phases) {
    phases.filters += t.filters, phases.domains += t.domains, phases.self_check += t.self_check;
  }
}

}  // namespace

HmmJobResult run_hmm_job(const HmmParams& params, HmmEngine& engine, Runtime& runtime, bool self_check) {
  return run_hmm_job(params, std::vector<HmmEngine*>{&engine}, runtime, self_check);
}

HmmJobResult run_hmm_job(const HmmParams& params, const std::vector<HmmEngine*>& engines, Runtime& runtime,
                         bool self_check) {
  return run_hmm_job(params, engines, {}, runtime, self_check);
}

HmmJobResult run_hmm_job(const HmmParams& params, const std::vector<HmmEngine*>& engines,
                         const std::vector<HmmEngine*>& long_engines, Runtime& runtime, bool self_check) {
  if (engines.empty()) throw std::invalid_argument("run_hmm_job: no engine");
  if (!long_engines.empty() && long_engines.size() != engines.size())
    throw std::invalid_argument("run_hmm_job: one long engine per engine, or none");
  HmmEngine& engine = *engines.front();
  HmmPhases phases;
  PhaseClock clock;
  const std::vector<ProfileHmm> hmms = parse_hmm_file(read_file_text(runtime.resolve("profiles")), "profiles");
  if (hmms.size() != params.profile_count)
    throw InputError("profiles: " + std::to_string(hmms.size()) + " models where the WU's params say " +
                     std::to_string(params.profile_count));
  const std::vector<TargetSequence> targets = [&] {
    const MappedFile database(runtime.resolve("database"));  // unmapped once parsed
    if (database.text().size() != params.chunk_bytes)
      throw InputError("database: " + std::to_string(database.text().size()) + " bytes where the WU's params say " +
                       std::to_string(params.chunk_bytes) + " (a truncated or replaced file)");
    return parse_targets(database.text(), "database", params.chunk_targets);
  }();
  std::uint64_t residues = 0;
  for (const TargetSequence& t : targets) residues += t.codes.size();
  if (targets.size() != params.chunk_targets || residues != params.chunk_residues)
    throw InputError("database: " + std::to_string(targets.size()) + " sequences of " + std::to_string(residues) +
                     " residues where the WU's params say " + std::to_string(params.chunk_targets) + " of " +
                     std::to_string(params.chunk_residues));
  std::vector<SearchProfile> profiles;
  for (const ProfileHmm& hmm : hmms) profiles.push_back(configure_profile(hmm));
  // The engines take the longest models first: a long one started last
  // would run alone at the end of the round.
  std::vector<std::size_t> longest_first(profiles.size());
  std::iota(longest_first.begin(), longest_first.end(), std::size_t{0});
  std::stable_sort(longest_first.begin(), longest_first.end(),
                   [&](std::size_t a, std::size_t b) { return profiles[a].M > profiles[b].M; });
  phases.inputs += clock.lap();

  const PipelineOptions options = params.pipeline();
  const std::size_t target_count = targets.size();
  const auto blocks = static_cast<std::uint32_t>((target_count + params.block_targets - 1) / params.block_targets);
  const std::string print = state_fingerprint(params);
  JobState state;
  state.profiles.resize(profiles.size());
  if (auto saved = runtime.restore_state()) decode_state(*saved, print, params, blocks, state);
  // A round is one or more whole blocks, as many as the engine takes at once;
  // the state still counts blocks, so any engine resumes any checkpoint.
  const auto blocks_per_round =
      static_cast<std::uint32_t>(std::max<std::size_t>(1, engine.round_targets() / params.block_targets));
  for (std::uint32_t block = state.next_block; block < blocks;) {
    const std::uint32_t round_end = std::min(blocks, block + blocks_per_round);
    const std::size_t first = static_cast<std::size_t>(block) * params.block_targets;
    const std::size_t count = std::min<std::size_t>(std::size_t{round_end - block} * params.block_targets,
                                                    target_count - first);
    const ChunkLegs legs = split_chunk(targets, first, count, !long_engines.empty());
    std::vector<ProfileRound> found(profiles.size());
    share_among_engines(profiles.size(), engines, long_engines, legs, phases,
                        [&](std::size_t n, HmmEngine& on, HmmEngine* long_on, HmmPhases& t) {
                          const std::size_t p = longest_first[n];
                          found[p] = search_profile(profiles[p], targets, legs, on, long_on, options, self_check,
                                                    block, t);
                        });
    for (std::size_t p = 0; p < profiles.size(); ++p) {
      ProfileState& kept = state.profiles[p];
      kept.counts += found[p].search.counts;
      for (TargetDomains& target : found[p].domains) kept.domains.push_back(std::move(target));
      for (PassedTarget passed : found[p].search.passed) {
        passed.target += static_cast<std::uint32_t>(first);
        kept.passed.push_back(passed);
      }
    }
    phases.rounds += clock.lap();
    block = state.next_block = round_end;
    runtime.report_progress(0.99 * state.next_block / blocks);
    checkpoint_block_boundary(runtime, [&] { return encode_state(state, print); });
    phases.checkpoints += clock.lap();
  }

  HmmJobResult result{params, engine.description(), {}, {}, phases};
  for (std::size_t p = 0; p < profiles.size(); ++p) {
    ProfileState& found = state.profiles[p];
    result.profiles.push_back({hmms[p].name, hmms[p].accession, hmms[p].description, hmms[p].length, found.counts});
    for (std::size_t k = 0; k < found.passed.size(); ++k) {
      const PassedTarget& passed = found.passed[k];
      const TargetSequence& target = targets[passed.target];
      result.rows.push_back({static_cast<std::uint32_t>(p), params.first_ordinal + passed.target, target.name,
                             target.description, passed, std::move(found.domains[k])});
    }
  }
  runtime.report_progress(1.0);
  return result;
}

}  // namespace helix::hmmsearch
