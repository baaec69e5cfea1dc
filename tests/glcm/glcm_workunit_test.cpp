// glcm_workunit_test.cpp: the glcm work generator (`helix-wu glcm make`, run
// in-process through its real command line): option lists, the cost model,
// greedy batching, masks and the detected well going into the WU, resource
// bounds, clean refusals that leave nothing behind; and `helix-wu glcm map`,
// the feature-map PNG.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/kind.h"
#include "glcm/glcm_server.h"
#include "glcm_test_util.h"
#include "server_test_util.h"

namespace helix::test {
namespace {
namespace fs = std::filesystem;
using namespace helix::glcm;

TEST(GlcmOptions, DistanceAndLevelListsParseAndRefuseAbsurdValues) {
  EXPECT_EQ(parse_distance_list("1-25").size(), 25u);
  EXPECT_EQ(parse_distance_list("1-25").back(), 25);
  EXPECT_EQ(parse_distance_list("1,2,5-7"), (std::vector<int>{1, 2, 5, 6, 7}));
  EXPECT_EQ(parse_distance_list("3..5"), (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(parse_distance_list("9"), (std::vector<int>{9}));
  for (const char* bad : {"0", "26", "1-40", "1-999999999", "7-3", "a", "1,,2", "-1", "1.5", "1-", "99999999999"})
    EXPECT_THROW(parse_distance_list(bad), InputError) << bad;
  EXPECT_EQ(parse_levels_list("64,32,16"), (std::vector<int>{4, 8, 16}));
  EXPECT_EQ(parse_levels_list("16"), (std::vector<int>{16}));
  for (const char* bad : {"12", "64,", "x", "256"}) EXPECT_THROW(parse_levels_list(bad), InputError) << bad;
}

TEST(GlcmCost, WindowsTimesDisplacementsTimesLevels) {
  GlcmParams params;
  params.level_divisors = {4, 8, 16};
  params.distances = {1, 2};  // 4 + 6 displacements
  EXPECT_EQ(image_cost(100, params), 100.0 * 10 * 3);
  params.distances.clear();
  for (int d = 1; d <= 25; ++d) params.distances.push_back(d);  // 1026 displacements
  // A paper-size image (~22,000 windows) at every distance and level: 6.8e7
  // steps; the default WU budget holds four of them.
  EXPECT_EQ(image_cost(22000, params), 22000.0 * 1026 * 3);
  EXPECT_LE(4 * image_cost(22000, params), kDefaultMaxCostPerWu);
  EXPECT_GT(5 * image_cost(22000, params), kDefaultMaxCostPerWu);
}

TEST(GlcmBatching, GreedyInInputOrderNeverSplitting) {
  const std::vector<std::string> names{"a", "b", "c", "d", "e", "f"};
  const std::vector<BatchItem> items{{5, 10, 100}, {4, 10, 100}, {3, 10, 100}, {9, 10, 100}, {1, 10, 100}, {50, 10, 100}};
  const auto batches = batch_images(items, names, 10, kMaxWindowsPerWu);
  // 5+4 fit; 3 would make 12: new WU; 3+9 > 10: new WU; 9+1 = 10 fits; 50 alone.
  EXPECT_EQ(batches, (std::vector<std::vector<std::size_t>>{{0, 1}, {2}, {3, 4}, {5}}));
  // The summary limit closes WUs too: two images of 600 KB cannot share one.
  const std::vector<BatchItem> big{{1, 10, 600000}, {1, 10, 600000}, {1, 10, 300000}};
  EXPECT_EQ(batch_images(big, {"a", "b", "c"}, 1e9, kMaxWindowsPerWu), (std::vector<std::vector<std::size_t>>{{0}, {1, 2}}));
  EXPECT_THROW(batch_images({{1, 10, kMaxSummaryBytes + 1}}, {"a"}, 1e9, kMaxWindowsPerWu), InputError);
  EXPECT_THROW(batch_images({{1, kMaxWindowsPerWu + 1, 100}}, {"a"}, 1e9, kMaxWindowsPerWu), InputError);
  EXPECT_THROW(batch_images(items, names, 0, kMaxWindowsPerWu), InputError);
  // The window bound closes WUs too: 3 + 3 windows do not fit a bound of 5.
  EXPECT_EQ(batch_images({{1, 3, 100}, {1, 3, 100}}, {"a", "b"}, 1e9, 5),
            (std::vector<std::vector<std::size_t>>{{0}, {1}}));
}

TEST(GlcmBatching, WithoutMapsAWuHoldsFourTimesTheWindows) {
  GlcmParams params;
  params.map_distance = 0;
  EXPECT_EQ(max_windows_per_wu(params), 4 * kMaxWindowsPerWu);
  params.map_distance = 1;
  EXPECT_EQ(max_windows_per_wu(params), kMaxWindowsPerWu);
}

TEST(GlcmBatching, SummaryBoundHoldsForARealSummary) {
  GlcmParams params;
  params.level_divisors = {4, 8, 16};
  for (int d = 1; d <= 25; ++d) params.distances.push_back(d);
  // An image's name, size and windows, and its two file names echoed in the
  // params at their longest (64): about 300 bytes. The blocks' statistics are
  // the features table's alone (they took ~130 KB an image and capped a WU at
  // seven images), so a WU's 1,000 images fit 1 MiB with room to spare.
  const std::uint64_t per_image = image_summary_bytes(params, "plate_17_well_A01", 1280, 960, 22000);
  EXPECT_GT(per_image, 2u * 64 + 17);
  EXPECT_LT(per_image, 1024u);
  EXPECT_LT(summary_base_bytes(params) + 1000 * per_image, kMaxSummaryBytes / 2);
}

TEST(GlcmBatching, SummaryBoundHoldsForAGenuineSummary) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine genuine = glcm_genuine("summary_bound");
  std::uint64_t bound = summary_base_bytes(genuine.params);
  for (std::size_t i = 0; i < genuine.params.images.size(); ++i) {
    const ImageResult& image = genuine.result.images[i];
    bound += image_summary_bytes(genuine.params, image.name, image.width, image.height, image.centres.size());
  }
  const std::uint64_t actual = read_file_text(genuine.files()[2]).size();
  EXPECT_LE(actual, bound);
  // A bound, not a guess of another order (it allows 1 KiB for the engine's description).
  const std::uint64_t engine = genuine.result.engine.size();
  EXPECT_GT(actual - engine, (bound - 1024) / 2);
  EXPECT_LE(read_file_text(genuine.files()[0]).size(), max_features_bytes(genuine.params));
  std::vector<std::uint64_t> windows;
  for (const ImageResult& image : genuine.result.images) windows.push_back(image.centres.size());
  const auto maps = read_file_bytes(genuine.files()[1]);
  EXPECT_LE(maps.size(), max_maps_file_bytes(genuine.params, windows));
  // The raw size is exact: the file's header records it.
  std::uint64_t raw = 0;
  std::memcpy(&raw, maps.data() + 8, 8);
  EXPECT_EQ(raw, maps_raw_bytes(genuine.params, windows));
}

// Writes crops of skimage's brick as PNG inputs; returns their paths.
std::vector<std::string> write_crops(const std::string& dir, const std::vector<std::pair<int, int>>& sizes) {
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    paths.push_back(dir + "/tile" + std::to_string(i) + ".png");
    write_grey_png(paths.back(), skimage_crop("brick.png", 10 + 50 * static_cast<int>(i), 20, sizes[i].first,
                                              sizes[i].second));
  }
  return paths;
}

std::string xml_text(const std::string& path, const char* element) {
  pugi::xml_document document;
  EXPECT_TRUE(document.load_file(path.c_str())) << path;
  return document.child("input_template").child("workunit").child(element).text().as_string();
}

TEST(GlcmMake, BatchesImagesByCostIntoWorkUnits) {
  SKIP_WITHOUT_SKIMAGE();
  const std::string in = scratch_dir("glcm_in"), out = scratch_dir("glcm_out");
  // Whole-image ROIs: (w - 32) x (h - 32) windows: 784, 1216, 2304.
  const auto paths = write_crops(in, {{60, 60}, {70, 64}, {80, 80}});
  // Levels 64 only, distances 1, 2 (10 displacements): costs 7840, 12160, 23040.
  const WuRun run = run_glcm_wu({"glcm", "make", "--image", paths[0], "--image", paths[1], "--image", paths[2], "--levels",
                                 "64", "--distances", "1-2", "--max-cost-per-wu", "20000", "--name", "plate", "--out", out});
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.specs.size(), 2u);
  EXPECT_EQ(run.specs[0].name, "plate_0");
  EXPECT_EQ(run.specs[1].name, "plate_1");
  EXPECT_EQ(run.specs[0].fpops_estimate, (7840.0 + 12160.0) * kFlopsPerUpdateStep);
  EXPECT_EQ(run.specs[1].fpops_estimate, 23040.0 * kFlopsPerUpdateStep);
  EXPECT_EQ(run.specs[1].fpops_bound, 20 * run.specs[1].fpops_estimate);
  EXPECT_EQ(run.specs[0].outputs, (std::vector<std::string>{"features", "maps", "summary"}));
  ASSERT_EQ(run.specs[0].inputs.size(), 3u);
  EXPECT_EQ(run.specs[0].inputs[0].first, "params");
  EXPECT_EQ(run.specs[0].inputs[1], std::make_pair(std::string("plate_0.image_0.png"), out + "/plate_0.image_0.png"));
  EXPECT_EQ(run.specs[0].inputs[2].first, "plate_0.image_1.png");

