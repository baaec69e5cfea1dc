// hmmsearch_kind.cpp: the hmmsearch kind, declared (core/kind.h): its
// outputs, the volunteer side (read the WU, pick the engines, search the
// chunk round by round with checkpoints, return "tblout", "domtblout", "out",
// "scores", "domains" and, last, "summary") and the project side
// (hmm_workunit.cpp, hmm_check.cpp, hmm_store.cpp).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/kind.h"
#include "hmm_job.h"
#include "hmm_server.h"

namespace helix {
namespace {

// Profiles the GPU searches at once, each on an engine and host thread of
// its own: one profile's search is bound by the serial chains of its longest
// targets (titin's Forward, Backward and sampling run a row or a step at a
// time on a few SMs), so several fill the device. On the 9-profile GPU-class
// WU of bench/RESULTS.md (H100, one call): 1 engine 8.66 s, 2 7.81 s, 4
// 6.93 s, 8 7.64 s.
constexpr int kGpuProfilesAtOnce = 4;

ResultFiles run_hmmsearch(const nlohmann::json& params_json, const RunOptions& options, Runtime& runtime) {
  const hmmsearch::HmmParams params = hmmsearch::parse_hmm_params(params_json);
  // A WU of one profile gets a long engine beside its engine for the round's
  // longest targets (titin-like), searched on a thread of their own at once
  // with the rest (hmm_search.h's search_and_define): that profile's report
  // went 432 -> 332 ms (Pkinase), 1,320 -> 1,068 ms (PTK7). With several
  // profiles at once their chains already overlap each other's work, and
  // long engines made the app slower: 3 profiles 3.16-3.17 -> 3.28-3.44 s,
  // 9 profiles 7.51 -> 8.59 s (bench/RESULTS.md, H200).
  std::vector<std::unique_ptr<hmmsearch::HmmEngine>> engines, long_engines;
  if (options.force_cpu) {
    engines.push_back(hmmsearch::make_cpu_engine());
  } else {
    const int count = std::min<int>(kGpuProfilesAtOnce, std::max<std::uint32_t>(1, params.profile_count));
    const bool with_long_engines = params.profile_count == 1;
    const int on_device = with_long_engines ? 2 * count : count;
    for (int e = 0; e < count; ++e) {
      engines.push_back(hmmsearch::make_gpu_engine(options.gpu_device, true, on_device));
      if (with_long_engines) long_engines.push_back(hmmsearch::make_gpu_engine(options.gpu_device, true, on_device));
    }
  }
  std::vector<hmmsearch::HmmEngine*> on, long_on;
  for (const auto& engine : engines) on.push_back(engine.get());
  for (const auto& engine : long_engines) long_on.push_back(engine.get());
  std::fprintf(stderr, "helix hmmsearch: %s chunk %u of %u, %u profiles, on %s (%zu at once)\n",
               params.search.c_str(), params.chunk, params.chunks, params.profile_count,
               engines.front()->description().c_str(), engines.size());
  // The GPU's results are spot-checked against the CPU reference as they come.
  const hmmsearch::HmmJobResult result = hmmsearch::run_hmm_job(params, on, long_on, runtime, !options.force_cpu);
  PhaseClock clock;
  hmmsearch::ProfileTexts reports = hmmsearch::report_outputs(result);
  ResultFiles files = {{"tblout", std::move(reports.tblout)},
                       {"domtblout", std::move(reports.domtblout)},
                       {"out", std::move(reports.out)},
                       {"scores", hmmsearch::scores_tsv(result.rows)},
                       {"domains", hmmsearch::domains_tsv(result.rows)},
                       {"summary", hmmsearch::hmm_summary_json(result)}};
  const PhaseTime outputs = clock.lap();
  const hmmsearch::HmmPhases& t = result.phases;
  std::fprintf(stderr,
               "helix hmmsearch: %llu targets, %zu past the Forward filter; wall / host CPU seconds: inputs "
               "%.3f / %.3f, rounds %.3f / %.3f (over the engines' threads: filters %.3f / %.3f, domains %.3f / "
               "%.3f, self-check %.3f / %.3f), checkpoints %.3f / %.3f, outputs %.3f / %.3f\n",
               static_cast<unsigned long long>(params.chunk_targets), result.rows.size(), t.inputs.wall,
               t.inputs.cpu, t.rounds.wall, t.rounds.cpu, t.filters.wall, t.filters.cpu, t.domains.wall,
               t.domains.cpu, t.self_check.wall, t.self_check.cpu, t.checkpoints.wall, t.checkpoints.cpu,
               outputs.wall, outputs.cpu);
  return files;
}

KindSpec hmmsearch_kind() {
  KindSpec kind;
  kind.name = "hmmsearch";
  kind.description = "profile HMM search of a protein database (HMMER3 hmmsearch)";
  kind.outputs = {{"tblout"}, {"domtblout"}, {"out"}, {"scores"}, {"domains"}, summary_output()};
  kind.run = &run_hmmsearch;
  // A few profiles against a 10 M-residue chunk; rsc_disk_bound (with the
  // app version's 64 MiB, workunit/) is 4 GiB.
  kind.hand_made = {{"profiles", "database"}, {"profiles"}, 2e12, 2048.0 * (1 << 20), 4032.0 * (1 << 20),
                    256.0 * (1 << 20)};
  return kind;
}

}  // namespace

HELIX_DECLARE_KIND(hmmsearch, hmmsearch_kind(),
                   (ServerFunctions{&hmmsearch::add_hmm_workunit_command, &hmmsearch::check_hmm_result,
                                    &hmmsearch::compare_hmm_results, &hmmsearch::create_hmm_tables, &hmmsearch::store_hmm_result, &hmmsearch::hmm_example_commands}))

}  // namespace helix
