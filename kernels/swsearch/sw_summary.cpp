// sw_summary.cpp: the swsearch result's "summary" output (sw_summary.h).
#include "sw_summary.h"

#include <nlohmann/json.hpp>

namespace helix::swsearch {

std::string sw_summary_json(const SearchResult& result) {
  nlohmann::json queries = nlohmann::json::array();
  for (const QueryHits& q : result.queries)
    queries.push_back({{"id", q.query_id}, {"length", q.query_length}, {"hits", q.hits.size()},
                       {"best_score", q.hits.empty() ? 0 : q.hits.front().score}});
  const nlohmann::json summary = {{"kind", "swsearch"},
                                  {"engine", result.engine},
                                  {"params", sw_params_json(result.params)},
                                  {"chunk_targets", result.chunk_targets},
                                  {"chunk_residues", result.chunk_residues},
                                  {"queries", queries}};
  return summary.dump(1) + "\n";
}

namespace {
// Beside the ids: the kind, the engine (up to 1,024 bytes), the chunk's sizes
// and the keys with their indentation; per query, its keys, indentation and
// numbers at their widest (an int32 best score, a 10-digit length, 5-digit hits).
constexpr std::size_t kFixedBytes = 2048, kEngineBytes = 1024, kBytesPerQuery = 128;
}  // namespace

std::size_t summary_bytes_bound(const SwParams& params, const std::vector<std::string>& query_ids) {
  // The params sit one level deeper in the summary than in their own dump:
  // twice their size covers the added indentation.
  std::size_t bytes = kFixedBytes + kEngineBytes + 2 * sw_params_json(params).dump(1).size();
  for (const std::string& id : query_ids) bytes += nlohmann::json(id).dump().size() + kBytesPerQuery;
  return bytes;
}

}  // namespace helix::swsearch
