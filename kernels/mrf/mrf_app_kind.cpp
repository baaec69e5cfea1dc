// mrf_app_kind.cpp: the volunteer side of the mrf kind: read the WU, pick the
// engine, segment, write the label map and the summary (each atomically).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "core/kind.h"
#include "mrf.h"
#include "mrf_files.h"
#include "mrf_summary.h"

namespace helix {
namespace {

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

class MrfAppKind : public AppKind {
 public:
  std::string name() const override { return "mrf"; }

  void run(const nlohmann::json& params_json, const RunOptions& options, Runtime& runtime) const override {
    const mrf::MrfParams params = mrf::parse_mrf_params(params_json);
    const std::string volume_path = runtime.resolve("volume");
    const mrf::Volume volume = mrf::read_volume_file(volume_path);
    auto engine = options.force_cpu ? mrf::make_cpu_engine() : mrf::make_gpu_engine(options.gpu_device);
    std::fprintf(stderr, "helix mrf: %dx%dx%d voxels on %s\n", volume.nx, volume.ny, volume.nz,
                 engine->description().c_str());
    const mrf::MrfResult result = mrf::solve_mrf(volume, params, *engine, runtime);
    write_file_atomic(runtime.resolve("labels"), mrf::encode_labels(volume.nx, volume.ny, volume.nz, result.labels));
    write_file_atomic(runtime.resolve("summary"),
                      mrf::summary_text(mrf::make_summary(volume, params, result, base_name(volume_path))));
    std::fprintf(stderr, "helix mrf: %zu sweeps, %s\n", result.trace.size(),
                 result.converged ? "converged" : "stopped at max_sweeps");
  }
};

}  // namespace

std::unique_ptr<AppKind> make_mrf_app_kind() { return std::make_unique<MrfAppKind>(); }

}  // namespace helix
