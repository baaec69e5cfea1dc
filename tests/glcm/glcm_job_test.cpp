// glcm_job_test.cpp: the glcm work unit end to end on the CPU (and GPU when
// present): PNG input on real images shipped by python3-skimage, parameters,
// the block loop against the reference, checkpoints and restarts giving the
// same bytes, the output formats, and bad input.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/gpu_devices.h"
#include "core/directory_runtime.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/kind.h"
#include "glcm_job.h"

namespace helix {
const KindSpec& glcm_kind_spec();
}

namespace helix::glcm {
namespace {

namespace fs = std::filesystem;
// skimage's bundled images; $HELIX_SKIMAGE_DATA overrides (the GPU machine has a copy, not the package).
const std::string kSkimageData = [] {
  const char* override_dir = std::getenv("HELIX_SKIMAGE_DATA");
  return std::string(override_dir ? override_dir : "/usr/lib/python3/dist-packages/skimage/data") + "/";
}();

class GlcmJob : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kSkimageData + "camera.png")) GTEST_SKIP() << "python3-skimage's images are not installed";
    dir_ = fs::temp_directory_path() / ("glcm_job_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A crop of a real image, written as the WU's PNG.
  GreyImage write_crop(const std::string& source, const std::string& name, int x0, int y0, int w, int h) {
    const GreyImage full = read_grey_png(kSkimageData + source);
    GreyImage crop{w, h, {}};
    for (int y = y0; y < y0 + h; ++y)
      for (int x = x0; x < x0 + w; ++x) crop.pixels.push_back(full.at(x, y));
    write_grey_png(path(name), crop);
    return crop;
  }
  // A disc-shaped mask of the image's size.
  std::vector<std::uint8_t> write_disc_mask(const std::string& name, int w, int h, int cx, int cy, int r) {
    GreyImage mask{w, h, {}};
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) mask.pixels.push_back((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r ? 255 : 0);
    write_grey_png(path(name), mask);
    return mask.pixels;
  }
  nlohmann::json two_image_params() {
    write_crop("camera.png", "image_0", 200, 150, 70, 64);
    write_disc_mask("mask_0", 70, 64, 35, 32, 24);
    write_crop("brick.png", "image_1", 40, 60, 50, 40);  // no mask: the whole image
    return {{"kind", "glcm"},
            {"images", {{{"name", "camera"}, {"image", "image_0"}, {"mask", "mask_0"}},
                        {{"name", "brick"}, {"image", "image_1"}}}},
            {"distances", {1, 5, 25}},
            {"map_distance", 5}};
  }
  fs::path dir_;
};

TEST_F(GlcmJob, ReadsRealGreyPngsAndRefusesColour) {
  const GreyImage camera = read_grey_png(kSkimageData + "camera.png");
  EXPECT_EQ(camera.width, 512);
  EXPECT_EQ(camera.height, 512);
  const GreyImage crop = write_crop("camera.png", "crop.png", 10, 20, 30, 40);
  const GreyImage back = read_grey_png(path("crop.png"));
  EXPECT_EQ(back.pixels, crop.pixels);
  EXPECT_EQ(back.at(0, 0), camera.at(10, 20));
  try {
    read_grey_png(kSkimageData + "coffee.png");
    FAIL() << "a colour image was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("colour"), std::string::npos) << e.what();
  }
  std::ofstream(path("not.png")) << "GIF89a, not a PNG";
  EXPECT_THROW(read_grey_png(path("not.png")), InputError);
  EXPECT_THROW(read_grey_png(path("missing.png")), InputError);
  EXPECT_THROW(read_mask_png(path("crop.png"), 31, 40), InputError);
}

TEST_F(GlcmJob, SixteenBitGreyKeepsItsHighByte) {
  std::vector<std::uint16_t> values;
  for (int i = 0; i < 6; ++i) values.push_back(static_cast<std::uint16_t>(i * 13000 + 255));
  write_grey16_png(path("deep.png"), 3, 2, values);
  const GreyImage image = read_grey_png(path("deep.png"));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(image.pixels[i], values[i] >> 8) << i;
}

