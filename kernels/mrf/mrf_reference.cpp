// mrf_reference.cpp: the CPU reference of the mrf kind: the source of truth.
//
// Contents: deterministic_log, build_energy_table, estimate_class_model,
// initial_class_means (k-means on the histogram), initial_labels,
// class_statistics, total_energy, reference_sweep, the CPU engine.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/errors.h"
#include "mrf.h"

namespace helix::mrf {

// positive_log() with its precondition checked (see mrf_model.h).
double deterministic_log(double x) {
  if (!(x > 0) || !std::isfinite(x)) throw InputError("log of a non-positive or non-finite value");
  return positive_log(x);
}

// Constants of the Gaussian class terms: (v-mean)^2 / (2 var) + ln(2 pi var)/2.
ClassTerms class_terms(const ClassModel& model) {
  ClassTerms terms;
  for (int label = 0; label < kClassCount; ++label) {
    deterministic_log(model.variance[label]);  // throws on a non-positive variance
    terms.of[label] = class_term_constants(model.mean[label], model.variance[label]);
  }
  return terms;
}

EnergyTable build_energy_table(const ClassModel& model, std::int32_t min_intensity, std::int32_t max_intensity) {
  EnergyTable table;
  table.min_intensity = min_intensity;
  table.range = max_intensity - min_intensity + 1;
  table.terms.resize(static_cast<std::size_t>(table.range) * kClassCount);
  const ClassTerms terms = class_terms(model);
  for (int label = 0; label < kClassCount; ++label)
    for (std::int32_t i = 0; i < table.range; ++i)
      table.terms[static_cast<std::size_t>(label) * table.range + i] = class_term_fixed(min_intensity + i, terms.of[label]);
  return table;
}

// Mean and variance of each class from exact integer sums. An empty class keeps
// its previous parameters (so it can be re-populated later).
ClassModel estimate_class_model(const ClassSums& sums, const ClassModel& previous, double min_variance) {
  ClassModel model = previous;
  for (int k = 0; k < kClassCount; ++k)
    if (sums.count[k] > 0)
      estimate_class(sums.count[k], sums.sum[k], sums.sum_sq[k], min_variance, model.mean[k], model.variance[k]);
  return model;
}

namespace {

// Nearest centre, ties to the lower index: a deterministic assignment rule.
int nearest_centre(double value, const std::array<double, kClassCount>& centres) {
  int best = 0;
  for (int k = 1; k < kClassCount; ++k)
    if (std::fabs(value - centres[k]) < std::fabs(value - centres[best])) best = k;
  return best;
}

// Voxels per intensity: histogram[v + kIntensityOffset] for intensity v.
constexpr int kIntensityOffset = 32768;
constexpr int kIntensityValues = 65536;

std::vector<std::int64_t> intensity_histogram(const Volume& volume) {
  std::vector<std::int64_t> histogram(kIntensityValues, 0);
  for (std::int16_t v : volume.voxels) ++histogram[static_cast<std::size_t>(v + kIntensityOffset)];
  return histogram;
}

// The nearest-centre label of every intensity value: the rule is a function of
// the intensity alone, so it is evaluated once per value, not once per voxel.
std::vector<std::uint8_t> label_table(const std::array<double, kClassCount>& means) {
  std::vector<std::uint8_t> table(kIntensityValues);
  for (int i = 0; i < kIntensityValues; ++i)
    table[i] = static_cast<std::uint8_t>(nearest_centre(i - kIntensityOffset, means));
  return table;
}

std::vector<std::uint8_t> labels_of(const Volume& volume, const std::vector<std::uint8_t>& table) {
  std::vector<std::uint8_t> labels(volume.size());
  for (std::size_t i = 0; i < labels.size(); ++i)
    labels[i] = table[static_cast<std::size_t>(volume.voxels[i] + kIntensityOffset)];
  return labels;
}

// class_statistics() of a labelling given by a label table, from the
// histogram: the same integer sums, grouped by intensity.
ClassSums class_sums_of(const std::vector<std::int64_t>& histogram, const std::vector<std::uint8_t>& table) {
  ClassSums sums;
  for (int i = 0; i < kIntensityValues; ++i) {
    if (!histogram[i]) continue;
    const int k = table[i];
    const std::int64_t v = i - kIntensityOffset;
    sums.count[k] += histogram[i];
    sums.sum[k] += histogram[i] * v;
    sums.sum_sq[k] += histogram[i] * v * v;
  }
  return sums;
}

// k-means (Lloyd) with three centres over the intensity histogram, started at
// the 1st and 99.5th percentiles and their midpoint (air and bone sit at the
// ends of a CT histogram; soft tissue lies between them). Returned in label order: the lowest centre
// is air, the highest bone, the middle one liver (CT: air < soft tissue < bone).
std::array<double, kClassCount> class_means_of(const std::vector<std::int64_t>& histogram, std::size_t voxels) {
  auto percentile = [&](double fraction) {
    const auto target = static_cast<std::int64_t>(fraction * static_cast<double>(voxels));
    std::int64_t seen = 0;
    for (int i = 0; i < kIntensityValues; ++i) {
      seen += histogram[i];
      if (seen > target) return static_cast<double>(i - kIntensityOffset);
    }
    return 32767.0;
  };
  const double low = percentile(0.01), high = percentile(0.995);
  std::array<double, kClassCount> centres = {low, (low + high) / 2, high};
  for (int iteration = 0; iteration < 100; ++iteration) {
    std::array<double, kClassCount> sum{}, count{};
    for (int i = 0; i < kIntensityValues; ++i) {
      if (!histogram[i]) continue;
      const int k = nearest_centre(i - kIntensityOffset, centres);
      sum[k] += static_cast<double>(histogram[i]) * (i - kIntensityOffset);
      count[k] += static_cast<double>(histogram[i]);
    }
    std::array<double, kClassCount> next = centres;
    for (int k = 0; k < kClassCount; ++k)
      if (count[k] > 0) next[k] = sum[k] / count[k];
    if (next == centres) break;
    centres = next;
  }
  std::sort(centres.begin(), centres.end());
  return {centres[0], centres[2], centres[1]};  // air, bone, liver
}

}  // namespace

std::array<double, kClassCount> initial_class_means(const Volume& volume) {
  return class_means_of(intensity_histogram(volume), volume.size());
}

std::vector<std::uint8_t> initial_labels(const Volume& volume, const std::array<double, kClassCount>& means) {
  return labels_of(volume, label_table(means));
}

// Two passes over the voxels (the histogram, the labels); the means and the
// class sums come from the histogram.
InitialSegmentation initial_segmentation(const Volume& volume, const MrfParams& params) {
  const std::vector<std::int64_t> histogram = intensity_histogram(volume);
  const auto means = params.initial_means ? *params.initial_means : class_means_of(histogram, volume.size());
  const std::vector<std::uint8_t> table = label_table(means);
  InitialSegmentation start;
  start.labels = labels_of(volume, table);
  ClassModel seed_model;  // what an empty class keeps
  seed_model.mean = means;
  seed_model.variance.fill(params.min_variance);
  start.model = estimate_class_model(class_sums_of(histogram, table), seed_model, params.min_variance);
  return start;
}

ClassSums class_statistics(const Volume& volume, const std::vector<std::uint8_t>& labels) {
  ClassSums sums;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const int k = labels[i];
    const std::int64_t v = volume.voxels[i];
    ++sums.count[k];
    sums.sum[k] += v;
    sums.sum_sq[k] += v * v;
  }
  return sums;
}

