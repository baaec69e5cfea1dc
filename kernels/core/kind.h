// kind.h: a kind of work, declared once, and the registry that finds it.
//
// Contents:
//   OutputFile, ResultFiles, RunFunction   a kind's result files and the function that makes them
//   WorkunitSpec, ServerOptions, CheckOutcome, Verdict   what the project side works with
//   ServerFunctions                        the project side: work generator, validator, assimilator
//   KindSpec                               the whole declaration: name, inputs, outputs, run, server
//   HELIX_DECLARE_KIND(kind, spec, server) the one line that defines a kind (in kernels/<kind>/<kind>_kind.cpp)
//   run_kind()                             runs a WU and writes its outputs atomically, summary last
//   output_names(), add_kind_workunit_command(), run_kind_command_line(), hand_made_workunit()
//                                          what the spec derives for the work generator
//   find_kind(), find_server_kind(), registered_kind_names()   the registry
//
// A kind is a folder kernels/<kind>/ with one declaration file <kind>_kind.cpp
// and its name in HELIX_KINDS (kernels/CMakeLists.txt). Everything else that
// names its files (WorkunitSpec::outputs, the result template, the packaged
// templates, the demo's and tests' file lists) is derived from the declaration.
//
// Conventions every kind follows (the server tools rely on them):
//   - the WU's first input file has logical name "params": a JSON object whose
//     "kind" member names the kind; the kind's own inputs follow;
//   - a result's LAST output file is "summary": a JSON object whose "kind"
//     member names the kind, so the validator and assimilator can dispatch on
//     content; it is at most kMaxSummaryBytes (core/work_protocol.h).
//
// The declaration file is compiled twice: into the kind's app library (the
// volunteer app: no SQLite, PNG or server code, so `server` stays empty) and,
// with HELIX_SERVER_SIDE defined, into its server library.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "runtime.h"
#include "work_protocol.h"

struct sqlite3;
namespace CLI { class App; }

