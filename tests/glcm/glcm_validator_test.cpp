// glcm_validator_test.cpp: the glcm kind's validator on a genuine result (a
// WU made by the work generator, run by the CPU engine) and on damaged or
// forged copies: forgeries are written through the app's own writers, so the
// files stay consistent with each other and only the check under test can
// notice. Also compare mode, and helix-validate's real command line once glcm
// is a registered kind.
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "core/kind.h"
#include "glcm/glcm_server.h"
#include "glcm_test_util.h"
#include "server_test_util.h"

namespace helix {
const KindSpec& glcm_server_kind_spec();
}

namespace helix::test {
namespace {
namespace fs = std::filesystem;
using namespace helix::glcm;

const ServerFunctions& glcm_kind() { return glcm_server_kind_spec().server; }

CheckOutcome check(const GlcmGenuine& genuine, bool with_inputs) {
  ServerOptions options;
  if (with_inputs) options.inputs_dir = genuine.inputs_dir;
  return glcm_kind().check_result(genuine.files(), options);
}

void expect_invalid(const GlcmGenuine& genuine, bool with_inputs, const std::string& words) {
  const CheckOutcome outcome = check(genuine, with_inputs);
  EXPECT_EQ(outcome.verdict, Verdict::kInvalid) << (with_inputs ? "with inputs" : "without inputs");
  EXPECT_NE(outcome.reason.find(words), std::string::npos) << "expected \"" << words << "\", got: " << outcome.reason;
  EXPECT_EQ(outcome.reason.find('\n'), std::string::npos) << outcome.reason;
}

// The same WU without maps (map_distance 0): then only the CPU spot check can
// see into the table's max and min, which makes its tests deterministic.
GlcmGenuine without_maps(GlcmGenuine genuine) {
  genuine.params.map_distance = 0;
  genuine.result.params.map_distance = 0;
  for (ImageResult& image : genuine.result.images) image.maps.clear();
  write_file_atomic(genuine.inputs_dir + "/" + wu_params_file(genuine.wu_name),
                    glcm_params_json(genuine.params).dump(1) + "\n");
  genuine.write(genuine.result);
  return genuine;
}

// Applies `change` to every block of a copy of the result.
template <typename Change>
GlcmResult with_blocks(const GlcmResult& result, Change change) {
  GlcmResult forged = result;
  for (ImageResult& image : forged.images)
    for (BlockResult& block : image.blocks) change(block);
  return forged;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}
void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  write_file_atomic(path, text);
}

TEST(GlcmValidator, GenuineResultIsValidWithAndWithoutInputs) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine genuine = glcm_genuine("valid");
  ASSERT_EQ(genuine.result.images.size(), 2u);
  EXPECT_EQ(genuine.result.images[0].centres.size(), 32u * 28u);  // brick 64x60, whole image
  EXPECT_EQ(lines_of(genuine.files()[0]).size(), 1u + 2 * 2 * 2 * kFeatureCount);
  EXPECT_EQ(check(genuine, false).verdict, Verdict::kValid) << check(genuine, false).reason;
  EXPECT_EQ(check(genuine, true).verdict, Verdict::kValid) << check(genuine, true).reason;
  const GlcmGenuine plain = without_maps(glcm_genuine("valid_plain"));
  EXPECT_EQ(check(plain, true).verdict, Verdict::kValid) << check(plain, true).reason;
  EXPECT_EQ(output_names(glcm_server_kind_spec()), (std::vector<std::string>{"features", "maps", "summary"}));
}

TEST(GlcmValidator, ForgedMaxOrMinIsCaughtByTheCpuSpotCheck) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine genuine = without_maps(glcm_genuine("forged_max"));
  genuine.write(with_blocks(genuine.result, [](BlockResult& block) {
    for (int k = 0; k < kFeatureCount; ++k) {
      block.statistics.max[k] = std::nextafter(block.statistics.max[k], INFINITY);  // one ulp
      block.statistics.range[k] = block.statistics.max[k] - block.statistics.min[k];
    }
  }));
  EXPECT_EQ(check(genuine, false).verdict, Verdict::kValid);  // self-consistent: only recomputation sees it
  expect_invalid(genuine, true, "max is not the recomputed value");
  genuine.write(with_blocks(genuine.result, [](BlockResult& block) {
    for (int k = 0; k < kFeatureCount; ++k) {
      block.statistics.min[k] = std::nextafter(block.statistics.min[k], -INFINITY);
      block.statistics.range[k] = block.statistics.max[k] - block.statistics.min[k];
    }
  }));
  expect_invalid(genuine, true, "min is not the recomputed value");
}

