// sw_app_kind.cpp: the volunteer side of the swsearch kind: read the WU,
// pick the engine, search the chunk block by block (checkpointed), write the
// hits table and the summary (each atomically).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "core/kind.h"
#include "sw_job.h"

namespace helix {
namespace {

class SwsearchAppKind : public AppKind {
 public:
  std::string name() const override { return "swsearch"; }

  void run(const nlohmann::json& params_json, const RunOptions& options, Runtime& runtime) const override {
    const sw::SwParams params = sw::parse_sw_params(params_json);
    // One thread on the CPU: BOINC schedules a CPU task on one core.
    auto engine = options.force_cpu ? sw::make_cpu_engine(1) : sw::make_gpu_engine(options.gpu_device);
    std::fprintf(stderr, "helix swsearch: %s %d/%d on %s\n", params.matrix_name.c_str(), params.gaps.open,
                 params.gaps.extend, engine->description().c_str());
    const sw::SearchResult result = sw::run_sw_job(params, *engine, runtime);
    write_file_atomic(runtime.resolve("hits"), sw::hits_tsv(result));
    write_file_atomic(runtime.resolve("summary"), sw::sw_summary_json(result));
    std::fprintf(stderr, "helix swsearch: %zu queries against %llu targets (%llu residues): read %.3f s, load %.3f s, "
                 "scan %.3f s, ends %.3f s, alignments %.3f s\n", result.queries.size(),
                 static_cast<unsigned long long>(result.chunk_targets),
                 static_cast<unsigned long long>(result.chunk_residues), result.phases.read, result.phases.load,
                 result.phases.scan,
                 result.phases.ends, result.phases.align);
  }
};

}  // namespace

std::unique_ptr<AppKind> make_swsearch_app_kind() { return std::make_unique<SwsearchAppKind>(); }

}  // namespace helix
