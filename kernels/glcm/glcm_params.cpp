// glcm_params.cpp: the glcm WU's "params" JSON, read and written (glcm_params.h).
#include "glcm_params.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "glcm_engine.h"

namespace helix::glcm {
namespace {

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

}  // namespace

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

}  // namespace helix::glcm
