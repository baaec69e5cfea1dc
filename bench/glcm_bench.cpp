// glcm_bench.cpp: the glcm kind's paper-equivalent workload. Help Conquer
// Cancer's image: ~22,000 local windows (radius 16) x all 1026 displacements
// (distances 1..25) x 3 quantisations (64, 32, 16 levels); the paper's CPU code
// took 134 min per image, its GTX 280 port 6 min.
//
//   glcm_bench [--roi-radius 100] [--image-size 320] [google-benchmark flags]
//
// The image is a deterministic texture (stripes, gradient, noise) with a
// circular ROI; radius 100 gives 22,277 windows. One iteration computes every
// (level, distance) block of the image as the app does (each block reduced to
// its statistics, every window's values kept for one distance). Counters:
//   windows, glcms_per_s (windows x 1026 x 3 / s), features_per_s (windows x 25
//   distances x 3 levels x 13 features / s), host_cpu_cores (process CPU time /
//   wall time: the host's share while the GPU works), paper_speedup (134 min / time).
// The CPU engine (one core) runs in the same process on the same image as the peer.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

#include <benchmark/benchmark.h>

#include "core/gpu_devices.h"
#include "bench_util.h"

#include "glcm_engine.h"

namespace {

using namespace helix::glcm;

int g_roi_radius = 100;
int g_image_size = 320;
constexpr double kPaperCpuSeconds = 134 * 60;

struct Workload {
  GreyImage image;
  std::vector<WindowCentre> centres;
};

const Workload& workload() {
  static const Workload w = [] {
    Workload made;
    const int n = g_image_size;
    made.image = GreyImage{n, n, {}};
    std::uint32_t state = 12345;
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        state = state * 1664525u + 1013904223u;
        const int value = ((x / 5 + y / 7) % 2) * 80 + (x + y) / 6 + static_cast<int>(state >> 26);
        made.image.pixels.push_back(static_cast<std::uint8_t>(value > 255 ? 255 : value));
      }
    std::vector<std::uint8_t> roi(static_cast<std::size_t>(n) * n);
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x)
        roi[static_cast<std::size_t>(y) * n + x] =
            (x - n / 2) * (x - n / 2) + (y - n / 2) * (y - n / 2) <= g_roi_radius * g_roi_radius;
    made.centres = window_centres(roi, n, n, kWindowRadius);
    return made;
  }();
  return w;
}

using helix::bench::process_cpu_seconds;

void whole_image(benchmark::State& state, GlcmEngine& engine) {
  const Workload& w = workload();
  engine.load(w.image, w.centres);
  double wall = 0, cpu = 0;
  std::int64_t checksum = 0;
  for (auto _ : state) {
    const double cpu_before = process_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    for (int divisor : kLevelDivisors)
      for (int distance = 1; distance <= kMaxDistance; ++distance)
        checksum += engine.block(divisor, distance, distance == 1).reduction.max[kEntropy];
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    wall += elapsed.count();
    cpu += process_cpu_seconds() - cpu_before;
    state.SetIterationTime(elapsed.count());
  }
  benchmark::DoNotOptimize(checksum);
  const double iterations = static_cast<double>(state.iterations());
  const double windows = static_cast<double>(w.centres.size());
  state.counters["windows"] = windows;
  state.counters["glcms_per_s"] = windows * 1026 * 3 * iterations / wall;
  state.counters["features_per_s"] = windows * kMaxDistance * 3 * kFeatureCount * iterations / wall;
  state.counters["host_cpu_cores"] = cpu / wall;
  state.counters["paper_speedup"] = kPaperCpuSeconds / (wall / iterations);
  state.SetLabel(engine.description());
}

void BM_GlcmGpu(benchmark::State& state) {
  if (helix::gpu_device_count() == 0) {
    state.SkipWithError("no CUDA device");
    return;
  }
  auto engine = make_gpu_engine(0);
  whole_image(state, *engine);
}
BENCHMARK(BM_GlcmGpu)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_GlcmCpuOneCore(benchmark::State& state) {
  auto engine = make_cpu_engine();
  whole_image(state, *engine);
}
// One iteration: a whole image takes about a minute on one core.
BENCHMARK(BM_GlcmCpuOneCore)->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
  helix::bench::take_int_flags(argc, argv, {{"--roi-radius", &g_roi_radius}, {"--image-size", &g_image_size}});
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
