// glcm_test_util.cpp: see glcm_test_util.h.
#include "glcm_test_util.h"

#include <cstdlib>
#include <filesystem>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/directory_runtime.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "glcm/glcm_server.h"
#include "server_test_util.h"
#include "workunit_writer.h"

namespace helix::test {
namespace fs = std::filesystem;

std::string skimage_image(const std::string& file_name) {
  const char* override_dir = std::getenv("HELIX_SKIMAGE_DATA");
  const std::string path =
      std::string(override_dir ? override_dir : "/usr/lib/python3/dist-packages/skimage/data") + "/" + file_name;
  return fs::exists(path) ? path : "";
}

glcm::GreyImage skimage_crop(const std::string& file_name, int x0, int y0, int width, int height) {
  const glcm::GreyImage full = glcm::read_grey_png(skimage_image(file_name));
  glcm::GreyImage crop{width, height, {}};
  for (int y = y0; y < y0 + height; ++y)
    for (int x = x0; x < x0 + width; ++x) crop.pixels.push_back(full.at(x, y));
  return crop;
}

glcm::GreyImage disc_mask(int width, int height, int cx, int cy, int r) {
  glcm::GreyImage mask{width, height, {}};
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) mask.pixels.push_back((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r ? 255 : 0);
  return mask;
}

WuRun run_glcm_wu(const std::vector<std::string>& args) {
  return run_workunit_command("glcm", args);
}

void GlcmGenuine::write(const glcm::GlcmResult& changed) const {
  const std::vector<std::string> paths = files();
  write_file_atomic(paths[0], glcm::features_tsv(changed));
  write_file_atomic(paths[1], glcm::encode_maps(changed));
  write_file_atomic(paths[2], glcm::summary_json(changed));
}

namespace {

GlcmGenuine make_genuine() {
  GlcmGenuine genuine;
  const std::string sources = scratch_dir("glcm_sources");
  glcm::write_grey_png(sources + "/brick.png", skimage_crop("brick.png", 100, 120, 64, 60));
  glcm::write_grey_png(sources + "/gravel.png", skimage_crop("gravel.png", 200, 150, 90, 90));
  glcm::write_grey_png(sources + "/brick_mask.png", glcm::GreyImage{64, 60, std::vector<std::uint8_t>(64 * 60, 255)});
  glcm::write_grey_png(sources + "/gravel_mask.png", disc_mask(90, 90, 45, 45, 40));
  genuine.inputs_dir = scratch_dir("glcm_wu");
  const WuRun run = run_glcm_wu({"glcm", "make", "--image", sources + "/brick.png", "--image", sources + "/gravel.png",
                                 "--mask", sources + "/brick_mask.png", "--mask", sources + "/gravel_mask.png",
                                 "--levels", "64,16", "--distances", "1,3", "--map-distance", "3", "--name", "genuine",
                                 "--out", genuine.inputs_dir});
  if (!run.error.empty() || run.specs.size() != 1) throw std::runtime_error("genuine WU not made: " + run.error);
  genuine.wu_name = run.specs[0].name;
  genuine.params = glcm::parse_glcm_params(
      nlohmann::json::parse(read_file_text(genuine.inputs_dir + "/" + glcm::wu_params_file(genuine.wu_name))));
  DirectoryRuntime runtime(genuine.inputs_dir);  // the WU's files have their logical names there
  runtime.set_checkpoint_every_call(false);
  auto engine = glcm::make_cpu_engine();
  genuine.result = glcm::run_glcm_job(genuine.params, *engine, runtime);
  return genuine;
}

}  // namespace

GlcmGenuine glcm_genuine(const std::string& tag) {
  static const GlcmGenuine once = make_genuine();
  GlcmGenuine copy = once;
  const std::string dir = scratch_dir("glcm_" + tag);
  copy.inputs_dir = dir + "/inputs";
  fs::copy(once.inputs_dir, copy.inputs_dir);
  copy.result_dir = dir + "/result";
  fs::create_directories(copy.result_dir);
  copy.write(copy.result);
  return copy;
}

}  // namespace helix::test
