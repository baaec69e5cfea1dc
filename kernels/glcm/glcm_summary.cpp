// glcm_summary.cpp: the glcm result's "summary" output (glcm_summary.h).
#include "glcm_summary.h"

#include <nlohmann/json.hpp>

#include "glcm_files.h"
#include "glcm_params.h"

namespace helix::glcm {

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
