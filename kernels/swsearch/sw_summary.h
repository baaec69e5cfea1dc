// sw_summary.h: the swsearch result's "summary" output (JSON, the result's last
// file; it names the kind).
//
// Contents:
//   sw_summary_json()       {"kind": "swsearch", "engine", "params", "chunk_targets",
//                            "chunk_residues", "queries": [{"id", "length", "hits", "best_score"}]}
//   summary_bytes_bound()   the most bytes it can write for a WU's queries
#pragma once
#include <string>
#include <vector>

#include "sw_result.h"

namespace helix::swsearch {

std::string sw_summary_json(const SearchResult& result);

// An upper bound of sw_summary_json()'s size for a WU of these params whose
// queries have these ids, whatever the scores, lengths, hit counts and engine
// (a description of up to 1,024 bytes). The summary grows with the queries
// (about 100 bytes and the id each); the work generator keeps this bound within
// kMaxSummaryBytes, so that no client's result is refused for its size.
std::size_t summary_bytes_bound(const SwParams& params, const std::vector<std::string>& query_ids);

}  // namespace helix::swsearch
