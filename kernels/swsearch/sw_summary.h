// sw_summary.h: the swsearch result's "summary" output (JSON, the result's last
// file; it names the kind).
//
// Contents:
//   sw_summary_json()   {"kind": "swsearch", "engine", "params", "chunk_targets",
//                        "chunk_residues", "queries": [{"id", "length", "hits", "best_score"}]}
#pragma once
#include <string>

#include "sw_result.h"

namespace helix::swsearch {

std::string sw_summary_json(const SearchResult& result);

}  // namespace helix::swsearch