TEST_F(GlcmJob, ParamsRefuseAbsurdValues) {
  const nlohmann::json good = {{"kind", "glcm"}, {"images", {{{"name", "a"}, {"image", "image_0"}}}}};
  const GlcmParams params = parse_glcm_params(good);
  EXPECT_EQ(params.level_divisors, (std::vector<int>{4, 8, 16}));
  EXPECT_EQ(params.distances.size(), 25u);
  EXPECT_EQ(params.map_distance, 0);
  EXPECT_EQ(parse_glcm_params(glcm_params_json(params)).distances, params.distances);
  auto with = [&](const char* key, nlohmann::json value) {
    nlohmann::json p = good;
    p[key] = value;
    return p;
  };
  for (const nlohmann::json& bad :
       {with("distances", {0}), with("distances", {26}), with("distances", {3, 2}), with("distances", {1, 1}),
        with("distances", nlohmann::json::array()), with("levels", {12}), with("levels", {64, 64}),
        with("map_distance", 30), with("images", nlohmann::json::array()),
        with("images", {{{"name", "a/b"}, {"image", "image_0"}}}),
        with("images", {{{"name", "a"}, {"image", "i"}}, {{"name", "a"}, {"image", "j"}}}), nlohmann::json(3)})
    EXPECT_THROW(parse_glcm_params(bad), InputError) << "accepted " << bad.dump();
  // A map distance out of range names the range, as "distances" does.
  try {
    parse_glcm_params(with("map_distance", 30));
    ADD_FAILURE() << "map_distance 30 accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("outside 1..25"), std::string::npos) << error.what();
  }
}

TEST_F(GlcmJob, BlocksEqualTheReferenceOverEveryWindow) {
  const nlohmann::json json = two_image_params();
  const GlcmParams params = parse_glcm_params(json);
  DirectoryRuntime runtime(dir_.string());
  runtime.set_checkpoint_every_call(false);
  auto engine = make_cpu_engine();
  const GlcmResult result = run_glcm_job(params, *engine, runtime);
  ASSERT_EQ(result.images.size(), 2u);
  EXPECT_EQ(runtime.last_progress(), 1.0);
  // The camera crop's disc of radius 24 holds the centres about 8 px from its
  // centre: 205 on the lattice (window_centres is checked by brute force in
  // GlcmGeometry).
  const ImageResult& camera = result.images[0];
  EXPECT_EQ(camera.centres.size(), 205u);
  EXPECT_EQ(result.images[1].centres.size(), static_cast<std::size_t>((50 - 32) * (40 - 32)));
  const GreyImage image = read_grey_png(path("image_0"));
  ASSERT_EQ(camera.blocks.size(), 9u);
  for (std::size_t b = 0; b < camera.blocks.size(); ++b) {
    const BlockResult& block = camera.blocks[b];  // levels outer, distances inner
    std::vector<FixedFeatures> sums;
    for (const WindowCentre& c : camera.centres)
      sums.push_back(window_fixed_sums(image, block.level_divisor, c.x, c.y, kWindowRadius, block.distance));
    const BlockResult expected = block_result(block.level_divisor, block.distance, sums);
    const WindowStatistics reference = aggregate_windows(sums, static_cast<int>(displacement_set(block.distance).size()));
    for (int k = 0; k < kFeatureCount; ++k) {
      EXPECT_EQ(block.statistics.max[k], expected.statistics.max[k]);
      EXPECT_EQ(block.statistics.mean[k], expected.statistics.mean[k]);
      EXPECT_EQ(block.statistics.min[k], expected.statistics.min[k]);
      EXPECT_EQ(block.statistics.max[k], reference.max[k]);
      EXPECT_EQ(block.statistics.mean[k], reference.mean[k]);
      EXPECT_EQ(block.statistics.min[k], reference.min[k]);
      EXPECT_EQ(block.statistics.range[k], reference.range[k]);
      // The first window (row-major) holding the max, and the min.
      for (std::size_t w = 0; w < sums.size(); ++w) {
        EXPECT_LE(sums[w][k], sums[block.max_window[k]][k]);
        EXPECT_GE(sums[w][k], sums[block.min_window[k]][k]);
        if (static_cast<std::int32_t>(w) < block.max_window[k]) {
          EXPECT_LT(sums[w][k], sums[block.max_window[k]][k]);
        }
        if (static_cast<std::int32_t>(w) < block.min_window[k]) {
          EXPECT_GT(sums[w][k], sums[block.min_window[k]][k]);
        }
      }
      EXPECT_EQ(block.max_window[k], expected.max_window[k]);
      EXPECT_EQ(block.min_window[k], expected.min_window[k]);
      EXPECT_LE(block.statistics.min[k], block.statistics.mean[k]);
      EXPECT_LE(block.statistics.mean[k], block.statistics.max[k]);
    }
    if (block.distance == 5) {
      EXPECT_EQ(camera.maps[b / 3], sums);
    }
  }
}

