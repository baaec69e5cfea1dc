// The helix binary itself, in BOINC standalone mode (no client): good runs,
// bad inputs (one error line, non-zero exit, no result files). SIGKILL at
// random moments and restarts, for mrf as for every kind, are tests/faults/.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/gpu_devices.h"
#include "core/directory_runtime.h"
#include "core/file_io.h"
#include "mrf/mrf_files.h"
#include "mrf/mrf_summary.h"
#include "mrf_test_util.h"

namespace helix::mrf {
namespace {

using testing::small_phantom;
using testing::TempDir;
namespace fs = std::filesystem;

struct AppRun {
  int exit_code = -1;
  std::string stderr_text;
};

// The app under test: $HELIX_APP_BINARY when set (a build moved to another
// machine), else the one this build made.
const char* app_binary() {
  const char* from_environment = std::getenv("HELIX_APP_BINARY");
  return from_environment ? from_environment : HELIX_APP_BINARY;
}

pid_t start_app(const std::string& slot, const std::vector<std::string>& args) {
  const char* binary = app_binary();
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(slot.c_str()) != 0) _exit(127);
    // HELIX_TEST_CHILD_ENV="NAME=value": one variable set for the app only.
    if (const char* extra = std::getenv("HELIX_TEST_CHILD_ENV")) putenv(strdup(extra));
    const std::string err = slot + "/stderr.txt";
    if (!freopen(err.c_str(), "a", stderr)) _exit(127);
    std::vector<char*> argv = {const_cast<char*>(binary)};
    for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execv(binary, argv.data());
    _exit(127);
  }
  return pid;
}

AppRun wait_app(const std::string& slot, pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  AppRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.stderr_text = read_file_text(slot + "/stderr.txt");
  return run;
}

AppRun run_app(const std::string& slot, const std::vector<std::string>& args = {"--cpu"}) {
  return wait_app(slot, start_app(slot, args));
}

// A standalone slot: the logical names resolve to themselves. init_data.xml
// sets the shortest checkpoint period the BOINC API honours, one second (its
// countdown runs in whole seconds; 0 would mean never).
void make_slot(const std::string& slot, const Volume& volume, const nlohmann::json& params) {
  write_file_atomic(slot + "/params", params.dump());
  write_volume_file(slot + "/volume", volume);
  write_file_atomic(slot + "/init_data.xml",
                    std::string("<app_init_data>\n<checkpoint_period>1</checkpoint_period>\n</app_init_data>\n"));
}

bool has_result_files(const std::string& slot) {
  return fs::exists(slot + "/labels") || fs::exists(slot + "/summary");
}

TEST(App, WritesTheSolversResult) {
  TempDir slot;
  const Phantom phantom = small_phantom(40, 40, 8);
  MrfParams params;
  params.max_sweeps = 6;
  make_slot(slot.path(), phantom.volume, mrf_params_to_json(params));
  const AppRun run = run_app(slot.path());
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;

  TempDir scratch;
  DirectoryRuntime runtime(scratch.path());
  auto engine = make_cpu_engine();
  const MrfResult expected = solve_mrf(phantom.volume, params, *engine, runtime);
  EXPECT_EQ(read_labels_file(slot.file("labels")).labels, expected.labels);
  EXPECT_EQ(read_file_text(slot.file("summary")),
            summary_text(make_summary(phantom.volume, params, expected, "volume")));
  EXPECT_TRUE(fs::exists(slot.file("boinc_finish_called")));
}