  const GlcmParams first = parse_glcm_params(nlohmann::json::parse(read_file_text(out + "/plate_0.params.json")));
  ASSERT_EQ(first.images.size(), 2u);
  EXPECT_EQ(first.images[0].name, "tile0");
  EXPECT_EQ(first.images[1].name, "tile1");
  EXPECT_EQ(first.images[1].image_file, "plate_0.image_1.png");
  EXPECT_EQ(first.images[1].mask_file, "");
  EXPECT_EQ(first.level_divisors, (std::vector<int>{4}));
  EXPECT_EQ(first.distances, (std::vector<int>{1, 2}));
  EXPECT_EQ(wu_name_of(first), "plate_0");
  EXPECT_EQ(read_file_bytes(out + "/plate_0.image_1.png"), read_file_bytes(paths[1]));  // the PNG as given
  const GlcmParams second = parse_glcm_params(nlohmann::json::parse(read_file_text(out + "/plate_1.params.json")));
  ASSERT_EQ(second.images.size(), 1u);
  EXPECT_EQ(second.images[0].name, "tile2");
  EXPECT_EQ(second.images[0].image_file, "plate_1.image_0.png");

  EXPECT_EQ(std::stod(xml_text(out + "/plate_1.wu_template.xml", "rsc_fpops_est")), 23040.0 * kFlopsPerUpdateStep);
  EXPECT_TRUE(fs::exists(out + "/plate_1.create_work.sh"));
  // The validator's caps for this WU are what the bounds allow.
  EXPECT_GE(run.specs[1].max_output_bytes, static_cast<double>(max_maps_file_bytes(second, {2304})));
  EXPECT_GE(run.specs[1].max_output_bytes, static_cast<double>(kMaxSummaryBytes));
}

// Job size matching (core/size_class.h): the class marks every WU; an
// explicit --max-cost-per-wu wins over the GPU class's 1.2e10.
TEST(GlcmMake, SizeClassMarksTheWorkUnitsAndExplicitCostsWin) {
  SKIP_WITHOUT_SKIMAGE();
  const std::string in = scratch_dir("glcm_class_in"), out = scratch_dir("glcm_class_out");
  const auto paths = write_crops(in, {{60, 60}, {70, 64}, {80, 80}});
  const WuRun gpu = run_glcm_wu({"glcm", "make", "--image", paths[0], "--image", paths[1], "--image", paths[2], "--levels",
                                 "64", "--distances", "1-2", "--size-class", "gpu", "--name", "big", "--out", out});
  const WuRun sized = run_glcm_wu({"glcm", "make", "--image", paths[0], "--image", paths[1], "--image", paths[2],
                                   "--levels", "64", "--distances", "1-2", "--size-class", "gpu", "--max-cost-per-wu",
                                   "20000", "--name", "plate", "--out", out});
  ASSERT_EQ(gpu.error + sized.error, "");
  ASSERT_EQ(gpu.specs.size(), 1u);
  EXPECT_EQ(gpu.specs[0].size_class, 1);
  ASSERT_EQ(sized.specs.size(), 2u);  // as BatchesImagesByCostIntoWorkUnits
  EXPECT_EQ(sized.specs[1].size_class, 1);
  EXPECT_NE(read_file_text(out + "/plate_1.create_work.sh").find("--size_class 1"), std::string::npos);
}

TEST(GlcmMake, ImageDirAndMasksGoIntoTheWorkUnit) {
  SKIP_WITHOUT_SKIMAGE();
  const std::string in = scratch_dir("glcm_dir"), masks = scratch_dir("glcm_masks"), out = scratch_dir("glcm_out");
  write_crops(in, {{70, 70}, {64, 60}});
  std::ofstream(in + "/notes.txt") << "not an image, not picked up";
  const GreyImage disc = disc_mask(70, 70, 35, 35, 30);
  write_grey_png(masks + "/m0.png", disc);
  write_grey_png(masks + "/m1.png", GreyImage{64, 60, std::vector<std::uint8_t>(64 * 60, 1)});
  const WuRun run = run_glcm_wu({"glcm", "make", "--image-dir", in, "--mask", masks + "/m0.png", "--mask",
                                 masks + "/m1.png", "--distances", "1", "--map-distance", "1", "--name", "d", "--out", out});
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.specs.size(), 1u);
  const GlcmParams params = parse_glcm_params(nlohmann::json::parse(read_file_text(out + "/d_0.params.json")));
  EXPECT_EQ(params.images[0].mask_file, "d_0.mask_0.png");
  EXPECT_EQ(params.images[1].mask_file, "d_0.mask_1.png");
  EXPECT_EQ(params.map_distance, 1);
  EXPECT_EQ(params.level_divisors, (std::vector<int>{4, 8, 16}));
  EXPECT_EQ(read_file_bytes(out + "/d_0.mask_0.png"), read_file_bytes(masks + "/m0.png"));
  // Cost: the disc's windows (the reference's count) and the full 32 x 28, x 4 displacements x 3 levels.
  const std::size_t disc_windows = window_centres(disc.pixels, 70, 70, kWindowRadius).size();
  EXPECT_GT(disc_windows, 0u);
  EXPECT_LT(disc_windows, 38u * 38u);
  EXPECT_EQ(run.specs[0].fpops_estimate, (disc_windows + 32.0 * 28) * 4 * 3 * kFlopsPerUpdateStep);
  std::vector<std::string> logical;
  for (const auto& input : run.specs[0].inputs) logical.push_back(input.first);
  EXPECT_EQ(logical, (std::vector<std::string>{"params", "d_0.image_0.png", "d_0.mask_0.png", "d_0.image_1.png",
                                                "d_0.mask_1.png"}));
}

