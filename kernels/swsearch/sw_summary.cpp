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

}  // namespace helix::swsearch
