// directory_runtime.h: a Runtime without BOINC, for tests and server tools.
// Logical names resolve to files in one directory; state goes to
// <dir>/checkpoint.state. An optional hook can veto continuing (tests use it to
// simulate a kill right after a chosen checkpoint).
#pragma once
#include <functional>
#include <string>

#include "errors.h"
#include "runtime.h"

namespace helix {

class DirectoryRuntime : public Runtime {
 public:
  explicit DirectoryRuntime(std::string directory) : directory_(std::move(directory)) {}
  std::string resolve(const std::string& logical_name) override { return directory_ + "/" + logical_name; }
  void report_progress(double fraction_done) override { last_progress_ = fraction_done; }
  bool checkpoint_due() override { return checkpoint_every_call_; }
  void save_state(const std::vector<std::uint8_t>& state) override;
  std::optional<std::vector<std::uint8_t>> restore_state() override;
  bool should_stop() override { return stop_after_checkpoints_ >= 0 && checkpoints_saved_ >= stop_after_checkpoints_; }

  // Stop (as on a client quit) once this many checkpoints have been saved.
  void stop_after_checkpoints(int count) { stop_after_checkpoints_ = count; }
  void set_checkpoint_every_call(bool every) { checkpoint_every_call_ = every; }
  int checkpoints_saved() const { return checkpoints_saved_; }
  double last_progress() const { return last_progress_; }
  std::string state_path() const { return directory_ + "/checkpoint.state"; }

 private:
  std::string directory_;
  bool checkpoint_every_call_ = true;
  int stop_after_checkpoints_ = -1;
  int checkpoints_saved_ = 0;
  double last_progress_ = 0;
};

// Runs attempt(runtime, restarts) on a fresh DirectoryRuntime of `directory`
// until one returns instead of throwing StopRequested, as a client restarts a
// task that quit at a checkpoint; each runtime stops after
// `stop_after_checkpoints` saved states (-1: never). Returns the restarts.
template <typename Attempt>
int restart_until_finished(const std::string& directory, int stop_after_checkpoints, Attempt attempt) {
  for (int restarts = 0;; ++restarts) {
    DirectoryRuntime runtime(directory);
    runtime.stop_after_checkpoints(stop_after_checkpoints);
    try {
      attempt(runtime, restarts);
      return restarts;
    } catch (const StopRequested&) {
    }
  }
}

}  // namespace helix