TEST_F(GlcmJob, TableMapsAndSummaryReadBackExactly) {
  const GlcmParams params = parse_glcm_params(two_image_params());
  DirectoryRuntime runtime(dir_.string());
  auto engine = make_cpu_engine();
  const GlcmResult result = run_glcm_job(params, *engine, runtime);
  const std::string table = features_tsv(result);
  const std::vector<FeatureRow> rows = parse_features_tsv(table);
  ASSERT_EQ(rows.size(), 2u * 3 * 3 * kFeatureCount);
  // The table's bytes are printf's: its first row, formatted by snprintf.
  const ImageResult& first = result.images[0];
  const BlockResult& block = first.blocks[0];
  char line[512];
  std::snprintf(line, sizeof line, "%s\t%d\t%d\t%zu\t%s\t%.17g\t%.17g\t%.17g\t%.17g\t%d\t%d\t%d\t%d\n",
                first.name.c_str(), level_count(block.level_divisor), block.distance, first.centres.size(),
                kFeatureNames[0], block.statistics.max[0], block.statistics.mean[0], block.statistics.min[0],
                block.statistics.range[0], first.centres[block.max_window[0]].x, first.centres[block.max_window[0]].y,
                first.centres[block.min_window[0]].x, first.centres[block.min_window[0]].y);
  const std::size_t row_start = table.find('\n') + 1;
  EXPECT_EQ(table.substr(row_start, table.find('\n', row_start) + 1 - row_start), line);
  const FeatureRow& row = rows[kFeatureCount + kEntropy];  // camera, 64 levels, distance 5, entropy
  EXPECT_EQ(row.image, "camera");
  EXPECT_EQ(row.levels, 64);
  EXPECT_EQ(row.distance, 5);
  EXPECT_EQ(row.feature, "entropy");
  EXPECT_EQ(row.windows, 205);
  EXPECT_EQ(row.max, result.images[0].blocks[1].statistics.max[kEntropy]);
  EXPECT_EQ(row.mean, result.images[0].blocks[1].statistics.mean[kEntropy]);
  EXPECT_EQ(row.range, row.max - row.min);
  const WindowCentre at_max = result.images[0].centres[result.images[0].blocks[1].max_window[kEntropy]];
  EXPECT_EQ(row.max_x, at_max.x);
  EXPECT_EQ(row.max_y, at_max.y);
  const DecodedMaps maps = decode_maps(encode_maps(result), 10000);
  EXPECT_EQ(maps.map_distance, 5);
  ASSERT_EQ(maps.images.size(), 2u);
  EXPECT_EQ(maps.images[1].centres, result.images[1].centres);
  EXPECT_EQ(maps.images[1].maps, result.images[1].maps);
  EXPECT_THROW(decode_maps(encode_maps(result), 100), InputError);  // more windows than allowed
  const auto summary = nlohmann::json::parse(summary_json(result));
  EXPECT_EQ(summary.at("kind"), "glcm");
  EXPECT_EQ(summary.at("images").at(1).at("windows").get<std::size_t>(), result.images[1].centres.size());
  EXPECT_FALSE(summary.at("images").at(0).contains("blocks"));  // the table's alone
  EXPECT_THROW(parse_features_tsv("image\tlevels\tdistance\twindows\tfeature\tmax\n"
                                  "camera\t64\tfive\n"),
               InputError);
}

