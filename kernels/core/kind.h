// kind.h: the two faces of a kind of work, and the registry that finds them.
//
//   AppKind     volunteer side: runs one work unit through a Runtime.
//   ServerKind  project side: makes work units, checks and compares returned
//               results, stores accepted results in SQLite.
//
// Conventions every kind follows (the server tools rely on them):
//   - the WU's first input file has logical name "params": a JSON object whose
//     "kind" member names the kind; the kind's own inputs follow;
//   - a result's LAST output file is a JSON summary whose "kind" member names
//     the kind, so the validator and assimilator can dispatch on content.
//
// A kind registers itself by being listed in HELIX_KINDS (kernels/CMakeLists.txt)
// and defining make_<kind>_app_kind() / make_<kind>_server_kind().
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "runtime.h"

struct sqlite3;
namespace CLI { class App; }

namespace helix {

class AppKind {
 public:
  virtual ~AppKind() = default;
  virtual std::string name() const = 0;
  // Runs the work unit whose parameters are `params`. Throws InputError for bad
  // input, GpuError for GPU faults, StopRequested when the runtime asked to stop.
  virtual void run(const nlohmann::json& params, const RunOptions& options, Runtime& runtime) const = 0;
};

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
  std::vector<std::string> outputs;                          // logical output names, in result-file order
  double fpops_estimate = 0;                                 // rsc_fpops_est
  double fpops_bound = 0;                                    // rsc_fpops_bound
  double memory_bound_bytes = 0;                             // rsc_memory_bound
  double disk_bound_bytes = 0;  // the WU's own files in the slot (workunit/ adds the app version's: rsc_disk_bound)
  double max_output_bytes = 0;                               // <max_nbytes> per output file
  int size_class = -1;  // create_work --size_class (core/size_class.h); -1: none
};

struct ServerOptions {
  std::string inputs_dir;  // where WU input files can be found (validator recomputation); may be empty
};

class ServerKind {
 public:
  virtual ~ServerKind() = default;
  virtual std::string name() const = 0;
  virtual std::vector<std::string> output_names() const = 0;
  // Adds `helix-wu <kind> ...`; the callback receives each work unit made.
  virtual void add_workunit_command(CLI::App& parent, std::function<void(const WorkunitSpec&)> emit) const = 0;
  // Validator init mode: is this one result well-formed and consistent?
  virtual CheckOutcome check_result(const std::vector<std::string>& files, const ServerOptions& options) const = 0;
  // Validator compare mode: are two (already checked) results equivalent?
  virtual CheckOutcome compare_results(const std::vector<std::string>& files_a,
                                       const std::vector<std::string>& files_b) const = 0;
  // Assimilator: creates the kind's tables (idempotent) and stores one accepted result.
  virtual void create_tables(sqlite3* db) const = 0;
  virtual void store_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files) const = 0;
};

// The registry (generated from HELIX_KINDS). Lookups return nullptr when unknown.
const AppKind* find_app_kind(const std::string& name);
const ServerKind* find_server_kind(const std::string& name);
std::vector<std::string> registered_kind_names();

}  // namespace helix
