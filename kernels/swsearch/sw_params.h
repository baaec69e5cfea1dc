// sw_params.h: a swsearch work unit's parameters, the WU's "params" JSON
// (docs/swsearch.md). Shared by the app, the work generator and the validator.
//
// Contents:
//   SwParams                            gaps, statistics, hits to report, the whole database's size
//   parse_sw_params(), sw_params_json() the JSON, read (every absurd value refused) and written
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "sw.h"

namespace helix::swsearch {

struct SwParams {
  std::string search;                 // the search's name (helix-wu swsearch make --name); "" in older WUs
  std::string matrix_name;            // for the statistics (BLOSUM62, ...); the matrix itself is the "matrix" input
  GapPenalties gaps;
  int top_hits = 50;                  // hits reported per query (1..10000)
  int alignments = 10;                // of them, with a full alignment (0..top_hits)
  std::uint64_t database_residues = 0;   // of the WHOLE database: the E-values' n
  std::uint64_t database_sequences = 0;
  std::uint32_t block_targets = 65536;   // targets a block: a CPU loads one, a GPU several
};
// {"kind": "swsearch", "search"?, "matrix_name", "gap_open", "gap_extend", "top_hits"?,
//  "alignments"?, "database_residues", "database_sequences", "block_targets"?}.
// Throws InputError on anything absurd (negative gaps, unknown statistics, ...).
SwParams parse_sw_params(const nlohmann::json& json);
nlohmann::json sw_params_json(const SwParams& params);

}  // namespace helix::swsearch
