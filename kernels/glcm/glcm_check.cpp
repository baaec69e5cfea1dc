// glcm_check.cpp: the validator's checks of a glcm result. A volunteer host
// may return garbage (bad hardware, a truncated upload) or a forgery. Every
// file is size-capped before it is read and every decode is bounded by what
// the WU can produce. Cheap structural checks come first: the table holds each
// (image, levels, distance, feature) row once and in order, its statistics
// are consistent, and the summary and the maps say the same. With the WU's
// inputs at hand, windows are recomputed on the CPU with the reference
// (glcm.h); the engines are bit-identical to it, so "equal" means ==.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/check_support.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "glcm_server.h"

namespace helix::glcm {
namespace {

// Rows and map windows recomputed per result: ~16 reference windows (a few ms
// each at distance 25) keep the validator fast; the quorum of 2 compares the rest.
constexpr std::size_t kSpotCheckRows = 8;
constexpr std::size_t kSpotCheckMapWindows = 4;

nlohmann::json parse_summary(const std::string& path) {
  const auto bytes = read_bounded(path, kMaxSummaryBytes, "summary");
  auto summary = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (summary.is_discarded() || !summary.is_object()) reject("summary is not a JSON object");
  require(summary.value("kind", nlohmann::json()) == "glcm", "summary kind is not \"glcm\"");
  return summary;
}

// One image as the result describes it (the summary's images).
struct ImageShape {
  std::string name;
  int width = 0, height = 0;
  std::uint64_t windows = 0;
};

std::vector<ImageShape> image_shapes(const nlohmann::json& summary, const GlcmParams& params) {
  const auto& images = summary.at("images");
  require(images.is_array() && images.size() == params.images.size(), "summary images differ from its params' images");
  std::vector<ImageShape> shapes;
  std::uint64_t total = 0;
  const std::uint64_t max_windows = max_windows_per_wu(params);
  for (std::size_t i = 0; i < images.size(); ++i) {
    ImageShape shape;
    require(images[i].at("name") == params.images[i].name, "summary image " + std::to_string(i) + " is misnamed");
    shape.name = params.images[i].name;
    shape.width = static_cast<int>(integer_field(images[i], "width", 1, 16384));
    shape.height = static_cast<int>(integer_field(images[i], "height", 1, 16384));
    shape.windows = static_cast<std::uint64_t>(integer_field(images[i], "windows", 1, max_windows));
    total += shape.windows;
    shapes.push_back(shape);
  }
  require(total <= max_windows, "the result claims more windows than a WU may hold");
  return shapes;
}

std::vector<std::uint64_t> window_counts(const std::vector<ImageShape>& shapes) {
  std::vector<std::uint64_t> counts;
  for (const ImageShape& shape : shapes) counts.push_back(shape.windows);
  return counts;
}

// ---------------------------------------------------------------- the WU's inputs

struct WuImage {
  GreyImage image;
  std::vector<WindowCentre> centres;
};

GlcmParams read_wu_params(const std::string& path) {
  try {
    const auto json = nlohmann::json::parse(read_file_text(path), nullptr, false);
    if (json.is_discarded()) server_trouble("WU params " + path + " is not JSON");
    return parse_glcm_params(json);
  } catch (const InputError& error) {
    server_trouble(std::string("WU params unavailable: ") + error.what());
  }
}

WuImage read_wu_image(const std::string& dir, const GlcmImageInput& input) {
  try {
    WuImage wu;
    wu.image = read_grey_png(dir + "/" + input.image_file);
    const std::vector<std::uint8_t> roi =
        input.mask_file.empty() ? std::vector<std::uint8_t>(wu.image.pixels.size(), 1)
                                : read_mask_png(dir + "/" + input.mask_file, wu.image.width, wu.image.height);
    wu.centres = window_centres(roi, wu.image.width, wu.image.height, kWindowRadius);
    return wu;
  } catch (const InputError& error) {
    server_trouble(std::string("WU input unavailable: ") + error.what());
  }
}

// The summary's params name the WU's files (glcm_server.h, "WU file names"):
// they must be the WU's that BOINC filed the result under (when its files
// have BOINC's names) and that WU's params exactly, or the result answers
// another question: a genuine result of another WU is refused here.
std::vector<WuImage> read_wu_inputs(const std::string& dir, const std::vector<std::string>& files,
                                    const GlcmParams& params) {
  const std::string claimed = wu_name_of(params);
  require(!claimed.empty(), "the summary's image files are not named <wu>.image_<i>.png");
  const std::string wu_name = bound_wu(files, claimed);
  const GlcmParams wu_params = read_wu_params(dir + "/" + wu_params_file(wu_name));
  require(glcm_params_json(wu_params) == glcm_params_json(params), "the summary's params differ from WU " + wu_name + "'s");
  std::vector<WuImage> images;
  for (const GlcmImageInput& input : params.images) images.push_back(read_wu_image(dir, input));
  return images;
}

void check_shapes_against_wu(const std::vector<ImageShape>& shapes, const std::vector<WuImage>& wu) {
  for (std::size_t i = 0; i < shapes.size(); ++i)
    require(shapes[i].width == wu[i].image.width && shapes[i].height == wu[i].image.height &&
                shapes[i].windows == wu[i].centres.size(),
            "image " + shapes[i].name + ": size or window count differs from the WU's image (" +
                std::to_string(wu[i].centres.size()) + " windows)");
}

// ---------------------------------------------------------------- the table

// Where row r of the table belongs: image, level slot, distance slot, feature.
struct RowPlace {
  std::size_t image, level, distance;
  int feature;
};
RowPlace row_place(const GlcmParams& params, std::size_t row) {
  const std::size_t per_level = params.distances.size() * kFeatureCount;
  const std::size_t per_image = params.level_divisors.size() * per_level;
  return {row / per_image, row % per_image / per_level, row % per_level / kFeatureCount,
          static_cast<int>(row % kFeatureCount)};
}
std::size_t row_index(const GlcmParams& params, std::size_t image, std::size_t level, std::size_t distance, int feature) {
  return ((image * params.level_divisors.size() + level) * params.distances.size() + distance) * kFeatureCount + feature;
}

std::string row_label(std::size_t row) { return "features line " + std::to_string(row + 2); }  // after the header

// The mean is rounded once from the exact total over all windows, max and min
// each from one window's sum: when all windows are (nearly) equal, those
// roundings can put the mean a few ulps outside [min, max]. 2^-50 relative
// (4 ulps) allows exactly that.
bool mean_within(double min, double mean, double max) {
  const double slack = std::ldexp(std::fabs(mean) + std::max(std::fabs(min), std::fabs(max)), -50);
  return mean >= min - slack && mean <= max + slack;
}

// A window centre lies at least kWindowRadius from every border.
bool centre_inside(int x, int y, const ImageShape& shape) {
  return x >= kWindowRadius && y >= kWindowRadius && x < shape.width - kWindowRadius && y < shape.height - kWindowRadius;
}

void check_row_values(const FeatureRow& row, const ImageShape& shape, std::size_t r) {
  const std::string where = row_label(r);
  require(row.windows >= 0 && static_cast<std::uint64_t>(row.windows) == shape.windows,
          where + ": windows differs from the image's " + std::to_string(shape.windows));
  require(std::isfinite(row.max) && std::isfinite(row.mean) && std::isfinite(row.min) && std::isfinite(row.range),
          where + ": a statistic is not finite");
  require(row.min <= row.max, where + ": min > max");
  require(row.range == row.max - row.min, where + ": range is not max - min");
  require(mean_within(row.min, row.mean, row.max), where + ": mean outside [min, max]");
  require(centre_inside(row.max_x, row.max_y, shape) && centre_inside(row.min_x, row.min_y, shape),
          where + ": max or min window lies outside the image's windows");
}

void check_rows(const std::vector<FeatureRow>& rows, const GlcmParams& params, const std::vector<ImageShape>& shapes) {
  const std::size_t expected =
      params.images.size() * params.level_divisors.size() * params.distances.size() * kFeatureCount;
  require(rows.size() == expected,
          "features table has " + std::to_string(rows.size()) + " rows, expected " + std::to_string(expected));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const RowPlace place = row_place(params, r);
    const FeatureRow& row = rows[r];
    const int levels = level_count(params.level_divisors[place.level]);
    const int distance = params.distances[place.distance];
    require(row.image == params.images[place.image].name && row.levels == levels && row.distance == distance &&
                row.feature == kFeatureNames[place.feature],
            row_label(r) + " should be (" + params.images[place.image].name + ", " + std::to_string(levels) + ", " +
                std::to_string(distance) + ", " + kFeatureNames[place.feature] + ")");
    check_row_values(row, shapes[place.image], r);
  }
}

// ---------------------------------------------------------------- the maps

bool row_major_before(const WindowCentre& a, const WindowCentre& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; }

void check_map_centres(const ImageResult& map, const ImageShape& shape, const WuImage* wu) {
  require(map.name == shape.name && map.width == shape.width && map.height == shape.height &&
              map.centres.size() == shape.windows,
          "maps of image " + shape.name + ": name, size or window count differs from the summary's");
  if (wu) {
    require(map.centres == wu->centres, "maps of image " + shape.name + ": window centres differ from the WU's ROI");
    return;
  }
  for (std::size_t w = 0; w < map.centres.size(); ++w)
    require(centre_inside(map.centres[w].x, map.centres[w].y, shape) &&
                (w == 0 || row_major_before(map.centres[w - 1], map.centres[w])),
            "maps of image " + shape.name + ": window centres are not distinct row-major windows of the image");
}

// The maps hold every window at map_distance: the table's rows for that
// distance must be exactly their statistics, argmax/argmin windows included.
void check_map_statistics(const ImageResult& map, const GlcmParams& params, std::size_t image,
                          const std::vector<FeatureRow>& rows) {
  const std::size_t j = std::find(params.distances.begin(), params.distances.end(), params.map_distance) -
                        params.distances.begin();
  for (std::size_t l = 0; l < params.level_divisors.size(); ++l) {
    require(map.maps[l].size() == map.centres.size(), "maps of image " + map.name + " miss windows");
    const BlockResult block = block_result(params.level_divisors[l], params.map_distance, map.maps[l]);
    for (int k = 0; k < kFeatureCount; ++k) {
      const std::size_t r = row_index(params, image, l, j, k);
      const FeatureRow& row = rows[r];
      const WindowCentre at_max = map.centres[block.max_window[k]], at_min = map.centres[block.min_window[k]];
      require(block.statistics.max[k] == row.max && block.statistics.mean[k] == row.mean &&
                  block.statistics.min[k] == row.min && block.statistics.range[k] == row.range &&
                  at_max.x == row.max_x && at_max.y == row.max_y && at_min.x == row.min_x && at_min.y == row.min_y,
              row_label(r) + " differs from the statistics of its maps");
    }
  }
}

void check_maps(const DecodedMaps& maps, const GlcmParams& params, const std::vector<ImageShape>& shapes,
                const std::vector<FeatureRow>& rows, const std::vector<WuImage>& wu) {
  require(maps.map_distance == params.map_distance && maps.level_divisors == params.level_divisors &&
              maps.images.size() == params.images.size(),
          "maps file does not match the params (distance, levels or images)");
  const std::size_t map_count = params.map_distance == 0 ? 0 : params.level_divisors.size();
  for (std::size_t i = 0; i < maps.images.size(); ++i) {
    const ImageResult& map = maps.images[i];
    check_map_centres(map, shapes[i], wu.empty() ? nullptr : &wu[i]);
    require(map.maps.size() == map_count, "maps of image " + map.name + " hold the wrong number of levels");
    if (map_count) check_map_statistics(map, params, i, rows);
  }
}

// ---------------------------------------------------------------- spot checks

// Samples depend on the result's bytes only, so a verdict is reproducible.
class SampleStream {
 public:
  explicit SampleStream(std::uint64_t seed) : state_(seed) {}
  std::size_t below(std::size_t bound) { return static_cast<std::size_t>(next() % bound); }