// Runs the app kind in dir_ until it finishes, stopping after every
// `stop_every` checkpoints (0: never); returns the three output files.
std::vector<std::string> run_app(const fs::path& dir, const nlohmann::json& params, bool cpu, int stop_every,
                                 int* restarts) {
  const int stop_after = stop_every > 0 ? stop_every : -1;
  *restarts = restart_until_finished(dir.string(), stop_after, [&](DirectoryRuntime& runtime, int) {
    run_kind(glcm_kind_spec(), params, RunOptions{cpu, 0}, runtime);
  });
  std::vector<std::string> outputs;
  for (const char* name : {"features", "maps", "summary"}) outputs.push_back(read_file_text((dir / name).string()));
  return outputs;
}

TEST_F(GlcmJob, RestartsFromEveryCheckpointGiveTheSameBytes) {
  const nlohmann::json params = two_image_params();
  int restarts = 0;
  const std::vector<std::string> straight = run_app(dir_, params, true, 0, &restarts);
  EXPECT_EQ(restarts, 0);
  fs::remove(dir_ / "features"), fs::remove(dir_ / "checkpoint.state");
  const std::vector<std::string> interrupted = run_app(dir_, params, true, 1, &restarts);
  // 18 blocks (2 images x 3 levels x 3 distances); each run saves a due
  // checkpoint after its first block and stops after its second.
  EXPECT_EQ(restarts, 9);
  EXPECT_EQ(interrupted, straight);
}

// The CPU engine asking for `per_call` blocks at a time (as the GPU engine
// asks for an image's), noting each call's size.
class BlocksAtATimeEngine final : public GlcmEngine {
 public:
  explicit BlocksAtATimeEngine(std::size_t per_call) : per_call_(per_call) {}
  std::string description() const override { return inner_->description(); }
  void load(const GreyImage& image, const std::vector<WindowCentre>& centres) override { inner_->load(image, centres); }
  std::vector<FixedFeatures> window_sums(int level_divisor, int distance) override {
    return inner_->window_sums(level_divisor, distance);
  }
  std::vector<BlockOutput> blocks(const std::vector<BlockRequest>& requests) override {
    calls.push_back(requests.size());
    return inner_->blocks(requests);
  }
  std::size_t blocks_per_call() const override { return per_call_; }
  std::vector<std::size_t> calls;

 private:
  std::size_t per_call_;
  std::unique_ptr<GlcmEngine> inner_ = make_cpu_engine();
};

// Runs the job in dir_ to its end on engine_for(run), stopping after every
// checkpoint when asked; returns the features table and the runs it took.
template <typename EngineFor>
std::pair<std::string, int> run_job_restarting(const fs::path& dir, const GlcmParams& params, bool stop_each,
                                               EngineFor engine_for) {
  std::string table;
  const int stop_after = stop_each ? 1 : -1;
  const int restarts = restart_until_finished(dir.string(), stop_after, [&](DirectoryRuntime& runtime, int run) {
    table = features_tsv(run_glcm_job(params, *engine_for(run), runtime));
  });
  return {table, restarts + 1};
}

