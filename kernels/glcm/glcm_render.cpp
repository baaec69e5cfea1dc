// glcm_render.cpp: one feature of a result's maps as a grey image, for a
// person to look at (`helix-wu glcm map`). Each window is one pixel, at its
// centre: the map shows where in the well the texture changes.
#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "glcm_server.h"

namespace helix::glcm {
namespace {

// Window values land on 1..255 so that 0 is left for "no window here".
constexpr int kLowestWindowGrey = 1, kHighestWindowGrey = 255;
constexpr int kUnderlayDivisor = 4;  // the image under the map, dimmed to 0..63

const ImageResult& find_image(const DecodedMaps& maps, const std::string& name) {
  for (const ImageResult& image : maps.images)
    if (image.name == name) return image;
  std::string names;
  for (const ImageResult& image : maps.images) names += (names.empty() ? "" : ", ") + image.name;
  throw InputError("the maps hold no image named \"" + name + "\" (they hold: " + names + ")");
}

std::size_t level_slot(const DecodedMaps& maps, int levels) {
  for (std::size_t l = 0; l < maps.level_divisors.size(); ++l)
    if (level_count(maps.level_divisors[l]) == levels) return l;
  throw InputError("the maps hold no map at " + std::to_string(levels) + " levels");
}

std::uint8_t scaled_grey(double value, double low, double high) {
  if (high == low) return kHighestWindowGrey;
  const double fraction = (value - low) / (high - low);
  return static_cast<std::uint8_t>(kLowestWindowGrey + std::lround(fraction * (kHighestWindowGrey - kLowestWindowGrey)));
}

}  // namespace

int feature_index(const std::string& name) {
  for (int k = 0; k < kFeatureCount; ++k)
    if (name == kFeatureNames[k]) return k;
  std::string names;
  for (int k = 0; k < kFeatureCount; ++k) names += std::string(k ? ", " : "") + kFeatureNames[k];
  throw InputError("unknown feature \"" + name + "\" (one of: " + names + ")");
}

GreyImage render_feature_map(const DecodedMaps& maps, const std::string& image_name, int levels, int feature,
                             const GreyImage* underlay) {
  if (maps.map_distance == 0) throw InputError("the maps file holds no maps (its WU had map_distance 0)");
  if (feature < 0 || feature >= kFeatureCount) throw InputError("feature index out of range");
  const ImageResult& image = find_image(maps, image_name);
  const std::size_t slot = level_slot(maps, levels);
  if (slot >= image.maps.size() || image.maps[slot].size() != image.centres.size())
    throw InputError("the maps of image " + image_name + " are incomplete");
  if (underlay && (underlay->width != image.width || underlay->height != image.height))
    throw InputError("the underlay is " + std::to_string(underlay->width) + "x" + std::to_string(underlay->height) +
                     " but image " + image_name + " is " + std::to_string(image.width) + "x" +
                     std::to_string(image.height));
  const int displacements = static_cast<int>(displacement_set(maps.map_distance).size());
  std::vector<double> values;
  for (const FixedFeatures& sums : image.maps[slot]) values.push_back(fixed_to_feature(feature, sums[feature], displacements));
  GreyImage picture{image.width, image.height,
                    std::vector<std::uint8_t>(static_cast<std::size_t>(image.width) * image.height, 0)};
  if (underlay)
    for (std::size_t p = 0; p < picture.pixels.size(); ++p) picture.pixels[p] = underlay->pixels[p] / kUnderlayDivisor;
  if (values.empty()) return picture;
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  for (std::size_t w = 0; w < values.size(); ++w) {
    const WindowCentre c = image.centres[w];
    if (c.x < 0 || c.y < 0 || c.x >= image.width || c.y >= image.height)
      throw InputError("the maps of image " + image_name + " hold a window outside the image");
    picture.pixels[static_cast<std::size_t>(c.y) * image.width + c.x] = scaled_grey(values[w], *low, *high);
  }
  return picture;
}

}  // namespace helix::glcm