TEST(GlcmMake, SixteenBitImagesGoIntoTheWorkUnitAsGiven) {
  const std::string in = scratch_dir("glcm_16"), out = scratch_dir("glcm_out");
  std::vector<std::uint16_t> pixels(50 * 40);
  for (std::size_t p = 0; p < pixels.size(); ++p) pixels[p] = static_cast<std::uint16_t>(p * 977 % 65536);
  write_grey16_png(in + "/deep.png", 50, 40, pixels);
  const WuRun run = run_glcm_wu({"glcm", "make", "--image", in + "/deep.png", "--distances", "2", "--levels", "32",
                                 "--name", "s", "--out", out});
  ASSERT_EQ(run.error, "");
  EXPECT_EQ(read_file_bytes(out + "/s_0.image_0.png"), read_file_bytes(in + "/deep.png"));
  EXPECT_EQ(run.specs[0].fpops_estimate, 18.0 * 8 * 6 * 1 * kFlopsPerUpdateStep);  // 18 x 8 windows, 6 displacements
}

// Through helix-wu's real command line, once glcm is in HELIX_KINDS.
TEST(GlcmMake, HelixWuCommandLine) {
  SKIP_WITHOUT_SKIMAGE();
  if (!find_server_kind("glcm")) GTEST_SKIP() << "glcm is not a registered kind yet (HELIX_KINDS)";
  const std::string in = scratch_dir("glcm_tool"), out = scratch_dir("glcm_tool_out");
  const auto paths = write_crops(in, {{60, 60}, {64, 64}});
  const ToolRun made = run_tool(std::string(HELIX_WU) + " glcm make --image " + paths[0] + " --image " + paths[1] +
                                " --distances 1-4 --name t --out " + out);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_TRUE(fs::exists(out + "/t_0.wu_template.xml"));
  EXPECT_TRUE(fs::exists(out + "/t_0.image_1.png"));
  const std::string refused_out = scratch_dir("glcm_tool_refused");
  const ToolRun refused = run_tool(std::string(HELIX_WU) + " glcm make --image " + paths[0] +
                                   " --distances 1,40 --name t --out " + refused_out);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(line_count(refused.err), 1) << refused.err;
  EXPECT_TRUE(fs::is_empty(refused_out));
}