// The app on the GPU writes the very bytes the CPU reference writes.
TEST(App, GpuRunWritesTheCpuRunsBytes) {
  if (gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Phantom phantom = small_phantom(200, 180, 40, 17, 120.0);
  const nlohmann::json params = {{"kind", "mrf"}, {"seed", 77}, {"energy_tolerance", 1e-6}};
  TempDir cpu_slot, gpu_slot;
  make_slot(cpu_slot.path(), phantom.volume, params);
  make_slot(gpu_slot.path(), phantom.volume, params);
  ASSERT_EQ(run_app(cpu_slot.path(), {"--cpu"}).exit_code, 0);
  const AppRun gpu_run = run_app(gpu_slot.path(), {"--device", "0"});
  ASSERT_EQ(gpu_run.exit_code, 0) << gpu_run.stderr_text;
  EXPECT_NE(gpu_run.stderr_text.find("CUDA device 0"), std::string::npos) << gpu_run.stderr_text;
  EXPECT_EQ(read_file_bytes(gpu_slot.file("labels")), read_file_bytes(cpu_slot.file("labels")));
  EXPECT_EQ(read_file_text(gpu_slot.file("summary")), read_file_text(cpu_slot.file("summary")));
}

// No usable GPU (hidden with CUDA_VISIBLE_DEVICES, as on a host whose GPU went
// away): a BOINC temporary exit with the reason, never a result file.
TEST(App, WithoutAGpuExitsTemporarilyAndWritesNoResult) {
  TempDir slot;
  make_slot(slot.path(), small_phantom(16, 16, 4).volume, {{"kind", "mrf"}, {"max_sweeps", 3}});
  const std::string hide_gpus = "CUDA_VISIBLE_DEVICES=";
  ::setenv("HELIX_TEST_CHILD_ENV", hide_gpus.c_str(), 1);
  const AppRun run = run_app(slot.path(), {"--device", "0"});
  ::unsetenv("HELIX_TEST_CHILD_ENV");
  EXPECT_EQ(run.exit_code, 0) << run.stderr_text;  // the BOINC API's temporary exit status
  EXPECT_TRUE(fs::exists(slot.file("boinc_temporary_exit"))) << run.stderr_text;
  EXPECT_NE(run.stderr_text.find("helix: GPU fault, will retry later: "), std::string::npos) << run.stderr_text;
  EXPECT_FALSE(has_result_files(slot.path()));
  EXPECT_FALSE(fs::exists(slot.file("boinc_finish_called")));
}

// The client's choice of GPU (init_data.xml's gpu_device_num) wins over the
// command line: --device 7 names no device here, the client's 0 does.
TEST(App, ClientsGpuChoiceWinsOverTheCommandLine) {
  if (gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  TempDir slot;
  make_slot(slot.path(), small_phantom(16, 16, 4).volume, {{"kind", "mrf"}, {"max_sweeps", 3}});
  write_file_atomic(slot.file("init_data.xml"),
                    std::string("<app_init_data>\n<gpu_device_num>0</gpu_device_num>\n</app_init_data>\n"));
  const AppRun run = run_app(slot.path(), {"--device", "7"});
  EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
  EXPECT_NE(run.stderr_text.find("on CUDA device 0"), std::string::npos) << run.stderr_text;
  EXPECT_TRUE(fs::exists(slot.file("summary")));
}

TEST(App, VersionFlag) {
  TempDir slot;
  const AppRun run = run_app(slot.path(), {"--version"});
  EXPECT_EQ(run.exit_code, 0);
}

struct BadInput {
  std::string name;
  std::function<void(const std::string& slot)> damage;
  std::string expected_message;
};

class AppRejects : public ::testing::TestWithParam<BadInput> {};

TEST_P(AppRejects, WithOneLineAndNoResult) {
  TempDir slot;
  make_slot(slot.path(), small_phantom(16, 16, 4).volume, {{"kind", "mrf"}, {"max_sweeps", 3}});
  GetParam().damage(slot.path());
  const AppRun run = run_app(slot.path());
  EXPECT_NE(run.exit_code, 0);
  EXPECT_FALSE(has_result_files(slot.path()));
  const auto first_error = run.stderr_text.find("helix: error: ");
  ASSERT_NE(first_error, std::string::npos) << run.stderr_text;
  EXPECT_EQ(run.stderr_text.find("helix: error: ", first_error + 1), std::string::npos) << run.stderr_text;
  EXPECT_NE(run.stderr_text.find(GetParam().expected_message), std::string::npos) << run.stderr_text;
}

void truncate_file(const std::string& path, std::size_t keep) {
  auto bytes = read_file_bytes(path);
  bytes.resize(std::min(keep, bytes.size()));
  write_file_atomic(path, bytes);
}

INSTANTIATE_TEST_SUITE_P(
    BadInputs, AppRejects,
    ::testing::Values(
        BadInput{"TruncatedVolume", [](const std::string& s) { truncate_file(s + "/volume", 60); }, "truncated"},
        BadInput{"TruncatedHeader", [](const std::string& s) { truncate_file(s + "/volume", 10); }, "truncated"},
        BadInput{"WrongDimensions",
                 [](const std::string& s) {
                   auto bytes = read_file_bytes(s + "/volume");
                   bytes[12] = 17;  // ny 16 -> 17
                   write_file_atomic(s + "/volume", bytes);
                 },
                 "expected"},
        BadInput{"MissingVolume", [](const std::string& s) { fs::remove(s + "/volume"); }, "cannot open"},
        BadInput{"AbsurdBeta",
                 [](const std::string& s) { write_file_atomic(s + "/params", std::string(R"({"kind":"mrf","beta_in":1e12})")); },
                 "beta_in"},
        BadInput{"ZeroSweeps",
                 [](const std::string& s) { write_file_atomic(s + "/params", std::string(R"({"kind":"mrf","max_sweeps":0})")); },
                 "max_sweeps"},
        BadInput{"UnknownKind",
                 [](const std::string& s) { write_file_atomic(s + "/params", std::string(R"({"kind":"tea"})")); },
                 "no known kind"},
        BadInput{"ParamsNotJson", [](const std::string& s) { write_file_atomic(s + "/params", std::string("{oops")); },
                 "not valid JSON"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; });

}  // namespace
}  // namespace helix::mrf
