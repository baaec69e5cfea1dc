// hmm_server.h: the project-side pieces of the hmmsearch kind, used by
// hmmsearch_kind.cpp (the kind's declaration, core/kind.h) and by tests.
// The WU and result formats themselves are hmm_job.h's (docs/hmmsearch.md,
// "Work units and server").
//
// Contents
//   WU file names                      wu_name(), params_file(), profiles_file(), chunk_file(), parse_wu_name(), ...
//   cost and bounds                    kOpsPerCell, ..., max_scores_bytes()
//   check_hmm_result(), compare_hmm_results()      validator (hmm_check.cpp)
//   create_hmm_tables(), store_hmm_result(),
//   hmm_searches(), hmm_report()                   assimilator and the merged report (hmm_store.cpp)
//   add_hmm_workunit_command()         `helix-wu hmmsearch make` and `report` (hmm_workunit.cpp)
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/kind.h"
#include "core/work_protocol.h"
#include "hmm_job.h"

struct sqlite3;

namespace helix::hmmsearch {

// ---------------------------------------------------------------- WU file names
//
// `helix-wu hmmsearch make --name P` makes one WU per database chunk c, named
// "P_c<c>". Its inputs, in --out:
//   params    "<wu>.params.json"
//   profiles  "P.profiles.hmm"     (one copy for the whole search)
//   database  "P.chunk_<c>.fa"     (FASTA, the chunk's records in database order)
// The validator takes the WU's name from the result's file names, which BOINC
// makes "<wu>_<replica>_<file index>": wu_name_of_result_file() (core/names.h) undoes that.
std::string wu_name(const std::string& prefix, std::size_t chunk);
std::string params_file(const std::string& wu);
std::string profiles_file(const std::string& prefix);
std::string chunk_file(const std::string& prefix, std::size_t chunk);
struct WuName {
  std::string prefix;
  std::size_t chunk = 0;
};
// nullopt when `wu` is not "<prefix>_c<digits>".
std::optional<WuName> parse_wu_name(const std::string& wu);

// ---------------------------------------------------------------- cost and bounds

// Work per (residue, model node): the MSV filter runs on every cell, the
// bias filter, Viterbi and Forward on the few percent that pass. About 10
// operations per cell at a host's benchmarked speed matches the CPU
// reference's time (docs/hmmsearch.md). rsc_fpops_est = chunk residues x the
// profiles' total length x this.
constexpr double kOpsPerCell = 10;
// Chunk size in residues when --chunk-residues is not given: ~20 MB of
// FASTA, minutes per profile on one CPU core, seconds on a GPU.
constexpr std::uint64_t kDefaultChunkResidues = 20'000'000;
// The GPU size class's chunk (core/size_class.h): 10 x the residues.
constexpr std::uint64_t kGpuChunkResidues = 200'000'000;
// The scores file at its largest: every target past Forward for every
// profile, each name and description at most once per profile (they are in
// the chunk's FASTA, chunk_bytes).
std::uint64_t max_scores_bytes(const HmmParams& params);
// The domains file at its largest, a sanity bound rather than a worst case:
// every target past Forward for every profile (a target line each) and every
// residue of the chunk inside a domain of every profile, at
// kMaxDomainBytesPerResidue (a domain line's 400 fixed bytes shared by its
// residues, and about 8 bytes per alignment column: seven display lines and
// a tab; deletions add columns). Searches come nowhere near it.
constexpr std::uint64_t kMaxDomainBytesPerResidue = 64;
std::uint64_t max_domains_bytes(const HmmParams& params);

// ---------------------------------------------------------------- validator

// How many targets the validator re-runs on the CPU reference, for the whole
// WU (split among its profiles, at least 2 each): targets that passed the
// Forward filter and targets drawn from the whole chunk, at random (seed 0:
// from std::random_device, so a forger cannot know which).
struct SampleCheck {
  std::size_t passed = 64;
  std::size_t drawn = 192;
  unsigned seed = 0;
};
// The result's files, in the order of output_names().
constexpr std::size_t kTbloutFile = 0, kDomtbloutFile = 1, kOutFile = 2, kScoresFile = 3, kDomainsFile = 4,
                      kSummaryFile = 5, kResultFiles = 6;
// Validator init mode for files = {tblout, domtblout, out, scores, domains, summary};
// docs/hmmsearch.md lists the checks. With options.inputs_dir the WU's inputs
// are read there and a sample of targets is re-run on the CPU reference.
// Never throws.
CheckOutcome check_hmm_result(const std::vector<std::string>& files, const ServerOptions& options,
                              const SampleCheck& sample);
CheckOutcome check_hmm_result(const std::vector<std::string>& files, const ServerOptions& options);
// Equivalent iff the summaries are equal as JSON apart from "engine" and
// every row's scores and domain definition are equal (exactly; the text
// outputs are functions of those). Never throws.
CheckOutcome compare_hmm_results(const std::vector<std::string>& files_a, const std::vector<std::string>& files_b);

// ---------------------------------------------------------------- assimilator

// Creates hmmsearch_chunks, hmmsearch_profiles, hmmsearch_passed,
// hmmsearch_targets and hmmsearch_domains (docs/hmmsearch.md) if absent. Throws std::runtime_error on SQL errors.
void create_hmm_tables(sqlite3* db);
// Replaces whatever WU wu_id had stored with this result's rows (the caller
// holds the transaction). Throws InputError for unreadable or malformed files.
void store_hmm_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files);
// The searches stored, by name.
std::vector<std::string> hmm_searches(sqlite3* db);
// One search merged over its chunks: per profile the summed counts, and every
// stored target past Forward with its domain definition (rows by profile,
// then ordinal): profile_texts() of it is one whole-database run's. Its params are
// those of its lowest stored chunk (only the search-wide members, Z, E,
// F1..F3, ..., mean anything). One stored
// result per chunk is used (the lowest wu_id when a chunk was stored twice).
struct SearchReport {
  HmmParams params;
  std::uint32_t chunks_stored = 0;
  std::vector<ProfileOutcome> profiles;
  std::vector<ScoreRow> rows;
};
// Throws InputError for an unknown search, chunks that disagree on the
// search-wide params or the profiles, and, unless allow_partial, missing chunks.
SearchReport hmm_report(sqlite3* db, const std::string& search, bool allow_partial);

// ---------------------------------------------------------------- work generator

// Adds make and report to `helix-wu hmmsearch` (`command`, which core makes from the declaration).
void add_hmm_workunit_command(CLI::App& command, std::function<void(const WorkunitSpec&)> emit);
// `helix-wu hmmsearch example`: the small example WU's command lines (core/kind.h,
// ServerFunctions::example_commands).
std::vector<std::vector<std::string>> hmm_example_commands(const std::string& dir);

}  // namespace helix::hmmsearch
