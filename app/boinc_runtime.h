// boinc_runtime.h: the Runtime of a kind running under the BOINC client (or
// standalone, where the BOINC API resolves names to themselves).
#pragma once
#include "core/runtime.h"

namespace helix {

class BoincRuntime : public Runtime {
 public:
  std::string resolve(const std::string& logical_name) override;
  void report_progress(double fraction_done) override;
  bool checkpoint_due() override;
  void save_state(const std::vector<std::uint8_t>& state) override;
  std::optional<std::vector<std::uint8_t>> restore_state() override;
  bool should_stop() override;

  // The checkpoint lives in the slot directory, never in the project directory.
  static constexpr const char* kStateFile = "helix_checkpoint.state";
};

}  // namespace helix
