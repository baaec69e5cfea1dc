// glcm_server.h: the project-side pieces of the glcm kind, used by
// glcm_kind.cpp (the kind's declaration, core/kind.h) and by tests.
// The WU and result formats themselves are glcm_job.h's (docs/glcm.md).
//
// Contents
//   WU file names          wu_params_file(), wu_image_file(), wu_mask_file(), wu_name_of()
//   parse_distance_list(), parse_levels_list()   --distances "1-25" / --levels "64,32,16"
//   image_cost(), batch_images()                 cost model and greedy batching (glcm_batch.cpp)
//   result size bounds                           max_features_bytes(), max_maps_file_bytes(), ... (glcm_batch.cpp)
//   WellCircle, detect_well(), well_mask()       the circular well's ROI (OpenCV; glcm_well.cpp)
//   feature_index(), render_feature_map()        one feature of the maps as a PNG (glcm_render.cpp)
//   check_glcm_result(), compare_glcm_results()  validator (glcm_check.cpp)
//   create_glcm_tables(), store_glcm_result()    assimilator (glcm_store.cpp)
//   add_glcm_workunit_command()                  `helix-wu glcm make|map` (glcm_workunit.cpp)
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/kind.h"
#include "core/work_protocol.h"
#include "glcm_job.h"

namespace helix::glcm {

// ---------------------------------------------------------------- WU file names
//
// A WU's image and mask files have the same logical and physical name,
// "<wu>.image_<i>.png" / "<wu>.mask_<i>.png", and its params file is
// "<wu>.params.json" (logical name "params"). The summary echoes the params,
// so the validator finds the WU's own files in its --inputs directory from
// the result alone, as mrf's does from its summary's input_volume.
std::string wu_params_file(const std::string& wu_name);
std::string wu_image_file(const std::string& wu_name, std::size_t index);
std::string wu_mask_file(const std::string& wu_name, std::size_t index);
// The WU name that every image (and mask) file of `params` is named after, or
// "" when they do not follow the convention above.
std::string wu_name_of(const GlcmParams& params);

// ---------------------------------------------------------------- options

// "1-25", "1..25", "1,2,5-7": distances in 1..kMaxDistance, in the given order
// (parse_glcm_params then requires them ascending and distinct). InputError
// (one line) on anything else; ranges are bounds-checked before expansion.
std::vector<int> parse_distance_list(const std::string& text);
// "64,32,16" -> level divisors {4, 8, 16}. InputError for other level counts.
std::vector<int> parse_levels_list(const std::string& text);

// ---------------------------------------------------------------- cost and batching

// One update step of the sliding engines is one window moved by one pixel for
// one displacement and one quantisation: about 130 pixel pairs leave and enter
// the GLCM, each touching a cell, the marginal, the sum and difference
// histograms and their squares and X-table terms (~15 operations), then the
// 13 features of the new GLCM (~50 operations, a log and an exp): about 2,000
// operations in all. rsc_fpops_est = cost x this.
constexpr double kFlopsPerUpdateStep = 2000;
// About four paper-size images (~22,000 windows, all 25 distances, 3 quantisations:
// 22,000 x 1026 x 3 = 6.8e7 steps each) per WU: 6e11 operations, minutes on a GPU.
constexpr double kDefaultMaxCostPerWu = 3e8;
// The GPU size class's (core/size_class.h): 160 x that, about 700 paper-size
// images or 118 of the 512 x 512 test plates (about a minute on an H100,
// days on one CPU core). A WU that keeps maps is bounded by kMaxWindowsPerWu
// first (190 paper-size images, 28 plates).
constexpr double kGpuMaxCostPerWu = 4.8e10;
// Windows in one WU, over all its images: bounds the maps file the validator
// decodes and a host's memory. With maps (map_distance > 0) each window is 8
// bytes of centre and up to 3 x 104 bytes of sums, so at most ~1.3 GiB; a
// 2048 x 2048 image has 4.06 million windows.
constexpr std::uint64_t kMaxWindowsPerWu = 1u << 22;
// Without maps the file holds only the centres (8 bytes a window): four times
// the windows is still a tenth of those bytes (~128 MiB before zstd).
constexpr std::uint64_t kMaxWindowsPerWuWithoutMaps = 1u << 24;
// The bound that applies to a WU of these params.
inline std::uint64_t max_windows_per_wu(const GlcmParams& params) {
  return params.map_distance == 0 ? kMaxWindowsPerWuWithoutMaps : kMaxWindowsPerWu;
}
// Longest line of the features table: a 64-character image name, 2+2+10 digits,
// a 19-character feature name, 4 doubles of at most 24 characters (%.17g),
// 4 coordinates of at most 5 digits, 12 tabs and a newline: 226 bytes.
constexpr std::uint64_t kMaxFeatureRowBytes = 256;

// The work of one image: windows x (sum over the distances of their
// displacement counts) x number of quantisations, in update steps.
double image_cost(std::size_t windows, const GlcmParams& params);

// What batching needs to know of one image.
struct BatchItem {
  double cost = 0;                   // image_cost()
  std::uint64_t windows = 0;
  std::uint64_t summary_bytes = 0;   // image_summary_bytes()
};
// Greedy in input order: an image joins the current WU while the WU's cost
// stays <= max_cost, its summary within kMaxSummaryBytes and its windows
// within max_windows (max_windows_per_wu()); otherwise it starts the next WU. An image is never
// split, so one costlier than max_cost makes a WU of its own. Returns the
// image indices of each WU. InputError when one image alone breaks the
// summary or window limit (`names` name it), or max_cost is not positive.
std::vector<std::vector<std::size_t>> batch_images(const std::vector<BatchItem>& items,
                                                   const std::vector<std::string>& names, double max_cost,
                                                   std::uint64_t max_windows);

// Result sizes, computed from the formats (glcm_job.cpp) for the worst case.
//   summary_base_bytes: the summary of a WU with `params`' levels and distances
//     and no image (and 1 KiB for the engine's description); image_summary_bytes:
//     what one image named `name` adds (file names at 64 characters). A WU's
//     summary is at most base + the sum.
std::uint64_t summary_base_bytes(const GlcmParams& params);
std::uint64_t image_summary_bytes(const GlcmParams& params, const std::string& name, int width, int height,
                                  std::uint64_t windows);
//   max_features_bytes: the header and one row per (image, levels, distance, feature).
std::uint64_t max_features_bytes(const GlcmParams& params);
//   max_maps_file_bytes: magic, size and the zstd bound of maps_raw_bytes() (glcm_files.h).
std::uint64_t max_maps_file_bytes(const GlcmParams& params, const std::vector<std::uint64_t>& windows);

// ---------------------------------------------------------------- the well

struct WellCircle {
  double centre_x = 0, centre_y = 0, radius = 0;  // pixels
};
// The circular crystallisation well: cv::HoughCircles (gradient method) on a
// Gaussian-blurred copy, radii between a fifth and 0.55 of the shorter side,
// and the circle with the most votes. InputError naming `what` (the image's
// path) when no circle is found.
WellCircle detect_well(const GreyImage& image, const std::string& what);
// Default shrink of a detected well: 10 % of its radius, so that the dark rim
// (and the detector's error of a few pixels) stays outside the ROI.
double default_well_margin(const WellCircle& well);
// ROI mask (255 inside, 0 outside) of the disc of radius well.radius - margin_px.
GreyImage well_mask(int width, int height, const WellCircle& well, double margin_px);

// ---------------------------------------------------------------- feature maps

// Index of a feature by its file name (kFeatureNames). InputError if unknown.
int feature_index(const std::string& name);
// One feature of one image's map at one quantisation as an 8-bit grey image of
// the image's size: the pixel at each window centre holds that window's value
// scaled linearly from the map's min..max to 1..255 (255 when all are equal);
// every other pixel is 0, or the underlay image divided by 4 (dimmed) when one
// is given. InputError for an unknown image, levels not in the maps, maps
// without a distance (map_distance 0), or an underlay of another size.
GreyImage render_feature_map(const DecodedMaps& maps, const std::string& image_name, int levels, int feature,
                             const GreyImage* underlay);

// ---------------------------------------------------------------- validator

// Validator init mode for files = {features, maps, summary}; docs/server.md
// lists the checks. With options.inputs_dir the WU's params and images are
// read there and a sample of windows is recomputed on the CPU. Never throws.
CheckOutcome check_glcm_result(const std::vector<std::string>& files, const ServerOptions& options);
// Equivalent iff the tables are equal value for value, the maps decode to the
// same windows and sums, and the summaries are equal as JSON apart from
// "engine" (the hardware that ran it). Never throws.
CheckOutcome compare_glcm_results(const std::vector<std::string>& files_a, const std::vector<std::string>& files_b);

// ---------------------------------------------------------------- assimilator

// Creates glcm_images and glcm_features if absent (docs/database.md). Throws
// std::runtime_error on SQL errors.
void create_glcm_tables(sqlite3* db);
// INSERT OR REPLACE of one result's images and table rows (the caller holds
// the transaction): storing the same result twice changes nothing. Throws
// InputError for unreadable or malformed files, std::runtime_error on SQL errors.
void store_glcm_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files);

// ---------------------------------------------------------------- work generator

// Adds make and map to `helix-wu glcm` (`command`, which core makes from the declaration).
void add_glcm_workunit_command(CLI::App& command, std::function<void(const WorkunitSpec&)> emit);
// `helix-wu glcm example`: the small example WU's command lines (core/kind.h,
// ServerFunctions::example_commands).
std::vector<std::vector<std::string>> glcm_example_commands(const std::string& dir);

}  // namespace helix::glcm
