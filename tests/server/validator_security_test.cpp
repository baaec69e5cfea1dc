// validator_security_test.cpp: the validator against a hostile volunteer, for
// every kind, through the same entry points BOINC's script_validator reaches
// (the kind's check_result, and helix-validate's command line as the init
// wrapper of docs/deploy.md runs it):
//   - a genuine result of another WU, returned for this one (its files carry
//     this WU's BOINC names): invalid, whether the summary is left alone or
//     edited to name this WU;
//   - file names in the summary that leave the inputs directory: invalid, not
//     transient (a volunteer must not be able to park a WU in "retry later");
//   - a result file that is a symbolic link (to another result, to a system
//     file, to a device): invalid;
//   - a result file far larger than the WU allows (a sparse 8 GiB file): invalid,
//     decided from its size alone: reading it would take minutes and the memory.
// Forged numbers in plausible files are each kind's own validator test.
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "core/names.h"
#include "glcm/glcm_server.h"
#include "glcm_test_util.h"
#include "hmm_test_util.h"
#include "hmmsearch/hmm_server.h"
#include "mrf/mrf_files.h"
#include "mrf/mrf_server.h"
#include "server_test_util.h"
#include "sw_test_util.h"
#include "swsearch/sw_server.h"

namespace helix::test {
namespace {
namespace fs = std::filesystem;

constexpr std::uintmax_t kSparseBytes = 8ull << 30;

void expect_invalid(const CheckOutcome& outcome, const std::string& words) {
  EXPECT_EQ(outcome.verdict, Verdict::kInvalid) << outcome.reason;
  EXPECT_NE(outcome.reason.find(words), std::string::npos) << outcome.reason;
}

// helix-validate init [--inputs DIR] FILES..., as the init wrapper runs it; one line on stderr when not valid.
int validate_init(const std::string& inputs_dir, const std::vector<std::string>& files) {
  std::string command = std::string(HELIX_VALIDATE) + " init";
  if (!inputs_dir.empty()) command += " --inputs " + inputs_dir;
  for (const std::string& file : files) command += " " + file;
  const ToolRun run = run_tool(command);
  if (run.exit_code != 0) {
    EXPECT_EQ(line_count(run.err), 1) << run.err;
  }
  return run.exit_code;
}

// Copies a result's files under the names BOINC gives WU `wu`'s first replica.
std::vector<std::string> filed_under(const std::vector<std::string>& files, const std::string& wu, const std::string& dir) {
  fs::create_directories(dir);
  std::vector<std::string> copies;
  for (std::size_t k = 0; k < files.size(); ++k) {
    copies.push_back(dir + "/" + wu + "_0_r" + kResultRandom + "_" + std::to_string(k));
    fs::copy_file(files[k], copies.back(), fs::copy_options::overwrite_existing);
  }
  return copies;
}

// Replaces `path` with a symbolic link to `target`.
void link_over(const std::string& path, const std::string& target) {
  fs::remove(path);
  fs::create_symlink(target, path);
}

// Replaces `path` with a sparse file of kSparseBytes (no disk blocks: only its size is huge).
void make_huge(const std::string& path) {
  fs::remove(path);
  write_file_atomic(path, std::string("{"));
  fs::resize_file(path, kSparseBytes);
}

// The sparse files go as soon as a test is done with them (they cost no disk, but a size of 8 GiB).
void drop_huge(const std::vector<std::string>& files) {
  for (const std::string& file : files)
    if (fs::is_regular_file(fs::symlink_status(file)) && fs::file_size(file) >= kSparseBytes) fs::remove(file);
}

// The check must refuse an oversized file from its size: well under a second.
template <typename Check>
void expect_quick_refusal(Check&& check, const std::string& words) {
  const auto start = std::chrono::steady_clock::now();
  expect_invalid(check(), words);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

// Links and devices, each file of the result in turn: never followed.
template <typename Check>
void expect_links_refused(const std::vector<std::string>& files, Check&& check) {
  const std::string keep = scratch_dir("link_targets");
  for (std::size_t k = 0; k < files.size(); ++k) {
    const std::string saved = keep + "/" + std::to_string(k);
    fs::copy_file(files[k], saved);
    for (const std::string& target : {saved, std::string("/etc/passwd"), std::string("/dev/zero")}) {
      link_over(files[k], target);
      expect_invalid(check(), "not a plain file");
    }
    fs::remove(files[k]);
    fs::copy_file(saved, files[k]);
    EXPECT_EQ(check().verdict, Verdict::kValid) << check().reason;
  }
}

// ---------------------------------------------------------------- BOINC's names

TEST(ValidatorSecurity, WuNameOfBoincUploadNames) {
  EXPECT_EQ(wu_name_of_result_file("/u/3f/gl_c2_1_r1804289383_3"), "gl_c2");  // BOINC >= 7.6
  EXPECT_EQ(wu_name_of_result_file("/u/gl_c2_1_3"), "gl_c2");                 // older servers
  EXPECT_EQ(wu_name_of_result_file("wu_r1_0_r2_1"), "wu_r1");
  EXPECT_EQ(wu_name_of_result_file("/u/labels"), "");
  EXPECT_EQ(wu_name_of_result_file("/u/wu_0_rx_1"), "");
  EXPECT_EQ(wu_name_of_result_file("/u/wu_0_r12345678901_1"), "");  // more than lrand48() gives
  EXPECT_EQ(wu_name_of_result_file("/u/_0_1"), "");
}

// ---------------------------------------------------------------- mrf

const ServerFunctions& mrf_kind() { return find_server_kind("mrf")->server; }
CheckOutcome mrf_check(const std::vector<std::string>& files, const std::string& inputs_dir) {
  return mrf_kind().check_result(files, {inputs_dir});
}

TEST(ValidatorSecurity, MrfResultOfAnotherWuIsInvalid) {
  const GenuineResult g = genuine_result("sec_mrf_copy");
  const std::string dir = scratch_dir("sec_mrf_copy_result");
  // WU "other": another volume (a few voxels brighter), the same params.
  mrf::Volume other = g.volume;
  for (std::size_t v = 0; v < other.voxels.size(); v += 7) other.voxels[v] += 40;
  mrf::write_volume_file(g.inputs_dir + "/other.volume.hxv", other);
  write_json(g.inputs_dir + "/other.params.json", g.summary.at("params"));
  // WU "reseeded": the same volume, another seed.
  fs::copy_file(g.inputs_dir + "/" + kVolumeName, g.inputs_dir + "/reseeded.volume.hxv");
  nlohmann::json reseeded = g.summary.at("params");
  reseeded["seed"] = 99;
  write_json(g.inputs_dir + "/reseeded.params.json", reseeded);

  // Copied as it is: it names its own WU's volume.
  const auto as_other = filed_under(g.files(), "other", dir + "/a");
  expect_invalid(mrf_check(as_other, g.inputs_dir), "the result is WU wu's, returned for WU other");
  EXPECT_EQ(validate_init(g.inputs_dir, as_other), 1);
  // Edited to name the WU it is returned for: the recomputation on that WU's volume refutes it.
  nlohmann::json summary = g.summary;
  summary["input_volume"] = "other.volume.hxv";
  write_json(as_other[1], summary);
  EXPECT_EQ(mrf_check(as_other, g.inputs_dir).verdict, Verdict::kInvalid);
  EXPECT_EQ(validate_init(g.inputs_dir, as_other), 1);
  // Same volume, other seed: the params give it away.
  const auto as_reseeded = filed_under(g.files(), "reseeded", dir + "/b");
  summary["input_volume"] = "reseeded.volume.hxv";
  write_json(as_reseeded[1], summary);
  expect_invalid(mrf_check(as_reseeded, g.inputs_dir), "params differ from WU reseeded's");
  // The genuine result itself, under its own names, passes.
  EXPECT_EQ(validate_init(g.inputs_dir, g.files()), 0);
}

TEST(ValidatorSecurity, MrfPathsInTheSummaryAreInvalid) {
  GenuineResult g = genuine_result("sec_mrf_path");
  for (const char* name : {"../../etc/passwd", "/etc/passwd", "../wu.volume.hxv", "x/../wu.volume.hxv",
                           ".volume.hxv", "wu.volume.hxv/..", "wu.params.json"}) {
    g.summary["input_volume"] = name;
    write_json(g.summary_path, g.summary);
    expect_invalid(mrf_check(g.files(), g.inputs_dir), "input_volume");
    EXPECT_EQ(validate_init(g.inputs_dir, g.files()), 1) << name;
  }
}

TEST(ValidatorSecurity, MrfLinksAndHugeFilesAreInvalid) {
  const GenuineResult g = genuine_result("sec_mrf_links");
  expect_links_refused(g.files(), [&] { return mrf_check(g.files(), g.inputs_dir); });
  link_over(g.summary_path, "/etc/passwd");
  EXPECT_EQ(validate_init(g.inputs_dir, g.files()), 1);
  write_json(g.summary_path, g.summary);  // a plain file again
  // 1 MiB of labels for the 32x32x8 WU: more than its voxels can compress to.
  write_file_atomic(g.labels_path, std::string(1 << 20, '\0'));
  expect_invalid(mrf_check(g.files(), g.inputs_dir), "label map is 1048576 bytes, more than");
  make_huge(g.labels_path);
  expect_quick_refusal([&] { return mrf_check(g.files(), g.inputs_dir); }, "more than");
  make_huge(g.summary_path);
  expect_quick_refusal([&] { return mrf_check(g.files(), g.inputs_dir); }, "summary");
  EXPECT_EQ(validate_init(g.inputs_dir, g.files()), 1);
  drop_huge(g.files());
}

// ---------------------------------------------------------------- glcm

CheckOutcome glcm_check(const std::vector<std::string>& files, const std::string& inputs_dir) {
  return glcm::check_glcm_result(files, {inputs_dir});
}

TEST(ValidatorSecurity, GlcmResultOfAnotherWuIsInvalid) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine g = glcm_genuine("sec_copy");
  const std::string dir = scratch_dir("sec_glcm_copy");
  // WU "other": the same images, other distances.
  nlohmann::json params = nlohmann::json::parse(read_file_text(g.inputs_dir + "/" + glcm::wu_params_file(g.wu_name)));
  for (std::size_t i = 0; i < g.params.images.size(); ++i) {
    fs::copy_file(g.inputs_dir + "/" + g.params.images[i].image_file, g.inputs_dir + "/" + glcm::wu_image_file("other", i));
    params["images"][i]["image"] = glcm::wu_image_file("other", i);
    if (!g.params.images[i].mask_file.empty()) {
      fs::copy_file(g.inputs_dir + "/" + g.params.images[i].mask_file, g.inputs_dir + "/" + glcm::wu_mask_file("other", i));
      params["images"][i]["mask"] = glcm::wu_mask_file("other", i);
    }
  }
  params["distances"] = {1, 2, 3};
  write_json(g.inputs_dir + "/" + glcm::wu_params_file("other"), params);

  const auto as_other = filed_under(g.files(), "other", dir);
  expect_invalid(glcm_check(as_other, g.inputs_dir), "returned for WU other");
  EXPECT_EQ(validate_init(g.inputs_dir, as_other), 1);
  // Edited to name the other WU's files: its params are still not that WU's.
  nlohmann::json summary = nlohmann::json::parse(read_file_text(as_other[2]));
  for (std::size_t i = 0; i < g.params.images.size(); ++i) {
    summary["params"]["images"][i]["image"] = params["images"][i]["image"];
    if (params["images"][i].contains("mask")) summary["params"]["images"][i]["mask"] = params["images"][i]["mask"];
  }
  write_file_atomic(as_other[2], summary.dump());
  expect_invalid(glcm_check(as_other, g.inputs_dir), "params differ from WU other's");
  EXPECT_EQ(validate_init(g.inputs_dir, g.files()), 0);
}

TEST(ValidatorSecurity, GlcmPathsInTheSummaryAreInvalid) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine g = glcm_genuine("sec_path");
  const nlohmann::json genuine = nlohmann::json::parse(read_file_text(g.files()[2]));
  for (const char* key : {"image", "mask"})
    for (const char* name : {"../../etc/passwd", "/etc/passwd", "../genuine.image_0.png"}) {
      nlohmann::json summary = genuine;
      summary["params"]["images"][0][key] = name;
      write_file_atomic(g.files()[2], summary.dump());
      const CheckOutcome outcome = glcm_check(g.files(), g.inputs_dir);
      EXPECT_EQ(outcome.verdict, Verdict::kInvalid) << key << " " << name << ": " << outcome.reason;
      EXPECT_EQ(validate_init(g.inputs_dir, g.files()), 1);
    }
}

TEST(ValidatorSecurity, GlcmLinksAndHugeFilesAreInvalid) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine g = glcm_genuine("sec_links");
  const auto files = g.files();
  expect_links_refused(files, [&] { return glcm_check(files, g.inputs_dir); });
  make_huge(files[0]);
  expect_quick_refusal([&] { return glcm_check(files, g.inputs_dir); }, "features table is");
  g.write(g.result);
  make_huge(files[1]);
  expect_quick_refusal([&] { return glcm_check(files, g.inputs_dir); }, "maps file is");
  make_huge(files[2]);
  expect_quick_refusal([&] { return glcm_check(files, g.inputs_dir); }, "summary is");
  EXPECT_EQ(validate_init(g.inputs_dir, files), 1);
  drop_huge(files);
}