namespace helix {

// One file of a kind's result, in result-file order.
struct OutputFile {
  std::string name;  // logical (open) name
  // A bound that holds for every WU (the summary's); 0: the work generator
  // bounds it per WU (WorkunitSpec::max_output_bytes).
  std::uint64_t max_bytes = 0;
};

// A result's files as a kind's run function makes them: logical name -> bytes.
using ResultFiles = std::map<std::string, std::string>;

// Runs the work unit whose parameters are `params` and returns every output
// the kind declares. Throws InputError for bad input, GpuError for GPU faults,
// StopRequested when the runtime asked to stop (after checkpointing).
using RunFunction = ResultFiles (*)(const nlohmann::json& params, const RunOptions& options, Runtime& runtime);

// script_validator's exit-code contract: 0 valid, 3 transient, anything else invalid.
enum class Verdict { kValid = 0, kInvalid = 1, kTransient = 3 };
struct CheckOutcome {
  Verdict verdict;
  std::string reason;  // one line, for the validator's log
};

// What a work generator emits for one work unit; workunit/ turns it into BOINC
// templates and a create_work command line.
struct WorkunitSpec {
  std::string name;                                          // unique WU name
  std::vector<std::pair<std::string, std::string>> inputs;   // logical name, file path (first is "params")
  // Logical names of the inputs that other WUs of the same run use too (one
  // database chunk for several query batches, one profile file for every
  // chunk): BOINC's file_deleter must keep them (<no_delete/>) after the first
  // of those WUs is assimilated.
  std::vector<std::string> shared_inputs;
  // Logical output names, in result-file order: filled from the kind's
  // declaration by add_kind_workunit_command(), never by the kind.
  std::vector<std::string> outputs;
  double fpops_estimate = 0;                                 // rsc_fpops_est: the kind's estimate
  // What else the kind knows of the WU's costs, from which
  // add_kind_workunit_command() derives the bounds below by the protocol's one
  // policy (core/work_protocol.h).
  double kind_memory_bytes = 0;  // host memory beyond kMemoryBaseBytes
  double output_bytes = 0;       // the outputs' worst case in the slot, and any scratch; the summary not included
  double fpops_bound = 0;                                    // rsc_fpops_bound
  double memory_bound_bytes = 0;                             // rsc_memory_bound
  double disk_bound_bytes = 0;  // the WU's own files in the slot (workunit/ adds the app version's: rsc_disk_bound)
  // <max_nbytes> of every output file: the kind's per-WU bound, raised by
  // add_kind_workunit_command() to the declared fixed bounds (the summary's).
  double max_output_bytes = 0;
  int size_class = -1;  // create_work --size_class (core/size_class.h); -1: none
};

struct ServerOptions {
  std::string inputs_dir;  // where WU input files can be found (validator recomputation); may be empty
};

using EmitWorkunit = std::function<void(const WorkunitSpec&)>;

// The project side of a kind.
struct ServerFunctions {
  // Adds the kind's subcommands to `command` (`helix-wu <kind>`, which core
  // makes from the declaration); each WU made goes to emit.
  void (*add_workunit_command)(CLI::App& command, EmitWorkunit emit) = nullptr;
  // Validator init mode: is this one result well-formed and consistent?
  CheckOutcome (*check_result)(const std::vector<std::string>& files, const ServerOptions& options) = nullptr;
  // Validator compare mode: are two (already checked) results equivalent?
  CheckOutcome (*compare_results)(const std::vector<std::string>& files_a,
                                  const std::vector<std::string>& files_b) = nullptr;
  // Assimilator: creates the kind's tables (idempotent) and stores one accepted result.
  void (*create_tables)(sqlite3* db) = nullptr;
  void (*store_result)(sqlite3* db, long long wu_id, const std::vector<std::string>& files) = nullptr;
  // `helix-wu <kind> example --out DIR`: a small example WU from real data on
  // the machine (about 3-6 s on one CPU core, checkpointing several times),
  // for the demo and the end-to-end and fault tests. Writes what the WU is
  // made from under DIR/input and returns the helix-wu command lines (without
  // "helix-wu") that make the WU into DIR. Throws InputError naming missing data.
  std::vector<std::vector<std::string>> (*example_commands)(const std::string& dir) = nullptr;
};

// A typical WU made by hand with bin/create_work (docs/deploy.md): the
// packaged templates <kind>_in and <kind>_out (`helix-wu templates`) carry its
// file references and bounds.
struct HandMadeWorkunit {
  // Logical input names after "params", in WU order; empty for a kind whose
  // input names differ in every WU (then only helix-wu's per-WU input
  // template fits, and there is no <kind>_in).
  std::vector<std::string> inputs;
  std::vector<std::string> shared_inputs;  // of them, those several WUs share (<no_delete/>)
  double fpops_estimate = 0;               // the bound is kFpopsBoundFactor times it
  double memory_bound_bytes = 0, disk_bound_bytes = 0, max_output_bytes = 0;
};

struct KindSpec {
  std::string name;
  std::string description;          // one line, for --help
  std::vector<OutputFile> outputs;  // result-file order; the last is "summary"
  RunFunction run = nullptr;        // the volunteer side
  HandMadeWorkunit hand_made;       // the packaged templates' WU
  ServerFunctions server;           // the project side (empty in the app's build)
};

// The summary's entry of a declaration: the last output of every kind.
inline OutputFile summary_output() { return {"summary", kMaxSummaryBytes}; }

// Defines `const KindSpec& <kind>_kind_spec()` in the app library and
// `const KindSpec& <kind>_server_kind_spec()` in the server library, which the
// registries (generated from HELIX_KINDS) call. `server_functions` is not even
// compiled in the app's build, so the app links no server code.
#ifdef HELIX_SERVER_SIDE
#define HELIX_DECLARE_KIND(kind, spec, server_functions)   \
  const ::helix::KindSpec& kind##_server_kind_spec() {     \
    static const ::helix::KindSpec declared = [] {         \
      ::helix::KindSpec s = spec;                          \
      s.server = server_functions;                         \
      return s;                                            \
    }();                                                   \
    return declared;                                       \
  }
#else
#define HELIX_DECLARE_KIND(kind, spec, server_functions) \
  const ::helix::KindSpec& kind##_kind_spec() {          \
    static const ::helix::KindSpec declared = spec;      \
    return declared;                                     \
  }
#endif

// Runs one WU of `kind` and writes each output it returns atomically (temp
// file, fsync, rename), in the declared order, so the summary comes last: a
// result whose summary exists is complete. Throws std::logic_error when the
// run returns other files than the declaration names (a bug in the kind).
void run_kind(const KindSpec& kind, const nlohmann::json& params, const RunOptions& options, Runtime& runtime);

// The declared output names, in result-file order.
std::vector<std::string> output_names(const KindSpec& kind);

// Adds the kind's work-generator commands; every WU they make gets the
// declared outputs and output bound before it reaches `emit`.
void add_kind_workunit_command(const KindSpec& kind, CLI::App& parent, EmitWorkunit emit);

// Runs `helix-wu WORDS...` with only the kind's commands, in-process (its
// example, tests). Throws InputError for words the commands refuse (CLI11's
// message) and whatever the command throws.
void run_kind_command_line(const KindSpec& kind, const std::vector<std::string>& words, const EmitWorkunit& emit);

// The WorkunitSpec of the kind's hand-made WU (name empty), from which the
// packaged templates are written. Server side, like the two above.
WorkunitSpec hand_made_workunit(const KindSpec& kind);

// The registries (generated from HELIX_KINDS). Lookups return nullptr when
// unknown. find_kind() is the app's (no server functions); find_server_kind()
// is the server tools'.
const KindSpec* find_kind(const std::string& name);
const KindSpec* find_server_kind(const std::string& name);
std::vector<std::string> registered_kind_names();

}  // namespace helix
