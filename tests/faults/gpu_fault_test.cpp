// gpu_fault_test.cpp: GPU faults end in a BOINC temporary exit, never a
// result, for every registered kind of work, on its example WU
// (`helix-wu <kind> example`; docs/reliability.md).
//
// On every host (CI has no GPU): the app on its GPU path with no usable GPU
// (CUDA_VISIBLE_DEVICES empty, as where the GPU went away) exits temporarily.
//
// With a GPU: real faults through the test switch HELIX_GPU_FAULT
// (kernels/core/gpu_fault_injection.h): out of memory, a launch failure (a
// kernel that traps) and a lost device, each at the first checked CUDA call
// of a fresh task and half-way through a task resumed from a checkpoint. Each
// faulted start must: exit through boinc_temporary_exit (standalone, the BOINC
// API leaves the file "boinc_temporary_exit" and exits 0), print one "GPU
// fault" line naming the injected fault, write no output file and not call
// boinc_finish. The next start without the switch must finish with the bytes
// of a clean GPU run: the checkpoint survived the fault.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app_harness.h"
#include "core/file_io.h"
#include "kind_work_units.h"
#include "usable_gpus.h"

namespace helix::faults {
namespace {
namespace fs = std::filesystem;

const std::vector<std::string> kGpuRun = {"--device", "0"};
const std::vector<std::string> kFaults = {"oom", "launch", "lost"};
constexpr const char* kFaultLine = "helix: GPU fault, will retry later: ";

// The start ended as a GPU fault must: a temporary exit with one line that
// contains `reason`, and nothing where a result would be.
void expect_temporary_exit_without_result(const Slot& slot, const WorkUnit& work_unit, const AppExit& exit,
                                          const std::string& reason) {
  EXPECT_EQ(exit.status, 0) << exit.stderr_text;  // boinc_temporary_exit() exits 0
  EXPECT_TRUE(slot.temporary_exit_called()) << exit.stderr_text;
  EXPECT_FALSE(slot.finish_called()) << exit.stderr_text;
  EXPECT_EQ(lines_containing(exit.stderr_text, kFaultLine), 1) << exit.stderr_text;
  EXPECT_EQ(lines_containing(exit.stderr_text, reason), 1) << exit.stderr_text;
  EXPECT_EQ(lines_containing(exit.stderr_text, "helix: error"), 0) << exit.stderr_text;
  for (const std::string& name : work_unit.outputs) EXPECT_FALSE(slot.exists(name)) << name;
}

// A clean GPU start after a fault finishes with the reference's bytes.
void expect_clean_restart_finishes(const Slot& slot, const WorkUnit& work_unit, const Outputs& reference) {
  slot.clear_exit_notes();
  const AppExit exit = run_app(slot, kGpuRun);
  ASSERT_EQ(exit.status, 0) << exit.stderr_text;
  EXPECT_TRUE(slot.finish_called());
  EXPECT_EQ(outputs_diff(slot, work_unit, reference, true), "") << exit.stderr_text;
}

class GpuFaults : public ::testing::TestWithParam<std::string> {};

// The real thing on a host without a GPU (or with its GPUs hidden).
TEST_P(GpuFaults, NoUsableGpuMeansATemporaryExitAndNoResult) {
  const ScratchDir dir("nogpu-" + GetParam());
  const ExampleWorkUnit example = example_work_unit(GetParam(), dir.path() + "/example");
  if (!example.work_unit) GTEST_SKIP() << example.why_not;
  const WorkUnit& work_unit = *example.work_unit;
  const Slot slot(dir.path() + "/slot", work_unit);
  const AppExit exit = run_app(slot, kGpuRun, {"CUDA_VISIBLE_DEVICES="});
  expect_temporary_exit_without_result(slot, work_unit, exit, "no usable CUDA device 0");
}

// A slot holding a checkpoint: a CPU start killed right after its first
// checkpoint (the state is the same whichever engine wrote it).
void make_checkpointed_slot(const Slot& slot, const WorkUnit& work_unit) {
  AppProcess app(slot, {"--cpu"});
  const bool saved = wait_for_new_checkpoint(slot, app, std::nullopt);
  app.kill_now();
  const AppExit exit = app.wait();
  ASSERT_TRUE(saved && exit.killed()) << "the run ended before its first checkpoint: make the WU larger\n"
                                      << exit.stderr_text;
  for (const std::string& name : work_unit.outputs) ASSERT_FALSE(slot.exists(name)) << name;
}

// How many checked CUDA calls a GPU start makes (HELIX_GPU_FAULT=count); the
// start must also finish with the reference's bytes.
long long count_checked_calls(const Slot& slot, const WorkUnit& work_unit, const Outputs& reference) {
  const AppExit exit = run_app(slot, kGpuRun, {"HELIX_GPU_FAULT=count"});
  EXPECT_EQ(exit.status, 0) << exit.stderr_text;
  EXPECT_EQ(outputs_diff(slot, work_unit, reference, true), "") << exit.stderr_text;
  const std::string marker = "HELIX_GPU_FAULT=count: ";
  const auto at = exit.stderr_text.find(marker);
  EXPECT_NE(at, std::string::npos) << exit.stderr_text;
  return at == std::string::npos ? 0 : std::stoll(exit.stderr_text.substr(at + marker.size()));
}

// One fault at `call` in `slot`, then a clean restart.
void fault_then_restart(const Slot& slot, const WorkUnit& work_unit, const Outputs& reference,
                        const std::string& fault, long long call) {
  const std::string spec = fault + "@" + std::to_string(call);
  SCOPED_TRACE("HELIX_GPU_FAULT=" + spec);
  const bool had_checkpoint = checkpoint_stamp(slot).has_value();
  const AppExit exit = run_app(slot, kGpuRun, {"HELIX_GPU_FAULT=" + spec});
  expect_temporary_exit_without_result(slot, work_unit, exit, "(injected by HELIX_GPU_FAULT=" + spec);
  EXPECT_EQ(checkpoint_stamp(slot).has_value(), had_checkpoint);
  expect_clean_restart_finishes(slot, work_unit, reference);
}

TEST_P(GpuFaults, InjectedFaultsMeanATemporaryExitAndTheCheckpointSurvives) {
  if (usable_gpu_count() == 0) GTEST_SKIP() << "no CUDA device";
  const ScratchDir dir("gpufault-" + GetParam());
  const ExampleWorkUnit example = example_work_unit(GetParam(), dir.path() + "/example");
  if (!example.work_unit) GTEST_SKIP() << example.why_not;
  const WorkUnit& work_unit = *example.work_unit;
  Outputs reference;
  {
    const Slot slot(dir.path() + "/reference", work_unit);
    const AppExit exit = run_app(slot, kGpuRun);
    ASSERT_EQ(exit.status, 0) << exit.stderr_text;
    reference = read_outputs(slot, work_unit);
  }
  const Slot checkpointed(dir.path() + "/checkpointed", work_unit);
  make_checkpointed_slot(checkpointed, work_unit);
  if (HasFatalFailure()) return;
  auto copy_of_checkpointed = [&](const std::string& name) {
    fs::copy(checkpointed.path(), dir.path() + "/" + name, fs::copy_options::recursive);
    return Slot(dir.path() + "/" + name, work_unit);
  };
  const long long resumed_calls = count_checked_calls(copy_of_checkpointed("counted"), work_unit, reference);
  ASSERT_GE(resumed_calls, 2);

  int faults_injected = 0;
  for (const std::string& fault : kFaults) {
    fault_then_restart(Slot(dir.path() + "/first_" + fault, work_unit), work_unit, reference, fault, 1);
    fault_then_restart(copy_of_checkpointed("resumed_" + fault), work_unit, reference, fault, resumed_calls / 2);
    faults_injected += 2;
  }
  std::printf("faults: %s: %d GPU faults injected (oom, launch, lost at checked CUDA call 1 of a fresh task and "
              "%lld of %lld of a resumed one), each a temporary exit without a result\n",
              GetParam().c_str(), faults_injected, resumed_calls / 2, resumed_calls);
}

INSTANTIATE_TEST_SUITE_P(EveryKind, GpuFaults, ::testing::ValuesIn(registered_kinds()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace helix::faults
