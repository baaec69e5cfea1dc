// Unit tests of the CPU reference: the exact model's invariants.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "mrf_test_util.h"

namespace helix::mrf {
namespace {

using testing::small_phantom;

TEST(DeterministicLog, MatchesLibmToTheLastBitOrTwo) {
  for (double x : {1e-3, 0.5, 0.70710678, 1.0, 2.0, 3.14159, 1600.0, 2.5e5, 6.283185307179586 * 1e8}) {
    EXPECT_NEAR(deterministic_log(x), std::log(x), 4e-16 * std::max(1.0, std::fabs(std::log(x)))) << x;
  }
  EXPECT_EQ(deterministic_log(1.0), 0.0);
  EXPECT_THROW(deterministic_log(0.0), InputError);
  EXPECT_THROW(deterministic_log(-1.0), InputError);
}

TEST(EnergyTable, HoldsRoundedGaussianClassTerms) {
  ClassModel model;
  model.mean = {-1000, 700, 60};
  model.variance = {1600, 2500, 900};
  const EnergyTable table = build_energy_table(model, -1100, 800);
  ASSERT_EQ(table.range, 1901);
  // liver at its mean: ln(2 pi 900)/2 = 4.1659... nats -> 4266 units of 1/1024
  EXPECT_EQ(table.term(2, 60), std::lround(0.5 * std::log(2 * M_PI * 900) * 1024));
  // liver at 90 HU: + 30^2/(2*900) = 0.5 nats
  EXPECT_EQ(table.term(2, 90), std::lround((0.5 + 0.5 * std::log(2 * M_PI * 900)) * 1024));
  // far outliers are clamped, never overflow
  ClassModel narrow = model;
  narrow.variance = {1e-3, 1e-3, 1e-3};
  const EnergyTable clamped = build_energy_table(narrow, -32768, 32767);
  EXPECT_EQ(clamped.term(0, 32767), kMaxClassTerm);
}

TEST(ProposalBits, AreCounterBasedAndSpread) {
  EXPECT_EQ(proposal_bits(1, 2, 3), proposal_bits(1, 2, 3));
  EXPECT_NE(proposal_bits(1, 2, 3), proposal_bits(1, 2, 4));
  EXPECT_NE(proposal_bits(1, 2, 3), proposal_bits(1, 3, 3));
  EXPECT_NE(proposal_bits(1, 2, 3), proposal_bits(2, 2, 3));
  int heads = 0, repeats = 0;
  for (std::uint64_t voxel = 0; voxel < 100000; ++voxel) {
    heads += proposal_coin(sweep_coin_key(9, 0), voxel);
    repeats += proposal_coin(sweep_coin_key(9, 0), voxel) == proposal_coin(sweep_coin_key(9, 1), voxel);
  }
  EXPECT_NEAR(heads, 50000, 600);    // a fair coin between the two other labels
  EXPECT_NEAR(repeats, 50000, 600);  // independent from sweep to sweep
  for (int label = 0; label < kClassCount; ++label) {
    EXPECT_NE(proposed_label(label, 0), label);
    EXPECT_NE(proposed_label(label, 1), label);
    EXPECT_NE(proposed_label(label, 0), proposed_label(label, 1));
  }
}

// The sum of accepted local energy changes is the exact change of the total
// energy: that is what makes the energy trace checkable by the validator.
// The GPU's decision rule (a minimum neighbour balance per class-term change)
// against proposal_delta() itself, over every neighbourhood and class-term
// changes around each threshold, for gaps of either sign, none, and the
// parameters' extremes.
TEST(ProposalDecision, MinimumBalanceAcceptsExactlyWhatProposalDeltaAccepts) {
  const std::int32_t beta_pairs[][2] = {{1024, -1024}, {-1024, 1024}, {512, 512}, {102400, -102400},
                                        {-102400, 102400}, {3, 0}, {0, 7}, {-5000, -4999}};
  int accepted_count = 0, checked = 0;
  for (const auto& betas : beta_pairs) {
    for (std::int32_t threshold : {0, 1, 1000, 1024000}) {
      SweepConstants c{betas[0], betas[1], threshold, 1, 0};
      const std::int64_t gap = std::abs(static_cast<std::int64_t>(betas[0]) - betas[1]);
      std::vector<std::int32_t> changes = {0, 1, -1, 1 << 28, -(1 << 28), 123457, -987653};
      for (int m = -14; m <= 14; ++m)  // both sides of every boundary gap * k' = dT + threshold
        for (int e = -1; e <= 1; ++e) changes.push_back(static_cast<std::int32_t>(m * gap - threshold + e));
      for (std::int32_t change : changes) {
        const int minimum = minimum_accepted_balance(change, c);
        for (int neighbours = 0; neighbours <= 6; ++neighbours)
          for (int same_current = 0; same_current <= neighbours; ++same_current)
            for (int same_proposed = 0; same_current + same_proposed <= neighbours; ++same_proposed) {
              bool accepted = false;
              proposal_delta(0, change, same_current, same_proposed, neighbours, c, accepted);
              const int balance = same_proposed - same_current;
              const int directed = balance_is_negated(c) ? -balance : balance;
              ASSERT_EQ(directed >= minimum, accepted)
                  << "betas " << betas[0] << "/" << betas[1] << " threshold " << threshold << " dT " << change
                  << " counts " << same_current << "/" << same_proposed << "/" << neighbours;
              accepted_count += accepted;
              ++checked;
            }
      }
    }
  }
  EXPECT_GT(accepted_count, checked / 10);  // both outcomes are exercised
  EXPECT_LT(accepted_count, checked - checked / 10);
}

TEST(ReferenceSweep, DeltaEnergyEqualsTotalEnergyChange) {
  const Phantom phantom = small_phantom(24, 20, 9);
  MrfParams params;
  InitialSegmentation start = initial_segmentation(phantom.volume, params);
  std::vector<std::uint8_t>& labels = start.labels;
  const EnergyTable table = build_energy_table(start.model, -32768, 32767);
  for (std::uint32_t sweep = 0; sweep < 3; ++sweep) {
    const SweepConstants constants = sweep_constants(params, sweep);
    const std::int64_t before = total_energy(phantom.volume, labels, table, constants);
    const SweepStats stats = reference_sweep(phantom.volume, labels, table, constants);
    const std::int64_t after = total_energy(phantom.volume, labels, table, constants);
    EXPECT_EQ(after - before, stats.delta_energy) << "sweep " << sweep;
    EXPECT_LE(stats.delta_energy, 0);
    const ClassSums sums = class_statistics(phantom.volume, labels);
    EXPECT_EQ(stats.sums.count, sums.count);
    EXPECT_EQ(stats.sums.sum, sums.sum);
    EXPECT_EQ(stats.sums.sum_sq, sums.sum_sq);
  }
}

TEST(InitialMeans, FindTheThreeTissues) {
  const Phantom phantom = small_phantom(64, 64, 8);
  const auto means = initial_class_means(phantom.volume);
  EXPECT_NEAR(means[0], -1000, 60);  // air
  EXPECT_NEAR(means[1], 700, 150);   // bone
  EXPECT_NEAR(means[2], 60, 60);     // liver
}

// The initial segmentation labels each voxel with its nearest mean (ties to
// the lower label) and estimates the classes from exactly those labels'
// sums, whatever shortcut it takes (a label per intensity value, sums from
// the histogram). Given means with ties and values outside the volume's range.
TEST(InitialSegmentation, NearestMeanLabelsAndTheirExactSums) {
  const Phantom phantom = small_phantom(40, 33, 7, 9, 300.0);
  for (const std::array<double, kClassCount>& means :
       {initial_class_means(phantom.volume), std::array<double, kClassCount>{-1000.0, 700.0, 60.0},
        std::array<double, kClassCount>{-100.0, 100.0, 0.0}, std::array<double, kClassCount>{-40000.0, 40000.0, 0.5}}) {
    MrfParams params;
    params.initial_means = means;
    const InitialSegmentation start = initial_segmentation(phantom.volume, params);
    ASSERT_EQ(start.labels.size(), phantom.volume.size());
    for (std::size_t i = 0; i < start.labels.size(); ++i) {
      const double v = phantom.volume.voxels[i];
      int nearest = 0;
      for (int k = 1; k < kClassCount; ++k)
        if (std::fabs(v - means[k]) < std::fabs(v - means[nearest])) nearest = k;
      ASSERT_EQ(start.labels[i], nearest) << "voxel " << i << " (" << v << ")";
    }
    EXPECT_EQ(start.labels, initial_labels(phantom.volume, means));
    ClassModel seed;
    seed.mean = means;
    seed.variance.fill(params.min_variance);
    const ClassModel expected =
        estimate_class_model(class_statistics(phantom.volume, start.labels), seed, params.min_variance);
    EXPECT_EQ(start.model.mean, expected.mean);
    EXPECT_EQ(start.model.variance, expected.variance);
  }
}

TEST(Params, DefaultsAndAbsurdValues) {
  const MrfParams defaults = parse_mrf_params({{"kind", "mrf"}});
  EXPECT_EQ(defaults.max_sweeps, 50);
  EXPECT_FALSE(defaults.initial_means.has_value());
  const MrfParams custom = parse_mrf_params(
      {{"kind", "mrf"}, {"beta_in", 2.5}, {"seed", 42}, {"initial_means", {-1000, 700, 60}}, {"max_sweeps", 7}});
  EXPECT_EQ(custom.beta_in, 2.5);
  EXPECT_EQ(custom.seed, 42u);
  EXPECT_EQ(custom.max_sweeps, 7);
  EXPECT_EQ(parse_mrf_params(mrf_params_to_json(custom)).initial_means, custom.initial_means);
  for (const nlohmann::json& bad :
       {nlohmann::json{{"beta_in", 1e9}}, {{"max_sweeps", 0}}, {{"max_sweeps", 2.5}}, {{"threshold", -1}},
        {{"seed", -3}}, {{"initial_means", {1, 2}}}, {{"initial_means", {1, 1, 2}}}, {{"bogus", 1}},
        {{"energy_tolerance", "small"}}, {{"min_variance", 0}}}) {
    EXPECT_THROW(parse_mrf_params(bad), InputError) << bad.dump();
  }
}

}  // namespace
}  // namespace helix::mrf
