// glcm_job.h: a glcm work unit and its result, as files (docs/glcm.md, "Work
// units and results"). Shared by the app (which runs the job) and the server
// side (which makes WUs, checks, stores and renders results).
//
// Contents:
//   read_grey_png() / read_mask_png()   the WU's images (libpng; 8/16-bit grey only)
//   write_grey_png()                    masks, feature maps, test images
//   GlcmParams, parse_glcm_params()     the WU's "params" JSON
//   BlockResult, ImageResult, GlcmResult  what a run produces
//   run_glcm_job()                      the app's whole job, checkpointed per block
//   features_tsv(), parse_features_tsv()  the "features" output (the table)
//   encode_maps(), decode_maps()        the "maps" output (per-window values, one distance)
//   summary_json()                      the "summary" output (JSON; last file, names the kind)
#pragma once
#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/runtime.h"
#include "glcm_engine.h"

namespace helix::glcm {

// The short names of f1..f13, as the files spell them.
extern const char* const kFeatureNames[kFeatureCount];

// An 8-bit grey image from a PNG: 8-bit grey as is, 1/2/4-bit grey expanded
// to 0..255 steps, 16-bit grey as its high byte (v >> 8). Throws InputError
// (one line) for a missing/unreadable/non-PNG file, colour or alpha, or a
// size outside 1..16384 per side.
GreyImage read_grey_png(const std::string& path);
// A ROI mask: a grey PNG of the image's size, nonzero = inside. InputError if
// it is not width x height.
std::vector<std::uint8_t> read_mask_png(const std::string& path, int width, int height);
// Writes an 8-bit (or 16-bit) grey PNG atomically (temp file + rename); for
// masks, feature maps and tests. Throws InputError when it cannot.
void write_grey_png(const std::string& path, const GreyImage& image);
void write_grey16_png(const std::string& path, int width, int height, const std::vector<std::uint16_t>& pixels);

struct GlcmImageInput {
  std::string name;           // the scientist's name for the image (e.g. file stem)
  std::string image_file;     // logical file name of the PNG
  std::string mask_file;      // logical file name of the mask PNG; empty: the whole image is the ROI
};

struct GlcmParams {
  std::vector<GlcmImageInput> images;
  std::vector<int> level_divisors;  // from "levels" [64, 32, 16] -> 4, 8, 16 (in the given order)
  std::vector<int> distances;       // 1..25, ascending, distinct
  int map_distance = 0;             // 0: no maps; else one of distances
};
// {"kind": "glcm", "images": [{"name", "image", "mask"?}, ...], "levels": [64, 32, 16]?,
//  "distances": [1..25]?, "map_distance": 0?}. Throws InputError on anything absurd.
GlcmParams parse_glcm_params(const nlohmann::json& params);
nlohmann::json glcm_params_json(const GlcmParams& params);

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
// Where this run's host CPU time went, in seconds (std::clock: the process's
// CPU time, what a volunteer's machine pays): decoding the images and finding
// their windows, the engine's loads, the blocks. Printed by the app; after a
// restart, the run since it.
struct GlcmPhases {
  double images = 0, loads = 0, blocks = 0;
};
// Process CPU seconds since `start` (std::clock ticks), for GlcmPhases.
double cpu_seconds_since(std::clock_t start);

struct GlcmResult {
  GlcmParams params;
  std::vector<ImageResult> images;
  std::string engine;  // description of the engine that ran it (not compared)
  GlcmPhases phases;   // not part of the result's bytes
};

// Reads the images (through runtime.resolve), runs every block on `engine`,
// saving state after each block when the runtime says a checkpoint is due, and
// resuming from saved state. Throws InputError for bad inputs (including a ROI
// with no window), StopRequested when asked to stop.
GlcmResult run_glcm_job(const GlcmParams& params, GlcmEngine& engine, Runtime& runtime);

// The table: a header line, then one line per (image, levels, distance,
// feature): image, levels, distance, windows, feature, max, mean, min, range,
// max_x, max_y, min_x, min_y (doubles as %.17g: they read back exactly).
std::string features_tsv(const GlcmResult& result);
struct FeatureRow {
  std::string image, feature;
  int levels = 0, distance = 0, windows = 0;
  double max = 0, mean = 0, min = 0, range = 0;
  int max_x = 0, max_y = 0, min_x = 0, min_y = 0;
};
// Throws InputError (one line, naming the line number) on a malformed table.
std::vector<FeatureRow> parse_features_tsv(const std::string& text);

// "HXGLM001": per image its name, size, centres and, per level, every window's
// fixed sums at map_distance; zstd-compressed.
std::vector<std::uint8_t> encode_maps(const GlcmResult& result);
struct DecodedMaps {
  int map_distance = 0;
  std::vector<int> level_divisors;
  std::vector<ImageResult> images;  // name, size, centres and maps only
};
// Throws InputError on a malformed or oversized file (max_windows bounds the allocation).
DecodedMaps decode_maps(const std::vector<std::uint8_t>& bytes, std::size_t max_windows);

std::string summary_json(const GlcmResult& result);

}  // namespace helix::glcm
