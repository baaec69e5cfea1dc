// CPU reference vs CUDA engine: identical labels, statistics, means, variances,
// energies and sweep counts. Skips without a GPU (CI); run on the device.
#include <gtest/gtest.h>

#include "core/gpu_devices.h"
#include "core/directory_runtime.h"
#include "mrf_test_util.h"

namespace helix::mrf {
namespace {

using testing::small_phantom;
using testing::TempDir;

// GTEST_SKIP returns from the calling function, so this must be a macro.
#define SKIP_WITHOUT_GPU() \
  if (gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device"

void expect_same_stats(const SweepStats& cpu, const SweepStats& gpu, int sweep) {
  EXPECT_EQ(cpu.delta_energy, gpu.delta_energy) << "sweep " << sweep;
  EXPECT_EQ(cpu.labels_changed, gpu.labels_changed) << "sweep " << sweep;
  EXPECT_EQ(cpu.sums.count, gpu.sums.count) << "sweep " << sweep;
  EXPECT_EQ(cpu.sums.sum, gpu.sums.sum) << "sweep " << sweep;
  EXPECT_EQ(cpu.sums.sum_sq, gpu.sums.sum_sq) << "sweep " << sweep;
}

struct Shape {
  int nx, ny, nz;
  std::uint64_t seed;
};

class GpuMatchesCpu : public ::testing::TestWithParam<Shape> {};

// Sweep by sweep under `params`, with a deliberately noisy start so that
// many labels change.
void expect_same_sweeps(const Shape& shape, const MrfParams& params) {
  const Phantom phantom = small_phantom(shape.nx, shape.ny, shape.nz, shape.seed, 120.0);
  const auto means = initial_class_means(phantom.volume);
  const auto labels = initial_labels(phantom.volume, means);
  auto cpu = make_cpu_engine();
  auto gpu = make_gpu_engine(0);
  cpu->load(phantom.volume, labels);
  gpu->load(phantom.volume, labels);
  ClassModel model;
  model.mean = means;
  model.variance.fill(2500.0);
  for (int sweep = 0; sweep < 6; ++sweep) {
    const SweepConstants constants = sweep_constants(params, sweep);
    const SweepStats cpu_stats = cpu->sweep(model, constants);
    const SweepStats gpu_stats = gpu->sweep(model, constants);
    expect_same_stats(cpu_stats, gpu_stats, sweep);
    ASSERT_EQ(cpu->labels(), gpu->labels()) << "sweep " << sweep;
    model = estimate_class_model(cpu_stats.sums, model, params.min_variance);
  }
}

TEST_P(GpuMatchesCpu, SweepBySweep) {
  SKIP_WITHOUT_GPU();
  MrfParams params;
  params.seed = GetParam().seed;
  expect_same_sweeps(GetParam(), params);
}

// The GPU decides by a minimum neighbour balance whose direction follows the
// sign of beta_in - beta_out: couplings that favour unlike neighbours, none
// at all, and a threshold.
TEST_P(GpuMatchesCpu, SweepBySweepUnderOtherCouplings) {
  SKIP_WITHOUT_GPU();
  const double couplings[][3] = {{-0.7, 0.9, 0.0}, {0.5, 0.5, 0.0}, {2.0, -0.25, 3.5}};
  for (const auto& coupling : couplings) {
    MrfParams params;
    params.seed = GetParam().seed + 17;
    params.beta_in = coupling[0], params.beta_out = coupling[1], params.threshold = coupling[2];
    SCOPED_TRACE("beta_in " + std::to_string(coupling[0]) + " beta_out " + std::to_string(coupling[1]));
    expect_same_sweeps(GetParam(), params);
  }
}

// Whole solves: identical results, including means, variances and sweep counts.
TEST_P(GpuMatchesCpu, WholeSolve) {
  SKIP_WITHOUT_GPU();
  const Shape shape = GetParam();
  const Phantom phantom = small_phantom(shape.nx, shape.ny, shape.nz, shape.seed);
  MrfParams params;
  params.seed = shape.seed * 31 + 5;
  params.energy_tolerance = 1e-5;
  TempDir cpu_dir, gpu_dir;
  DirectoryRuntime cpu_runtime(cpu_dir.path()), gpu_runtime(gpu_dir.path());
  auto cpu = make_cpu_engine();
  auto gpu = make_gpu_engine(0);
  const MrfResult a = solve_mrf(phantom.volume, params, *cpu, cpu_runtime);
  const MrfResult b = solve_mrf(phantom.volume, params, *gpu, gpu_runtime);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.model.mean, b.model.mean);
  EXPECT_EQ(a.model.variance, b.model.variance);
  EXPECT_EQ(a.trace.size(), b.trace.size());
  for (std::size_t i = 0; i < std::min(a.trace.size(), b.trace.size()); ++i) {
    EXPECT_EQ(a.trace[i].delta_energy, b.trace[i].delta_energy);
    EXPECT_EQ(a.trace[i].labels_changed, b.trace[i].labels_changed);
  }
  EXPECT_EQ(a.final_energy, b.final_energy);
  EXPECT_EQ(a.sums.count, b.sums.count);
  EXPECT_EQ(a.sums.sum, b.sums.sum);
  EXPECT_EQ(a.sums.sum_sq, b.sums.sum_sq);
  EXPECT_EQ(a.converged, b.converged);
}

// The engine's end-of-run figures (class sums kept on the device, the energy
// reduced there) equal the host's class_statistics() and labelling_energy()
// for noisy labellings, before and after sweeps, under other clique weights.
TEST_P(GpuMatchesCpu, ClassSumsAndEnergyOfTheLabels) {
  SKIP_WITHOUT_GPU();
  const Shape shape = GetParam();
  const Phantom phantom = small_phantom(shape.nx, shape.ny, shape.nz, shape.seed, 200.0);
  const auto means = initial_class_means(phantom.volume);
  auto gpu = make_gpu_engine(0);
  gpu->load(phantom.volume, initial_labels(phantom.volume, means));
  ClassModel model;
  model.mean = means;
  model.variance.fill(1800.0);
  for (const double beta : {0.0, 1.0, 2.5}) {
    MrfParams params;
    params.seed = shape.seed;
    params.beta_in = beta;
    params.beta_out = -0.5 * beta;
    for (int sweep = 0; sweep < 3; ++sweep) {
      const std::vector<std::uint8_t> labels = gpu->labels();
      const ClassSums expected = class_statistics(phantom.volume, labels);
      const ClassSums got = gpu->class_sums(phantom.volume);
      EXPECT_EQ(got.count, expected.count) << "beta " << beta << ", sweep " << sweep;
      EXPECT_EQ(got.sum, expected.sum) << "beta " << beta << ", sweep " << sweep;
      EXPECT_EQ(got.sum_sq, expected.sum_sq) << "beta " << beta << ", sweep " << sweep;
      const SweepConstants constants = sweep_constants(params, sweep);
      EXPECT_EQ(gpu->labelling_energy(phantom.volume, model, constants),
                labelling_energy(phantom.volume, labels, model, constants))
          << "beta " << beta << ", sweep " << sweep;
      gpu->sweep(model, constants);
    }
  }
}

// A batch of GPU sweeps that must stop inside the batch, at max_sweeps (5 of a
// 32-sweep batch) or on convergence, stops exactly where the CPU stops.
TEST_P(GpuMatchesCpu, BatchesStopWhereTheCpuStops) {
  SKIP_WITHOUT_GPU();
  const Shape shape = GetParam();
  const Phantom phantom = small_phantom(shape.nx, shape.ny, shape.nz, shape.seed, 150.0);
  for (const double tolerance : {0.0, 1e-3}) {
    MrfParams params;
    params.seed = shape.seed;
    params.max_sweeps = 5;
    params.energy_tolerance = tolerance;
    const InitialSegmentation start = initial_segmentation(phantom.volume, params);
    auto cpu = make_cpu_engine();
    auto gpu = make_gpu_engine(0);
    cpu->load(phantom.volume, start.labels);
    gpu->load(phantom.volume, start.labels);
    const SweepBatch a = cpu->run_sweeps(start.model, params, 0, gpu->sweeps_per_batch());
    const SweepBatch b = gpu->run_sweeps(start.model, params, 0, gpu->sweeps_per_batch());
    ASSERT_EQ(a.records.size(), b.records.size()) << "tolerance " << tolerance;
    for (std::size_t i = 0; i < a.records.size(); ++i) {
      EXPECT_EQ(a.records[i].sweep, b.records[i].sweep);
      EXPECT_EQ(a.records[i].delta_energy, b.records[i].delta_energy);
      EXPECT_EQ(a.records[i].labels_changed, b.records[i].labels_changed);
    }
    EXPECT_EQ(a.converged, b.converged);
    EXPECT_EQ(a.model.mean, b.model.mean);
    EXPECT_EQ(a.model.variance, b.model.variance);
    EXPECT_EQ(cpu->labels(), gpu->labels());
  }
}

// Odd sizes exercise partial tiles in x, y and z.
INSTANTIATE_TEST_SUITE_P(Volumes, GpuMatchesCpu,
                         ::testing::Values(Shape{64, 64, 16, 1}, Shape{97, 61, 13, 2}, Shape{130, 127, 9, 3},
                                           Shape{1, 1, 1, 4}, Shape{3, 200, 17, 5}, Shape{256, 192, 24, 6}),
                         [](const ::testing::TestParamInfo<Shape>& info) {
                           const Shape& s = info.param;
                           return std::to_string(s.nx) + "x" + std::to_string(s.ny) + "x" + std::to_string(s.nz) +
                                  "_seed" + std::to_string(s.seed);
                         });

}  // namespace
}  // namespace helix::mrf
