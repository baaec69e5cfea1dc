// hmm_workunit_test.cpp: `helix-wu hmmsearch make` on real profiles and
// proteins: chunks in FASTA order that read back as the database, the whole
// database's totals in every WU, one shared profiles file, the cost
// estimate and bounds; bad input refused with one line and nothing written.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "core/names.h"
#include "hmm_test_util.h"
#include "hmmsearch/hmm_file.h"
#include "hmmsearch/hmm_server.h"
#include "server_test_util.h"

namespace helix::test {
namespace {
namespace fs = std::filesystem;

TEST(HmmWorkunit, OneWuPerChunkInFastaOrderWithWholeDatabaseTotals) {
  SKIP_WITHOUT_HMM_DATA();
  const std::string dir = scratch_dir("hmm_wu"), out = dir + "/out";
  const std::string db = tutorial_file("globins45.fa");
  const auto database = hmmsearch::parse_targets(read_file_text(db), "globins45");
  std::uint64_t residues = 0;
  for (const auto& t : database) residues += t.codes.size();
  const auto run = run_hmm_wu({"hmmsearch", "make", "--name", "gl", "--profiles",
                               profiles_file_of(dir, {"globins4.hmm", "fn3.hmm"}), "--database", db,
                               "--chunk-residues", "2300", "--block-targets", "5", "-E", "0.5", "--out", out});
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.specs.size(), 3u);  // 6519 residues in chunks of <= 2300
  std::uint64_t ordinal = 0;
  for (std::size_t c = 0; c < 3; ++c) {
    const WorkunitSpec& spec = run.specs[c];
    EXPECT_EQ(spec.name, "gl_c" + std::to_string(c));
    ASSERT_EQ(spec.inputs.size(), 3u);
    EXPECT_EQ(spec.inputs[0], std::make_pair(std::string("params"), out + "/gl_c" + std::to_string(c) + ".params.json"));
    EXPECT_EQ(spec.inputs[1], std::make_pair(std::string("profiles"), out + "/gl.profiles.hmm"));
    EXPECT_EQ(spec.inputs[2], std::make_pair(std::string("database"), out + "/gl.chunk_" + std::to_string(c) + ".fa"));
    EXPECT_EQ(spec.outputs, (std::vector<std::string>{"tblout", "domtblout", "out", "scores", "domains", "summary"}));
    const auto params = hmmsearch::parse_hmm_params(nlohmann::json::parse(read_file_text(spec.inputs[0].second)));
    EXPECT_EQ(params.search, "gl");
    EXPECT_EQ(params.chunk, c);
    EXPECT_EQ(params.chunks, 3u);
    EXPECT_EQ(params.database_sequences, 45u);
    EXPECT_EQ(params.database_residues, residues);
    EXPECT_EQ(params.profile_count, 2u);
    EXPECT_EQ(params.block_targets, 5u);
    EXPECT_EQ(params.report_evalue, 0.5);
    EXPECT_EQ(params.first_ordinal, ordinal);
    // The chunk is the database's next records, names, descriptions and residues.
    const std::string fasta = read_file_text(spec.inputs[2].second);
    EXPECT_EQ(fasta.size(), params.chunk_bytes);
    const auto chunk = hmmsearch::parse_targets(fasta, "chunk");
    ASSERT_EQ(chunk.size(), params.chunk_targets);
    std::uint64_t chunk_residues = 0;
    for (const auto& target : chunk) {
      EXPECT_EQ(target.name, database[ordinal].name);
      EXPECT_EQ(target.description, database[ordinal].description);
      EXPECT_EQ(target.codes, database[ordinal].codes);
      chunk_residues += target.codes.size();
      ++ordinal;
    }
    EXPECT_EQ(chunk_residues, params.chunk_residues);
    EXPECT_LE(chunk_residues, 2300u);
    EXPECT_DOUBLE_EQ(spec.fpops_estimate, static_cast<double>(chunk_residues) * (149 + 86) * hmmsearch::kOpsPerCell);
    EXPECT_DOUBLE_EQ(spec.fpops_bound, 20 * spec.fpops_estimate);
    EXPECT_GE(spec.max_output_bytes, static_cast<double>(hmmsearch::max_scores_bytes(params)));
    EXPECT_GT(spec.memory_bound_bytes, 256.0 * (1 << 20));
    EXPECT_TRUE(fs::exists(out + "/" + spec.name + ".wu_template.xml"));
  }
  EXPECT_EQ(ordinal, 45u);
  EXPECT_EQ(read_file_text(out + "/gl.profiles.hmm"), read_file_text(dir + "/profiles.hmm"));
  EXPECT_EQ(hmmsearch::parse_wu_name("gl_c2")->prefix, "gl");
  EXPECT_EQ(hmmsearch::parse_wu_name("my_search_c12")->chunk, 12u);
  EXPECT_FALSE(hmmsearch::parse_wu_name("gl_b0"));
  EXPECT_EQ(wu_name_of_result_file("/x/gl_c2_1_3"), "gl_c2");
}

// Job size matching (core/size_class.h): the class marks every WU and goes on
// create_work's command line; an explicit --chunk-residues wins over the GPU
// class's 200,000,000.
TEST(HmmWorkunit, SizeClassMarksTheWorkUnitsAndExplicitSizesWin) {
  SKIP_WITHOUT_HMM_DATA();
  const std::string dir = scratch_dir("hmm_wu_class");
  const std::string db = tutorial_file("globins45.fa"), profiles = profiles_file_of(dir, {"globins4.hmm"});
  const auto gpu = run_hmm_wu({"hmmsearch", "make", "--name", "gl", "--profiles", profiles, "--database", db,
                               "--size-class", "gpu", "--out", dir + "/gpu"});
  const auto sized = run_hmm_wu({"hmmsearch", "make", "--name", "gl", "--profiles", profiles, "--database", db,
                                 "--size-class", "gpu", "--chunk-residues", "2300", "--out", dir + "/sized"});
  ASSERT_EQ(gpu.error + sized.error, "");
  ASSERT_EQ(gpu.specs.size(), 1u);
  EXPECT_EQ(gpu.specs[0].size_class, 1);
  ASSERT_EQ(sized.specs.size(), 3u);
  for (const auto& spec : sized.specs) EXPECT_EQ(spec.size_class, 1);
  EXPECT_NE(read_file_text(dir + "/sized/gl_c2.create_work.sh").find("--size_class 1"), std::string::npos);
}

TEST(HmmWorkunit, GzippedDatabaseIsRead) {
  SKIP_WITHOUT_HMM_DATA();
  const std::string dir = scratch_dir("hmm_wu_gz");
  const auto run = run_hmm_wu({"hmmsearch", "make", "--name", "big", "--profiles",
                               profiles_file_of(dir, {"globins4.hmm"}), "--database", kMmseqsDb, "--chunk-residues",
                               "5000000", "--out", dir + "/out"});
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.specs.size(), 2u);
  const auto last = hmmsearch::parse_hmm_params(nlohmann::json::parse(read_file_text(run.specs[1].inputs[0].second)));
  EXPECT_EQ(last.database_sequences, 20000u);
  EXPECT_EQ(last.first_ordinal + last.chunk_targets, 20000u);
}

