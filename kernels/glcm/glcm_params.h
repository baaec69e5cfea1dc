// glcm_params.h: a glcm work unit's parameters, the WU's "params" JSON
// (docs/glcm.md, "Work units and results"). Shared by the app, the work
// generator and the validator.
//
// Contents:
//   kMaxImages                               images per WU (the params' and the maps file's bound)
//   GlcmImageInput, GlcmParams               the images, grey levels, distances and map distance
//   parse_glcm_params(), glcm_params_json()  the JSON, read (every absurd value refused) and written
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace helix::glcm {

constexpr std::size_t kMaxImages = 1000;

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

}  // namespace helix::glcm
