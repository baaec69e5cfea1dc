// runtime.h: what a kind may ask of the process that hosts it.
//
// Kinds never call the BOINC API: the app implements Runtime over BOINC
// (app/boinc_runtime.*), tests and server tools use DirectoryRuntime. This keeps
// every kind testable without a client.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace helix {

class Runtime {
 public:
  virtual ~Runtime() = default;
  // Physical path of a logical file name of the work unit (input or output).
  virtual std::string resolve(const std::string& logical_name) = 0;
  // Fraction of the work done, 0..1.
  virtual void report_progress(double fraction_done) = 0;
  // True when now is a good time to save state (the client's checkpoint period).
  virtual bool checkpoint_due() = 0;
  // Saves the kind's state atomically (temp file + rename), then tells the
  // client the checkpoint is complete.
  virtual void save_state(const std::vector<std::uint8_t>& state) = 0;
  // The state saved by the last save_state(), if any.
  virtual std::optional<std::vector<std::uint8_t>> restore_state() = 0;
  // True when the client asked the task to quit or abort.
  virtual bool should_stop() = 0;
};

// Options chosen by the app's command line and the client's init data.
struct RunOptions {
  // --cpu: run the kind's CPU engine instead of the GPU: mrf and hmmsearch run
  // their CPU reference, glcm its sliding engine, swsearch scores with parasail
  // (reported hits' ends and alignments from the reference); each writes the
  // reference's bytes.
  bool force_cpu = false;
  int gpu_device = 0;      // CUDA device ordinal
};

}  // namespace helix
