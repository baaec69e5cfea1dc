// cuda_host_costs.cu: what the host CPU pays for CUDA calls and for waiting on
// the GPU, on the machine it runs on (process CPU time: the driver's threads
// included). A stand-alone measurement behind bench/RESULTS.md's figures for
// the apps' host share (issue 19); not part of the build:
//
//   nvcc -O2 -arch=sm_90 bench/cuda_host_costs.cu -o cuda_host_costs && ./cuda_host_costs
//
// Prints the cost of a launch (with ~320 bytes of arguments, as swsearch's
// pair kernels), an async memset, an async copy into pinned memory, an event
// record with a wait on it, of waiting for a ~10 ms kernel in three ways, of
// page-locked allocations (cudaMallocHost + cudaFreeHost) by size, and of
// reading 4 MiB back into pinned or into pageable memory.
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <ctime>

namespace {

struct LargeArguments {
  long long values[40];
};
__global__ void empty_kernel(LargeArguments a) {
  if (a.values[0] == 12345 && threadIdx.x == 1000) printf("never");
}
__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

double process_cpu_s() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

template <typename Call>
void per_call(const char* name, Call call, int calls = 2000) {
  const double start = process_cpu_s();
  for (int i = 0; i < calls; ++i) call();
  const double spent = process_cpu_s() - start;
  cudaDeviceSynchronize();
  std::printf("%-40s %7.2f us of CPU a call\n", name, spent / calls * 1e6);
}

}  // namespace

int main() {
  if (cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess) return 1;  // as the apps run
  cudaStream_t stream, other;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
  cudaEvent_t event;
  cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
  int* device = nullptr;
  int* pinned = nullptr;
  if (cudaMalloc(&device, 1 << 20) != cudaSuccess || cudaMallocHost(&pinned, 1 << 20) != cudaSuccess) return 1;
  const LargeArguments arguments{};
  empty_kernel<<<1, 32, 0, stream>>>(arguments);
  cudaStreamSynchronize(stream);

  per_call("launch (320 bytes of arguments)", [&] { empty_kernel<<<64, 256, 0, stream>>>(arguments); });
  per_call("cudaMemsetAsync", [&] { cudaMemsetAsync(device, 0, 64, stream); });
  per_call("cudaMemcpyAsync, 64 B into pinned", [&] { cudaMemcpyAsync(pinned, device, 64, cudaMemcpyDeviceToHost, stream); });
  per_call("cudaEventRecord + cudaStreamWaitEvent", [&] {
    cudaEventRecord(event, stream);
    cudaStreamWaitEvent(other, event, 0);
  });

  constexpr long long kTenMsCycles = 17000000;  // ~10 ms at the H100's ~1.7 GHz
  const char* ways[] = {"blocking wait", "sleep 11 ms, then wait", "no kernel, sleep 11 ms"};
  for (int way = 0; way < 3; ++way) {
    constexpr int kWaits = 100;
    const double start = process_cpu_s();
    for (int i = 0; i < kWaits; ++i) {
      if (way < 2) spin_kernel<<<1, 32, 0, stream>>>(kTenMsCycles);
      if (way > 0) usleep(11000);
      cudaStreamSynchronize(stream);
    }
    std::printf("a ~10 ms kernel, %-25s %7.1f us of CPU a wait\n", ways[way],
                (process_cpu_s() - start) / kWaits * 1e6);
  }

  // The engines' pinned read-back buffers grow as batches grow: what one
  // growth costs, by size.
  for (const std::size_t kib : {4, 64, 1024, 16384}) {
    char name[64];
    std::snprintf(name, sizeof name, "cudaMallocHost + cudaFreeHost, %zu KiB", kib);
    per_call(name, [&] {
      void* memory = nullptr;
      if (cudaMallocHost(&memory, kib << 10) == cudaSuccess) cudaFreeHost(memory);
    }, kib >= 1024 ? 20 : 200);
  }
  constexpr std::size_t kReadBack = std::size_t(4) << 20;
  char* device_bytes = nullptr;
  char* pinned_bytes = nullptr;
  char* pageable_bytes = new char[kReadBack];
  for (std::size_t i = 0; i < kReadBack; i += 4096) pageable_bytes[i] = 0;  // pages touched once
  if (cudaMalloc(&device_bytes, kReadBack) != cudaSuccess || cudaMallocHost(&pinned_bytes, kReadBack) != cudaSuccess)
    return 1;
  per_call("4 MiB read back into pinned, waited", [&] {
    cudaMemcpyAsync(pinned_bytes, device_bytes, kReadBack, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
  }, 100);
  per_call("4 MiB read back into pageable, waited", [&] {
    cudaMemcpyAsync(pageable_bytes, device_bytes, kReadBack, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
  }, 100);
  return 0;
}
