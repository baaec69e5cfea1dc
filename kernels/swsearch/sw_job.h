// sw_job.h: a swsearch work unit run by the app (docs/swsearch.md): the
// search, checkpointed after any query's scan of a round of database blocks. Includes
// the kind's file headers, so that a file of the app or the server side that includes it has
// the whole work unit:
//   sw_params.h    SwParams, parse_sw_params(), sw_params_json()   the WU's "params" JSON
//   sw_result.h    Hit, QueryHits, SearchResult                    what a search reports
//   sw_files.h     DatabaseChunk, encode_chunk(), decode_chunk()   "HXSWDB01": a slice of the database
//                  hits_tsv(), parse_hits_tsv()                    the "hits" output
//   sw_summary.h   sw_summary_json()                               the "summary" output (last; names the kind)
//
// Contents:
//   run_sw_job()   the app's job, checkpointed query by query, round by round
#pragma once
#include "core/runtime.h"
#include "sw_engine.h"
#include "sw_files.h"
#include "sw_params.h"
#include "sw_result.h"
#include "sw_summary.h"

namespace helix::swsearch {

// Reads "params", "matrix" (NCBI text), "queries" (FASTA) and "database"
// (a chunk) through the runtime, scores every query against every target on
// `engine` round by round (as many whole blocks a load as the engine's
// round_residues() holds; state saved after any query's scan of a round when
// due, and before a stop), then aligns
// the reported hits with the reference. Throws InputError, StopRequested.
SearchResult run_sw_job(const SwParams& params, SwEngine& engine, Runtime& runtime);

}  // namespace helix::swsearch
