// gpu_fault_switch_test.cu: how HELIX_GPU_FAULT's value is read
// (gpu_fault_injection.h): the three faults with and without a call number,
// count, and values that must be ignored rather than half-understood.
#include <gtest/gtest.h>

#include "core/gpu_fault_injection.h"

namespace helix {
namespace {

TEST(GpuFaultSwitch, ReadsAFaultAndItsCall) {
  EXPECT_EQ(read_gpu_fault_plan("oom").fault, GpuFault::out_of_memory);
  EXPECT_EQ(read_gpu_fault_plan("oom").at_call, 1);
  const GpuFaultPlan launch = read_gpu_fault_plan("launch@57");
  EXPECT_EQ(launch.fault, GpuFault::launch_failure);
  EXPECT_EQ(launch.at_call, 57);
  EXPECT_EQ(launch.text, "launch@57");
  EXPECT_EQ(read_gpu_fault_plan("lost@2").fault, GpuFault::device_lost);
  EXPECT_EQ(read_gpu_fault_plan("count").fault, GpuFault::count_only);
}

TEST(GpuFaultSwitch, IgnoresUnsetAndMalformedValues) {
  for (const char* value : {static_cast<const char*>(nullptr), "", "oom@0", "oom@", "oom@x", "lost@3x", "count@2",
                            "segfault", "OOM"})
    EXPECT_EQ(read_gpu_fault_plan(value).fault, GpuFault::none) << (value ? value : "(unset)");
}

}  // namespace
}  // namespace helix
