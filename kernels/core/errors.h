// errors.h: the ways a helix computation can fail, and what each means to the
// caller.
//   InputError: the work unit (or a result file) is malformed or absurd. The app
//               prints one line and finishes non-zero; no result file is written.
//   GpuError:   the GPU could not do the work (no device, out of memory, launch
//               failure). The app asks BOINC for a temporary exit; never a result.
//   StorageFull: a write failed because the disk (or the user's quota) is full:
//               ENOSPC or EDQUOT. Nothing is wrong with the work; the app asks
//               BOINC for a temporary exit (the client retries later) and writes
//               no result. write_file_atomic() throws it and leaves no partial file.
//   StopRequested: the client asked us to quit; state was checkpointed.
#pragma once
#include <stdexcept>
#include <string>

namespace helix {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct GpuError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct StorageFull : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct StopRequested : std::runtime_error {
  StopRequested() : std::runtime_error("stop requested") {}
};

}  // namespace helix