TEST(GlcmValidator, WrongWindowPositionIsInvalid) {
  SKIP_WITHOUT_SKIMAGE();
  // The max reported at the min's window (values unchanged).
  const auto swap_positions = [](BlockResult& block) {
    for (int k = 0; k < kFeatureCount; ++k)
      if (block.statistics.max[k] != block.statistics.min[k]) block.max_window[k] = block.min_window[k];
  };
  const GlcmGenuine plain = without_maps(glcm_genuine("position_plain"));
  plain.write(with_blocks(plain.result, swap_positions));
  expect_invalid(plain, true, "not the recomputed value");
  // With maps, the map distance's argmax is known for every window: no inputs needed.
  const GlcmGenuine mapped = glcm_genuine("position_maps");
  mapped.write(with_blocks(mapped.result, swap_positions));
  expect_invalid(mapped, false, "differs from the statistics of its maps");

  // A position outside every window of the image, or outside the ROI's disc.
  const GlcmGenuine edited = glcm_genuine("position_text");
  std::vector<std::string> lines = lines_of(edited.files()[0]);
  const std::vector<std::string> original = lines;
  FeatureRow row = parse_features_tsv(lines[0] + "\n" + lines[1] + "\n")[0];
  const std::string tail = "\t" + std::to_string(row.min_x) + "\t" + std::to_string(row.min_y);
  const std::string head = lines[1].substr(0, lines[1].size() - tail.size());
  ASSERT_EQ(lines[1].substr(head.size()), tail);
  lines[1] = head + "\t3\t" + std::to_string(row.min_y);  // x = 3: closer to the border than a window's radius
  write_lines(edited.files()[0], lines);
  expect_invalid(edited, false, "outside the image's windows");
  // gravel (image 1) has a disc ROI of radius 40 around (45, 45): (17, 17) is
  // inside the frame but its window leaves the disc. Its rows follow brick's 52;
  // take (gravel, 16 levels, distance 1, asm), a distance the maps do not cover.
  lines = original;
  const std::size_t gravel_line = 1 + 2 * 2 * kFeatureCount + 2 * kFeatureCount;
  row = parse_features_tsv(lines[0] + "\n" + lines[gravel_line] + "\n")[0];
  ASSERT_EQ(row.image, "gravel");
  ASSERT_EQ(row.distance, 1);
  const std::string gravel_tail = "\t" + std::to_string(row.min_x) + "\t" + std::to_string(row.min_y);
  lines[gravel_line] = lines[gravel_line].substr(0, lines[gravel_line].size() - gravel_tail.size()) + "\t17\t17";
  write_lines(edited.files()[0], lines);
  EXPECT_EQ(check(edited, false).verdict, Verdict::kValid);  // only the WU's ROI can tell
  expect_invalid(edited, true, "min window (17, 17) is not a window of the image's ROI");
}

TEST(GlcmValidator, ForgedMeanIsInvalid) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine genuine = glcm_genuine("forged_mean");
  // Outside [min, max]: structural.
  GlcmResult forged = genuine.result;
  Features& mean = forged.images[0].blocks[0].statistics.mean;
  mean[kContrast] = forged.images[0].blocks[0].statistics.max[kContrast] * 1.5 + 1;
  genuine.write(forged);
  expect_invalid(genuine, false, "mean outside [min, max]");
  // One ulp at the map distance (block 1: 64 levels, distance 3): the maps' mean differs.
  forged = genuine.result;
  ASSERT_EQ(forged.images[1].blocks[1].distance, 3);
  double& entropy_mean = forged.images[1].blocks[1].statistics.mean[kEntropy];
  entropy_mean = std::nextafter(entropy_mean, INFINITY);
  genuine.write(forged);
  expect_invalid(genuine, false, "differs from the statistics of its maps");
}

