// sw_server.h: the project-side pieces of the swsearch kind, used by
// swsearch_kind.cpp (the kind's declaration, core/kind.h) and by tests.
// The WU and result formats themselves are sw_job.h's (docs/swsearch.md).
//
// Contents
//   WU file names                    wu_name(), chunk_file(), ..., parse_wu_name() (core/names.h undoes BOINC result names)
//   cost and bounds                  kOpsPerCell, ...
//   check_sw_result(), compare_sw_results()   validator (sw_check.cpp)
//   create_sw_tables(), store_sw_result(), sw_report()   assimilator (sw_store.cpp)
//   sw_report_texts()                BLAST tabular and pairwise texts of a merged search (sw_report.cpp)
//   add_sw_workunit_command()        `helix-wu swsearch make` (sw_workunit.cpp)
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/kind.h"
#include "core/work_protocol.h"
#include "sw_job.h"

struct sqlite3;

namespace helix::swsearch {

// ---------------------------------------------------------------- WU file names
//
// `helix-wu swsearch make --name P` makes one WU per (query batch b, database
// chunk c), named "P_b<b>_c<c>". Its inputs, in --out:
//   params    "<wu>.params.json"
//   matrix    "P.<MATRIX>"          (one copy for the whole search)
//   queries   "<wu>.queries.fa"
//   database  "P.chunk_<c>.hxsw"    (written once, shared by every WU of chunk c)
// The result's summary echoes the params but not the WU's name, so the
// validator takes the name from the result's file names, which BOINC makes
// "<wu>_<replica>_<file index>" (create_work's default result names and
// OUTFILE_<i>): wu_name_of_result_file() (core/names.h) undoes that.
std::string wu_name(const std::string& prefix, std::size_t batch, std::size_t chunk);
std::string params_file(const std::string& wu);
std::string queries_file(const std::string& wu);
std::string chunk_file(const std::string& prefix, std::size_t chunk);
std::string matrix_file(const std::string& prefix, const std::string& matrix_name);
struct WuName {
  std::string prefix;
  std::size_t batch = 0, chunk = 0;
};
// nullopt when `wu` is not "<prefix>_b<digits>_c<digits>".
std::optional<WuName> parse_wu_name(const std::string& wu);

// ---------------------------------------------------------------- cost and bounds

// One dynamic-programming cell of the affine-gap recurrence: a substitution
// score lookup, three max, two gap updates (open vs extend) and the running
// best: about 10 operations. rsc_fpops_est = query residues x chunk residues x this.
constexpr double kOpsPerCell = 10;
// Database chunk size, in residues, when --chunk-residues is not given: ~20 MB
// of residues, seconds per query on a GPU, a modest download per WU.
constexpr std::uint64_t kDefaultChunkResidues = 20'000'000;
// Queries per WU when --queries-per-wu is not given: with the chunk's 20 M
// residues, about two minutes on one CPU core (the CPU engine's ~6 GCUPS a
// core at the queries' mean length of ~360; bench/RESULTS.md).
constexpr std::size_t kDefaultQueriesPerWu = 96;
// The GPU size class's defaults (core/size_class.h): 10 x the residues and
// about 43 x the queries, 427 x the cells: over a minute of scan on an H100
// (measured: 65 s at 170 M residues, 3.9 TCUPS), so that the WU's fixed costs
// (start, reading and packing the chunk) and the host's share per query stay
// small beside it (3.2 % of a core while the GPU is busy, 5.1 % over the
// whole run; bench/RESULTS.md).
constexpr std::uint64_t kGpuChunkResidues = 200'000'000;
constexpr std::size_t kGpuQueriesPerWu = 4096;
// The hits file at its largest: top_hits lines per query, each two ids of at
// most `longest_id` characters and the numbers, and a CIGAR of at most 2
// characters per column (query + longest target columns) on the first
// `alignments` of them. The work generator passes the WU's own longest id (the
// output template's max_nbytes); the validator, which reads only the result,
// decode_chunk's bound, kMaxIdLength.
std::uint64_t max_hits_bytes(const SwParams& params, const std::vector<int>& query_lengths,
                             std::uint64_t longest_target, std::uint64_t longest_id);

// ---------------------------------------------------------------- validator

// Validator init mode for files = {hits, summary}; docs/server.md lists the
// checks. With options.inputs_dir the WU's inputs are read there and a sample
// of reported and unreported pairs is re-scored with sw_score(). Never throws.
CheckOutcome check_sw_result(const std::vector<std::string>& files, const ServerOptions& options);
// How many pairs the spot check re-scores: reported pairs and unreported
// (query, target) pairs, drawn at random (seed 0: from std::random_device, so
// a forger cannot know which); when a budget covers every pair, all are checked.
struct SpotCheck {
  std::size_t reported = 32;
  std::size_t unreported = 32;
  unsigned seed = 0;
};
CheckOutcome check_sw_result(const std::vector<std::string>& files, const ServerOptions& options,
                             const SpotCheck& spot);
// Equivalent iff the hits are equal field for field (bits and E-value within
// 1e-9 relative) and the summaries equal as JSON apart from "engine". Never throws.
CheckOutcome compare_sw_results(const std::vector<std::string>& files_a, const std::vector<std::string>& files_b);

// ---------------------------------------------------------------- assimilator

// Creates swsearch_hits and swsearch_chunks (docs/database.md) if absent. Throws std::runtime_error on SQL errors.
void create_sw_tables(sqlite3* db);
// INSERT OR REPLACE of one result's hits, and of its search name and params
// from the summary (the caller holds the transaction). Throws InputError for
// unreadable or malformed files.
void store_sw_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files);
// The merged ranking of every query over all stored chunks of `search` (of
// every search when ""): per query the top_hits best by score desc, then
// target_ordinal asc, exactly what one run over the whole database reports.
// A stored hit's alignment (starts, identities, length, CIGAR) is kept only
// within the first `alignments` of the merged ranking, as a whole-database run
// would have it; ends always. Queries in query_id order.
std::vector<QueryHits> sw_report(sqlite3* db, int top_hits, int alignments, const std::string& search = "");
// The searches with stored results, by name; a search's params (every stored
// chunk must agree: InputError otherwise, or when none is stored).
std::vector<std::string> sw_searches(sqlite3* db);
SwParams sw_search_params(sqlite3* db, const std::string& search);