// Blocks asked for several at a time, each image's in calls of at most that
// many, give the same table; and a task stopped between calls resumes on an
// engine that asks for other numbers (a GPU task resumed on the CPU, and back).
TEST_F(GlcmJob, BlocksAskedForSeveralAtATimeGiveTheSameTable) {
  const GlcmParams params = parse_glcm_params(two_image_params());  // 2 images x 9 blocks
  BlocksAtATimeEngine one(1), four(4);
  const std::string expected = run_job_restarting(dir_, params, false, [&](int) { return &one; }).first;
  EXPECT_EQ(one.calls, std::vector<std::size_t>(18, 1));
  fs::remove(dir_ / "checkpoint.state");
  EXPECT_EQ(run_job_restarting(dir_, params, false, [&](int) { return &four; }).first, expected);
  EXPECT_EQ(four.calls, (std::vector<std::size_t>{4, 4, 1, 4, 4, 1}));
  fs::remove(dir_ / "checkpoint.state");
  one.calls.clear(), four.calls.clear();
  const auto [table, runs] =
      run_job_restarting(dir_, params, true, [&](int run) -> GlcmEngine* { return run % 2 ? &one : &four; });
  EXPECT_EQ(table, expected);
  // Run 0 (four at a time) saves after blocks 0-3 of image 0 and stops after
  // 4-7; run 1 (one at a time) takes block 8 and stops after image 1's first;
  // run 2 takes image 1's 1-4 and stops after 5-8; run 3 writes the result.
  EXPECT_EQ(runs, 4);
  ASSERT_FALSE(four.calls.empty());
  ASSERT_FALSE(one.calls.empty());
  EXPECT_EQ((std::vector<std::size_t>(four.calls.begin(), four.calls.begin() + 2)), (std::vector<std::size_t>{4, 4}));
  EXPECT_EQ(one.calls.front(), 1u);
}

TEST_F(GlcmJob, BadInputGivesOneErrorAndNoResult) {
  nlohmann::json params = two_image_params();
  const KindSpec& kind = glcm_kind_spec();
  auto expect_refused = [&](const nlohmann::json& p, const std::string& words) {
    DirectoryRuntime runtime(dir_.string());
    try {
      run_kind(kind, p, RunOptions{true, 0}, runtime);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(dir_ / "features"));
    EXPECT_FALSE(fs::exists(dir_ / "summary"));
  };
  write_disc_mask("small_mask", 70, 64, 35, 32, 15);  // a disc narrower than a window
  params["images"][0]["mask"] = "small_mask";
  expect_refused(params, "no local window");
  write_disc_mask("wide_mask", 71, 64, 35, 32, 24);
  params["images"][0]["mask"] = "wide_mask";
  expect_refused(params, "71x64");
  fs::copy_file(kSkimageData + "astronaut.png", dir_ / "colour");
  params["images"][0]["mask"] = "mask_0";
  params["images"][1]["image"] = "colour";
  expect_refused(params, "colour");
  std::ofstream(dir_ / "text") << "not an image";
  params["images"][1]["image"] = "text";
  expect_refused(params, "not a PNG");
  params["images"][1]["image"] = "image_1";
  params["distances"] = {1, 40};
  expect_refused(params, "outside 1..25");
}

TEST_F(GlcmJob, GpuWritesTheCpuBytes) {
  if (gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  nlohmann::json params = two_image_params();
  params.erase("distances");  // all 25
  int restarts = 0;
  const std::vector<std::string> cpu = run_app(dir_, params, true, 0, &restarts);
  for (const char* name : {"features", "maps", "summary", "checkpoint.state"}) fs::remove(dir_ / name);
  // A CPU task stopped inside the first image (7 blocks in), then GPU runs
  // that each stop after their first checkpoint: the GPU, which takes an
  // image's remaining blocks at once, resumes inside an image and between them.
  {
    DirectoryRuntime runtime(dir_.string());
    runtime.stop_after_checkpoints(7);
    EXPECT_THROW(run_kind(glcm_kind_spec(), params, RunOptions{true, 0}, runtime), StopRequested);
  }
  const std::vector<std::string> gpu = run_app(dir_, params, false, 1, &restarts);
  EXPECT_EQ(restarts, 1);
  EXPECT_EQ(gpu[0], cpu[0]);  // the table
  EXPECT_EQ(gpu[1], cpu[1]);  // the maps
  // The summaries differ only in the engine's description.
  auto a = nlohmann::json::parse(cpu[2]), b = nlohmann::json::parse(gpu[2]);
  a.erase("engine"), b.erase("engine");
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace helix::glcm
