// server_test_util.cpp: see server_test_util.h.
#include "server_test_util.h"

#include <sys/wait.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>


#include "core/directory_runtime.h"
#include "core/errors.h"
#include "workunit_writer.h"
#include "core/file_io.h"
#include "mrf/mrf_files.h"
#include "mrf/mrf_phantom.h"
#include "mrf/mrf_summary.h"

namespace helix::test {
namespace fs = std::filesystem;

std::string scratch_dir(const std::string& tag) {
  static std::atomic<int> counter{0};
  const fs::path dir = fs::temp_directory_path() /
                       ("helix_server_" + std::to_string(::getpid()) + "_" + tag + "_" + std::to_string(counter++));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

namespace {

GenuineResult make_genuine() {
  GenuineResult genuine;
  mrf::PhantomSpec spec;
  spec.nx = 32, spec.ny = 32, spec.nz = 8;
  genuine.volume = mrf::make_phantom(spec).volume;
  mrf::MrfParams params;
  params.max_sweeps = 30;
  const std::string work = scratch_dir("solve");
  DirectoryRuntime runtime(work);
  runtime.set_checkpoint_every_call(false);
  auto engine = mrf::make_cpu_engine();
  genuine.result = mrf::solve_mrf(genuine.volume, params, *engine, runtime);
  genuine.summary = mrf::make_summary(genuine.volume, params, genuine.result, kVolumeName);
  return genuine;
}

}  // namespace

GenuineResult genuine_result(const std::string& tag) {
  static const GenuineResult once = make_genuine();
  GenuineResult copy = once;
  const std::string dir = scratch_dir(tag);
  copy.inputs_dir = dir + "/inputs";
  fs::create_directories(copy.inputs_dir);
  mrf::write_volume_file(copy.inputs_dir + "/" + kVolumeName, copy.volume);
  write_json(copy.inputs_dir + "/" + kWuName + ".params.json", copy.summary.at("params"));
  copy.labels_path = dir + "/" + kWuName + "_0_r" + kResultRandom + "_0";
  copy.summary_path = dir + "/" + kWuName + "_0_r" + kResultRandom + "_1";
  write_file_atomic(copy.labels_path,
                    mrf::encode_labels(copy.volume.nx, copy.volume.ny, copy.volume.nz, copy.result.labels));
  write_file_atomic(copy.summary_path, mrf::summary_text(copy.summary));
  return copy;
}

void write_json(const std::string& path, const nlohmann::json& value) { write_file_atomic(path, mrf::summary_text(value)); }

ToolRun run_tool(const std::string& command_line) {
  const std::string dir = scratch_dir("run");
  const std::string out = dir + "/out", err = dir + "/err";
  const int status = std::system(("( " + command_line + " ) >" + out + " 2>" + err).c_str());
  ToolRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = read_file_text(out);
  run.err = read_file_text(err);
  fs::remove_all(dir);
  return run;
}

int line_count(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

WuRun run_workunit_command(const std::string& kind, const std::vector<std::string>& args) {
  WuRun run;
  try {
    run_kind_command_line(*find_server_kind(kind), args, [&run](const WorkunitSpec& spec) {
      write_workunit_files(spec);
      run.specs.push_back(spec);
    });
  } catch (const InputError& error) {
    run.error = error.what();
  }
  return run;
}

}  // namespace helix::test
