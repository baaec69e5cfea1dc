// glcm_app_kind.cpp: the volunteer side of the glcm kind: read the WU's
// params, pick the engine, run every (image, levels, distance) block with
// checkpoints, write the table, the maps and the summary (each atomically).
#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "core/kind.h"
#include "glcm_job.h"

namespace helix {
namespace {

class GlcmAppKind : public AppKind {
 public:
  std::string name() const override { return "glcm"; }

  void run(const nlohmann::json& params_json, const RunOptions& options, Runtime& runtime) const override {
    const glcm::GlcmParams params = glcm::parse_glcm_params(params_json);
    auto engine = options.force_cpu ? glcm::make_cpu_engine() : glcm::make_gpu_engine(options.gpu_device);
    std::fprintf(stderr, "helix glcm: %zu images, %zu levels x %zu distances, on %s\n", params.images.size(),
                 params.level_divisors.size(), params.distances.size(), engine->description().c_str());
    const glcm::GlcmResult result = glcm::run_glcm_job(params, *engine, runtime);
    const std::clock_t outputs_start = std::clock();
    write_file_atomic(runtime.resolve("features"), glcm::features_tsv(result));
    write_file_atomic(runtime.resolve("maps"), glcm::encode_maps(result));
    write_file_atomic(runtime.resolve("summary"), glcm::summary_json(result));
    const double outputs = glcm::cpu_seconds_since(outputs_start);
    std::size_t windows = 0;
    for (const auto& image : result.images) windows += image.centres.size();
    std::fprintf(stderr,
                 "helix glcm: done, %zu windows; host CPU: images %.3f s, engine loads %.3f s, blocks %.3f s, "
                 "outputs %.3f s\n",
                 windows, result.phases.images, result.phases.loads, result.phases.blocks, outputs);
  }
};

}  // namespace

std::unique_ptr<AppKind> make_glcm_app_kind() { return std::make_unique<GlcmAppKind>(); }

}  // namespace helix