 private:
  std::uint64_t next() {  // SplitMix64
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

std::uint64_t content_seed(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  std::uint64_t hash = 0xCBF29CE484222325ull;  // FNV-1a
  for (const auto* bytes : {&a, &b})
    for (std::uint8_t byte : *bytes) hash = (hash ^ byte) * 0x100000001B3ull;
  return hash;
}

// Every reported max and min window must be one of the image's windows (a
// binary search per row: cheap enough for all rows).
void check_row_windows(const std::vector<FeatureRow>& rows, const GlcmParams& params, const std::vector<WuImage>& wu) {
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::vector<WindowCentre>& centres = wu[row_place(params, r).image].centres;
    const FeatureRow& row = rows[r];
    const std::pair<const char*, WindowCentre> extremes[2] = {{"max", {row.max_x, row.max_y}},
                                                              {"min", {row.min_x, row.min_y}}};
    for (const auto& [which, at] : extremes)
      require(std::binary_search(centres.begin(), centres.end(), at, row_major_before),
              row_label(r) + ": " + which + " window (" + std::to_string(at.x) + ", " + std::to_string(at.y) +
                  ") is not a window of the image's ROI");
  }
}

// The reported max (min) must be the reference's value at the reported window
// (check_row_windows() has made sure it is one).
void spot_check_extreme(const WuImage& wu, const FeatureRow& row, std::size_t r, int divisor, int feature, bool is_max) {
  const WindowCentre at = is_max ? WindowCentre{row.max_x, row.max_y} : WindowCentre{row.min_x, row.min_y};
  const char* which = is_max ? "max" : "min";
  const double value = window_features(wu.image, divisor, at.x, at.y, kWindowRadius, row.distance)[feature];
  require(value == (is_max ? row.max : row.min),
          row_label(r) + ": " + which + " is not the recomputed value at its window");
}

void spot_check_rows(const std::vector<FeatureRow>& rows, const GlcmParams& params, const std::vector<WuImage>& wu,
                     SampleStream& samples) {
  for (std::size_t s = 0; s < kSpotCheckRows; ++s) {
    const std::size_t r = samples.below(rows.size());
    const RowPlace place = row_place(params, r);
    const int divisor = params.level_divisors[place.level];
    spot_check_extreme(wu[place.image], rows[r], r, divisor, place.feature, true);
    spot_check_extreme(wu[place.image], rows[r], r, divisor, place.feature, false);
  }
}

void spot_check_maps(const DecodedMaps& maps, const GlcmParams& params, const std::vector<WuImage>& wu,
                     SampleStream& samples) {
  if (params.map_distance == 0) return;
  for (std::size_t s = 0; s < kSpotCheckMapWindows; ++s) {
    const std::size_t i = samples.below(maps.images.size()), l = samples.below(params.level_divisors.size());
    const ImageResult& map = maps.images[i];
    const std::size_t w = samples.below(map.centres.size());
    const FixedFeatures sums = window_fixed_sums(wu[i].image, params.level_divisors[l], map.centres[w].x,
                                                 map.centres[w].y, kWindowRadius, params.map_distance);
    require(sums == map.maps[l][w], "maps of image " + map.name + ": window (" + std::to_string(map.centres[w].x) +
                                        ", " + std::to_string(map.centres[w].y) + ") differs from its recomputation");
  }
}

// ---------------------------------------------------------------- reading a result

struct Parsed {
  nlohmann::json summary;
  GlcmParams params;
  std::vector<ImageShape> shapes;
  std::vector<std::uint8_t> features_bytes;
  std::vector<FeatureRow> rows;
};

// Summary first (it is capped at 1 MiB and bounds everything else), then the
// table, read only up to what the summary's WU can produce.
Parsed read_summary_and_table(const std::vector<std::string>& files) {
  require(files.size() == 3, "a glcm result has 3 files (features, maps, summary), got " + std::to_string(files.size()));
  Parsed parsed;
  parsed.summary = parse_summary(files[2]);
  parsed.params = parse_glcm_params(parsed.summary.at("params"));
  parsed.shapes = image_shapes(parsed.summary, parsed.params);
  parsed.features_bytes = read_bounded(files[0], max_features_bytes(parsed.params), "features table");
  parsed.rows = parse_features_tsv(std::string(parsed.features_bytes.begin(), parsed.features_bytes.end()));
  return parsed;
}

// The maps file, capped at what the images' windows can fill and decoded with
// the windows' total as its allocation bound.
DecodedMaps read_maps(const std::string& path, const Parsed& parsed, std::vector<std::uint8_t>& bytes) {
  const std::vector<std::uint64_t> windows = window_counts(parsed.shapes);
  bytes = read_bounded(path, max_maps_file_bytes(parsed.params, windows), "maps file");
  std::uint64_t total = 0;
  for (std::uint64_t n : windows) total += n;
  return decode_maps(bytes, total);
}

void check_result(const std::vector<std::string>& files, const ServerOptions& options) {
  const Parsed parsed = read_summary_and_table(files);
  std::vector<WuImage> wu;
  if (!options.inputs_dir.empty()) {
    wu = read_wu_inputs(options.inputs_dir, files, parsed.params);
    check_shapes_against_wu(parsed.shapes, wu);
  }
  check_rows(parsed.rows, parsed.params, parsed.shapes);
  std::vector<std::uint8_t> maps_bytes;
  const DecodedMaps maps = read_maps(files[1], parsed, maps_bytes);
  check_maps(maps, parsed.params, parsed.shapes, parsed.rows, wu);
  if (wu.empty()) return;
  check_row_windows(parsed.rows, parsed.params, wu);
  SampleStream samples(content_seed(parsed.features_bytes, maps_bytes));
  spot_check_rows(parsed.rows, parsed.params, wu, samples);
  spot_check_maps(maps, parsed.params, wu, samples);
}

bool same_row(const FeatureRow& a, const FeatureRow& b) {
  return a.image == b.image && a.feature == b.feature && a.levels == b.levels && a.distance == b.distance &&
         a.windows == b.windows && a.max == b.max && a.mean == b.mean && a.min == b.min && a.range == b.range &&
         a.max_x == b.max_x && a.max_y == b.max_y && a.min_x == b.min_x && a.min_y == b.min_y;
}

bool same_maps(const DecodedMaps& a, const DecodedMaps& b) {
  if (a.map_distance != b.map_distance || a.level_divisors != b.level_divisors || a.images.size() != b.images.size())
    return false;
  for (std::size_t i = 0; i < a.images.size(); ++i) {
    const ImageResult &x = a.images[i], &y = b.images[i];
    if (x.name != y.name || x.width != y.width || x.height != y.height || x.centres != y.centres || x.maps != y.maps)
      return false;
  }
  return true;
}

void compare_results(const std::vector<std::string>& files_a, const std::vector<std::string>& files_b) {
  Parsed a = read_summary_and_table(files_a), b = read_summary_and_table(files_b);
  require(glcm_params_json(a.params) == glcm_params_json(b.params), "the results answer different params");
  require(a.rows.size() == b.rows.size(), "the tables have different row counts");
  for (std::size_t r = 0; r < a.rows.size(); ++r) require(same_row(a.rows[r], b.rows[r]), row_label(r) + " differs");
  std::vector<std::uint8_t> bytes;
  require(same_maps(read_maps(files_a[1], a, bytes), read_maps(files_b[1], b, bytes)), "the maps differ");
  a.summary.erase("engine"), b.summary.erase("engine");  // which hardware ran it is not part of the answer
  require(a.summary == b.summary, "the summaries differ");
}

}  // namespace

CheckOutcome check_glcm_result(const std::vector<std::string>& files, const ServerOptions& options) {
  return outcome_of([&] { check_result(files, options); });
}

CheckOutcome compare_glcm_results(const std::vector<std::string>& files_a, const std::vector<std::string>& files_b) {
  return outcome_of([&] { compare_results(files_a, files_b); });
}

}  // namespace helix::glcm
