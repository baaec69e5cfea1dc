// mrf_bench.cpp: throughput of the mrf kind's sweep engines, per sweep as the
// solver runs them (energy table on the host, one sweep, class re-estimation).
//
//   mrf_bench [--nx 512 --ny 512 --nz 300] [google-benchmark flags]
//
// Counters: voxel_updates_per_s (voxels per sweep / wall time per sweep) and,
// for the GPU, host_cpu_cores (process CPU time / wall time: the share of one
// core the host thread burns while the GPU works; blocking sync keeps it low).
// The CPU reference runs in the same process on the same volume as the peer.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include <benchmark/benchmark.h>

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

double process_cpu_seconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
}

void run_sweeps(benchmark::State& state, SweepEngine& engine) {
  const Phantom& phantom = bench_phantom();
  const MrfParams params;
  const auto means = initial_class_means(phantom.volume);
  const auto labels = initial_labels(phantom.volume, means);
  ClassModel model;
  model.mean = means;
  model.variance.fill(params.min_variance);
  model = estimate_class_model(class_statistics(phantom.volume, labels), model, params.min_variance);
  engine.load(phantom.volume, labels);
  std::uint32_t sweep = 0;
  const double cpu_before = process_cpu_seconds();
  double wall_seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const SweepStats stats = engine.sweep(model, sweep_constants(params, sweep++));
    model = estimate_class_model(stats.sums, model, params.min_variance);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    state.SetIterationTime(elapsed.count());
    wall_seconds += elapsed.count();
  }
  const double cpu_seconds = process_cpu_seconds() - cpu_before;
  state.counters["voxel_updates_per_s"] =
      benchmark::Counter(static_cast<double>(phantom.volume.size()) * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["host_cpu_cores"] = cpu_seconds / wall_seconds;
  state.SetLabel(engine.description() + " " + std::to_string(g_spec.nx) + "x" + std::to_string(g_spec.ny) + "x" +
                 std::to_string(g_spec.nz));
}

void BM_MrfSweepGpu(benchmark::State& state) {
  if (gpu_device_count() == 0) {
    state.SkipWithError("no CUDA device");
    return;
  }
  auto engine = make_gpu_engine(0);
  run_sweeps(state, *engine);
}

void BM_MrfSweepCpuReference(benchmark::State& state) {
  auto engine = make_cpu_engine();
  run_sweeps(state, *engine);
}

// Manual time: the iteration time is measured around exactly one sweep.
BENCHMARK(BM_MrfSweepGpu)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_MrfSweepCpuReference)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

// Pulls --nx/--ny/--nz out of argv before Google Benchmark sees it.
void parse_volume_size(int& argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    int* target = !std::strcmp(argv[i], "--nx") ? &g_spec.nx : !std::strcmp(argv[i], "--ny") ? &g_spec.ny
                  : !std::strcmp(argv[i], "--nz") ? &g_spec.nz : nullptr;
    if (target && i + 1 < argc) {
      *target = std::atoi(argv[++i]);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
}

}  // namespace

int main(int argc, char** argv) {
  parse_volume_size(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