// A screen image: a light plate, the well's dark rim (radius 46..51 around
// (61, 58)) and brick texture inside it.
constexpr int kWellX = 61, kWellY = 58, kRimInner = 46, kRimOuter = 51;
GreyImage synthetic_well() {
  const GreyImage texture = skimage_crop("brick.png", 150, 150, 120, 120);
  GreyImage image{120, 120, std::vector<std::uint8_t>(120 * 120)};
  for (int y = 0; y < 120; ++y)
    for (int x = 0; x < 120; ++x) {
      const double r = std::hypot(x - kWellX, y - kWellY);
      image.pixels[y * 120 + x] = r < kRimInner ? texture.at(x, y) : r <= kRimOuter ? 15 : 200;
    }
  return image;
}

TEST(GlcmWell, DetectorFindsTheWellWithinAFewPixels) {
  SKIP_WITHOUT_SKIMAGE();
  const WellCircle well = detect_well(synthetic_well(), "synthetic");
  EXPECT_NEAR(well.centre_x, kWellX, 2.0);
  EXPECT_NEAR(well.centre_y, kWellY, 2.0);
  EXPECT_GE(well.radius, kRimInner - 3);
  EXPECT_LE(well.radius, kRimOuter + 3);
  // Nothing circular: one clear error naming the image.
  try {
    detect_well(GreyImage{120, 120, std::vector<std::uint8_t>(120 * 120, 90)}, "flat.png");
    ADD_FAILURE() << "a flat image has no well";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("flat.png"), std::string::npos) << error.what();
  }
}

