// hmm_validator_test.cpp: the hmmsearch validator on a genuine result
// (globins4 and fn3 against 300 real proteins and the 45 globins, run with
// the reference engine) and on forgeries: a tblout, domtblout or out that is
// not its rows', a flipped reported flag, an overstated count, domains outside
// their target or with a wrong best domain; a changed score, a dropped hit, a
// moved envelope and a raised domain score that keep every file consistent
// (only the CPU re-run sees them); another WU's params, missing inputs
// (transient), and compare mode.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "hmm_test_util.h"
#include "hmmsearch/hmm_server.h"
#include "server_test_util.h"

namespace helix::test {
namespace {
namespace fs = std::filesystem;

// Budgets covering every target of the small WU: the verdicts are deterministic.
const hmmsearch::SampleCheck kEveryTarget{100000, 100000, 1};

struct Genuine {
  std::string inputs_dir;
  HmmResult result;
};

// One WU: globins4 and fn3 against 300 mmseqs2 proteins followed by the 45 globins.
Genuine genuine(const std::string& tag) {
  const std::string dir = scratch_dir(tag);
  const std::string db = mmseqs_proteins(dir, 300);
  write_file_atomic(db, read_file_text(db) + read_file_text(tutorial_file("globins45.fa")));
  const auto run = run_hmm_wu({"hmmsearch", "make", "--name", "hv", "--profiles",
                               profiles_file_of(dir, {"globins4.hmm", "fn3.hmm"}), "--database", db, "-E", "1e-40",
                               "--out", dir + "/in"});
  EXPECT_EQ(run.error, "");
  fs::create_directories(dir + "/result");
  return {dir + "/in", run_hmm_spec(run.specs.at(0), dir + "/result")};
}

CheckOutcome check(const Genuine& g, bool with_inputs) {
  ServerOptions options;
  if (with_inputs) options.inputs_dir = g.inputs_dir;
  return hmmsearch::check_hmm_result(g.result.files(), options, kEveryTarget);
}

void expect_invalid(const CheckOutcome& outcome, const std::string& words) {
  EXPECT_EQ(outcome.verdict, Verdict::kInvalid) << outcome.reason;
  EXPECT_NE(outcome.reason.find(words), std::string::npos) << outcome.reason;
}

TEST(HmmValidator, GenuineResultIsValidWithAndWithoutInputs) {
  SKIP_WITHOUT_HMM_DATA();
  const Genuine g = genuine("hmm_val_ok");
  const hmmsearch::HmmJobResult& r = g.result.result;
  ASSERT_EQ(r.profiles.size(), 2u);
  bool reported = false, unreported = false;
  for (const auto& row : r.rows) (row.scores.reported ? reported : unreported) = true;
  EXPECT_TRUE(reported && unreported);  // -E 1e-40 leaves the weaker targets past Forward unreported
  EXPECT_EQ(check(g, false).reason, "");
  const CheckOutcome full = check(g, true);
  EXPECT_EQ(full.verdict, Verdict::kValid) << full.reason;
  EXPECT_EQ(hmmsearch::check_hmm_result(g.result.files(), {g.inputs_dir}).verdict, Verdict::kValid);  // the default sample
  EXPECT_EQ(hmmsearch::check_hmm_result({g.result.paths[0], g.result.paths[3]}, {}).verdict, Verdict::kInvalid);
}

TEST(HmmValidator, FilesThatDisagreeAreCaughtWithoutInputs) {
  SKIP_WITHOUT_HMM_DATA();
  const Genuine g = genuine("hmm_val_struct");
  const auto& paths = g.result.paths;
  // A tblout row dropped: not what the scores make.
  std::string tblout = read_file_text(paths[0]);
  tblout.erase(tblout.rfind("\nMYG_"), tblout.find('\n', tblout.rfind("\nMYG_") + 1) - tblout.rfind("\nMYG_"));
  write_file_atomic(paths[0], tblout);
  expect_invalid(check(g, false), "tblout is");
  write_hmm_files(g.result.result, paths);
  EXPECT_EQ(check(g, false).verdict, Verdict::kValid);
  // A domtblout row dropped; the text report changed by one character.
  std::string domtblout = read_file_text(paths[hmmsearch::kDomtbloutFile]);
  domtblout.erase(domtblout.rfind("\nMYG_"), domtblout.find('\n', domtblout.rfind("\nMYG_") + 1) - domtblout.rfind("\nMYG_"));
  write_file_atomic(paths[hmmsearch::kDomtbloutFile], domtblout);
  expect_invalid(check(g, false), "domtblout is");
  write_hmm_files(g.result.result, paths);
  std::string out = read_file_text(paths[hmmsearch::kOutFile]);
  out[out.find("== domain 1") + 3] = 'D';
  write_file_atomic(paths[hmmsearch::kOutFile], out);
  expect_invalid(check(g, false), "out differs");
  write_hmm_files(g.result.result, paths);
  // A reported flag flipped (and the tblout rewritten to match): -E says otherwise.
  hmmsearch::HmmJobResult forged = g.result.result;
  forged.rows.front().scores.reported = !forged.rows.front().scores.reported;
  write_hmm_files(forged, paths);
  expect_invalid(check(g, false), "reported disagrees with its E-value");
  // More targets past Forward than past Viterbi.
  forged = g.result.result;
  forged.profiles[0].counts.past_viterbi = forged.profiles[0].counts.past_forward - 1;
  write_hmm_files(forged, paths);
  expect_invalid(check(g, false), "past_forward");
  // Targets of another chunk size.
  forged = g.result.result;
  forged.profiles[1].counts.targets -= 1;
  write_hmm_files(forged, paths);
  expect_invalid(check(g, false), "'targets'");
  // The summary's count of rows off by one.
  forged = g.result.result;
  forged.profiles[0].counts.past_forward -= 1;
  write_hmm_files(forged, paths);
  expect_invalid(check(g, false), "rows where the summary counts");
  // An envelope running past the end of its target.
  forged = g.result.result;
  hmmsearch::TargetDomains& first = forged.rows[0].domains;
  ASSERT_FALSE(first.definition.domains.empty());
  first.definition.domains[0].jenv = static_cast<int>(first.length) + 1;
  write_hmm_files(forged, paths);
  expect_invalid(check(g, false), "outside the target");
  // A domain raised above the one named best.
  forged = g.result.result;
  for (auto& row : forged.rows)
    if (row.domains.definition.domains.size() >= 2) {
      auto& domains = row.domains.definition.domains;
      domains[row.domains.scores.best_domain == 0 ? 1 : 0].bitscore = domains[row.domains.scores.best_domain].bitscore + 1;
      break;
    }
  write_hmm_files(forged, paths);
  expect_invalid(check(g, false), "best_domain");
}

TEST(HmmValidator, ConsistentForgeriesAreCaughtByTheCpuRerun) {
  SKIP_WITHOUT_HMM_DATA();
  const Genuine g = genuine("hmm_val_rerun");
  const auto& paths = g.result.paths;
  // A Forward score nudged (not printed in tblout): every file stays consistent.
  hmmsearch::HmmJobResult forged = g.result.result;
  forged.rows[2].scores.forward_nats += 0.25f;
  write_hmm_files(forged, paths);
  EXPECT_EQ(check(g, false).verdict, Verdict::kValid);
  expect_invalid(check(g, true), "scores differ from the CPU reference's: forward_nats");
  // A hit dropped, with its count: the summary, scores and tblout agree.
  forged = g.result.result;
  const std::uint32_t profile = forged.rows.back().profile;
  forged.rows.pop_back();
  forged.profiles[profile].counts.past_forward -= 1;
  write_hmm_files(forged, paths);
  EXPECT_EQ(check(g, false).verdict, Verdict::kValid) << check(g, false).reason;
  expect_invalid(check(g, true), "missing from scores");
  // A target renamed.
  forged = g.result.result;
  for (auto& row : forged.rows)
    if (row.ordinal == forged.rows[0].ordinal) row.name = "sp|FAKE|FAKE_HUMAN";
  write_hmm_files(forged, paths);
  EXPECT_EQ(check(g, false).verdict, Verdict::kValid);
  expect_invalid(check(g, true), "not sp|FAKE|FAKE_HUMAN");
}

// The index of a reported row with one domain whose envelope ends before its target does.
std::size_t single_domain_row(const hmmsearch::HmmJobResult& result) {
  for (std::size_t k = 0; k < result.rows.size(); ++k) {
    const auto& domains = result.rows[k].domains.definition.domains;
    if (domains.size() == 1 && domains[0].jenv < result.rows[k].domains.length && result.rows[k].scores.reported)
      return k;
  }
  ADD_FAILURE() << "no single-domain row";
  return 0;
}

TEST(HmmValidator, ForgedDomainsAreCaughtByTheCpuRerun) {
  SKIP_WITHOUT_HMM_DATA();
  const Genuine g = genuine("hmm_val_domains");
  const auto& paths = g.result.paths;
  const std::size_t k = single_domain_row(g.result.result);
  // The envelope one residue wider: consistent files (domtblout and out show it).
  hmmsearch::HmmJobResult forged = g.result.result;
  forged.rows[k].domains.definition.domains[0].jenv += 1;
  write_hmm_files(forged, paths);
  EXPECT_EQ(check(g, false).reason, "");
  expect_invalid(check(g, true), "domains differ from the CPU reference's: domain 1 jenv");
  // The domain's score raised by a bit.
  forged = g.result.result;
  forged.rows[k].domains.definition.domains[0].bitscore += 1.0f;
  write_hmm_files(forged, paths);
  EXPECT_EQ(check(g, false).reason, "");
  expect_invalid(check(g, true), "domain 1 bitscore");
  // The sequence score after null2, one float step.
  forged = g.result.result;
  float& score = forged.rows[k].domains.scores.score_bits;
  score = std::nextafter(score, 1e9f);
  write_hmm_files(forged, paths);
  EXPECT_EQ(check(g, false).reason, "");
  expect_invalid(check(g, true), "score_bits");
  // A kept target claimed dropped (it vanishes from every report).
  forged = g.result.result;
  forged.rows[k].domains.scores = hmmsearch::TargetScores{};
  forged.rows[k].domains.scores.dropped = true;
  forged.rows[k].domains.definition.domains.clear();
  write_hmm_files(forged, paths);
  EXPECT_EQ(check(g, false).reason, "");
  expect_invalid(check(g, true), "dropped");
}

TEST(HmmValidator, AnotherWusParamsAreRefusedAndMissingInputsAreTransient) {
  SKIP_WITHOUT_HMM_DATA();
  const Genuine g = genuine("hmm_val_params");
  hmmsearch::HmmJobResult forged = g.result.result;
  forged.params.F3 = 1e-4;  // a cheaper search than the WU asked for
  write_hmm_files(forged, g.result.paths);
  EXPECT_EQ(check(g, false).verdict, Verdict::kValid);
  expect_invalid(check(g, true), "params differ from WU hv_c0's");
  write_hmm_files(g.result.result, g.result.paths);
  fs::remove(g.inputs_dir + "/hv.chunk_0.fa");
  const CheckOutcome outcome = check(g, true);
  EXPECT_EQ(outcome.verdict, Verdict::kTransient);
  EXPECT_NE(outcome.reason.find("WU database chunk unavailable"), std::string::npos) << outcome.reason;
}

TEST(HmmValidator, CompareIgnoresTheEngineOnly) {
  SKIP_WITHOUT_HMM_DATA();
  const Genuine a = genuine("hmm_cmp_a"), b = genuine("hmm_cmp_b");
  hmmsearch::HmmJobResult other = b.result.result;
  other.engine = "some GPU";
  write_hmm_files(other, b.result.paths);
  EXPECT_EQ(hmmsearch::compare_hmm_results(a.result.files(), b.result.files()).verdict, Verdict::kValid);
  // One float step in one score: valid alone, not the same result.
  other.rows[1].scores.filter_nats = std::nextafter(other.rows[1].scores.filter_nats, 0.0f);
  write_hmm_files(other, b.result.paths);
  EXPECT_EQ(check({b.inputs_dir, {b.result.paths, other}}, false).verdict, Verdict::kValid);
  expect_invalid(hmmsearch::compare_hmm_results(a.result.files(), b.result.files()), "filter_nats");
  // One domain's optimal-accuracy score.
  other = b.result.result;
  other.engine = "some GPU";
  float& oasc = other.rows[single_domain_row(other)].domains.definition.domains[0].oasc;
  oasc = std::nextafter(oasc, 0.0f);
  write_hmm_files(other, b.result.paths);
  expect_invalid(hmmsearch::compare_hmm_results(a.result.files(), b.result.files()), "domain 1 oasc");
}

}  // namespace
}  // namespace helix::test
