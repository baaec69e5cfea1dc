// swsearch_kind.cpp: the swsearch kind, declared (core/kind.h): its outputs,
// the volunteer side (read the WU, pick the engine, search the chunk block by
// block with checkpoints, return the hits table and the summary) and the
// project side (sw_workunit.cpp, sw_check.cpp, sw_store.cpp).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/kind.h"
#include "sw_job.h"
#include "sw_server.h"

namespace helix {
namespace {

ResultFiles run_swsearch(const nlohmann::json& params_json, const RunOptions& options, Runtime& runtime) {
  const swsearch::SwParams params = swsearch::parse_sw_params(params_json);
  // One thread on the CPU: BOINC schedules a CPU task on one core.
  auto engine = options.force_cpu ? swsearch::make_cpu_engine(1) : swsearch::make_gpu_engine(options.gpu_device);
  std::fprintf(stderr, "helix swsearch: %s %d/%d on %s\n", params.matrix_name.c_str(), params.gaps.open,
               params.gaps.extend, engine->description().c_str());
  const swsearch::SearchResult result = swsearch::run_sw_job(params, *engine, runtime);
  const swsearch::SearchPhases& t = result.phases;
  std::fprintf(stderr,
               "helix swsearch: %zu queries against %llu targets (%llu residues), wall (host CPU) s: read %.3f "
               "(%.3f), load %.3f (%.3f), scan %.3f (%.3f), ends %.3f (%.3f), alignments %.3f (%.3f)\n",
               result.queries.size(), static_cast<unsigned long long>(result.chunk_targets),
               static_cast<unsigned long long>(result.chunk_residues), t.read.wall, t.read.cpu, t.load.wall,
               t.load.cpu, t.scan.wall, t.scan.cpu, t.ends.wall, t.ends.cpu, t.align.wall, t.align.cpu);
  return {{"hits", swsearch::hits_tsv(result)}, {"summary", swsearch::sw_summary_json(result)}};
}

KindSpec swsearch_kind() {
  KindSpec kind;
  kind.name = "swsearch";
  kind.description = "Smith-Waterman protein database search";
  kind.outputs = {{"hits"}, summary_output()};
  kind.run = &run_swsearch;
  // 32 queries against a 10 M-residue chunk; rsc_disk_bound (with the app
  // version's 64 MiB, workunit/) is 1 GiB.
  kind.hand_made = {{"matrix", "queries", "database"}, {"matrix", "database"}, 3.2e12, 1024.0 * (1 << 20),
                    960.0 * (1 << 20), 64.0 * (1 << 20)};
  return kind;
}

}  // namespace

HELIX_DECLARE_KIND(swsearch, swsearch_kind(),
                   (ServerFunctions{&swsearch::add_sw_workunit_command, &swsearch::check_sw_result, &swsearch::compare_sw_results,
                                    &swsearch::create_sw_tables, &swsearch::store_sw_result, &swsearch::sw_example_commands}))

}  // namespace helix