// ---------------------------------------------------------------- swsearch

struct SwChunks {
  std::string inputs_dir;
  std::vector<WorkunitSpec> specs;
  SwResult first;  // chunk 0's genuine result
};
SwChunks sw_chunks(const std::string& tag) {
  const std::string dir = scratch_dir(tag);
  const auto run = run_sw_wu({"swsearch", "make", "--db", kGlobins, "--queries", globin_queries(dir, 2), "--top-hits",
                              "5", "--alignments", "2", "--chunk-residues", "2300", "--name", "sec", "--out",
                              dir + "/in"});
  EXPECT_EQ(run.error, "");
  fs::create_directories(dir + "/result");
  return {dir + "/in", run.specs, run_sw_spec(run.specs.at(0), dir + "/result")};
}
const swsearch::SpotCheck kSwEveryPair{1000000, 1000000, 1};

TEST(ValidatorSecurity, SwResultOfAnotherWuIsInvalid) {
  SKIP_WITHOUT_SW_DATA();
  const SwChunks c = sw_chunks("sec_sw_copy");
  ASSERT_GE(c.specs.size(), 2u);
  EXPECT_EQ(swsearch::check_sw_result(c.first.files(), {c.inputs_dir}, kSwEveryPair).reason, "");
  const auto as_chunk_1 = filed_under(c.first.files(), c.specs[1].name, scratch_dir("sec_sw_copy_result"));
  EXPECT_EQ(swsearch::check_sw_result(as_chunk_1, {c.inputs_dir}, kSwEveryPair).verdict, Verdict::kInvalid);
  EXPECT_EQ(validate_init(c.inputs_dir, as_chunk_1), 1);
  // Files of two WUs mixed in one result.
  std::vector<std::string> mixed{c.first.hits, as_chunk_1[1]};
  expect_invalid(swsearch::check_sw_result(mixed, {c.inputs_dir}, kSwEveryPair), "belong to different WUs");
}

