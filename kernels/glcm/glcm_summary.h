// glcm_summary.h: the glcm result's "summary" output (JSON, the result's last
// file; it names the kind).
//
// Contents:
//   summary_json()   {"kind": "glcm", "engine", "params", "features": [names],
//                     "images": [{"name", "width", "height", "windows"}]}
#pragma once
#include <string>

#include "glcm_result.h"

namespace helix::glcm {

// The blocks' statistics are the features table's alone (glcm_files.h).
std::string summary_json(const GlcmResult& result);

}  // namespace helix::glcm
