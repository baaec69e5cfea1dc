// glcm_result.h: what a glcm work unit's run produces (glcm_job.h runs it,
// glcm_files.h writes and reads its outputs, glcm_summary.h its summary).
//
// Contents:
//   BlockResult, block_result()   one (image, levels, distance) block's statistics over windows
//   ImageResult                   an image's size, windows, blocks and maps
//   GlcmPhases                    where the run's host CPU time went (stderr only)
//   GlcmResult                    the params, every image's result, the engine
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "glcm_engine.h"
#include "glcm_params.h"

namespace helix::glcm {

// One (image, levels, distance) block: the statistics over windows and where
// the max and min were first reached (window indices into the image's centres).
struct BlockResult {
  int level_divisor = 0;
  int distance = 0;
  WindowStatistics statistics{};
  std::array<std::int32_t, kFeatureCount> max_window{}, min_window{};
};
// A block's statistics from its windows' reduction, or from the windows' fixed
// sums; equal to aggregate_windows() (the reference) bit for bit.
BlockResult block_result(int level_divisor, int distance, std::size_t window_count, const WindowReduction& reduction);
BlockResult block_result(int level_divisor, int distance, const std::vector<FixedFeatures>& window_sums);

struct ImageResult {
  std::string name;
  int width = 0, height = 0;
  std::vector<WindowCentre> centres;
  std::vector<BlockResult> blocks;               // levels x distances, in params order
  std::vector<std::vector<FixedFeatures>> maps;  // per level (params order), at map_distance; empty if none
};
// Where this run's host CPU time went, in seconds (core/phase_clock.h: the
// process's CPU time, what a volunteer's machine pays): decoding the images and finding
// their windows, the engine's loads, the blocks. Printed by the app; after a
// restart, the run since it.
struct GlcmPhases {
  double images = 0, loads = 0, blocks = 0;
};

struct GlcmResult {
  GlcmParams params;
  std::vector<ImageResult> images;
  std::string engine;  // description of the engine that ran it (not compared)
  GlcmPhases phases;   // not part of the result's bytes
};

}  // namespace helix::glcm