TEST(ValidatorSecurity, SwLinksAndHugeFilesAreInvalid) {
  SKIP_WITHOUT_SW_DATA();
  const SwChunks c = sw_chunks("sec_sw_links");
  const auto files = c.first.files();
  const auto check = [&] { return swsearch::check_sw_result(files, {c.inputs_dir}, kSwEveryPair); };
  expect_links_refused(files, check);
  EXPECT_EQ(validate_init(c.inputs_dir, files), 0);
  make_huge(files[0]);
  expect_quick_refusal(check, "hits table is");
  EXPECT_EQ(validate_init(c.inputs_dir, files), 1);
  make_huge(files[1]);
  expect_quick_refusal(check, "summary is");
  EXPECT_EQ(validate_init(c.inputs_dir, files), 1);
  drop_huge(files);
}

// ---------------------------------------------------------------- hmmsearch

struct HmmChunks {
  std::string inputs_dir;
  std::vector<WorkunitSpec> specs;
  HmmResult first;
};
HmmChunks hmm_chunks(const std::string& tag) {
  const std::string dir = scratch_dir(tag);
  const auto run = run_hmm_wu({"hmmsearch", "make", "--name", "sec", "--profiles",
                               profiles_file_of(dir, {"globins4.hmm"}), "--database", tutorial_file("globins45.fa"),
                               "--chunk-residues", "3000", "--out", dir + "/in"});
  EXPECT_EQ(run.error, "");
  fs::create_directories(dir + "/result");
  return {dir + "/in", run.specs, run_hmm_spec(run.specs.at(0), dir + "/result")};
}
const hmmsearch::SampleCheck kHmmEveryTarget{100000, 100000, 1};

