// glcm_test_util.h: fixtures for the glcm kind's server-side tests: real
// textures from python3-skimage's images, `helix-wu glcm ...` run in-process
// (the same CLI code the tool runs), and a genuine result: a WU made by the
// work generator and run by the CPU engine, written as the app writes it.
#pragma once
#include <string>
#include <vector>

#include "core/kind.h"
#include "glcm/glcm_job.h"
#include "server_test_util.h"

namespace helix::test {

// skimage's bundled images ($HELIX_SKIMAGE_DATA overrides), "" when absent:
// tests that need them skip.
std::string skimage_image(const std::string& file_name);
#define SKIP_WITHOUT_SKIMAGE() \
  if (helix::test::skimage_image("brick.png").empty()) GTEST_SKIP() << "python3-skimage's images are not installed"
// A crop of one of skimage's grey images.
glcm::GreyImage skimage_crop(const std::string& file_name, int x0, int y0, int width, int height);
// 255 inside the disc (x-cx)^2 + (y-cy)^2 <= r^2, 0 outside.
glcm::GreyImage disc_mask(int width, int height, int cx, int cy, int r);

// `helix-wu <args...>` with the glcm commands (run_workunit_command).
WuRun run_glcm_wu(const std::vector<std::string>& args);

struct GlcmGenuine {
  std::string inputs_dir;   // the WU's input files (helix-wu's --out)
  std::string wu_name;      // its name (one WU)
  std::string result_dir;   // features, maps, summary, as BOINC names uploads: <wu>_0_r<random>_<0|1|2>
  glcm::GlcmParams params;  // as the WU's params file holds them
  glcm::GlcmResult result;  // what the CPU engine computed
  std::vector<std::string> files() const {
    const std::string stem = result_dir + "/" + wu_name + "_0_r" + kResultRandom + "_";
    return {stem + "0", stem + "1", stem + "2"};
  }
  // Writes `changed` (a forged or damaged copy of result) as this result's files.
  void write(const glcm::GlcmResult& changed) const;
};
// One WU of two real textures: a 64x60 brick crop (whole image the ROI) and a
// 90x90 gravel crop with a disc mask of radius 40; levels 64 and 16,
// distances 1 and 3, maps at distance 3. Computed once per process; every
// call copies it into fresh directories (tests may damage their copy).
GlcmGenuine glcm_genuine(const std::string& tag);

}  // namespace helix::test
