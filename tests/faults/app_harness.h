// app_harness.h: the helix app as the BOINC client runs it, for the
// reliability tests (docs/reliability.md): real work units made by the real
// work generator (helix-wu), slot directories of BOINC soft links, the app
// started, watched, SIGKILLed and restarted as a process, and its files
// compared byte for byte.
//
// Contents:
//   app_binary(), work_generator_binary()   the programs under test
//   WorkGeneratorFailed, run_work_generator()  helix-wu itself
//   WorkUnit, read_work_unit()               a WU as helix-wu writes it (templates + files)
//   ScratchDir                               a temporary directory, removed at the end
//   Slot                                     a slot directory for one task
//   AppProcess, AppExit                      one start of the app
//   CheckpointStamp, checkpoint_stamp()      which checkpoint the slot holds
//   wait_for_new_checkpoint()                watch a running app for its next checkpoint
//   Outputs, read_outputs(), outputs_diff()  the result files, compared
#pragma once
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace helix::faults {

// $HELIX_APP_BINARY / $HELIX_WU_BINARY when set (a build moved to another
// machine), else the programs this build made.
std::string app_binary();
std::string work_generator_binary();

// A work unit as BOINC's create_work would take it from helix-wu's output:
// the input template's open names paired, in order, with the files the
// create_work script stages; the output names from the result template.
struct WorkUnit {
  std::string name;
  std::vector<std::pair<std::string, std::string>> inputs;  // logical name, absolute path
  std::vector<std::string> outputs;                         // logical output names
  std::string input_path(const std::string& logical) const;
};

// helix-wu exited non-zero: its exit status and what it wrote to stderr
// (what() says both).
struct WorkGeneratorFailed : std::runtime_error {
  WorkGeneratorFailed(int exit_status, const std::string& stderr_text);
  int exit_status;
  std::string stderr_text;
};

// Runs `helix-wu <arguments>` in `dir` (created if need be; helix-wu's stderr
// is kept in dir/helix-wu.stderr); throws WorkGeneratorFailed when it fails.
void run_work_generator(const std::vector<std::string>& arguments, const std::string& dir);
// The WU named `name` that helix-wu wrote into `dir` (which may have moved
// since: the paths are taken from where it is now).
WorkUnit read_work_unit(const std::string& dir, const std::string& name);

// A fresh directory under the system temp dir, removed with the object.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A slot as the client makes it: each input a BOINC soft link file
// ("<soft_link>path</soft_link>") under its logical name, and init_data.xml
// with the shortest checkpoint period the BOINC API honours (1 s).
class Slot {
 public:
  Slot(const std::string& path, const WorkUnit& work_unit);
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  bool exists(const std::string& name) const;
  // The files the BOINC API leaves: boinc_finish() and boinc_temporary_exit().
  bool finish_called() const { return exists("boinc_finish_called"); }
  bool temporary_exit_called() const { return exists("boinc_temporary_exit"); }
  // Forgets what the last start left for the client (as the client does
  // before it restarts a task), so that the next start's traces are its own.
  void clear_exit_notes() const;

 private:
  std::string path_;
};

// How one start of the app ended: exit status (128 + signal when killed) and
// what it wrote to stderr (the slot's stderr.txt collects all starts, as
// under the client; this is the part this start wrote).
struct AppExit {
  int status = -1;
  std::string stderr_text;
  bool killed() const { return status == 128 + 9; }
};

// One start of `helix <arguments>` in a slot, with extra environment
// variables ("NAME=value"; "NAME=" sets it empty). The destructor kills and
// reaps a process still running (a failed assertion must not leave one).
class AppProcess {
 public:
  AppProcess(const Slot& slot, const std::vector<std::string>& arguments,
             const std::vector<std::string>& environment = {});
  ~AppProcess();
  AppProcess(const AppProcess&) = delete;
  AppProcess& operator=(const AppProcess&) = delete;
  // True once the process has exited (it stays unreaped until wait()).
  bool exited() const;
  void kill_now() const;
  AppExit wait();
  std::chrono::steady_clock::time_point started_at() const { return started_; }

 private:
  const Slot& slot_;
  pid_t pid_ = -1;
  std::uintmax_t stderr_offset_ = 0;
  std::chrono::steady_clock::time_point started_;
};

// Runs the app to its end.
AppExit run_app(const Slot& slot, const std::vector<std::string>& arguments,
                const std::vector<std::string>& environment = {});

// The checkpoint file's identity: a new one (written to a temp file and
// renamed) has a new inode or modification time.
struct CheckpointStamp {
  std::uintmax_t inode = 0;
  std::int64_t modified_ns = 0;
  bool operator==(const CheckpointStamp& other) const {
    return inode == other.inode && modified_ns == other.modified_ns;
  }
  bool operator!=(const CheckpointStamp& other) const { return !(*this == other); }
};
std::optional<CheckpointStamp> checkpoint_stamp(const Slot& slot);
// Polls until the slot holds a checkpoint other than `previous` (true) or the
// app exits or `limit` passes (false).
bool wait_for_new_checkpoint(const Slot& slot, const AppProcess& app, std::optional<CheckpointStamp> previous,
                             std::chrono::seconds limit = std::chrono::seconds(120));

// The work unit's output files as bytes, by logical name (absent ones left out).
using Outputs = std::map<std::string, std::vector<std::uint8_t>>;
Outputs read_outputs(const Slot& slot, const WorkUnit& work_unit);
// "" when every output that exists in the slot equals the reference's bytes
// (and, with `require_all`, every output exists); else one line per problem.
std::string outputs_diff(const Slot& slot, const WorkUnit& work_unit, const Outputs& reference, bool require_all);

// How many lines of `text` contain `needle`.
int lines_containing(const std::string& text, const std::string& needle);

}  // namespace helix::faults