TEST(ValidatorSecurity, HmmResultOfAnotherWuIsInvalid) {
  SKIP_WITHOUT_HMM_DATA();
  const HmmChunks c = hmm_chunks("sec_hmm_copy");
  ASSERT_GE(c.specs.size(), 2u);
  EXPECT_EQ(hmmsearch::check_hmm_result(c.first.files(), {c.inputs_dir}, kHmmEveryTarget).reason, "");
  const auto as_chunk_1 = filed_under(c.first.files(), c.specs[1].name, scratch_dir("sec_hmm_copy_result"));
  EXPECT_EQ(hmmsearch::check_hmm_result(as_chunk_1, {c.inputs_dir}, kHmmEveryTarget).verdict, Verdict::kInvalid);
  EXPECT_EQ(validate_init(c.inputs_dir, as_chunk_1), 1);
}

TEST(ValidatorSecurity, HmmLinksAndHugeFilesAreInvalid) {
  SKIP_WITHOUT_HMM_DATA();
  const HmmChunks c = hmm_chunks("sec_hmm_links");
  const auto& files = c.first.files();
  const auto check = [&] { return hmmsearch::check_hmm_result(files, {c.inputs_dir}, kHmmEveryTarget); };
  expect_links_refused(files, check);
  for (std::size_t k = 0; k < files.size(); ++k) {
    const std::string saved = scratch_dir("sec_hmm_saved") + "/file";
    fs::copy_file(files[k], saved);
    make_huge(files[k]);
    expect_quick_refusal(check, "");
    EXPECT_EQ(validate_init(c.inputs_dir, files), 1);
    fs::remove(files[k]);
    fs::copy_file(saved, files[k]);
  }
  EXPECT_EQ(validate_init(c.inputs_dir, files), 0);
}

}  // namespace
}  // namespace helix::test
