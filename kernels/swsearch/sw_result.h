// sw_result.h: what a swsearch work unit's search reports (sw_job.h runs it,
// sw_files.h writes and reads its "hits" table, sw_summary.h its summary).
//
// Contents:
//   Hit, QueryHits     one reported pair; a query's reported pairs, best first
//   SearchPhases       where a job's wall and host CPU time went (stderr only)
//   SearchResult       the params, every query's hits, the chunk's size, the engine
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/phase_clock.h"
#include "sw_params.h"

namespace helix::swsearch {

// One reported pair. Positions 1-based inclusive as BLAST prints them; the
// start positions, identities, length and CIGAR only for the first
// `alignments` hits of a query (0 / "" otherwise).
struct Hit {
  std::string target_id;
  std::uint64_t target_ordinal = 0;
  int score = 0;
  double bits = 0, evalue = 0;
  int query_start = 0, query_end = 0, target_start = 0, target_end = 0;
  int identities = 0, length = 0;
  std::string cigar;
};
struct QueryHits {
  std::string query_id;
  int query_length = 0;
  std::vector<Hit> hits;  // score descending, then ordinal ascending; only scores > 0
};
// Where a job's time went (the app prints it to stderr): wall and process CPU
// seconds per phase; load: the blocks' targets onto the engine.
struct SearchPhases {
  PhaseTime read, load, scan, ends, align;
};
struct SearchResult {
  SwParams params;
  std::vector<QueryHits> queries;
  std::uint64_t chunk_targets = 0, chunk_residues = 0;
  std::string engine;
  SearchPhases phases;  // this run's (after a restart, the scan since it)
};

}  // namespace helix::swsearch
