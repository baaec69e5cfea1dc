// glcm_kind.cpp: the glcm kind, declared (core/kind.h): its outputs, the
// volunteer side (read the WU's params, pick the engine, run every (image,
// levels, distance) block with checkpoints, return the table, the maps and
// the summary) and the project side (glcm_workunit.cpp, glcm_check.cpp,
// glcm_store.cpp).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/kind.h"
#include "core/phase_clock.h"
#include "glcm_job.h"
#include "glcm_server.h"

namespace helix {
namespace {

ResultFiles run_glcm(const nlohmann::json& params_json, const RunOptions& options, Runtime& runtime) {
  const glcm::GlcmParams params = glcm::parse_glcm_params(params_json);
  auto engine = options.force_cpu ? glcm::make_cpu_engine() : glcm::make_gpu_engine(options.gpu_device);
  std::fprintf(stderr, "helix glcm: %zu images, %zu levels x %zu distances, on %s\n", params.images.size(),
               params.level_divisors.size(), params.distances.size(), engine->description().c_str());
  const glcm::GlcmResult result = glcm::run_glcm_job(params, *engine, runtime);
  PhaseClock outputs_clock;
  const std::vector<std::uint8_t> maps = glcm::encode_maps(result);
  ResultFiles files = {{"features", glcm::features_tsv(result)},
                       {"maps", std::string(maps.begin(), maps.end())},
                       {"summary", glcm::summary_json(result)}};
  const double outputs = outputs_clock.lap().cpu;
  std::size_t windows = 0;
  for (const auto& image : result.images) windows += image.centres.size();
  std::fprintf(stderr,
               "helix glcm: done, %zu windows; host CPU: images %.3f s, engine loads %.3f s, blocks %.3f s, "
               "encoding the outputs %.3f s\n",
               windows, result.phases.images, result.phases.loads, result.phases.blocks, outputs);
  return files;
}

KindSpec glcm_kind() {
  KindSpec kind;
  kind.name = "glcm";
  kind.description = "Haralick GLCM texture features of grey images";
  kind.outputs = {{"features"}, {"maps"}, summary_output()};
  kind.run = &run_glcm;
  // The images' logical names are their file names, different in every WU:
  // no fixed input template fits, only the result template is packaged.
  kind.hand_made.max_output_bytes = 64.0 * (1 << 20);
  return kind;
}

}  // namespace

HELIX_DECLARE_KIND(glcm, glcm_kind(),
                   (ServerFunctions{&glcm::add_glcm_workunit_command, &glcm::check_glcm_result,
                                    &glcm::compare_glcm_results, &glcm::create_glcm_tables,
                                    &glcm::store_glcm_result, &glcm::glcm_example_commands}))

}  // namespace helix
