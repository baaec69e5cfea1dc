// gpu_fault_injection.h: the test switch HELIX_GPU_FAULT, which makes a real
// GPU fault happen at a chosen checked CUDA call, so that tests can show each
// fault ends in a BOINC temporary exit and never a result (docs/reliability.md).
// Included by cuda_support.h (nvcc only); engines never call it themselves.
//
//   HELIX_GPU_FAULT=<fault>[@<N>]   fault at the N-th checked CUDA call (default 1)
//     oom     out of memory: cudaMalloc is really asked for more than the device has
//     launch  launch failure: a kernel that executes a trap instruction really runs;
//             the error is sticky, as after a real fault (every later call fails too)
//     lost    device lost: the call's status becomes cudaErrorDevicesUnavailable,
//             what the runtime reports once the device has gone (no way to unplug it)
//   HELIX_GPU_FAULT=count             no fault; at exit, prints how many checked
//                                     CUDA calls the run made (to choose N)
//
// A "checked call" is one whose status goes through check_cuda() or
// select_cuda_device()'s device count, counted across the process from 1.
//
// Contents:
//   GpuFaultPlan, read_gpu_fault_plan()   the switch, parsed once
//   gpu_fault_plan()                      the process's plan
//   pass_through_fault_switch()           the hook check_cuda() calls on every status
//   injected_fault_note()                 what check_cuda() adds to the error message
//
// Cost when HELIX_GPU_FAULT is unset: one load of an initialised static and a
// branch per checked call, next to a CUDA call of microseconds.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace helix {

enum class GpuFault { none, count_only, out_of_memory, launch_failure, device_lost };

struct GpuFaultPlan {
  GpuFault fault = GpuFault::none;
  long long at_call = 1;  // 1-based index of the checked call that faults
  std::string text;       // the switch as given, for messages
};

// Parses "<fault>[@<N>]". An unknown value is reported on stderr and ignored
// (the app then runs as if the switch were unset): the switch is for tests,
// and a typo must not turn into a silent wrong test either, hence the line.
inline GpuFaultPlan read_gpu_fault_plan(const char* value) {
  GpuFaultPlan plan;
  if (!value || !*value) return plan;
  plan.text = value;
  const std::string spec(value);
  const auto at = spec.find('@');
  const std::string name = spec.substr(0, at);
  if (at != std::string::npos) {
    char* end = nullptr;
    plan.at_call = std::strtoll(spec.c_str() + at + 1, &end, 10);
    if (*end != '\0' || plan.at_call < 1) plan.at_call = 0;
  }
  if (name == "oom") plan.fault = GpuFault::out_of_memory;
  else if (name == "launch") plan.fault = GpuFault::launch_failure;
  else if (name == "lost") plan.fault = GpuFault::device_lost;
  else if (name == "count" && at == std::string::npos) plan.fault = GpuFault::count_only;
  if (plan.fault == GpuFault::none || plan.at_call == 0) {
    std::fprintf(stderr, "helix: ignoring HELIX_GPU_FAULT=%s (expected oom, launch or lost, optionally @N with N >= 1, "
                         "or count)\n", value);
    return GpuFaultPlan{};
  }
  return plan;
}

inline std::atomic<long long>& checked_cuda_calls() {
  static std::atomic<long long> calls{0};
  return calls;
}

inline void print_checked_cuda_calls() {
  std::fprintf(stderr, "helix: HELIX_GPU_FAULT=count: %lld checked CUDA calls\n", checked_cuda_calls().load());
}

inline const GpuFaultPlan& gpu_fault_plan() {
  static const GpuFaultPlan plan = [] {
    GpuFaultPlan parsed = read_gpu_fault_plan(std::getenv("HELIX_GPU_FAULT"));
    if (parsed.fault == GpuFault::count_only) std::atexit(print_checked_cuda_calls);
    return parsed;
  }();
  return plan;
}

// Executes a trap instruction: the kernel dies with a launch failure.
template <int = 0>
__global__ void trap_kernel() {
  __trap();
}

// The real faults. Each runs with the thread's stream capture relaxed, so that
// it is the fault itself, not the capture's rules (an engine may be recording a
// CUDA graph at the faulting call), that decides the status.
inline cudaError_t cause_out_of_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  cudaMemGetInfo(&free_bytes, &total_bytes);
  void* never = nullptr;
  // Twice the device's memory plus 1 GiB: no device can grant it.
  const cudaError_t status = cudaMalloc(&never, 2 * total_bytes + (std::size_t{1} << 30));
  if (status == cudaSuccess) cudaFree(never);
  cudaGetLastError();  // out of memory is not sticky; the returned status carries it
  return status == cudaSuccess ? cudaErrorMemoryAllocation : status;
}

inline cudaError_t cause_launch_failure() {
  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  trap_kernel<<<1, 1, 0, stream>>>();
  const cudaError_t status = cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
  return status == cudaSuccess ? cudaErrorLaunchFailure : status;
}

inline cudaError_t cause_gpu_fault(GpuFault fault) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&mode);
  cudaError_t status = cudaErrorDevicesUnavailable;  // device_lost: the status a vanished device gives
  if (fault == GpuFault::out_of_memory) status = cause_out_of_memory();
  if (fault == GpuFault::launch_failure) status = cause_launch_failure();
  cudaThreadExchangeStreamCaptureMode(&mode);
  return status;
}

// The fault injected so far in this process, as " (injected by
// HELIX_GPU_FAULT=...)" for the error message, or "" when none was.
inline std::string& injected_fault_note() {
  static std::string note;
  return note;
}

// The hook on every checked call: returns `status` unchanged, unless this is
// the call HELIX_GPU_FAULT names and the call itself succeeded; then the fault
// happens and its status is returned (and injected_fault_note() names it).
inline cudaError_t pass_through_fault_switch(cudaError_t status) {
  const GpuFaultPlan& plan = gpu_fault_plan();
  if (plan.fault == GpuFault::none) return status;
  const long long call = ++checked_cuda_calls();
  if (plan.fault == GpuFault::count_only || call != plan.at_call || status != cudaSuccess) return status;
  injected_fault_note() = " (injected by HELIX_GPU_FAULT=" + plan.text + " at checked CUDA call " +
                          std::to_string(call) + ")";
  return cause_gpu_fault(plan.fault);
}

}  // namespace helix