// Each refusal is one line naming the problem, and --out stays empty.
void expect_refused(const std::vector<std::string>& extra, const std::string& profiles_text, const std::string& db_text,
                    const std::string& needle) {
  const std::string dir = scratch_dir("hmm_wu_bad"), out = dir + "/out";
  write_file_atomic(dir + "/p.hmm", profiles_text);
  write_file_atomic(dir + "/db.fa", db_text);
  std::vector<std::string> args{"hmmsearch", "make", "--name", "bad", "--profiles", dir + "/p.hmm", "--database",
                                dir + "/db.fa", "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto run = run_hmm_wu(args);
  EXPECT_NE(run.error, "") << needle;
  EXPECT_NE(run.error.find(needle), std::string::npos) << run.error;
  EXPECT_EQ(run.error.find('\n'), std::string::npos) << run.error;
  EXPECT_TRUE(run.specs.empty());
  EXPECT_TRUE(!fs::exists(out) || fs::is_empty(out));
}

TEST(HmmWorkunit, BadInputIsRefusedWithNothingWritten) {
  SKIP_WITHOUT_HMM_DATA();
  const std::string globins4 = read_file_text(tutorial_file("globins4.hmm"));
  const std::string good = ">a\nMKVLAAGIVGKWWHHEEPP\n>b desc\nMHHHWWKLLA\n";
  expect_refused({}, globins4, ">a\nMKV1LA\n", "'1'");
  expect_refused({}, globins4, ">a\nMKVLA\n>b\n", "b");  // truncated: a header with no sequence
  expect_refused({}, globins4, "MKVLA\n", "before the first");
  expect_refused({}, globins4.substr(0, globins4.size() / 2), good, "p.hmm");                         // truncated model
  expect_refused({}, read_file_text(tutorial_file("MADE1.hmm")), good, "p.hmm");                      // nucleic
  expect_refused({}, "HMMER3/f [3.1b2 | February 2015]\nNAME  x\nLENG  -4\n//\n", good, "p.hmm");      // corrupt
  expect_refused({"-E", "0"}, globins4, good, "report_evalue");
  expect_refused({"--F1", "2"}, globins4, good, "F1");
  expect_refused({"--block-targets", "0"}, globins4, good, "block_targets");
  expect_refused({"--chunk-residues", "0"}, globins4, good, "--chunk-residues");
  expect_refused({"--name", "../up"}, globins4, good, "--name");
  const std::string dir = scratch_dir("hmm_wu_missing");
  const auto run = run_hmm_wu({"hmmsearch", "make", "--name", "m", "--profiles", dir + "/none.hmm", "--database",
                               tutorial_file("globins45.fa"), "--out", dir + "/out"});
  EXPECT_NE(run.error.find("none.hmm does not exist"), std::string::npos) << run.error;
  EXPECT_FALSE(fs::exists(dir + "/out"));
}

}  // namespace
}  // namespace helix::test