// ---------------------------------------------------------------- merged report (sw_report.cpp)
//
// `helix-wu swsearch report`: a search's merged hits (sw_report()) as BLAST's
// tabular output (-outfmt 6: its 12 columns, one row per hit with an
// alignment, i.e. the first `alignments` of each query), the same with
// BLAST's comment lines (-outfmt 7), and the pairwise alignments in BLAST's
// style with every top hit listed. BLAST's number formats:
std::string blast_evalue_text(double evalue);
std::string blast_bits_text(double bits);
// What the texts need besides the hits, from the directory `helix-wu swsearch
// make --out` wrote: the queries (in batch order) from chunk 0's queries
// files, the residues of every aligned target from the chunks, the matrix.
struct ReportInputs {
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> queries;  // id, residues
  std::map<std::uint64_t, std::vector<std::uint8_t>> targets;              // by ordinal
  ScoreMatrix matrix;
};
ReportInputs read_report_inputs(const std::string& dir, const SwParams& params, const std::vector<QueryHits>& merged);
struct ReportTexts {
  std::string tabular, commented, alignments;
};
// Bits and E-values recomputed from the scores with the search's statistics.
// Throws InputError when a hit's query or target is missing from the inputs.
ReportTexts sw_report_texts(const std::vector<QueryHits>& merged, const SwParams& params, const ReportInputs& inputs);

// ---------------------------------------------------------------- work generator

// Adds make and report to `helix-wu swsearch` (`command`, which core makes from the declaration).
void add_sw_workunit_command(CLI::App& command, std::function<void(const WorkunitSpec&)> emit);
// `helix-wu swsearch example`: the small example WU's command lines (core/kind.h,
// ServerFunctions::example_commands).
std::vector<std::vector<std::string>> sw_example_commands(const std::string& dir);

}  // namespace helix::swsearch
