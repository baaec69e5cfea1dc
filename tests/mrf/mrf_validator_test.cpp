// mrf_validator_test.cpp: the mrf kind's validator checks on a genuine result
// and on damaged or forged copies, in-process and through helix-validate's
// real command line (exit codes 0 valid, 1 invalid, 3 transient).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/file_io.h"
#include "core/kind.h"
#include "mrf/mrf_files.h"
#include "mrf/mrf_server.h"
#include "server_test_util.h"

namespace helix::test {
namespace {

const ServerFunctions& mrf_kind() { return find_server_kind("mrf")->server; }

CheckOutcome check(const GenuineResult& genuine, bool with_inputs) {
  ServerOptions options;
  if (with_inputs) options.inputs_dir = genuine.inputs_dir;
  return mrf_kind().check_result(genuine.files(), options);
}

int validate_init(const GenuineResult& genuine, bool with_inputs) {
  const std::string inputs = with_inputs ? " --inputs " + genuine.inputs_dir : "";
  const ToolRun run = run_tool(std::string(HELIX_VALIDATE) + " init" + inputs + " " + genuine.labels_path + " " +
                               genuine.summary_path);
  if (run.exit_code != 0) {
    EXPECT_EQ(line_count(run.err), 1) << run.err;
  }
  return run.exit_code;
}

TEST(MrfValidator, GenuineResultIsValidWithAndWithoutInputs) {
  const GenuineResult genuine = genuine_result("valid");
  ASSERT_GE(genuine.result.trace.size(), 1u);
  EXPECT_EQ(check(genuine, false).verdict, Verdict::kValid) << check(genuine, false).reason;
  EXPECT_EQ(check(genuine, true).verdict, Verdict::kValid) << check(genuine, true).reason;
  EXPECT_EQ(validate_init(genuine, false), 0);
  EXPECT_EQ(validate_init(genuine, true), 0);
}

TEST(MrfValidator, ForgedMeanIsInvalidWhenRecomputed) {
  GenuineResult genuine = genuine_result("mean");
  const double liver_mean = genuine.summary["classes"][2]["mean"].get<double>();
  genuine.summary["classes"][2]["mean"] = liver_mean + 0.5;
  write_json(genuine.summary_path, genuine.summary);
  const CheckOutcome outcome = check(genuine, true);
  EXPECT_EQ(outcome.verdict, Verdict::kInvalid);
  EXPECT_NE(outcome.reason.find("liver"), std::string::npos) << outcome.reason;
  EXPECT_EQ(validate_init(genuine, true), 1);
}

TEST(MrfValidator, ForgedFinalEnergyIsInvalidWhenRecomputed) {
  GenuineResult genuine = genuine_result("energy");
  genuine.summary["final_energy"] = genuine.summary["final_energy"].get<std::int64_t>() - 1;
  write_json(genuine.summary_path, genuine.summary);
  EXPECT_EQ(check(genuine, false).verdict, Verdict::kValid);  // needs the input volume to notice
  const CheckOutcome outcome = check(genuine, true);
  EXPECT_EQ(outcome.verdict, Verdict::kInvalid);
  EXPECT_NE(outcome.reason.find("final_energy"), std::string::npos) << outcome.reason;
  EXPECT_EQ(validate_init(genuine, true), 1);
}

TEST(MrfValidator, ForgedVoxelCountIsInvalid) {
  GenuineResult genuine = genuine_result("count");
  genuine.summary["classes"][1]["voxels"] = genuine.summary["classes"][1]["voxels"].get<std::int64_t>() + 1;
  write_json(genuine.summary_path, genuine.summary);
  EXPECT_EQ(check(genuine, false).verdict, Verdict::kInvalid);
  EXPECT_EQ(validate_init(genuine, false), 1);
}

TEST(MrfValidator, InconsistentTraceOrConvergedFlagIsInvalid) {
  GenuineResult genuine = genuine_result("trace");
  nlohmann::json flipped = genuine.summary;
  flipped["converged"] = !flipped["converged"].get<bool>();
  write_json(genuine.summary_path, flipped);
  EXPECT_EQ(check(genuine, false).verdict, Verdict::kInvalid);
  nlohmann::json short_trace = genuine.summary;
  short_trace["energy_trace"].erase(short_trace["energy_trace"].size() - 1);
  write_json(genuine.summary_path, short_trace);
  EXPECT_EQ(check(genuine, false).verdict, Verdict::kInvalid);
  nlohmann::json too_many = genuine.summary;
  too_many["sweeps"] = too_many["params"]["max_sweeps"].get<int>() + 1;
  write_json(genuine.summary_path, too_many);
  EXPECT_EQ(check(genuine, false).verdict, Verdict::kInvalid);
}

TEST(MrfValidator, TruncatedLabelsFileIsInvalid) {
  GenuineResult genuine = genuine_result("truncated");
  auto bytes = read_file_bytes(genuine.labels_path);
  bytes.resize(bytes.size() - 5);
  write_file_atomic(genuine.labels_path, bytes);
  EXPECT_EQ(check(genuine, false).verdict, Verdict::kInvalid);
  EXPECT_EQ(validate_init(genuine, false), 1);
}

TEST(MrfValidator, LabelsOfOtherDimensionsAreInvalid) {
  GenuineResult genuine = genuine_result("dims");
  const std::vector<std::uint8_t> half(genuine.result.labels.begin(),
                                       genuine.result.labels.begin() + genuine.result.labels.size() / 2);
  write_file_atomic(genuine.labels_path, mrf::encode_labels(32, 16, 8, half));
  const CheckOutcome outcome = check(genuine, false);
  EXPECT_EQ(outcome.verdict, Verdict::kInvalid);
  EXPECT_NE(outcome.reason.find("dims"), std::string::npos) << outcome.reason;
}

TEST(MrfValidator, PathInInputVolumeIsInvalid) {
  GenuineResult genuine = genuine_result("path");
  genuine.summary["input_volume"] = "../x";
  write_json(genuine.summary_path, genuine.summary);
  EXPECT_EQ(check(genuine, true).verdict, Verdict::kInvalid);
  EXPECT_EQ(validate_init(genuine, true), 1);
}

TEST(MrfValidator, MissingInputVolumeIsTransient) {
  GenuineResult genuine = genuine_result("missing");
  std::filesystem::remove(genuine.inputs_dir + "/" + kVolumeName);
  EXPECT_EQ(check(genuine, true).verdict, Verdict::kTransient);
  EXPECT_EQ(validate_init(genuine, true), 3);
}

TEST(MrfValidator, OversizedSummaryIsInvalid) {
  GenuineResult genuine = genuine_result("oversize");
  std::ofstream(genuine.summary_path, std::ios::app) << std::string(kMaxSummaryBytes, ' ');
  EXPECT_EQ(check(genuine, false).verdict, Verdict::kInvalid);
  EXPECT_EQ(validate_init(genuine, false), 1);
}

TEST(MrfValidator, GarbageSummaryOrUnknownKindIsInvalid) {
  GenuineResult genuine = genuine_result("garbage");
  write_file_atomic(genuine.summary_path, std::string("not json"));
  EXPECT_EQ(validate_init(genuine, false), 1);
  nlohmann::json other = genuine.summary;
  other["kind"] = "nosuchkind";
  write_json(genuine.summary_path, other);
  EXPECT_EQ(validate_init(genuine, false), 1);
}

TEST(MrfValidator, WrongFileCountIsInvalid) {
  const GenuineResult genuine = genuine_result("count_files");
  EXPECT_EQ(mrf_kind().check_result({genuine.summary_path}, {}).verdict, Verdict::kInvalid);
}

TEST(MrfValidator, CompareEqualResultsAndOneFlippedLabel) {
  const GenuineResult a = genuine_result("cmp_a");
  GenuineResult b = genuine_result("cmp_b");
  const std::string compare = std::string(HELIX_VALIDATE) + " compare " + a.labels_path + " " + a.summary_path + " ";
  EXPECT_EQ(mrf_kind().compare_results(a.files(), b.files()).verdict, Verdict::kValid);
  EXPECT_EQ(run_tool(compare + b.labels_path + " " + b.summary_path).exit_code, 0);

  auto labels = b.result.labels;
  labels[labels.size() / 2] = static_cast<std::uint8_t>((labels[labels.size() / 2] + 1) % mrf::kClassCount);
  write_file_atomic(b.labels_path, mrf::encode_labels(b.volume.nx, b.volume.ny, b.volume.nz, labels));
  EXPECT_EQ(mrf_kind().compare_results(a.files(), b.files()).verdict, Verdict::kInvalid);
  const ToolRun run = run_tool(compare + b.labels_path + " " + b.summary_path);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(line_count(run.err), 1) << run.err;
}

// script_validator (1.6+) takes exit 3 from the compare script as "look again
// later"; helix-validate used to turn every verdict but valid into 1, "not
// equivalent", which marks results invalid. A file lost on the server after
// init checked it is such a case: neither result is at fault.
TEST(MrfValidator, CompareSaysTransientWhenAResultFileIsLostAfterInit) {
  const GenuineResult a = genuine_result("cmpt_a");
  const GenuineResult b = genuine_result("cmpt_b");
  std::filesystem::remove(b.labels_path);
  const ToolRun run = run_tool(std::string(HELIX_VALIDATE) + " compare " + a.labels_path + " " + a.summary_path + " " +
                               b.labels_path + " " + b.summary_path);
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_EQ(line_count(run.err), 1) << run.err;
  EXPECT_NE(run.err.find("transient"), std::string::npos) << run.err;
}

TEST(MrfValidator, CompareDifferentSummariesIsNotEquivalent) {
  const GenuineResult a = genuine_result("cmps_a");
  GenuineResult b = genuine_result("cmps_b");
  b.summary["final_energy"] = b.summary["final_energy"].get<std::int64_t>() + 1;
  write_json(b.summary_path, b.summary);
  EXPECT_EQ(mrf_kind().compare_results(a.files(), b.files()).verdict, Verdict::kInvalid);
}

}  // namespace
}  // namespace helix::test
