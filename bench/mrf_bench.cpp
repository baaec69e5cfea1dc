// mrf_bench.cpp: throughput of the mrf kind's sweep engines, per sweep as the
// solver runs them (energy table on the host, one sweep, class re-estimation).
//
//   mrf_bench [--nx 512 --ny 512 --nz 300] [google-benchmark flags]
//
// Counters: voxel_updates_per_s (voxels x sweeps / wall time of the sweeps) and
// host_cpu_cores (process CPU time / wall time over the same calls: for the GPU,
// the share of one core the host burns while the GPU works).
// The CPU reference runs in the same process on the same volume as the peer.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include <benchmark/benchmark.h>

#include "core/gpu_devices.h"
#include "bench_util.h"

#include "mrf/mrf.h"
#include "mrf/mrf_phantom.h"

namespace {

using namespace helix::mrf;

PhantomSpec g_spec = [] {
  PhantomSpec spec;
  spec.nx = 512, spec.ny = 512, spec.nz = 300;
  spec.noise_sigma_hu = 60;
  return spec;
}();

const Phantom& bench_phantom() {
  static const Phantom phantom = make_phantom(g_spec);
  return phantom;
}

using helix::bench::process_cpu_seconds;

// One iteration = one batch of sweeps as the solver asks for it
// (engine.sweeps_per_batch(): 16 on the GPU, 1 on the CPU), started from the
// initial labels each time so that every batch does the work of a real run's
// first sweeps (labels still changing). Only run_sweeps() is timed; the host's
// CPU time is measured around the same calls.
void run_batches(benchmark::State& state, SweepEngine& engine) {
  const Phantom& phantom = bench_phantom();
  MrfParams params;
  params.energy_tolerance = 0;
  params.max_sweeps = 100000;
  const InitialSegmentation initial = initial_segmentation(phantom.volume, params);
  double wall_seconds = 0, cpu_seconds = 0;
  std::int64_t sweeps = 0;
  for (auto _ : state) {
    engine.load(phantom.volume, initial.labels);
    const double cpu_before = process_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    const SweepBatch batch = engine.run_sweeps(initial.model, params, 0, engine.sweeps_per_batch());
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    cpu_seconds += process_cpu_seconds() - cpu_before;
    state.SetIterationTime(elapsed.count());
    wall_seconds += elapsed.count();
    sweeps += static_cast<std::int64_t>(batch.records.size());
  }
  state.counters["sweeps_per_batch"] = static_cast<double>(sweeps) / state.iterations();
  state.counters["voxel_updates_per_s"] = static_cast<double>(phantom.volume.size()) * sweeps / wall_seconds;
  state.counters["host_cpu_cores"] = cpu_seconds / wall_seconds;
  state.SetLabel(engine.description() + " " + std::to_string(g_spec.nx) + "x" + std::to_string(g_spec.ny) + "x" +
                 std::to_string(g_spec.nz));
}

void BM_MrfSweepGpu(benchmark::State& state) {
  if (helix::gpu_device_count() == 0) {
    state.SkipWithError("no CUDA device");
    return;
  }
  auto engine = make_gpu_engine(0);
  run_batches(state, *engine);
}

void BM_MrfSweepCpuReference(benchmark::State& state) {
  auto engine = make_cpu_engine();
  run_batches(state, *engine);
}

// Manual time: only the batch of sweeps is timed, not the reloading.
BENCHMARK(BM_MrfSweepGpu)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(20);
BENCHMARK(BM_MrfSweepCpuReference)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

int main(int argc, char** argv) {
  helix::bench::take_int_flags(argc, argv, {{"--nx", &g_spec.nx}, {"--ny", &g_spec.ny}, {"--nz", &g_spec.nz}});
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
