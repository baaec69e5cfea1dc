// glcm_job.cpp: a glcm work unit from params to result files (glcm_job.h):
// parameters, the checkpointed block loop, and the three output formats.
#include "glcm_job.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <cstring>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/byte_codec.h"
#include "core/errors.h"

namespace helix::glcm {

const char* const kFeatureNames[kFeatureCount] = {
    "asm",          "contrast",    "correlation",         "variance",           "idm",  "sum_average", "sum_variance",
    "sum_entropy",  "entropy",     "difference_variance", "difference_entropy", "imc1", "imc2"};

namespace {

constexpr char kStateMagic[8] = {'H', 'X', 'G', 'L', 'C', 'S', '0', '1'};
constexpr char kMapsMagic[8] = {'H', 'X', 'G', 'L', 'M', '0', '0', '1'};
constexpr std::size_t kMaxImages = 1000;

// ---------------------------------------------------------------- parameters

int divisor_of_levels(int levels) {
  switch (levels) {
    case 64: return 4;
    case 32: return 8;
    case 16: return 16;
    default: throw InputError("glcm params: levels must be 64, 32 or 16, got " + std::to_string(levels));
  }
}

bool is_safe_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; });
}

std::vector<int> int_list(const nlohmann::json& params, const char* key, std::vector<int> fallback) {
  if (!params.contains(key)) return fallback;
  const nlohmann::json& list = params.at(key);
  if (!list.is_array() || list.empty() || list.size() > 64)
    throw InputError(std::string("glcm params: \"") + key + "\" must be a non-empty list of integers");
  std::vector<int> values;
  for (const auto& v : list) {
    if (!v.is_number_integer()) throw InputError(std::string("glcm params: \"") + key + "\" holds a non-integer");
    values.push_back(v.get<int>());
  }
  return values;
}

GlcmImageInput parse_image(const nlohmann::json& entry) {
  if (!entry.is_object() || !entry.contains("name") || !entry.contains("image") || !entry.at("name").is_string() ||
      !entry.at("image").is_string())
    throw InputError("glcm params: every image needs string \"name\" and \"image\"");
  GlcmImageInput input{entry.at("name").get<std::string>(), entry.at("image").get<std::string>(), ""};
  if (entry.contains("mask")) {
    if (!entry.at("mask").is_string()) throw InputError("glcm params: \"mask\" must be a string");
    input.mask_file = entry.at("mask").get<std::string>();
  }
  for (const std::string* name : {&input.name, &input.image_file})
    if (!is_safe_name(*name)) throw InputError("glcm params: bad image name or file \"" + *name + "\"");
  if (!input.mask_file.empty() && !is_safe_name(input.mask_file))
    throw InputError("glcm params: bad mask file \"" + input.mask_file + "\"");
  return input;
}

// ---------------------------------------------------------------- checkpoints

// A checkpoint is reused only by the same parameters (which name the files).
std::string state_fingerprint(const GlcmParams& params) { return glcm_params_json(params).dump(); }

void put_block(ByteWriter& w, const BlockResult& b) {
  w.put<std::int32_t>(b.level_divisor), w.put<std::int32_t>(b.distance);
  for (const Features* f : {&b.statistics.max, &b.statistics.mean, &b.statistics.min, &b.statistics.range})
    for (double v : *f) w.put<double>(v);
  for (int k = 0; k < kFeatureCount; ++k) w.put<std::int32_t>(b.max_window[k]), w.put<std::int32_t>(b.min_window[k]);
}
BlockResult get_block(ByteReader& r) {
  BlockResult b;
  b.level_divisor = r.get<std::int32_t>(), b.distance = r.get<std::int32_t>();
  for (Features* f : {&b.statistics.max, &b.statistics.mean, &b.statistics.min, &b.statistics.range})
    for (double& v : *f) v = r.get<double>();
  for (int k = 0; k < kFeatureCount; ++k) b.max_window[k] = r.get<std::int32_t>(), b.min_window[k] = r.get<std::int32_t>();
  return b;
}

