// glcm_batch.cpp: the glcm work generator's arithmetic: WU file names, the
// --levels / --distances lists, the cost of an image, greedy batching of
// images into WUs, and worst-case sizes of a WU's result files (for BOINC's
// bounds and the validator's caps).
#include <algorithm>
#include <cctype>
#include <sstream>

#include <nlohmann/json.hpp>
#include <zstd.h>

#include "core/errors.h"
#include "core/names.h"
#include "glcm_server.h"

namespace helix::glcm {
namespace {

const std::string kImageInfix = ".image_", kMaskInfix = ".mask_", kPngSuffix = ".png";

// A decimal integer of at most 9 digits (so it fits int without overflow);
// `what` names the option and item for the error.
int parse_small_integer(const std::string& text, const std::string& what) {
  const bool digits = std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (text.empty() || text.size() > 9 || !digits) throw InputError(what + " is not a number or a range of numbers");
  return std::stoi(text);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.push_back("");
  return parts;
}

// Room for the engine's description in the summary (a GPU's name and the like).
constexpr std::uint64_t kEngineDescriptionBytes = 1024;
// Separators between array elements, per image, over the single-image sizes.
constexpr std::uint64_t kPerImageSeparatorBytes = 8;

// A result of `params`' shape, as far as the summary shows it: each image's
// name, size and window count (the blocks' statistics are the table's alone).
GlcmResult summary_shaped_result(const GlcmParams& params, const std::vector<std::pair<int, int>>& sizes,
                                 const std::vector<std::uint64_t>& windows) {
  GlcmResult result;
  result.params = params;
  for (std::size_t i = 0; i < params.images.size(); ++i) {
    ImageResult image;
    image.name = params.images[i].name;
    image.width = sizes[i].first, image.height = sizes[i].second;
    image.centres.resize(windows[i]);
    result.images.push_back(std::move(image));
  }
  return result;
}

}  // namespace

std::string wu_params_file(const std::string& wu_name) { return wu_name + ".params.json"; }
std::string wu_image_file(const std::string& wu_name, std::size_t index) {
  return wu_name + kImageInfix + std::to_string(index) + kPngSuffix;
}
std::string wu_mask_file(const std::string& wu_name, std::size_t index) {
  return wu_name + kMaskInfix + std::to_string(index) + kPngSuffix;
}

std::string wu_name_of(const GlcmParams& params) {
  if (params.images.empty()) return "";
  const std::string& first = params.images[0].image_file;
  const std::string tail = kImageInfix + "0" + kPngSuffix;
  if (first.size() <= tail.size() || first.compare(first.size() - tail.size(), tail.size(), tail) != 0) return "";
  const std::string wu_name = first.substr(0, first.size() - tail.size());
  if (!is_plain_name(wu_name)) return "";
  for (std::size_t i = 0; i < params.images.size(); ++i) {
    const GlcmImageInput& input = params.images[i];
    if (input.image_file != wu_image_file(wu_name, i)) return "";
    if (!input.mask_file.empty() && input.mask_file != wu_mask_file(wu_name, i)) return "";
  }
  return wu_name;
}

std::vector<int> parse_distance_list(const std::string& text) {
  std::vector<int> distances;
  for (const std::string& item : split(text, ',')) {
    std::string low = item, high = item;
    for (const std::string separator : {"..", "-"}) {
      const auto at = item.find(separator);
      if (at != std::string::npos) {
        low = item.substr(0, at), high = item.substr(at + separator.size());
        break;
      }
    }
    const std::string what = "--distances: \"" + item + "\"";
    const int first = parse_small_integer(low, what), last = parse_small_integer(high, what);
    for (int d : {first, last})
      if (d < 1 || d > kMaxDistance)
        throw InputError("--distances: distance " + std::to_string(d) + " is outside 1.." +
                         std::to_string(kMaxDistance) + " (a window is " + std::to_string(2 * kWindowRadius + 1) +
                         " px wide)");
    if (first > last) throw InputError("--distances: range \"" + item + "\" runs backwards");
    for (int d = first; d <= last; ++d) distances.push_back(d);
  }
  return distances;
}

std::vector<int> parse_levels_list(const std::string& text) {
  std::vector<int> divisors;
  for (const std::string& item : split(text, ',')) {
    const int levels = parse_small_integer(item, "--levels: \"" + item + "\"");
    const auto known = std::find_if(std::begin(kLevelDivisors), std::end(kLevelDivisors),
                                    [&](int divisor) { return level_count(divisor) == levels; });
    if (known == std::end(kLevelDivisors)) throw InputError("--levels: " + item + " is not 64, 32 or 16");
    divisors.push_back(*known);
  }
  return divisors;
}

double image_cost(std::size_t windows, const GlcmParams& params) {
  double displacements = 0;
  for (int d : params.distances) displacements += static_cast<double>(displacement_set(d).size());
  return static_cast<double>(windows) * displacements * static_cast<double>(params.level_divisors.size());
}

std::vector<std::vector<std::size_t>> batch_images(const std::vector<BatchItem>& items,
                                                   const std::vector<std::string>& names, double max_cost,
                                                   std::uint64_t max_windows) {
  if (!(max_cost > 0)) throw InputError("--max-cost-per-wu must be positive");
  std::vector<std::vector<std::size_t>> batches;
  double cost = 0;
  std::uint64_t windows = 0, summary = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const BatchItem& item = items[i];
    if (item.windows > max_windows)
      throw InputError("image " + names[i] + " has " + std::to_string(item.windows) + " windows, more than the " +
                       std::to_string(max_windows) + " one WU may hold");
    if (item.summary_bytes > kMaxSummaryBytes)
      throw InputError("image " + names[i] + ": its summary alone would exceed " + std::to_string(kMaxSummaryBytes) +
                       " bytes");
    const bool fits = !batches.empty() && cost + item.cost <= max_cost && windows + item.windows <= max_windows &&
                      summary + item.summary_bytes <= kMaxSummaryBytes && batches.back().size() < 1000;
    if (!fits) {
      batches.emplace_back();
      cost = 0, windows = 0, summary = 0;
    }
    batches.back().push_back(i);
    cost += item.cost, windows += item.windows, summary += item.summary_bytes;
  }
  return batches;
}

std::uint64_t summary_base_bytes(const GlcmParams& params) {
  GlcmParams empty = params;
  empty.images.clear();
  return summary_json(summary_shaped_result(empty, {}, {})).size() + kEngineDescriptionBytes;
}

std::uint64_t image_summary_bytes(const GlcmParams& params, const std::string& name, int width, int height,
                                  std::uint64_t windows) {
  GlcmParams one = params;
  // The summary echoes the params: file names at the longest parse_glcm_params allows.
  const std::string longest_file_name(64, 'f');
  one.images = {{name, longest_file_name, longest_file_name}};
  const std::uint64_t with_image = summary_json(summary_shaped_result(one, {{width, height}}, {windows})).size();
  return with_image - (summary_base_bytes(params) - kEngineDescriptionBytes) + kPerImageSeparatorBytes;
}

std::uint64_t max_features_bytes(const GlcmParams& params) {
  const std::uint64_t rows =
      params.images.size() * params.level_divisors.size() * params.distances.size() * kFeatureCount;
  return kMaxFeatureRowBytes * (rows + 1);  // + the header line
}

std::uint64_t max_maps_file_bytes(const GlcmParams& params, const std::vector<std::uint64_t>& windows) {
  return 8 + 8 + ZSTD_COMPRESSBOUND(maps_raw_bytes(params, windows));
}

}  // namespace helix::glcm
