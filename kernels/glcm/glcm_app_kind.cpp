// glcm_app_kind.cpp: the volunteer side of the glcm kind: read the WU's
// params, pick the engine, run every (image, levels, distance) block with
// checkpoints, write the table, the maps and the summary (each atomically).
#include <cstdio>

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
    write_file_atomic(runtime.resolve("features"), glcm::features_tsv(result));
    write_file_atomic(runtime.resolve("maps"), glcm::encode_maps(result));
    write_file_atomic(runtime.resolve("summary"), glcm::summary_json(result));
    std::size_t windows = 0;
    for (const auto& image : result.images) windows += image.centres.size();
    std::fprintf(stderr, "helix glcm: done, %zu windows\n", windows);
  }
};

}  // namespace

std::unique_ptr<AppKind> make_glcm_app_kind() { return std::make_unique<GlcmAppKind>(); }

}  // namespace helix
