#include "boinc_runtime.h"

#include <cstdio>

#include <sys/stat.h>

#include <boinc_api.h>

#include "core/file_io.h"

namespace helix {

std::string BoincRuntime::resolve(const std::string& logical_name) {
  std::string physical;
  boinc_resolve_filename_s(logical_name.c_str(), physical);
  return physical;
}

void BoincRuntime::report_progress(double fraction_done) { boinc_fraction_done(fraction_done); }

// boinc_time_to_checkpoint() opens the API's critical section, which defers the
// client's quit and suspend until boinc_checkpoint_completed(). The section is
// there to keep an app from being stopped halfway through writing its state;
// save_state() writes a temp file, fsyncs and renames, so a stop at any point
// leaves the previous checkpoint whole (tests/faults kills the app at random
// points to check it). Holding the section would only make the client wait for
// the write, and its fsync can take seconds on a busy disk: leave it at once.
// (boinc_checkpoint_completed()'s own end of the section then finds none open,
// which the API allows.)
bool BoincRuntime::checkpoint_due() {
  if (boinc_time_to_checkpoint() == 0) return false;
  boinc_end_critical_section();
  return true;
}

void BoincRuntime::save_state(const std::vector<std::uint8_t>& state) {
  write_file_atomic(kStateFile, state);
  boinc_checkpoint_completed();
}

std::optional<std::vector<std::uint8_t>> BoincRuntime::restore_state() {
  struct stat info;
  if (::stat(kStateFile, &info) != 0) return std::nullopt;
  std::vector<std::uint8_t> state = read_file_bytes(kStateFile);
  // One line per restart in the task's stderr: how a volunteer (and the e2e
  // test) sees that the task resumed instead of starting over.
  std::fprintf(stderr, "helix: resuming from the checkpoint %s (%zu bytes)\n", kStateFile, state.size());
  return state;
}

bool BoincRuntime::should_stop() { return boinc_status.quit_request || boinc_status.abort_request; }

}  // namespace helix
