// mrf_kind.cpp: the mrf kind, declared (core/kind.h): its outputs, the
// volunteer side (read the WU, pick the engine, segment, return the label map
// and the summary) and the project side (mrf_workunit.cpp, mrf_check.cpp,
// mrf_store.cpp).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/kind.h"
#include "mrf.h"
#include "mrf_files.h"
#include "mrf_server.h"
#include "mrf_summary.h"

namespace helix {
namespace {

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

ResultFiles run_mrf(const nlohmann::json& params_json, const RunOptions& options, Runtime& runtime) {
  const mrf::MrfParams params = mrf::parse_mrf_params(params_json);
  const std::string volume_path = runtime.resolve("volume");
  const mrf::Volume volume = mrf::read_volume_file(volume_path);
  auto engine = options.force_cpu ? mrf::make_cpu_engine() : mrf::make_gpu_engine(options.gpu_device);
  std::fprintf(stderr, "helix mrf: %dx%dx%d voxels on %s\n", volume.nx, volume.ny, volume.nz,
               engine->description().c_str());
  const mrf::MrfResult result = mrf::solve_mrf(volume, params, *engine, runtime);
  std::fprintf(stderr, "helix mrf: %zu sweeps, %s\n", result.trace.size(),
               result.converged ? "converged" : "stopped at max_sweeps");
  const std::vector<std::uint8_t> labels = mrf::encode_labels(volume.nx, volume.ny, volume.nz, result.labels);
  return {{"labels", std::string(labels.begin(), labels.end())},
          {"summary", mrf::summary_text(mrf::make_summary(volume, params, result, base_name(volume_path)))}};
}

KindSpec mrf_kind() {
  KindSpec kind;
  kind.name = "mrf";
  kind.description = "CT segmentation by a Markov random field";
  kind.outputs = {{"labels"}, summary_output()};
  kind.run = &run_mrf;
  // A 512x512x300 CT volume; the disk bound leaves the app version's 64 MiB
  // (workunit/) out, so rsc_disk_bound is 1 GiB.
  kind.hand_made = {{"volume"}, {}, 5e11, 768.0 * (1 << 20), 960.0 * (1 << 20), 100.0 * (1 << 20)};
  return kind;
}

}  // namespace

HELIX_DECLARE_KIND(mrf, mrf_kind(),
                   (ServerFunctions{&mrf::add_mrf_workunit_command, &mrf::check_mrf_result, &mrf::compare_mrf_results,
                                    &mrf::create_mrf_tables, &mrf::store_mrf_result, &mrf::mrf_example_commands}))

}  // namespace helix
