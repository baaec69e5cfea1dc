// errors.h: the three ways a helix computation can fail, and what each means
// to the caller.
//   InputError: the work unit (or a result file) is malformed or absurd. The app
//               prints one line and finishes non-zero; no result file is written.
//   GpuError:   the GPU could not do the work (no device, out of memory, launch
//               failure). The app asks BOINC for a temporary exit; never a result.
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

struct StopRequested : std::runtime_error {
  StopRequested() : std::runtime_error("stop requested") {}
};

}  // namespace helix