TEST(GlcmMake, DetectedWellBecomesTheMaskWithoutTheRim) {
  SKIP_WITHOUT_SKIMAGE();
  const std::string in = scratch_dir("glcm_well"), out = scratch_dir("glcm_out");
  write_grey_png(in + "/A01.png", synthetic_well());
  const WuRun run = run_glcm_wu({"glcm", "make", "--image", in + "/A01.png", "--detect-well", "--distances", "1-3",
                                 "--name", "w", "--out", out});
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.specs.size(), 1u);
  const GreyImage mask = read_grey_png(out + "/w_0.mask_0.png");
  ASSERT_EQ(mask.width, 120);
  int inside = 0;
  for (int y = 0; y < 120; ++y)
    for (int x = 0; x < 120; ++x) {
      const double r = std::hypot(x - kWellX, y - kWellY);
      if (r >= kRimInner) {
        EXPECT_EQ(mask.at(x, y), 0) << "rim or plate in the ROI at " << x << "," << y;
      }
      if (r <= kRimInner - 10) {
        EXPECT_EQ(mask.at(x, y), 255) << "well interior left out at " << x << "," << y;
      }
      inside += mask.at(x, y) != 0;
    }
  EXPECT_GT(inside, 3000);  // a disc of radius ~41
  const std::size_t windows = window_centres(mask.pixels, 120, 120, kWindowRadius).size();
  EXPECT_GT(windows, 1000u);
  EXPECT_EQ(run.specs[0].fpops_estimate, windows * (4.0 + 6 + 8) * 3 * kFlopsPerUpdateStep);
}