namespace {

// Counts, over the in-volume 6-neighbours of (x,y,z), how many carry each label.
struct NeighbourCounts {
  int with_label[kClassCount] = {0, 0, 0};
  int total = 0;
};

NeighbourCounts count_neighbours(const Volume& volume, const std::vector<std::uint8_t>& labels, int x, int y, int z) {
  NeighbourCounts counts;
  const std::size_t row = static_cast<std::size_t>(volume.nx);
  const std::size_t slice = row * volume.ny;
  const std::size_t index = x + y * row + z * slice;
  auto add = [&](std::size_t neighbour) {
    ++counts.with_label[labels[neighbour]];
    ++counts.total;
  };
  if (x > 0) add(index - 1);
  if (x + 1 < volume.nx) add(index + 1);
  if (y > 0) add(index - row);
  if (y + 1 < volume.ny) add(index + row);
  if (z > 0) add(index - slice);
  if (z + 1 < volume.nz) add(index + slice);
  return counts;
}

}  // namespace

// Total energy: every voxel's class term plus every neighbouring pair's clique
// term counted once (-beta_in if the labels agree, -beta_out otherwise).
std::int64_t total_energy(const Volume& volume, const std::vector<std::uint8_t>& labels, const EnergyTable& table,
                          const SweepConstants& constants) {
  std::int64_t energy = 0;
  const std::size_t row = static_cast<std::size_t>(volume.nx);
  const std::size_t slice = row * volume.ny;
  auto pair = [&](std::size_t a, std::size_t b) -> std::int64_t {
    return labels[a] == labels[b] ? -constants.beta_in_fixed : -constants.beta_out_fixed;
  };
  for (int z = 0; z < volume.nz; ++z)
    for (int y = 0; y < volume.ny; ++y)
      for (int x = 0; x < volume.nx; ++x) {
        const std::size_t i = x + y * row + z * slice;
        energy += table.term(labels[i], volume.voxels[i]);
        if (x + 1 < volume.nx) energy += pair(i, i + 1);
        if (y + 1 < volume.ny) energy += pair(i, i + row);
        if (z + 1 < volume.nz) energy += pair(i, i + slice);
      }
  return energy;
}