TEST(GlcmValidator, MissingSwappedOrExtraRowsAreInvalid) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine genuine = glcm_genuine("rows");
  const std::vector<std::string> lines = lines_of(genuine.files()[0]);
  std::vector<std::string> missing = lines;
  missing.erase(missing.begin() + 5);
  write_lines(genuine.files()[0], missing);
  expect_invalid(genuine, false, "rows, expected 104");
  std::vector<std::string> swapped = lines;
  std::swap(swapped[3], swapped[4]);
  write_lines(genuine.files()[0], swapped);
  expect_invalid(genuine, false, "features line 4 should be (brick, 64, 1, correlation)");
  std::vector<std::string> repeated = lines;
  repeated.push_back(lines.back());
  write_lines(genuine.files()[0], repeated);
  expect_invalid(genuine, false, "rows, expected 104");
  std::vector<std::string> no_header(lines.begin() + 1, lines.end());
  write_lines(genuine.files()[0], no_header);
  expect_invalid(genuine, false, "header");
}

TEST(GlcmValidator, TruncatedOrOversizedFilesAreInvalid) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine genuine = glcm_genuine("sizes");
  const auto maps = read_file_bytes(genuine.files()[1]);
  write_file_atomic(genuine.files()[1], std::vector<std::uint8_t>(maps.begin(), maps.end() - 5));
  expect_invalid(genuine, false, "maps file");
  genuine.write(genuine.result);
  const std::string features = read_file_text(genuine.files()[0]);
  write_file_atomic(genuine.files()[0], features.substr(0, features.size() - 40));
  expect_invalid(genuine, false, "line 105 is malformed");  // the last line, cut short
  write_file_atomic(genuine.files()[0], features + std::string(kMaxFeatureRowBytes * 110, '9'));
  expect_invalid(genuine, false, "more than the");
  genuine.write(genuine.result);
  // A maps file claiming a huge payload is refused before anything is allocated.
  std::vector<std::uint8_t> bomb(maps.begin(), maps.begin() + 8);
  for (int b = 0; b < 8; ++b) bomb.push_back(b == 5 ? 1 : 0);  // raw size 2^40
  bomb.insert(bomb.end(), maps.begin() + 16, maps.end());
  write_file_atomic(genuine.files()[1], bomb);
  expect_invalid(genuine, false, "more than its WU allows");
  genuine.write(genuine.result);
  std::ofstream(genuine.files()[2], std::ios::app) << std::string(kMaxSummaryBytes, ' ');
  expect_invalid(genuine, false, "summary is");
  genuine.write(genuine.result);
  EXPECT_EQ(glcm_kind().check_result({genuine.files()[0], genuine.files()[2]}, {}).verdict, Verdict::kInvalid);
}

TEST(GlcmValidator, SummaryAndMapsMustAgreeWithTheTable) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine genuine = glcm_genuine("agree");
  auto summary = nlohmann::json::parse(read_file_text(genuine.files()[2]));
  summary["images"][0]["windows"] = 895;
  write_file_atomic(genuine.files()[2], summary.dump(1));
  expect_invalid(genuine, false, "windows differs");
  genuine.write(genuine.result);
  summary = nlohmann::json::parse(read_file_text(genuine.files()[2]));
  summary["kind"] = "mrf";
  write_file_atomic(genuine.files()[2], summary.dump(1));
  expect_invalid(genuine, false, "kind");

  // The argmax window of ASM (gravel, 64 levels, the map distance) raised by
  // one unit in the maps only: the maps' max is no longer the table's.
  GlcmResult forged = genuine.result;
  ImageResult& gravel = forged.images[1];
  gravel.maps[0][gravel.blocks[1].max_window[kAngularSecondMoment]][kAngularSecondMoment] += 1;
  genuine.write(forged);
  expect_invalid(genuine, false, "differs from the statistics of its maps");
}

// Windows whose sums equal some feature's max or min in their map: moving
// them would change the statistics (or which window reaches an extreme first).
std::vector<bool> extreme_windows(const std::vector<FixedFeatures>& map) {
  FixedFeatures max = map.front(), min = map.front();
  for (const FixedFeatures& sums : map)
    for (int k = 0; k < kFeatureCount; ++k) max[k] = std::max(max[k], sums[k]), min[k] = std::min(min[k], sums[k]);
  std::vector<bool> extreme(map.size(), false);
  for (std::size_t w = 0; w < map.size(); ++w)
    for (int k = 0; k < kFeatureCount; ++k) extreme[w] = extreme[w] || map[w][k] == max[k] || map[w][k] == min[k];
  return extreme;
}

