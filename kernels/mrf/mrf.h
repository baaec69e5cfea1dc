// mrf.h: the mrf kind's interface: its data types, the CPU reference, the
// sweep engines (CPU and CUDA) and the solver that drives them.
//
// Contents
//   Volume, MrfParams, ClassModel, SweepStats, EnergyTable   data
//   parse_mrf_params()            WU parameter JSON -> MrfParams (InputError on absurd values)
//   build_energy_table()          per-intensity class terms for one sweep (host, deterministic)
//   initial_class_means(), initial_labels(), initial_segmentation()   k-means-style start
//   SweepEngine, make_cpu_engine(), make_gpu_engine()
//   solve_mrf()                   the whole segmentation with checkpoints
//   total_energy(), labelling_energy(), class_statistics()   used by the solver and the validator
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/runtime.h"
#include "mrf_model.h"

namespace helix::mrf {

struct Volume {
  int nx = 0, ny = 0, nz = 0;
  std::array<double, 3> spacing_mm{1.0, 1.0, 1.0};
  std::vector<std::int16_t> voxels;  // x fastest, then y, then z
  std::size_t size() const { return static_cast<std::size_t>(nx) * ny * nz; }
};

struct MrfParams {
  double beta_in = 1.0;              // nats per same-label neighbour
  double beta_out = -1.0;            // nats per different-label neighbour
  double threshold = 0.0;            // nats; accept when the energy drops by more
  double energy_tolerance = 1e-4;    // nats per voxel; stop when |dE of a sweep| <= tolerance * N
  int max_sweeps = 50;
  std::uint64_t seed = 1;
  std::optional<std::array<double, 3>> initial_means;  // air, bone, liver; k-means when absent
  double min_variance = 1.0;         // floor on re-estimated variances (intensity units^2)
};

struct ClassModel {
  std::array<double, kClassCount> mean{};
  std::array<double, kClassCount> variance{};
};

// Integer per-class sums: exact whatever the summation order.
struct ClassSums {
  std::array<std::int64_t, kClassCount> count{};
  std::array<std::int64_t, kClassCount> sum{};
  std::array<std::int64_t, kClassCount> sum_sq{};
};

struct SweepStats {
  std::int64_t delta_energy = 0;    // fixed point: sum of accepted energy changes
  std::int64_t labels_changed = 0;
  ClassSums sums;                   // over the labels after the sweep
};

// Class term of every intensity in [min_intensity, min_intensity + range) for
// every class, in fixed point: terms[label * range + (v - min_intensity)]
// (the CPU's lookup form of class_term_fixed()).
struct EnergyTable {
  std::int32_t min_intensity = 0;
  std::int32_t range = 0;
  std::vector<std::int32_t> terms;
  std::int32_t term(int label, int intensity) const {
    return terms[static_cast<std::size_t>(label) * range + (intensity - min_intensity)];
  }
};

MrfParams parse_mrf_params(const nlohmann::json& params);
nlohmann::json mrf_params_to_json(const MrfParams& params);
SweepConstants sweep_constants(const MrfParams& params, std::uint32_t sweep_index);
std::int64_t energy_tolerance_fixed(const MrfParams& params, std::size_t voxel_count);

ClassTerms class_terms(const ClassModel& model);
EnergyTable build_energy_table(const ClassModel& model, std::int32_t min_intensity, std::int32_t max_intensity);
ClassModel estimate_class_model(const ClassSums& sums, const ClassModel& previous, double min_variance);
double deterministic_log(double x);

std::array<double, kClassCount> initial_class_means(const Volume& volume);
std::vector<std::uint8_t> initial_labels(const Volume& volume, const std::array<double, kClassCount>& means);

// Where every run starts: nearest-mean labels for params.initial_means (or the
// k-means means) and the class model estimated from those labels.
struct InitialSegmentation {
  std::vector<std::uint8_t> labels;
  ClassModel model;
};
InitialSegmentation initial_segmentation(const Volume& volume, const MrfParams& params);

ClassSums class_statistics(const Volume& volume, const std::vector<std::uint8_t>& labels);
std::int64_t total_energy(const Volume& volume, const std::vector<std::uint8_t>& labels, const EnergyTable& table,
                          const SweepConstants& constants);
// total_energy() with the class terms of `model` over the volume's intensity
// range: the summary's final_energy, as the solver reports it and the
// validator recomputes it.
std::int64_t labelling_energy(const Volume& volume, const std::vector<std::uint8_t>& labels, const ClassModel& model,
                              const SweepConstants& constants);

struct SweepRecord {
  std::uint32_t sweep = 0;  // 1-based
  std::int64_t delta_energy = 0;
  std::int64_t labels_changed = 0;
};

// What a run of consecutive sweeps leaves behind.
struct SweepBatch {
  std::vector<SweepRecord> records;  // one per sweep run
  ClassModel model;                  // re-estimated after the last one
  bool converged = false;            // the last sweep's |dE| <= tolerance
};

// A sweep engine. sweep(): one full sweep (colour 0 then colour 1) with the
// class terms of `model`. run_sweeps(): up to `count` sweeps from sweep index
// `first_sweep` (0-based), re-estimating the classes after each and stopping
// after a converged sweep or the last allowed one (params.max_sweeps), exactly
// as the solver's rules say. The CPU engine is the reference; the CUDA engine
// returns identical stats, labels and batches.
class SweepEngine {
 public:
  virtual ~SweepEngine() = default;
  virtual std::string description() const = 0;
  virtual void load(const Volume& volume, const std::vector<std::uint8_t>& labels) = 0;
  virtual SweepStats sweep(const ClassModel& model, const SweepConstants& constants) = 0;
  virtual SweepBatch run_sweeps(const ClassModel& model, const MrfParams& params, std::uint32_t first_sweep,
                                int count);
  // How many sweeps the solver should ask for between checkpoint checks.
  virtual int sweeps_per_batch() const { return 1; }
  virtual std::vector<std::uint8_t> labels() = 0;
  // What the solver reports of the current labels: class_statistics() and
  // labelling_energy() with the classes of `model`. `volume` is the loaded
  // one. These base versions compute on the host from labels(); the CUDA
  // engine keeps its class sums on the device and reduces the energy there,
  // so that the host does not walk every voxel twice more at the end.
  virtual ClassSums class_sums(const Volume& volume);
  virtual std::int64_t labelling_energy(const Volume& volume, const ClassModel& model,
                                        const SweepConstants& constants);

 protected:
  std::size_t voxel_count_ = 0;  // set by load()
};

std::unique_ptr<SweepEngine> make_cpu_engine();
// Throws GpuError when the device cannot be used.
std::unique_ptr<SweepEngine> make_gpu_engine(int device);

// Reference sweep on host memory; the CPU engine wraps it.
SweepStats reference_sweep(const Volume& volume, std::vector<std::uint8_t>& labels, const EnergyTable& table,
                           const SweepConstants& constants);

struct MrfResult {
  std::vector<std::uint8_t> labels;
  ClassModel model;             // after the last re-estimation
  ClassSums sums;               // of the final labels
  std::vector<SweepRecord> trace;
  bool converged = false;
  std::int64_t final_energy = 0;  // total energy of the final labels under `model`
};

// Runs the segmentation from the initial labels (or the runtime's saved state)
// to convergence or max_sweeps, checkpointing when the runtime says so.
MrfResult solve_mrf(const Volume& volume, const MrfParams& params, SweepEngine& engine, Runtime& runtime);

}  // namespace helix::mrf