void put_sums(ByteWriter& w, const std::vector<FixedFeatures>& sums) {
  w.put<std::uint64_t>(sums.size());
  for (const FixedFeatures& s : sums) w.put_bytes(s.data(), sizeof(FixedFeatures));
}
std::vector<FixedFeatures> get_sums(ByteReader& r, std::size_t max_windows) {
  const auto n = r.get<std::uint64_t>();
  if (n > max_windows) throw InputError("glcm: map holds more windows than its image");
  std::vector<FixedFeatures> sums(n);
  if (n) std::memcpy(sums.data(), r.take(n * sizeof(FixedFeatures)), n * sizeof(FixedFeatures));
  return sums;
}

// State: the images finished or begun, with their blocks and maps so far.
std::vector<std::uint8_t> encode_state(const GlcmResult& result) {
  ByteWriter w;
  w.put_bytes(kStateMagic, 8);
  w.put_string(state_fingerprint(result.params));
  w.put<std::uint32_t>(result.images.size());
  for (const ImageResult& image : result.images) {
    w.put<std::uint32_t>(image.blocks.size());
    for (const BlockResult& b : image.blocks) put_block(w, b);
    w.put<std::uint32_t>(image.maps.size());
    for (const auto& map : image.maps) put_sums(w, map);
  }
  return std::move(w.bytes());
}

