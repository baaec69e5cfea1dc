// sw_job.h: a swsearch work unit and its result, as files (docs/swsearch.md).
// Shared by the app and the server side.
//
// Contents:
//   DatabaseChunk, encode_chunk(), decode_chunk()   "HXSWDB01": a slice of the database, sorted by length
//   SwParams, parse_sw_params()                     the WU's "params" JSON
//   Hit, QueryHits, SearchResult                    what a search reports
//   run_sw_job()                                    the app's job, checkpointed between database blocks
//   hits_tsv(), parse_hits_tsv()                    the "hits" output
//   sw_summary_json()                               the "summary" output (last; names the kind)
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/runtime.h"
#include "sw_engine.h"

namespace helix::sw {

// A slice of the database: targets sorted by length (ties by ordinal), each
// with its id and its ordinal (position in the whole database's FASTA, from 0),
// which orders equal scores identically in every chunk.
struct DatabaseChunk {
  std::vector<std::string> ids;
  std::vector<std::uint64_t> ordinals;
  TargetSet targets;
};
// Sorts `records` (with their ordinals) by length into a chunk.
DatabaseChunk make_chunk(std::vector<FastaRecord> records, const std::vector<std::uint64_t>& ordinals);
// Real FASTA ids run long: metastudent-data's UniProt set has ids of up to
// 4,021 characters (accession|GO terms, no blank). The bound keeps a corrupt
// chunk from declaring absurd strings; make_chunk refuses an id above it, so
// every chunk the work generator writes decodes.
constexpr std::size_t kMaxIdLength = 65536;
std::vector<std::uint8_t> encode_chunk(const DatabaseChunk& chunk);
// Throws InputError on a malformed, unsorted or oversized file (max_residues bounds the allocation).
DatabaseChunk decode_chunk(const std::vector<std::uint8_t>& bytes, std::uint64_t max_residues);

struct SwParams {
  std::string search;                 // the search's name (helix-wu swsearch make --name); "" in older WUs
  std::string matrix_name;            // for the statistics (BLOSUM62, ...); the matrix itself is the "matrix" input
  GapPenalties gaps;
  int top_hits = 50;                  // hits reported per query (1..10000)
  int alignments = 10;                // of them, with a full alignment (0..top_hits)
  std::uint64_t database_residues = 0;   // of the WHOLE database: the E-values' n
  std::uint64_t database_sequences = 0;
  std::uint32_t block_targets = 65536;   // targets scored between checkpoints
};
// {"kind": "swsearch", "search"?, "matrix_name", "gap_open", "gap_extend", "top_hits"?,
//  "alignments"?, "database_residues", "database_sequences", "block_targets"?}.
// Throws InputError on anything absurd (negative gaps, unknown statistics, ...).
SwParams parse_sw_params(const nlohmann::json& json);
nlohmann::json sw_params_json(const SwParams& params);

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
// Where a job's wall time went, seconds (the app prints it to stderr).
struct SearchPhases {
  double read = 0, load = 0, scan = 0, ends = 0, align = 0;  // load: the blocks' targets onto the engine
};
struct SearchResult {
  SwParams params;
  std::vector<QueryHits> queries;
  std::uint64_t chunk_targets = 0, chunk_residues = 0;
  std::string engine;
  SearchPhases phases;  // this run's (after a restart, the scan since it)
};

// Reads "params", "matrix" (NCBI text), "queries" (FASTA) and "database"
// (a chunk) through the runtime, scores every query against every target on
// `engine` block by block (state saved between blocks when due), then aligns
// the reported hits with the reference. Throws InputError, StopRequested.
SearchResult run_sw_job(const SwParams& params, SwEngine& engine, Runtime& runtime);

// BLAST-tabular-like, one line per hit, header first:
// query_id target_id score bits evalue query_start query_end target_start
// target_end identities length cigar target_ordinal (evalue as %.3e, bits as %.1f).
std::string hits_tsv(const SearchResult& result);
std::vector<std::vector<std::string>> parse_hits_tsv(const std::string& text);  // rows of fields; InputError if malformed
std::string sw_summary_json(const SearchResult& result);

}  // namespace helix::sw
