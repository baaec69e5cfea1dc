// server_test_util.h: shared fixtures for the server-side tests: a genuine mrf
// result (small phantom segmented by the CPU reference, written exactly as the
// app writes it), scratch directories, and running the built tools.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/kind.h"
#include "mrf/mrf.h"

namespace helix::test {

// `helix-wu <args...>` in-process with one registered kind's commands, as
// helix-wu adds them (add_kind_workunit_command: the declared outputs and
// bound filled in). Each WU made gets its BOINC files written exactly as
// helix-wu does. `error` holds the
// message of an InputError or CLI error ("" when the command succeeded).
struct WuRun {
  std::vector<WorkunitSpec> specs;
  std::string error;
};
WuRun run_workunit_command(const std::string& kind, const std::vector<std::string>& args);

// A fresh empty directory under the system temp dir, unique per call.
std::string scratch_dir(const std::string& tag);

struct GenuineResult {
  std::string inputs_dir;     // holds kVolumeName and <kWuName>.params.json (the WU's inputs)
  std::string labels_path;    // <kWuName>_0_r<kResultRandom>_0, as BOINC names an upload
  std::string summary_path;   // <kWuName>_0_r<kResultRandom>_1
  mrf::Volume volume;
  mrf::MrfResult result;
  nlohmann::json summary;
  std::vector<std::string> files() const { return {labels_path, summary_path}; }
};
constexpr const char* kWuName = "wu";
constexpr const char* kVolumeName = "wu.volume.hxv";
constexpr const char* kResultRandom = "1804289383";  // BOINC's lrand48() part of output file names

// Segments a 32x32x8 phantom with the CPU engine, once per process, and
// writes a copy of its files into a new scratch directory for each caller
// (so tests may damage their copy).
GenuineResult genuine_result(const std::string& tag);

void write_json(const std::string& path, const nlohmann::json& value);

struct ToolRun {
  int exit_code = -1;
  std::string out, err;
};
// Runs a shell command line; returns its exit status and captured output.
ToolRun run_tool(const std::string& command_line);
int line_count(const std::string& text);

}  // namespace helix::test