TEST(GlcmValidator, MapSpotCheckRecomputesWindows) {
  SKIP_WITHOUT_SKIMAGE();
  // The other windows' sums rotated by one place, in every map: max, min,
  // argmax, argmin and the exact total are unchanged, so the table and the
  // maps' statistics still agree; only recomputing a window can tell.
  const GlcmGenuine genuine = glcm_genuine("map_spot");
  GlcmResult forged = genuine.result;
  for (ImageResult& image : forged.images)
    for (auto& map : image.maps) {
      const std::vector<bool> extreme = extreme_windows(map);
      std::vector<std::size_t> movable;
      for (std::size_t w = 0; w < map.size(); ++w)
        if (!extreme[w]) movable.push_back(w);
      ASSERT_GT(movable.size(), map.size() / 2);
      const FixedFeatures first = map[movable[0]];
      for (std::size_t m = 0; m + 1 < movable.size(); ++m) map[movable[m]] = map[movable[m + 1]];
      map[movable.back()] = first;
    }
  genuine.write(forged);
  EXPECT_EQ(check(genuine, false).verdict, Verdict::kValid) << check(genuine, false).reason;
  expect_invalid(genuine, true, "differs from its recomputation");
}

TEST(GlcmValidator, CompareEqualAndDifferentResults) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine a = glcm_genuine("cmp_a");
  const GlcmGenuine b = glcm_genuine("cmp_b");
  EXPECT_EQ(glcm_kind().compare_results(a.files(), b.files()).verdict, Verdict::kValid);
  GlcmResult other_engine = b.result;
  other_engine.engine = "cuda: some GPU";  // the hardware is not part of the answer
  b.write(other_engine);
  EXPECT_EQ(glcm_kind().compare_results(a.files(), b.files()).verdict, Verdict::kValid)
      << glcm_kind().compare_results(a.files(), b.files()).reason;
  GlcmResult one_ulp = b.result;
  one_ulp.images[0].blocks[0].statistics.mean[kCorrelation] =
      std::nextafter(one_ulp.images[0].blocks[0].statistics.mean[kCorrelation], INFINITY);
  b.write(one_ulp);
  const CheckOutcome differ = glcm_kind().compare_results(a.files(), b.files());
  EXPECT_EQ(differ.verdict, Verdict::kInvalid);
  EXPECT_NE(differ.reason.find("features line 4 differs"), std::string::npos) << differ.reason;
  GlcmResult other_map = b.result;
  other_map.images[0].maps[1][7][kContrast] += 1;
  b.write(other_map);
  const CheckOutcome maps_differ = glcm_kind().compare_results(a.files(), b.files());
  EXPECT_EQ(maps_differ.verdict, Verdict::kInvalid);
  EXPECT_NE(maps_differ.reason.find("maps differ"), std::string::npos) << maps_differ.reason;
}

// Through helix-validate's real command line, once glcm is in HELIX_KINDS.
TEST(GlcmValidator, HelixValidateCommandLine) {
  SKIP_WITHOUT_SKIMAGE();
  if (!find_server_kind("glcm")) GTEST_SKIP() << "glcm is not a registered kind yet (HELIX_KINDS)";
  const GlcmGenuine a = glcm_genuine("tool_a"), b = glcm_genuine("tool_b");
  const std::string files_a = a.files()[0] + " " + a.files()[1] + " " + a.files()[2];
  const std::string files_b = b.files()[0] + " " + b.files()[1] + " " + b.files()[2];
  EXPECT_EQ(run_tool(std::string(HELIX_VALIDATE) + " init --inputs " + a.inputs_dir + " " + files_a).exit_code, 0);
  EXPECT_EQ(run_tool(std::string(HELIX_VALIDATE) + " compare " + files_a + " " + files_b).exit_code, 0);
  fs::remove(a.inputs_dir + "/" + wu_image_file(a.wu_name, 0));
  const ToolRun transient = run_tool(std::string(HELIX_VALIDATE) + " init --inputs " + a.inputs_dir + " " + files_a);
  EXPECT_EQ(transient.exit_code, 3);
  EXPECT_EQ(line_count(transient.err), 1) << transient.err;
  write_file_atomic(b.files()[0], std::string("garbage\n"));
  const ToolRun invalid = run_tool(std::string(HELIX_VALIDATE) + " init " + files_b);
  EXPECT_EQ(invalid.exit_code, 1);
  EXPECT_EQ(line_count(invalid.err), 1) << invalid.err;
}

}  // namespace
}  // namespace helix::test
