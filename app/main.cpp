// main.cpp: the helix volunteer app. Its whole lifecycle, as in BOINC's example
// app: init, resolve the WU's parameters, run the kind (which restores its
// checkpoint, reports progress and checkpoints through the Runtime), finish.
//
//   helix [--cpu] [--device N] [--version]
//
// Exit paths: success -> boinc_finish(0) with the result files written;
// bad input -> one "helix: error: ..." line, boinc_finish(1), no result files;
// GPU fault or full disk -> boinc_temporary_exit (the client retries later), no
// result files.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boinc_api.h>
#include <nlohmann/json.hpp>

#include "boinc_runtime.h"
#include "disk_reserve.h"
#include "huge_pages.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/kind.h"

namespace {

constexpr int kExitBadInput = 1;
constexpr int kGpuRetryDelaySeconds = 600;
// Someone has to free space first; the client checks its own disk limits too.
constexpr int kDiskFullRetryDelaySeconds = 600;
// When even boinc_temporary_exit's note cannot be written, the client restarts
// the task at once; waiting first makes that a retry a minute, not every 2 s.
constexpr unsigned kNoteUnwrittenBackoffSeconds = 60;

// Room for the last words on a full disk: the stderr line and the client's note
// (a page each on most file systems), with margin.
constexpr char kDiskReserveFile[] = "helix_disk_reserve";
constexpr std::size_t kDiskReserveBytes = 16 * 1024;
std::optional<helix::DiskReserve> g_disk_reserve;

// Gives the reserved pages back, then writes the line: the first thing every
// exit path does, so that a full disk still has room for what follows.
void last_words(const std::string& line) {
  if (g_disk_reserve) g_disk_reserve->release();
  std::fprintf(stderr, "%s\n", line.c_str());
}

// Asks the client to run the task again after delay_s. boinc_temporary_exit()
// returns only when it could not write its note to the client (a full disk can
// do that): exit(0) without boinc_finish() then, which the client takes for a
// premature exit and restarts the task: after a pause, so that it does not
// spin. Never a result, never a compute error.
[[noreturn]] void exit_temporarily(int delay_s, const char* reason) {
  boinc_temporary_exit(delay_s, reason);
  std::fprintf(stderr, "helix: could not write boinc_temporary_exit; exiting for a restart\n");
  sleep(kNoteUnwrittenBackoffSeconds);  // the API's timer thread still obeys quit and suspend
  std::exit(0);
}

// boinc_finish() with suspension held off. boinc_finish() stops the BOINC API's
// timer thread (after a 2 s wait) while the worker thread keeps going; a
// <suspend/> that arrives just before that is never followed by its <resume/>,
// and the worker sleeps in the API's signal handler forever: the task hangs at
// 100 % until the client kills it (seen under `boinc --run_test_app`'s
// suspend/resume storm, docs/boinc-e2e.md). Inside a critical section the API
// defers a suspend instead.
[[noreturn]] void finish(int status) {
  if (g_disk_reserve) g_disk_reserve->release();
  boinc_begin_critical_section();
  boinc_finish(status);
  std::exit(status);  // boinc_finish() does not return; this tells the compiler so
}

// The client's choice of GPU wins over the command line (APP_INIT_DATA). Under
// the client, an app version without a GPU plan class gets no GPU (gpu_type
// empty): that is the CPU app version of a release (packaging/), which then runs
// the CPU engine rather than take a GPU the client did not give it.
int chosen_gpu_device(int command_line_device, bool& force_cpu) {
  APP_INIT_DATA init_data;
  boinc_get_init_data(init_data);
  if (!boinc_is_standalone() && init_data.gpu_type[0] == '\0') force_cpu = true;
  return init_data.gpu_device_num >= 0 ? init_data.gpu_device_num : command_line_device;
}

nlohmann::json read_params(helix::Runtime& runtime) {
  const std::string path = runtime.resolve("params");
  try {
    return nlohmann::json::parse(helix::read_file_text(path));
  } catch (const nlohmann::json::parse_error& error) {
    throw helix::InputError(path + " is not valid JSON: " + error.what());
  }
}

void run_work_unit(const helix::RunOptions& options) {
  helix::BoincRuntime runtime;
  const nlohmann::json params = read_params(runtime);
  const std::string kind_name = params.is_object() && params.contains("kind") && params["kind"].is_string()
                                    ? params["kind"].get<std::string>()
                                    : std::string();
  const helix::KindSpec* kind = helix::find_kind(kind_name);
  if (!kind) throw helix::InputError("params names no known kind (\"kind\": \"" + kind_name + "\")");
  helix::run_kind(*kind, params, options, runtime);
}

}  // namespace

int main(int argc, char** argv) {
  helix::restart_with_huge_page_malloc(argv);  // first: before any thread or BOINC state exists
  std::string kinds;
  for (const std::string& name : helix::registered_kind_names()) kinds += (kinds.empty() ? "" : ", ") + name;
  CLI::App cli{"helix: BOINC science app; runs one work unit of a registered kind (" + kinds +
               "), named by the WU's params file"};
  helix::RunOptions options;
  int device = 0;
  bool show_version = false;
  cli.add_flag("--cpu", options.force_cpu,
               "run the kind's CPU engine instead of the GPU (the same bytes; see RunOptions::force_cpu)");
  cli.add_option("--device", device, "CUDA device when the client names none")->check(CLI::NonNegativeNumber);
  cli.add_flag("--version", show_version, "print the version and exit");
  cli.allow_extras();  // the client may append arguments of its own (e.g. --device from old clients)
  CLI11_PARSE(cli, argc, argv);
  if (show_version) {
    std::printf("helix %s\n", HELIX_VERSION);
    return 0;
  }

  boinc_init();
  g_disk_reserve.emplace(kDiskReserveFile, kDiskReserveBytes);
  options.gpu_device = chosen_gpu_device(device, options.force_cpu);
  try {
    run_work_unit(options);
  } catch (const helix::InputError& error) {
    last_words(std::string("helix: error: ") + error.what());
    finish(kExitBadInput);
  } catch (const helix::GpuError& error) {
    last_words(std::string("helix: GPU fault, will retry later: ") + error.what());
    exit_temporarily(kGpuRetryDelaySeconds, error.what());
  } catch (const helix::StorageFull& error) {
    last_words(std::string("helix: disk full, will retry later: ") + error.what());
    exit_temporarily(kDiskFullRetryDelaySeconds, "disk full");
  } catch (const helix::StopRequested&) {
    last_words("helix: quitting at the client's request; state checkpointed");
    exit_temporarily(0, "quit requested");
  } catch (const std::exception& error) {
    last_words(std::string("helix: error: ") + error.what());
    finish(kExitBadInput);
  }
  finish(0);
}