std::int64_t labelling_energy(const Volume& volume, const std::vector<std::uint8_t>& labels, const ClassModel& model,
                              const SweepConstants& constants) {
  const auto [lowest, highest] = std::minmax_element(volume.voxels.begin(), volume.voxels.end());
  return total_energy(volume, labels, build_energy_table(model, *lowest, *highest), constants);
}

// One sweep: all colour-0 voxels, then all colour-1 voxels. Within a colour the
// voxels do not neighbour each other, so this loop order gives the same result
// as any parallel order (that is what the CUDA kernel relies on). The local
// energy change of an accepted move is exactly the change of total_energy().
SweepStats reference_sweep(const Volume& volume, std::vector<std::uint8_t>& labels, const EnergyTable& table,
                           const SweepConstants& constants) {
  SweepStats stats;
  const std::size_t row = static_cast<std::size_t>(volume.nx);
  const std::size_t slice = row * volume.ny;
  const std::uint32_t coin_key = sweep_coin_key(constants.seed, constants.sweep_index);
  for (int colour = 0; colour < 2; ++colour)
    for (int z = 0; z < volume.nz; ++z)
      for (int y = 0; y < volume.ny; ++y)
        for (int x = voxel_colour(0, y, z) ^ colour; x < volume.nx; x += 2) {  // the colour's voxels of the row
          const std::size_t i = x + y * row + z * slice;
          const int current = labels[i];
          const int proposed = proposed_label(current, proposal_coin(coin_key, i));
          const NeighbourCounts counts = count_neighbours(volume, labels, x, y, z);
          bool accepted = false;
          stats.delta_energy += proposal_delta(table.term(current, volume.voxels[i]),
                                               table.term(proposed, volume.voxels[i]), counts.with_label[current],
                                               counts.with_label[proposed], counts.total, constants, accepted);
          if (accepted) {
            labels[i] = static_cast<std::uint8_t>(proposed);
            ++stats.labels_changed;
          }
        }
  stats.sums = class_statistics(volume, labels);
  return stats;
}

ClassSums SweepEngine::class_sums(const Volume& volume) { return class_statistics(volume, labels()); }

std::int64_t SweepEngine::labelling_energy(const Volume& volume, const ClassModel& model,
                                           const SweepConstants& constants) {
  return mrf::labelling_energy(volume, labels(), model, constants);
}

// The batch rules, sweep by sweep (engines with a faster path override this).
SweepBatch SweepEngine::run_sweeps(const ClassModel& model, const MrfParams& params, std::uint32_t first_sweep,
                                   int count) {
  SweepBatch batch;
  batch.model = model;
  const std::int64_t tolerance = energy_tolerance_fixed(params, voxel_count_);
  for (std::uint32_t sweep = first_sweep; sweep < first_sweep + static_cast<std::uint32_t>(count); ++sweep) {
    const SweepStats stats = this->sweep(batch.model, sweep_constants(params, sweep));
    batch.model = estimate_class_model(stats.sums, batch.model, params.min_variance);
    batch.records.push_back({sweep + 1, stats.delta_energy, stats.labels_changed});
    batch.converged = std::llabs(stats.delta_energy) <= tolerance;
    if (batch.converged || sweep + 1 >= static_cast<std::uint32_t>(params.max_sweeps)) break;
  }
  return batch;
}

namespace {

class CpuSweepEngine : public SweepEngine {
 public:
  std::string description() const override { return "CPU reference (1 thread)"; }
  void load(const Volume& volume, const std::vector<std::uint8_t>& labels) override {
    volume_ = &volume;
    voxel_count_ = volume.size();
    labels_ = labels;
    const auto [lowest, highest] = std::minmax_element(volume.voxels.begin(), volume.voxels.end());
    lowest_ = *lowest, highest_ = *highest;
  }
  SweepStats sweep(const ClassModel& model, const SweepConstants& constants) override {
    return reference_sweep(*volume_, labels_, build_energy_table(model, lowest_, highest_), constants);
  }
  std::vector<std::uint8_t> labels() override { return labels_; }

 private:
  const Volume* volume_ = nullptr;
  std::vector<std::uint8_t> labels_;
  std::int32_t lowest_ = 0, highest_ = 0;  // intensity range: the table's extent
};

}  // namespace

std::unique_ptr<SweepEngine> make_cpu_engine() { return std::make_unique<CpuSweepEngine>(); }

}  // namespace helix::mrf
