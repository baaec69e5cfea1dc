// hmm_tools_test.cpp: an hmmsearch search through the real programs, as the
// project and its volunteers run them: `helix-wu hmmsearch make` splits 300
// real proteins and the 45 globins into 2 WUs; the `helix` app (standalone
// BOINC mode, --cpu) runs them in slot directories of BOINC soft links (the
// first twice); `helix-validate init --inputs` and `compare` accept them;
// `helix-assimilate` stores one of each; `helix-wu hmmsearch report` writes
// the merged tblout, domtblout and text, equal to one in-process run over
// the whole database.
// And a truncated database: the app exits non-zero with one error line and
// no result files.
#include <filesystem>

#include <gtest/gtest.h>

#include "core/file_io.h"
#include "hmm_test_util.h"
#include "hmmsearch/hmm_server.h"
#include "server_test_util.h"

namespace helix::test {
namespace {
namespace fs = std::filesystem;

const std::vector<std::string> kOutputs = {"tblout", "domtblout", "out", "scores", "domains", "summary"};

// A slot as the client makes it: each logical name a BOINC soft link to the WU's file.
void make_slot(const std::string& slot, const WorkunitSpec& spec) {
  fs::create_directories(slot);
  for (const auto& [logical, path] : spec.inputs)
    write_file_atomic(slot + "/" + logical, "<soft_link>" + fs::absolute(path).string() + "</soft_link>\n");
}

ToolRun run_app(const std::string& slot) { return run_tool("cd " + slot + " && " + HELIX_APP + " --cpu"); }

std::string joined(const std::vector<std::string>& files) {
  std::string text;
  for (const std::string& file : files) text += " " + file;
  return text;
}

TEST(HmmTools, SearchThroughTheRealProgramsEqualsOneWholeRun) {
  SKIP_WITHOUT_HMM_DATA();
  const std::string dir = scratch_dir("hmm_tools");
  const std::string db = mmseqs_proteins(dir, 300);
  write_file_atomic(db, read_file_text(tutorial_file("globins45.fa")) + read_file_text(db));
  const std::string profiles = profiles_file_of(dir, {"globins4.hmm", "fn3.hmm"});
  const ToolRun made = run_tool(std::string(HELIX_WU) + " hmmsearch make --name tl --profiles " + profiles +
                                " --database " + db + " --chunk-residues 80000 --block-targets 50 --out " + dir + "/in");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  // The same WUs in-process, for their specs (the files are identical).
  const auto run = run_hmm_wu({"hmmsearch", "make", "--name", "tl", "--profiles", profiles, "--database", db,
                               "--chunk-residues", "80000", "--block-targets", "50", "--out", dir + "/in"});
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.specs.size(), 2u);
  fs::create_directories(dir + "/results");
  for (std::size_t c = 0; c < 2; ++c) {
    const WorkunitSpec& spec = run.specs[c];
    // Chunk 0 twice (a quorum to compare), chunk 1 once: each app run takes
    // about 2 s, most of it the BOINC API's standalone start and finish.
    std::vector<std::vector<std::string>> replicas;
    for (int replica = 0; replica < (c == 0 ? 2 : 1); ++replica) {
      const std::string slot = dir + "/slot_" + spec.name + "_" + std::to_string(replica);
      make_slot(slot, spec);
      const ToolRun app = run_app(slot);
      ASSERT_EQ(app.exit_code, 0) << read_file_text(slot + "/stderr.txt");
      std::vector<std::string> files;
      for (std::size_t k = 0; k < kOutputs.size(); ++k) {
        files.push_back(dir + "/results/" + spec.name + "_" + std::to_string(replica) + "_" + std::to_string(k));
        fs::copy_file(slot + "/" + kOutputs[k], files.back());
      }
      const ToolRun valid = run_tool(std::string(HELIX_VALIDATE) + " init --inputs " + dir + "/in" + joined(files));
      EXPECT_EQ(valid.exit_code, 0) << valid.err;
      replicas.push_back(files);
    }
    if (replicas.size() == 2) {
      const ToolRun same =
          run_tool(std::string(HELIX_VALIDATE) + " compare" + joined(replicas[0]) + joined(replicas[1]));
      EXPECT_EQ(same.exit_code, 0) << same.err;
    }
    const ToolRun stored = run_tool(std::string(HELIX_ASSIMILATE) + " --db " + dir + "/results.sqlite " +
                                    std::to_string(10 + c) + joined(replicas[0]));
    EXPECT_EQ(stored.exit_code, 0) << stored.err;
  }
  const ToolRun report = run_tool(std::string(HELIX_WU) + " hmmsearch report --results " + dir +
                                  "/results.sqlite --search tl --out " + dir + "/report");
  ASSERT_EQ(report.exit_code, 0) << report.err;

  // One WU over the whole database, in-process.
  const auto whole = run_hmm_wu({"hmmsearch", "make", "--name", "wh", "--profiles", profiles, "--database", db,
                                 "--out", dir + "/whole"});
  ASSERT_EQ(whole.specs.size(), 1u);
  fs::create_directories(dir + "/whole_result");
  const HmmResult expected = run_hmm_spec(whole.specs[0], dir + "/whole_result");
  for (std::uint32_t p = 0; p < 2; ++p) {
    const hmmsearch::ProfileOutcome& profile = expected.result.profiles[p];
    const hmmsearch::ProfileTexts texts = hmmsearch::profile_texts(profile, p, expected.result.rows, expected.result.params, true);
    const std::string base = dir + "/report/tl." + profile.name;
    EXPECT_EQ(read_file_text(base + ".tblout"), texts.tblout);
    EXPECT_EQ(read_file_text(base + ".domtblout"), texts.domtblout);
    EXPECT_EQ(read_file_text(base + ".out"), texts.out);
  }
  EXPECT_NE(read_file_text(dir + "/report/tl.globins4.tblout").find("MYG_HORSE"), std::string::npos);
}

TEST(HmmTools, AppRefusesATruncatedDatabaseWithOneLineAndNoResult) {
  SKIP_WITHOUT_HMM_DATA();
  const std::string dir = scratch_dir("hmm_tools_bad");
  const auto run = run_hmm_wu({"hmmsearch", "make", "--name", "bad", "--profiles",
                               profiles_file_of(dir, {"globins4.hmm"}), "--database", tutorial_file("globins45.fa"),
                               "--out", dir + "/in"});
  ASSERT_EQ(run.specs.size(), 1u);
  const std::string chunk = run.specs[0].inputs[2].second;
  const std::string text = read_file_text(chunk);
  write_file_atomic(chunk, text.substr(0, text.size() / 2));  // a download cut short
  const std::string slot = dir + "/slot";
  make_slot(slot, run.specs[0]);
  const ToolRun app = run_app(slot);
  EXPECT_NE(app.exit_code, 0);
  const std::string log = read_file_text(slot + "/stderr.txt");
  EXPECT_NE(log.find("helix: error: database: "), std::string::npos) << log;
  std::size_t errors = 0;
  for (std::size_t at = log.find("error"); at != std::string::npos; at = log.find("error", at + 1)) ++errors;
  EXPECT_EQ(errors, 1u) << log;
  for (const std::string& name : kOutputs) EXPECT_FALSE(fs::exists(slot + "/" + name)) << name;
}

}  // namespace
}  // namespace helix::test
