// glcm_engine_test.cpp: window geometry (ROI -> centres, runs, slide plans)
// and the engines against the reference: the CPU sliding engine must give
// exactly the reference's integers; the GPU engine exactly the CPU engine's
// (skipped without a GPU).
#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>

#include <gtest/gtest.h>

#include "core/gpu_devices.h"
#include "glcm_engine.h"

namespace helix::glcm {
namespace {

// A deterministic textured image: stripes, a gradient and noise, so every
// level, sum and difference bin is exercised.
GreyImage textured_image(int width, int height, std::uint32_t seed) {
  GreyImage image{width, height, {}};
  std::uint32_t state = seed;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      state = state * 1664525u + 1013904223u;
      const int noise = static_cast<int>(state >> 26);  // 0..63
      const int value = ((x / 3) % 2) * 90 + y * 2 + noise;
      image.pixels.push_back(static_cast<std::uint8_t>(std::min(value, 255)));
    }
  }
  return image;
}

std::vector<std::uint8_t> disc_roi(int width, int height, int cx, int cy, int radius) {
  std::vector<std::uint8_t> roi(static_cast<std::size_t>(width) * height, 0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      roi[static_cast<std::size_t>(y) * width + x] = (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius;
  return roi;
}

// The centres whose disc of `radius` lies inside the image and the ROI, by brute force.
std::vector<WindowCentre> brute_force_centres(const std::vector<std::uint8_t>& roi, int width, int height,
                                              int radius) {
  std::vector<WindowCentre> expected;
  for (int cy = 0; cy < height; ++cy) {
    for (int cx = 0; cx < width; ++cx) {
      bool inside = true;
      for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx) {
          if (dx * dx + dy * dy > radius * radius) continue;
          const int x = cx + dx, y = cy + dy;
          inside = inside && x >= 0 && y >= 0 && x < width && y < height && roi[static_cast<std::size_t>(y) * width + x];
        }
      if (inside) expected.push_back({cx, cy});
    }
  }
  return expected;
}

TEST(GlcmGeometry, WindowCentresAreThePixelsWhoseDiscLiesInTheRoi) {
  const int width = 90, height = 80;
  std::vector<std::uint8_t> roi = disc_roi(width, height, 44, 40, 36);
  roi[static_cast<std::size_t>(42) * width + 68] = 0;  // a hole excludes the centres within 16 of it
  const std::vector<WindowCentre> centres = window_centres(roi, width, height, kWindowRadius);
  EXPECT_EQ(centres, brute_force_centres(roi, width, height, kWindowRadius));
  EXPECT_GT(centres.size(), 100u);
  EXPECT_THROW(window_centres(roi, width + 1, height, kWindowRadius), std::invalid_argument);
  // A whole 33 x 33 image holds exactly one window.
  EXPECT_EQ(window_centres(std::vector<std::uint8_t>(33 * 33, 1), 33, 33, kWindowRadius).size(), 1u);
}

// Ragged ROIs (overlapping discs, scattered holes, ROI touching the borders)
// and other radii, against the brute force.
TEST(GlcmGeometry, WindowCentresOfRaggedRoisMatchTheBruteForce) {
  std::mt19937 random(20261127);
  for (int trial = 0; trial < 24; ++trial) {
    const int width = 40 + trial * 3, height = 90 - trial * 2, radius = std::vector<int>{0, 1, 5, 16}[trial % 4];
    std::vector<std::uint8_t> roi(static_cast<std::size_t>(width) * height, 0);
    for (int disc = 0; disc < 4; ++disc) {
      const auto part = disc_roi(width, height, static_cast<int>(random() % width), static_cast<int>(random() % height),
                                 10 + static_cast<int>(random() % 30));
      for (std::size_t k = 0; k < roi.size(); ++k) roi[k] |= part[k];
    }
    for (int hole = 0; hole < trial; ++hole) roi[random() % roi.size()] = 0;
    const std::vector<WindowCentre> expected = brute_force_centres(roi, width, height, radius);
    EXPECT_EQ(window_centres(roi, width, height, radius), expected) << "trial " << trial;
    if (trial == 0) {
      EXPECT_GT(expected.size(), 0u);
    }
  }
}

TEST(GlcmGeometry, RunsSplitRowsAtGapsAndAtTheMaximum) {
  const std::vector<WindowCentre> centres = {{5, 1}, {6, 1}, {7, 1}, {9, 1}, {10, 2}, {11, 2}, {12, 2}};
  const std::vector<WindowRun> runs = window_runs(centres, 2);
  ASSERT_EQ(runs.size(), 5u);
  const int expected[5][4] = {{0, 2, 5, 1}, {2, 1, 7, 1}, {3, 1, 9, 1}, {4, 2, 10, 2}, {6, 1, 12, 2}};
  for (int r = 0; r < 5; ++r) {
    EXPECT_EQ(runs[r].first, expected[r][0]);
    EXPECT_EQ(runs[r].count, expected[r][1]);
    EXPECT_EQ(runs[r].x, expected[r][2]);
    EXPECT_EQ(runs[r].y, expected[r][3]);
  }
}

// The pairs of a window at x, as absolute first pixels.
std::set<std::pair<int, int>> pairs_at(const SlidePlan& plan, int x) {
  std::set<std::pair<int, int>> pairs;
  for (const Offset& o : plan.all_pairs) pairs.insert({x + o.dx, o.dy});
  return pairs;
}

TEST(GlcmGeometry, SlidePlanTurnsOneWindowsPairsIntoTheNext) {
  for (int d : {1, 2, 13, 25}) {
    for (const Displacement& delta : displacement_set(d)) {
      const SlidePlan plan = slide_plan(kWindowRadius, delta);
      std::set<std::pair<int, int>> pairs = pairs_at(plan, 0);
      for (const Offset& o : plan.removed_pairs) ASSERT_EQ(pairs.erase({o.dx, o.dy}), 1u);
      for (const Offset& o : plan.added_pairs) ASSERT_TRUE(pairs.insert({1 + o.dx, o.dy}).second);
      EXPECT_EQ(pairs, pairs_at(plan, 1)) << delta.dx << "," << delta.dy;
      EXPECT_EQ(plan.removed_pairs.size(), plan.added_pairs.size());
      EXPECT_LT(plan.removed_pairs.size(), plan.all_pairs.size() / 4);  // sliding is worth it
    }
  }
  EXPECT_EQ(slide_plan(kWindowRadius, {1, 0}).all_pairs.size(), 797u - 33u);  // one pair per pixel but the row ends
}

// An irregular ROI: a disc with a hole near its edge, so the windows' runs
// have many lengths, some of them 1.
std::vector<WindowCentre> irregular_centres(int width, int height) {
  const int cx = width / 2, cy = height / 2, radius = std::min(width, height) / 2 - 1;
  std::vector<std::uint8_t> roi = disc_roi(width, height, cx, cy, radius);
  roi[static_cast<std::size_t>(cy + 2) * width + cx + radius - 3] = 0;
  return window_centres(roi, width, height, kWindowRadius);
}

TEST(GlcmCpuEngine, EqualsTheReferenceExactly) {
  const GreyImage image = textured_image(60, 56, 7);
  const std::vector<WindowCentre> centres = irregular_centres(60, 56);
  ASSERT_GE(centres.size(), 200u);
  auto engine = make_cpu_engine();
  engine->load(image, centres);
  for (int divisor : kLevelDivisors) {
    for (int distance : {1, 2, 7, 16, 25}) {
      const std::vector<FixedFeatures> sums = engine->window_sums(divisor, distance);
      ASSERT_EQ(sums.size(), centres.size());
      for (std::size_t w = 0; w < centres.size(); w += 3) {
        const FixedFeatures expected =
            window_fixed_sums(image, divisor, centres[w].x, centres[w].y, kWindowRadius, distance);
        ASSERT_EQ(sums[w], expected) << "divisor " << divisor << " distance " << distance << " window (" << centres[w].x
                                     << "," << centres[w].y << ")";
      }
    }
  }
}

TEST(GlcmCpuEngine, RefusesBadBlocksAndWindowsOffTheImage) {
  const GreyImage image = textured_image(40, 40, 1);
  auto engine = make_cpu_engine();
  EXPECT_THROW(engine->load(image, {{10, 20}}), std::invalid_argument);
  engine->load(image, {{20, 20}});
  EXPECT_THROW(engine->window_sums(5, 1), std::invalid_argument);
  EXPECT_THROW(engine->window_sums(4, 0), std::invalid_argument);
}

TEST(GlcmGpuEngine, EqualsTheCpuEngineOnEveryLevelAndDistance) {
  if (gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const GreyImage image = textured_image(101, 83, 11);
  const std::vector<WindowCentre> centres = irregular_centres(101, 83);
  auto cpu = make_cpu_engine();
  auto gpu = make_gpu_engine(0);
  cpu->load(image, centres);
  gpu->load(image, centres);
  std::printf("%zu windows, %s\n", centres.size(), gpu->description().c_str());
  for (int divisor : kLevelDivisors) {
    for (int distance = 1; distance <= kMaxDistance; ++distance) {
      const std::vector<FixedFeatures> expected = cpu->window_sums(divisor, distance);
      const std::vector<FixedFeatures> got = gpu->window_sums(divisor, distance);
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t w = 0; w < expected.size(); ++w)
        ASSERT_EQ(got[w], expected[w]) << "divisor " << divisor << " distance " << distance << " window " << w;
      // The reduction on the device equals the host's, ties to the lower window included.
      const BlockOutput block = gpu->block(divisor, distance, distance == 5);
      const WindowReduction host = reduce_windows(expected);
      EXPECT_EQ(block.reduction.max, host.max);
      EXPECT_EQ(block.reduction.min, host.min);
      EXPECT_EQ(block.reduction.max_window, host.max_window);
      EXPECT_EQ(block.reduction.min_window, host.min_window);
      for (int k = 0; k < kFeatureCount; ++k) EXPECT_TRUE(block.reduction.total[k] == host.total[k]) << "total f" << k + 1;
      EXPECT_EQ(block.windows, distance == 5 ? expected : std::vector<FixedFeatures>{});
    }
  }
}

// The shapes that stress the GPU's shared counters most: one grey level (every
// pair in one cell and one bin of each histogram, the features' zero-variance
// and zero-entropy cases) and a one-pixel checkerboard (two levels, every
// difference in one bin), with full 32-window segments on every row.
TEST(GlcmGpuEngine, EqualsTheCpuEngineOnFlatAndCheckerboardImages) {
  if (gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const int size = 64;
  GreyImage flat{size, size, std::vector<std::uint8_t>(size * size, 201)};
  GreyImage checkerboard{size, size, {}};
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) checkerboard.pixels.push_back((x + y) % 2 ? 255 : 3);
  const std::vector<WindowCentre> centres =
      window_centres(std::vector<std::uint8_t>(size * size, 1), size, size, kWindowRadius);
  ASSERT_EQ(centres.size(), 32u * 32u);
  auto cpu = make_cpu_engine();
  auto gpu = make_gpu_engine(0);
  for (const GreyImage* image : {&flat, &checkerboard}) {
    cpu->load(*image, centres);
    gpu->load(*image, centres);
    for (int divisor : kLevelDivisors)
      for (int distance : {1, 2, 7, 16, 25})
        ASSERT_EQ(gpu->window_sums(divisor, distance), cpu->window_sums(divisor, distance))
            << (image == &flat ? "flat" : "checkerboard") << " divisor " << divisor << " distance " << distance;
  }
}

TEST(GlcmGpuEngine, EmptyAndSingleWindowImages) {
  if (gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const GreyImage image = textured_image(33, 33, 3);
  auto gpu = make_gpu_engine(0);
  gpu->load(image, {});
  EXPECT_TRUE(gpu->window_sums(4, 25).empty());
  gpu->load(image, {{16, 16}});
  EXPECT_EQ(gpu->window_sums(8, 25).front(), window_fixed_sums(image, 8, 16, 16, kWindowRadius, 25));
}

}  // namespace
}  // namespace helix::glcm