// Restores blocks and maps into `result` (whose images are still empty);
// returns false, leaving it untouched, for another WU's state or damage.
bool decode_state(const std::vector<std::uint8_t>& bytes, GlcmResult& result) {
  try {
    ByteReader r(bytes, "checkpoint");
    if (r.remaining() < 8 || std::memcmp(r.take(8), kStateMagic, 8) != 0) return false;
    if (r.get_string(1 << 20) != state_fingerprint(result.params)) return false;
    const auto image_count = r.get<std::uint32_t>();
    if (image_count > result.params.images.size()) return false;
    std::vector<ImageResult> images(image_count);
    const std::size_t blocks_per_image = result.params.level_divisors.size() * result.params.distances.size();
    for (ImageResult& image : images) {
      const auto block_count = r.get<std::uint32_t>();
      if (block_count > blocks_per_image) return false;
      for (std::uint32_t b = 0; b < block_count; ++b) image.blocks.push_back(get_block(r));
      const auto map_count = r.get<std::uint32_t>();
      if (map_count > result.params.level_divisors.size()) return false;
      for (std::uint32_t m = 0; m < map_count; ++m) image.maps.push_back(get_sums(r, 1u << 28));
    }
    if (r.remaining() != 0) return false;
    result.images = std::move(images);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// ---------------------------------------------------------------- the job

struct LoadedImage {
  GreyImage image;
  std::vector<WindowCentre> centres;
};

LoadedImage load_image(const GlcmImageInput& input, Runtime& runtime) {
  LoadedImage loaded;
  loaded.image = read_grey_png(runtime.resolve(input.image_file));
  const std::vector<std::uint8_t> roi =
      input.mask_file.empty() ? std::vector<std::uint8_t>(loaded.image.pixels.size(), 1)
                              : read_mask_png(runtime.resolve(input.mask_file), loaded.image.width, loaded.image.height);
  loaded.centres = window_centres(roi, loaded.image.width, loaded.image.height, kWindowRadius);
  if (loaded.centres.empty())
    throw InputError("image " + input.name + ": its ROI holds no local window (a disc of radius " +
                     std::to_string(kWindowRadius) + " px must fit inside it)");
  return loaded;
}

// Work of a block, for progress: windows x displacements.
double block_work(std::size_t windows, int distance) {
  return static_cast<double>(windows) * static_cast<double>(displacement_set(distance).size());
}

class JobProgress {
 public:
  JobProgress(const GlcmParams& params, Runtime& runtime) : runtime_(runtime) {
    for (int d : params.distances) per_image_ += block_work(1, d) * params.level_divisors.size();
    total_ = per_image_ * params.images.size();
  }
  // Images before `image` are done; in it, blocks up to `block` (exclusive).
  void report(std::size_t image, const GlcmParams& params, std::size_t block) {
    double done = per_image_ * image;
    for (std::size_t b = 0; b < block; ++b) done += block_work(1, params.distances[b % params.distances.size()]);
    runtime_.report_progress(std::min(1.0, done / total_));
  }

 private:
  Runtime& runtime_;
  double per_image_ = 0, total_ = 0;
};

void run_image(const GlcmParams& params, std::size_t index, GlcmEngine& engine, Runtime& runtime,
               GlcmResult& result, JobProgress& progress) {
  const std::size_t blocks_per_image = params.level_divisors.size() * params.distances.size();
  ImageResult& image = result.images[index];
  std::clock_t clock = std::clock();
  const LoadedImage loaded = load_image(params.images[index], runtime);
  result.phases.images += cpu_seconds_since(clock);
  image.name = params.images[index].name;
  image.width = loaded.image.width, image.height = loaded.image.height;
  image.centres = loaded.centres;
  if (image.blocks.size() == blocks_per_image) return;
  clock = std::clock();
  engine.load(loaded.image, loaded.centres);
  result.phases.loads += cpu_seconds_since(clock);
  clock = std::clock();
  for (std::size_t b = image.blocks.size(); b < blocks_per_image; ++b) {
    const int divisor = params.level_divisors[b / params.distances.size()];
    const int distance = params.distances[b % params.distances.size()];
    const bool keep_windows = distance == params.map_distance;
    BlockOutput output = engine.block(divisor, distance, keep_windows);
    image.blocks.push_back(block_result(divisor, distance, image.centres.size(), output.reduction));
    if (keep_windows) image.maps.push_back(std::move(output.windows));
    progress.report(index, params, b + 1);
    const bool stop = runtime.should_stop();
    if (stop || runtime.checkpoint_due()) runtime.save_state(encode_state(result));
    if (stop) throw StopRequested();
  }
  result.phases.blocks += cpu_seconds_since(clock);
}

}  // namespace

// ---------------------------------------------------------------- public

double cpu_seconds_since(std::clock_t start) { return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC; }

GlcmParams parse_glcm_params(const nlohmann::json& json) {
  if (!json.is_object()) throw InputError("glcm params: not a JSON object");
  GlcmParams params;
  if (!json.contains("images") || !json.at("images").is_array() || json.at("images").empty() ||
      json.at("images").size() > kMaxImages)
    throw InputError("glcm params: \"images\" must list 1..1000 images");
  std::set<std::string> names;
  for (const auto& entry : json.at("images")) {
    params.images.push_back(parse_image(entry));
    if (!names.insert(params.images.back().name).second)
      throw InputError("glcm params: image name \"" + params.images.back().name + "\" appears twice");
  }
  for (int levels : int_list(json, "levels", {64, 32, 16})) params.level_divisors.push_back(divisor_of_levels(levels));
  if (std::set<int>(params.level_divisors.begin(), params.level_divisors.end()).size() != params.level_divisors.size())
    throw InputError("glcm params: \"levels\" repeats a value");
  std::vector<int> all_distances;
  for (int d = 1; d <= kMaxDistance; ++d) all_distances.push_back(d);
  params.distances = int_list(json, "distances", all_distances);
  for (std::size_t i = 0; i < params.distances.size(); ++i) {
    const int d = params.distances[i];
    if (d < 1 || d > kMaxDistance)
      throw InputError("glcm params: distance " + std::to_string(d) + " is outside 1..25 (a window is 33 px wide)");
    if (i > 0 && d <= params.distances[i - 1]) throw InputError("glcm params: \"distances\" must ascend without repeats");
  }
  if (json.contains("map_distance")) {
    if (!json.at("map_distance").is_number_integer()) throw InputError("glcm params: \"map_distance\" must be an integer");
    params.map_distance = json.at("map_distance").get<int>();
    if (params.map_distance != 0 && (params.map_distance < 1 || params.map_distance > kMaxDistance))
      throw InputError("glcm params: \"map_distance\" " + std::to_string(params.map_distance) +
                       " is outside 1..25 (a window is 33 px wide), or 0 for no maps");
    if (params.map_distance != 0 &&
        std::find(params.distances.begin(), params.distances.end(), params.map_distance) == params.distances.end())
      throw InputError("glcm params: \"map_distance\" " + std::to_string(params.map_distance) +
                       " is not one of the distances");
  }
  return params;
}

nlohmann::json glcm_params_json(const GlcmParams& params) {
  nlohmann::json images = nlohmann::json::array();
  for (const GlcmImageInput& input : params.images) {
    nlohmann::json entry = {{"name", input.name}, {"image", input.image_file}};
    if (!input.mask_file.empty()) entry["mask"] = input.mask_file;
    images.push_back(entry);
  }
  std::vector<int> levels;
  for (int divisor : params.level_divisors) levels.push_back(level_count(divisor));
  return {{"kind", "glcm"}, {"images", images}, {"levels", levels}, {"distances", params.distances},
          {"map_distance", params.map_distance}};
}

BlockResult block_result(int level_divisor, int distance, std::size_t window_count, const WindowReduction& reduction) {
  BlockResult block;
  block.level_divisor = level_divisor;
  block.distance = distance;
  const int displacements = static_cast<int>(displacement_set(distance).size());
  const double terms = static_cast<double>(window_count) * displacements;
  WindowStatistics& s = block.statistics;
  for (int k = 0; k < kFeatureCount; ++k) {  // as aggregate_windows() (the reference) computes them
    s.max[k] = fixed_to_feature(k, reduction.max[k], displacements);
    s.min[k] = fixed_to_feature(k, reduction.min[k], displacements);
    s.mean[k] = std::ldexp(static_cast<double>(reduction.total[k]), -feature_fixed_bits(k)) / terms;
    s.range[k] = s.max[k] - s.min[k];
  }
  block.max_window = reduction.max_window;
  block.min_window = reduction.min_window;
  return block;
}

BlockResult block_result(int level_divisor, int distance, const std::vector<FixedFeatures>& window_sums) {
  return block_result(level_divisor, distance, window_sums.size(), reduce_windows(window_sums));
}

GlcmResult run_glcm_job(const GlcmParams& params, GlcmEngine& engine, Runtime& runtime) {
  GlcmResult result;
  result.params = params;
  result.engine = engine.description();
  if (auto saved = runtime.restore_state()) decode_state(*saved, result);
  result.images.resize(params.images.size());
  JobProgress progress(params, runtime);
  for (std::size_t i = 0; i < params.images.size(); ++i) run_image(params, i, engine, runtime, result, progress);
  runtime.report_progress(1.0);
  return result;
}

std::string features_tsv(const GlcmResult& result) {
  std::string text =
      "image\tlevels\tdistance\twindows\tfeature\tmax\tmean\tmin\trange\tmax_x\tmax_y\tmin_x\tmin_y\n";
  char line[512];
  for (const ImageResult& image : result.images) {
    for (const BlockResult& b : image.blocks) {
      for (int k = 0; k < kFeatureCount; ++k) {
        const WindowCentre at_max = image.centres[b.max_window[k]], at_min = image.centres[b.min_window[k]];
        std::snprintf(line, sizeof line, "%s\t%d\t%d\t%zu\t%s\t%.17g\t%.17g\t%.17g\t%.17g\t%d\t%d\t%d\t%d\n",
                      image.name.c_str(), level_count(b.level_divisor), b.distance, image.centres.size(),
                      kFeatureNames[k], b.statistics.max[k], b.statistics.mean[k], b.statistics.min[k],
                      b.statistics.range[k], at_max.x, at_max.y, at_min.x, at_min.y);
        text += line;
      }
    }
  }
  return text;
}

std::vector<FeatureRow> parse_features_tsv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.rfind("image\tlevels\tdistance\twindows\tfeature\t", 0) != 0)
    throw InputError("features table: missing or wrong header");
  std::vector<FeatureRow> rows;
  for (int number = 2; std::getline(in, line); ++number) {
    FeatureRow row;
    char image[80] = "", feature[40] = "";
    int consumed = 0;
    const int fields = std::sscanf(line.c_str(), "%79[^\t]\t%d\t%d\t%d\t%39[^\t]\t%lf\t%lf\t%lf\t%lf\t%d\t%d\t%d\t%d%n", image,
                                   &row.levels, &row.distance, &row.windows, feature, &row.max, &row.mean, &row.min,
                                   &row.range, &row.max_x, &row.max_y, &row.min_x, &row.min_y, &consumed);
    if (fields != 13 || consumed != static_cast<int>(line.size()))
      throw InputError("features table: line " + std::to_string(number) + " is malformed");
    row.image = image, row.feature = feature;
    rows.push_back(row);
  }
  return rows;
}

