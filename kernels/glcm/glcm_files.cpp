// glcm_files.cpp: the glcm result's "features" table and "maps" file (glcm_files.h).
#include "glcm_files.h"

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <type_traits>

#include "core/errors.h"
#include "core/text_format.h"

namespace helix::glcm {
namespace {

constexpr char kMapsMagic[8] = {'H', 'X', 'G', 'L', 'M', '0', '0', '1'};

}  // namespace

const char* const kFeatureNames[kFeatureCount] = {
    "asm",          "contrast",    "correlation",         "variance",           "idm",  "sum_average", "sum_variance",
    "sum_entropy",  "entropy",     "difference_variance", "difference_entropy", "imc1", "imc2"};

void put_window_sums(ByteWriter& w, const std::vector<FixedFeatures>& sums) {
  w.put<std::uint64_t>(sums.size());
  w.put_bytes(sums.data(), sums.size() * sizeof(FixedFeatures));  // contiguous arrays of int64
}
std::vector<FixedFeatures> get_window_sums(ByteReader& r, std::size_t max_windows) {
  const auto n = r.get<std::uint64_t>();
  if (n > max_windows) throw InputError("glcm: map holds more windows than its image");
  std::vector<FixedFeatures> sums(n);
  if (n) std::memcpy(sums.data(), r.take(n * sizeof(FixedFeatures)), n * sizeof(FixedFeatures));
  return sums;
}

std::string features_tsv(const GlcmResult& result) {
  std::string text =
      "image\tlevels\tdistance\twindows\tfeature\tmax\tmean\tmin\trange\tmax_x\tmax_y\tmin_x\tmin_y\n";
  // printf's "%s\t%d\t%d\t%zu\t%s\t%.17g x 4\t%d x 4\n", without printf: its
  // %.17g was most of the outputs' host time on a GPU-class WU (~1 us a number).
  auto field = [&text](auto value) {
    if constexpr (std::is_same_v<decltype(value), double>) append_g17(text, value);
    else append_integer(text, value);
    text += '\t';
  };
  for (const ImageResult& image : result.images) {
    for (const BlockResult& b : image.blocks) {
      for (int k = 0; k < kFeatureCount; ++k) {
        const WindowCentre at_max = image.centres[b.max_window[k]], at_min = image.centres[b.min_window[k]];
        text += image.name, text += '\t';
        field(level_count(b.level_divisor)), field(b.distance), field(image.centres.size());
        text += kFeatureNames[k], text += '\t';
        field(b.statistics.max[k]), field(b.statistics.mean[k]), field(b.statistics.min[k]), field(b.statistics.range[k]);
        field(at_max.x), field(at_max.y), field(at_min.x), field(at_min.y);
        text.back() = '\n';
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

// A centre is two int32s, x then y, as the file stores it (little-endian
// hosts only, as ByteWriter): the centres go in and out as one block (one
// put a coordinate was ~0.3 s of host CPU for a GPU-class WU's 15 M windows).
static_assert(sizeof(WindowCentre) == 8 && offsetof(WindowCentre, y) == 4 && sizeof(int) == 4,
              "WindowCentre is the file's (x, y) int32 pair");

// The payload encode_maps() writes: map distance, level count and divisors,
// image count; per image its name (length + bytes), size, window count,
// centres (2 x int32 each), map count and per map a count and the sums.
std::uint64_t maps_raw_bytes(const GlcmParams& params, const std::vector<std::uint64_t>& windows) {
  const std::uint64_t maps_per_image = params.map_distance == 0 ? 0 : params.level_divisors.size();
  std::uint64_t bytes = 4 + 4 + 4 * params.level_divisors.size() + 4;
  for (std::size_t i = 0; i < params.images.size(); ++i) {
    const std::uint64_t n = i < windows.size() ? windows[i] : 0;
    bytes += 8 + params.images[i].name.size() + 8 + 8 + 8 * n + 4 + maps_per_image * (8 + n * sizeof(FixedFeatures));
  }
  return bytes;
}

std::vector<std::uint8_t> encode_maps(const GlcmResult& result) {
  ByteWriter payload;
  std::vector<std::uint64_t> windows;
  for (const ImageResult& image : result.images) windows.push_back(image.centres.size());
  payload.bytes().reserve(maps_raw_bytes(result.params, windows));
  payload.put<std::int32_t>(result.params.map_distance);
  payload.put<std::uint32_t>(result.params.level_divisors.size());
  for (int divisor : result.params.level_divisors) payload.put<std::int32_t>(divisor);
  payload.put<std::uint32_t>(result.images.size());
  for (const ImageResult& image : result.images) {
    payload.put_string(image.name);
    payload.put<std::int32_t>(image.width), payload.put<std::int32_t>(image.height);
    payload.put<std::uint64_t>(image.centres.size());
    payload.put_bytes(image.centres.data(), image.centres.size() * sizeof(WindowCentre));
    payload.put<std::uint32_t>(image.maps.size());
    for (const auto& map : image.maps) put_window_sums(payload, map);
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
    if (n) std::memcpy(image.centres.data(), r.take(n * sizeof(WindowCentre)), n * sizeof(WindowCentre));
    const auto map_count = r.get<std::uint32_t>();
    if (map_count > level_count_in_file) throw InputError("maps file: more maps than levels");
    for (std::uint32_t m = 0; m < map_count; ++m) image.maps.push_back(get_window_sums(r, n));
    maps.images.push_back(std::move(image));
  }
  if (r.remaining() != 0) throw InputError("maps file: trailing bytes");
  return maps;
}

}  // namespace helix::glcm
