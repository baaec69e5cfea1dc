// The solver on the phantom: accuracy against the known labels, convergence,
// and byte-identical results after stopping at any checkpoint and restarting.
#include <gtest/gtest.h>

#include "core/directory_runtime.h"
#include "core/errors.h"
#include "mrf/mrf_files.h"
#include "mrf/mrf_summary.h"
#include "mrf_test_util.h"

namespace helix::mrf {
namespace {

using testing::small_phantom;
using testing::TempDir;

MrfResult solve_on_cpu(const Phantom& phantom, const MrfParams& params) {
  TempDir dir;
  DirectoryRuntime runtime(dir.path());
  auto engine = make_cpu_engine();
  return solve_mrf(phantom.volume, params, *engine, runtime);
}

TEST(Solver, SegmentsThePhantomAccurately) {
  const Phantom phantom = small_phantom(128, 128, 24, 11, 60.0);
  const MrfResult result = solve_on_cpu(phantom, MrfParams{});
  EXPECT_TRUE(result.converged);
  EXPECT_GT(dice(result.labels, phantom.truth, 0), 0.995);  // air
  EXPECT_GT(dice(result.labels, phantom.truth, 1), 0.90);   // bone
  EXPECT_GT(dice(result.labels, phantom.truth, 2), 0.99);   // liver
  EXPECT_NEAR(result.model.mean[0], -1000, 20);
  EXPECT_NEAR(result.model.mean[2], 60, 20);
}

// On very noisy data the clique prior is what recovers the anatomy: the MRF
// beats classifying each voxel by its nearest class mean.
TEST(Solver, PriorBeatsPerVoxelClassificationOnNoisyData) {
  const Phantom phantom = small_phantom(128, 128, 16, 13, 150.0);
  const MrfResult result = solve_on_cpu(phantom, MrfParams{});
  EXPECT_TRUE(result.converged);
  const auto nearest = initial_labels(phantom.volume, result.model.mean);
  EXPECT_GT(dice(result.labels, phantom.truth, 1), dice(nearest, phantom.truth, 1) + 0.10);  // bone: 0.96 vs 0.81
  EXPECT_GT(dice(result.labels, phantom.truth, 2), dice(nearest, phantom.truth, 2) + 0.01);  // liver: 0.995 vs 0.98
  EXPECT_GT(dice(result.labels, phantom.truth, 0), 0.995);
  EXPECT_GT(dice(result.labels, phantom.truth, 1), 0.95);
  EXPECT_GT(dice(result.labels, phantom.truth, 2), 0.99);
}

TEST(Solver, EnergyNeverRisesWithinASweep) {
  const Phantom phantom = small_phantom(48, 48, 12, 3, 80.0);
  const MrfResult result = solve_on_cpu(phantom, MrfParams{});
  ASSERT_FALSE(result.trace.empty());
  for (const auto& record : result.trace) EXPECT_LE(record.delta_energy, 0) << "sweep " << record.sweep;
  EXPECT_GT(result.trace.front().labels_changed, 0);
}

// Progress goes to the runtime (BOINC's fraction done) and ends at 1.
TEST(Solver, ReportsProgressToTheEnd) {
  const Phantom phantom = small_phantom(32, 32, 8);
  MrfParams params;
  params.max_sweeps = 3;
  params.energy_tolerance = 0;
  TempDir dir;
  DirectoryRuntime runtime(dir.path());
  auto engine = make_cpu_engine();
  solve_mrf(phantom.volume, params, *engine, runtime);
  EXPECT_EQ(runtime.last_progress(), 1.0);
}

TEST(Solver, StopsAtMaxSweepsWhenToleranceIsZero) {
  const Phantom phantom = small_phantom(32, 32, 8);
  MrfParams params;
  params.energy_tolerance = 0;
  params.threshold = 0;
  params.max_sweeps = 4;
  const MrfResult result = solve_on_cpu(phantom, params);
  EXPECT_EQ(result.trace.size(), result.converged ? result.trace.size() : 4u);
  EXPECT_LE(result.trace.size(), 4u);
}

std::vector<std::uint8_t> result_bytes(const Volume& volume, const MrfParams& params, const MrfResult& result) {
  auto bytes = encode_labels(volume.nx, volume.ny, volume.nz, result.labels);
  const std::string summary = summary_text(make_summary(volume, params, result, "volume"));
  bytes.insert(bytes.end(), summary.begin(), summary.end());
  return bytes;
}

// Stop after checkpoint k (as on a client quit), restart from the saved state:
// the result bytes equal an uninterrupted run's, for every k.
TEST(Solver, RestartFromAnyCheckpointIsByteIdentical) {
  const Phantom phantom = small_phantom(40, 36, 10, 5, 90.0);
  MrfParams params;
  params.energy_tolerance = 0;
  params.max_sweeps = 8;
  const MrfResult uninterrupted = solve_on_cpu(phantom, params);
  const auto reference = result_bytes(phantom.volume, params, uninterrupted);
  ASSERT_GE(uninterrupted.trace.size(), 4u);
  // Checkpoint k is saved after sweep k; stopping is possible up to the last-but-one sweep.
  for (int stop_after = 1; stop_after + 1 < static_cast<int>(uninterrupted.trace.size()); ++stop_after) {
    TempDir dir;
    DirectoryRuntime first(dir.path());
    first.stop_after_checkpoints(stop_after);
    auto engine = make_cpu_engine();
    EXPECT_THROW(solve_mrf(phantom.volume, params, *engine, first), StopRequested) << "stop after " << stop_after << " of " << uninterrupted.trace.size();
    DirectoryRuntime second(dir.path());
    auto fresh_engine = make_cpu_engine();
    const MrfResult resumed = solve_mrf(phantom.volume, params, *fresh_engine, second);
    EXPECT_EQ(result_bytes(phantom.volume, params, resumed), reference) << "stopped after " << stop_after;
  }
}

// A checkpoint of another work unit (other parameters) is ignored, not used.
TEST(Solver, IgnoresACheckpointOfAnotherWorkUnit) {
  const Phantom phantom = small_phantom(32, 32, 8);
  MrfParams params;
  params.max_sweeps = 5;
  params.energy_tolerance = 0;
  TempDir dir;
  DirectoryRuntime first(dir.path());
  first.stop_after_checkpoints(2);
  auto engine = make_cpu_engine();
  EXPECT_THROW(solve_mrf(phantom.volume, params, *engine, first), StopRequested);
  MrfParams other = params;
  other.seed = 99;
  DirectoryRuntime second(dir.path());
  const MrfResult resumed = solve_mrf(phantom.volume, other, *engine, second);
  const MrfResult fresh = solve_on_cpu(phantom, other);
  EXPECT_EQ(resumed.labels, fresh.labels);
  EXPECT_EQ(resumed.trace.size(), fresh.trace.size());
}

}  // namespace
}  // namespace helix::mrf