std::vector<std::uint8_t> encode_maps(const GlcmResult& result) {
  ByteWriter payload;
  payload.put<std::int32_t>(result.params.map_distance);
  payload.put<std::uint32_t>(result.params.level_divisors.size());
  for (int divisor : result.params.level_divisors) payload.put<std::int32_t>(divisor);
  payload.put<std::uint32_t>(result.images.size());
  for (const ImageResult& image : result.images) {
    payload.put_string(image.name);
    payload.put<std::int32_t>(image.width), payload.put<std::int32_t>(image.height);
    payload.put<std::uint64_t>(image.centres.size());
    for (const WindowCentre& c : image.centres) payload.put<std::int32_t>(c.x), payload.put<std::int32_t>(c.y);
    payload.put<std::uint32_t>(image.maps.size());
    for (const auto& map : image.maps) put_sums(payload, map);
  }
  const std::vector<std::uint8_t>& raw = payload.bytes();
  ByteWriter file;
  file.put_bytes(kMapsMagic, 8);
  file.put<std::uint64_t>(raw.size());
  const std::vector<std::uint8_t> frame = zstd_compress(raw.data(), raw.size());
  file.put_bytes(frame.data(), frame.size());
  return std::move(file.bytes());
}

DecodedMaps decode_maps(const std::vector<std::uint8_t>& bytes, std::size_t max_windows) {
  ByteReader file(bytes, "maps file");
  if (file.remaining() < 16 || std::memcmp(file.take(8), kMapsMagic, 8) != 0)
    throw InputError("maps file: not a helix glcm maps file");
  const auto raw_size = file.get<std::uint64_t>();
  // Centres (8 bytes) and up to 3 levels of sums (104 bytes each) per window, plus names.
  const std::uint64_t limit = 4096 + static_cast<std::uint64_t>(max_windows) * (8 + 3 * sizeof(FixedFeatures)) + kMaxImages * 128;
  if (raw_size > limit) throw InputError("maps file: declares " + std::to_string(raw_size) + " bytes, more than its WU allows");
  const std::size_t frame_size = file.remaining();
  const std::vector<std::uint8_t> raw = zstd_decompress(file.take(frame_size), frame_size, raw_size, "maps file");
  ByteReader r(raw, "maps file");
  DecodedMaps maps;
  maps.map_distance = r.get<std::int32_t>();
  const auto level_count_in_file = r.get<std::uint32_t>();
  if (level_count_in_file > 3) throw InputError("maps file: more than 3 levels");
  for (std::uint32_t l = 0; l < level_count_in_file; ++l) maps.level_divisors.push_back(r.get<std::int32_t>());
  const auto image_count = r.get<std::uint32_t>();
  if (image_count > kMaxImages) throw InputError("maps file: too many images");
  std::size_t windows_left = max_windows;
  for (std::uint32_t i = 0; i < image_count; ++i) {
    ImageResult image;
    image.name = r.get_string(64);
    image.width = r.get<std::int32_t>(), image.height = r.get<std::int32_t>();
    const auto n = r.get<std::uint64_t>();
    if (n > windows_left) throw InputError("maps file: more windows than its WU's images hold");
    windows_left -= n;
    image.centres.resize(n);
    for (WindowCentre& c : image.centres) c.x = r.get<std::int32_t>(), c.y = r.get<std::int32_t>();
    const auto map_count = r.get<std::uint32_t>();
    if (map_count > level_count_in_file) throw InputError("maps file: more maps than levels");
    for (std::uint32_t m = 0; m < map_count; ++m) image.maps.push_back(get_sums(r, n));
    maps.images.push_back(std::move(image));
  }
  if (r.remaining() != 0) throw InputError("maps file: trailing bytes");
  return maps;
}

// The blocks' statistics are the features table's alone: repeated here they
// cost ~140 KB an image, and kMaxSummaryBytes capped a WU at 7 plates.
std::string summary_json(const GlcmResult& result) {
  nlohmann::json images = nlohmann::json::array();
  for (const ImageResult& image : result.images)
    images.push_back({{"name", image.name}, {"width", image.width}, {"height", image.height},
                      {"windows", image.centres.size()}});
  std::vector<std::string> names(kFeatureNames, kFeatureNames + kFeatureCount);
  const nlohmann::json summary = {{"kind", "glcm"},
                                  {"engine", result.engine},
                                  {"params", glcm_params_json(result.params)},
                                  {"features", names},
                                  {"images", images}};
  return summary.dump(1) + "\n";
}

}  // namespace helix::glcm