// The command must fail with one line naming the problem, and write nothing.
void expect_refused(const std::vector<std::string>& options, const std::string& words) {
  const std::string out = scratch_dir("glcm_refused") + "/out";
  std::vector<std::string> args{"glcm", "make", "--name", "r", "--out", out};
  args.insert(args.end(), options.begin(), options.end());
  const WuRun run = run_glcm_wu(args);
  EXPECT_TRUE(run.specs.empty());
  EXPECT_NE(run.error.find(words), std::string::npos) << "expected \"" << words << "\", got: " << run.error;
  EXPECT_EQ(run.error.find('\n'), std::string::npos) << run.error;
  EXPECT_TRUE(!fs::exists(out) || fs::is_empty(out)) << words << ": files left behind";
}

TEST(GlcmMake, BadInputsAreRefusedCleanly) {
  SKIP_WITHOUT_SKIMAGE();
  const std::string in = scratch_dir("glcm_bad");
  const auto paths = write_crops(in, {{60, 60}, {60, 60}});
  std::ofstream(in + "/text.png") << "GIF89a, not a PNG at all";
  write_grey_png(in + "/small.png", skimage_crop("brick.png", 0, 0, 30, 60));
  write_grey_png(in + "/mask_wrong_size.png", disc_mask(61, 60, 30, 30, 25));
  write_grey_png(in + "/mask_small_disc.png", disc_mask(60, 60, 30, 30, 12));
  const std::string colour = skimage_image("astronaut.png");

  expect_refused({"--image", in + "/text.png"}, "not a PNG");
  expect_refused({"--image", colour}, "colour");
  expect_refused({"--image", in + "/missing.png"}, "missing.png");
  expect_refused({"--image", paths[0], "--mask", in + "/mask_wrong_size.png"}, "61x60");
  expect_refused({"--image", paths[0], "--mask", in + "/mask_small_disc.png"}, "no local window");
  expect_refused({"--image", in + "/small.png"}, "no local window");
  expect_refused({"--image", paths[0], "--image", paths[1], "--mask", in + "/mask_small_disc.png"}, "--mask given 1");
  expect_refused({"--image", paths[0], "--distances", "0"}, "outside 1..25");
  expect_refused({"--image", paths[0], "--distances", "1-40"}, "outside 1..25");
  expect_refused({"--image", paths[0], "--distances", "3,2"}, "ascend");
  expect_refused({"--image", paths[0], "--levels", "12"}, "64, 32 or 16");
  expect_refused({"--image", paths[0], "--distances", "1,2", "--map-distance", "7"}, "not one of the distances");
  expect_refused({"--image", paths[0], "--image", paths[0]}, "same name");
  expect_refused({"--image", paths[0], "--max-cost-per-wu", "-5"}, "positive");
  expect_refused({"--image", paths[0], "--well-margin", "3"}, "--detect-well");
  expect_refused({"--image", paths[0], "--detect-well", "--mask", in + "/mask_small_disc.png"}, "excludes");
  expect_refused({"--image-dir", in + "/nonexistent"}, "not a directory");
  expect_refused({}, "--image");
  // The colour image after a good one: still nothing written.
  expect_refused({"--image", paths[0], "--image", colour}, "colour");
  const WuRun bad_name = run_glcm_wu({"glcm", "make", "--image", paths[0], "--name", "../x", "--out", in + "/o"});
  EXPECT_NE(bad_name.error.find("--name"), std::string::npos) << bad_name.error;
}

// ---------------------------------------------------------------- map

