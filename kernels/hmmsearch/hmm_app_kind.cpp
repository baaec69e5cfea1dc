// hmm_app_kind.cpp: the volunteer side of the hmmsearch kind: read the WU,
// pick the engine, search the chunk block by block (filters on the engine,
// domain definition on the CPU; checkpointed), write "tblout", "domtblout",
// "out", "scores", "domains" and, last, "summary" (each atomically).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "core/kind.h"
#include "hmm_job.h"

namespace helix {
namespace {

class HmmsearchAppKind : public AppKind {
 public:
  std::string name() const override { return "hmmsearch"; }

  void run(const nlohmann::json& params_json, const RunOptions& options, Runtime& runtime) const override {
    const hmm::HmmParams params = hmm::parse_hmm_params(params_json);
    auto engine = options.force_cpu ? hmm::make_reference_engine() : hmm::make_gpu_engine(options.gpu_device);
    std::fprintf(stderr, "helix hmmsearch: %s chunk %u of %u, %u profiles, on %s\n", params.search.c_str(),
                 params.chunk, params.chunks, params.profile_count, engine->description().c_str());
    // The GPU's results are spot-checked against the CPU reference as they come.
    const hmm::HmmJobResult result = hmm::run_hmm_job(params, *engine, runtime, !options.force_cpu);
    write_file_atomic(runtime.resolve("tblout"), hmm::tblout_output(result));
    write_file_atomic(runtime.resolve("domtblout"), hmm::domtblout_output(result));
    write_file_atomic(runtime.resolve("out"), hmm::out_output(result));
    write_file_atomic(runtime.resolve("scores"), hmm::scores_tsv(result.rows));
    write_file_atomic(runtime.resolve("domains"), hmm::domains_tsv(result.rows));
    write_file_atomic(runtime.resolve("summary"), hmm::hmm_summary_json(result));
    std::fprintf(stderr, "helix hmmsearch: %llu targets, %zu past the Forward filter\n",
                 static_cast<unsigned long long>(params.chunk_targets), result.rows.size());
  }
};

}  // namespace

std::unique_ptr<AppKind> make_hmmsearch_app_kind() { return std::make_unique<HmmsearchAppKind>(); }

}  // namespace helix
