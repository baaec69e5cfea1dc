// cuda_support.h: what every kind's CUDA engine needs from the runtime API,
// written once: error checks that become GpuError (a BOINC temporary exit,
// never a wrong result), an owning device buffer, device selection with
// blocking synchronisation (the volunteer's CPU sleeps while the GPU works),
// and a device count that never throws. Every checked status first passes the
// test switch HELIX_GPU_FAULT (gpu_fault_injection.h; free when unset).
// Include from .cu files only.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/errors.h"
#include "core/gpu_fault_injection.h"

namespace helix {

inline void check_cuda(cudaError_t status, const char* what) {
  status = pass_through_fault_switch(status);
  if (status != cudaSuccess)
    throw GpuError(std::string(what) + ": " + cudaGetErrorString(status) + injected_fault_note());
}

template <typename T>
struct DeviceBuffer {
  T* data = nullptr;
  std::size_t count = 0, capacity = 0;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void allocate(std::size_t n, const char* what) {
    release();
    check_cuda(cudaMalloc(&data, (n ? n : 1) * sizeof(T)), what);
    count = n, capacity = n;
  }
  // Allocates and copies host data in, landed when it returns. A cudaMemcpy
  // from pageable memory may return before its last DMA has landed, and the
  // legacy stream it runs on does not order with the engines' non-blocking
  // streams: the wait makes the data safe for a kernel on any stream.
  void upload(const T* host, std::size_t n, const char* what) {
    allocate(n, what);
    if (!n) return;
    check_cuda(cudaMemcpy(data, host, n * sizeof(T), cudaMemcpyHostToDevice), what);
    check_cuda(cudaStreamSynchronize(cudaStreamLegacy), what);
  }
  // The same into the buffer as it is when it holds n already (no cudaFree,
  // which waits for the whole device, nor cudaMalloc): for per-call inputs of
  // an engine that knows no kernel still reads the buffer.
  void upload_reusing(const T* host, std::size_t n, const char* what) {
    if (n > capacity) allocate(n, what);
    count = n;
    if (!n) return;
    check_cuda(cudaMemcpy(data, host, n * sizeof(T), cudaMemcpyHostToDevice), what);
    check_cuda(cudaStreamSynchronize(cudaStreamLegacy), what);
  }
  void release() {
    if (data) cudaFree(data);
    data = nullptr, count = 0, capacity = 0;
  }
  ~DeviceBuffer() { release(); }
};

// Makes `device` current with blocking sync; returns its name. Throws GpuError
// when there is no such usable device.
inline std::string select_cuda_device(int device) {
  int devices = 0;
  const cudaError_t counted = pass_through_fault_switch(cudaGetDeviceCount(&devices));
  if (counted != cudaSuccess || device < 0 || device >= devices)
    throw GpuError("no usable CUDA device " + std::to_string(device) + " (" +
                   (counted != cudaSuccess ? cudaGetErrorString(counted) : std::to_string(devices) + " present") + ")" +
                   injected_fault_note());
  check_cuda(cudaSetDevice(device), "selecting the CUDA device");
  // Sleep in synchronisation instead of spinning: volunteers' CPUs stay idle.
  const cudaError_t flags = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
  if (flags != cudaSuccess && flags != cudaErrorSetOnActiveProcess) check_cuda(flags, "setting blocking sync");
  cudaGetLastError();  // clear a harmless cudaErrorSetOnActiveProcess
  cudaDeviceProp properties;
  check_cuda(cudaGetDeviceProperties(&properties, device), "reading device properties");
  return properties.name;
}

// Lets `kernel` ask for all the dynamic shared memory the current device
// gives a block. Set to the most, never to one launch's size: engines on
// several host threads launch one kernel with different sizes, and the size
// one thread had set made another's larger launch fail ("invalid argument").
template <typename Kernel>
void allow_all_dynamic_shared(Kernel kernel, const char* what) {
  int device = 0, most = 0;
  check_cuda(cudaGetDevice(&device), what);
  check_cuda(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), what);
  cudaFuncAttributes attributes{};
  check_cuda(cudaFuncGetAttributes(&attributes, kernel), what);
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  most - static_cast<int>(attributes.sharedSizeBytes)),
             what);
}

// Number of usable CUDA devices: 0 without a driver or GPU. Never throws.
inline int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

}  // namespace helix