TEST(GlcmMap, RendersOneFeatureScaledToItsRange) {
  // Three windows of a 40x40 image, contrast at distance 1 (4 displacements):
  // fixed sums 4 x {1, 3, 2} in feature units give values 1, 3 and 2.
  DecodedMaps maps;
  maps.map_distance = 1;
  maps.level_divisors = {4, 16};
  ImageResult image;
  image.name = "well", image.width = 40, image.height = 40;
  image.centres = {{18, 17}, {19, 17}, {20, 20}};
  for (int level = 0; level < 2; ++level) {
    std::vector<FixedFeatures> sums(3, FixedFeatures{});
    for (int w = 0; w < 3; ++w)
      sums[w][kContrast] = feature_to_fixed(kContrast, (level == 0 ? std::vector<double>{1, 3, 2}
                                                                     : std::vector<double>{5, 5, 5})[w]) * 4;
    image.maps.push_back(sums);
  }
  maps.images = {image};
  const GreyImage picture = render_feature_map(maps, "well", 64, kContrast, nullptr);
  ASSERT_EQ(picture.width, 40);
  ASSERT_EQ(picture.height, 40);
  EXPECT_EQ(picture.at(18, 17), 1);    // the minimum
  EXPECT_EQ(picture.at(19, 17), 255);  // the maximum
  EXPECT_EQ(picture.at(20, 20), 128);  // halfway: 1 + 127
  int lit = 0;
  for (std::uint8_t p : picture.pixels) lit += p != 0;
  EXPECT_EQ(lit, 3);  // every other pixel is 0
  const GreyImage flat = render_feature_map(maps, "well", 16, kContrast, nullptr);
  EXPECT_EQ(flat.at(20, 20), 255);  // all equal: shown at full brightness
  GreyImage under{40, 40, std::vector<std::uint8_t>(1600, 203)};
  const GreyImage dimmed = render_feature_map(maps, "well", 64, kContrast, &under);
  EXPECT_EQ(dimmed.at(0, 0), 50);  // 203 / 4
  EXPECT_EQ(dimmed.at(19, 17), 255);
  EXPECT_THROW(render_feature_map(maps, "other", 64, kContrast, nullptr), InputError);
  EXPECT_THROW(render_feature_map(maps, "well", 32, kContrast, nullptr), InputError);
  GreyImage wrong{41, 40, std::vector<std::uint8_t>(1640)};
  EXPECT_THROW(render_feature_map(maps, "well", 64, kContrast, &wrong), InputError);
  EXPECT_EQ(feature_index("entropy"), kEntropy);
  EXPECT_THROW(feature_index("energy"), InputError);
}

TEST(GlcmMap, CommandRendersARealResultsMap) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine genuine = glcm_genuine("map");
  const std::string png = genuine.result_dir + "/entropy.png";
  const WuRun run = run_glcm_wu({"glcm", "map", "--maps", genuine.files()[1], "--image", "gravel", "--levels", "16",
                                 "--feature", "entropy", "--out", png});
  ASSERT_EQ(run.error, "");
  const GreyImage picture = read_grey_png(png);
  const ImageResult& gravel = genuine.result.images[1];
  ASSERT_EQ(picture.width, gravel.width);
  std::size_t lit = 0;
  for (std::uint8_t p : picture.pixels) lit += p != 0;
  EXPECT_EQ(lit, gravel.centres.size());
  // Distance 3 is the map distance: block (16 levels, distance 3) holds the
  // argmax and argmin windows of entropy, which are 255 and 1 in the map.
  const BlockResult& block = gravel.blocks[3];
  ASSERT_EQ(block.level_divisor, 16);
  ASSERT_EQ(block.distance, 3);
  const WindowCentre at_max = gravel.centres[block.max_window[kEntropy]], at_min = gravel.centres[block.min_window[kEntropy]];
  EXPECT_EQ(picture.at(at_max.x, at_max.y), 255);
  EXPECT_EQ(picture.at(at_min.x, at_min.y), 1);
  EXPECT_EQ(picture.at(0, 0), 0);
  const WuRun unknown = run_glcm_wu({"glcm", "map", "--maps", genuine.files()[1], "--image", "nosuch", "--out", png});
  EXPECT_NE(unknown.error.find("nosuch"), std::string::npos) << unknown.error;
}

}  // namespace
}  // namespace helix::test
