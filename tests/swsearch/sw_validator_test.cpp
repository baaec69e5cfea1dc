// sw_validator_test.cpp: the swsearch validator on a genuine result (a
// globins45 WU run with the reference engine) and on forgeries: a changed
// score (the statistics betray it), a dropped best hit (only the spot check
// of unreported pairs sees it), a moved end (only re-scoring sees it),
// missing inputs (transient), and compare mode.
#include <filesystem>

#include <gtest/gtest.h>

#include "core/file_io.h"
#include "server_test_util.h"
#include "sw_test_util.h"
#include "swsearch/sw_server.h"

namespace helix::test {
namespace {
namespace fs = std::filesystem;

// Budgets covering every pair of the small WU: the verdicts are deterministic.
const swsearch::SpotCheck kEveryPair{1000000, 1000000, 1};

struct Genuine {
  std::string inputs_dir;
  SwResult result;
};

// One WU: 3 globin queries against the whole database (one chunk), top 10, 4 aligned.
Genuine genuine(const std::string& tag) {
  const std::string dir = scratch_dir(tag);
  const auto run = run_sw_wu({"swsearch", "make", "--db", kGlobins, "--queries", globin_queries(dir, 3), "--top-hits",
                              "10", "--alignments", "4", "--name", "gv", "--out", dir + "/in"});
  EXPECT_EQ(run.error, "");
  fs::create_directories(dir + "/result");
  return {dir + "/in", run_sw_spec(run.specs.at(0), dir + "/result")};
}

CheckOutcome check(const Genuine& g, bool with_inputs) {
  ServerOptions options;
  if (with_inputs) options.inputs_dir = g.inputs_dir;
  return swsearch::check_sw_result(g.result.files(), options, kEveryPair);
}

void rewrite(const Genuine& g, const swsearch::SearchResult& changed) {
  write_file_atomic(g.result.hits, swsearch::hits_tsv(changed));
  write_file_atomic(g.result.summary, swsearch::sw_summary_json(changed));
}

TEST(SwValidator, GenuineResultIsValidWithAndWithoutInputs) {
  SKIP_WITHOUT_SW_DATA();
  const Genuine g = genuine("sw_val_ok");
  ASSERT_EQ(g.result.result.queries.size(), 3u);
  EXPECT_EQ(g.result.result.queries[0].hits.size(), 10u);
  EXPECT_EQ(g.result.result.queries[0].hits[0].target_ordinal, 0u);  // a query finds itself first
  EXPECT_EQ(check(g, false).reason, "");
  const CheckOutcome full = check(g, true);
  EXPECT_EQ(full.verdict, Verdict::kValid) << full.reason;
  // The default sampled check passes too.
  EXPECT_EQ(swsearch::check_sw_result(g.result.files(), {g.inputs_dir}).verdict, Verdict::kValid);
}

TEST(SwValidator, ChangedScoreIsCaughtByItsStatistics) {
  SKIP_WITHOUT_SW_DATA();
  const Genuine g = genuine("sw_val_score");
  swsearch::SearchResult forged = g.result.result;
  forged.queries[1].hits.back().score -= 1;  // still ranked last; its printed bits now belong to another score
  rewrite(g, forged);
  const CheckOutcome outcome = check(g, false);
  EXPECT_EQ(outcome.verdict, Verdict::kInvalid);
  EXPECT_NE(outcome.reason.find("bits differ from the server's"), std::string::npos) << outcome.reason;
}

TEST(SwValidator, DroppedBestHitIsCaughtByUnreportedPairs) {
  SKIP_WITHOUT_SW_DATA();
  const Genuine g = genuine("sw_val_drop");
  swsearch::SearchResult forged = g.result.result;
  auto& hits = forged.queries[0].hits;
  hits.erase(hits.begin());  // the self hit; the rest keep their own scores and ends
  // The WU aligns the first 4: the new 4th (the old 5th) needs its alignment.
  const auto queries = swsearch::parse_fasta(read_file_text(kGlobins), "globins");
  const swsearch::ScoreMatrix matrix = swsearch::read_ncbi_matrix(kBlosum62);
  swsearch::Hit& fourth = hits[3];
  const swsearch::Alignment a = swsearch::sw_align(queries[0].residues, queries[fourth.target_ordinal].residues, matrix, {12, 1});
  fourth.query_start = a.query_begin + 1, fourth.target_start = a.target_begin + 1;
  fourth.identities = a.identities, fourth.length = a.length, fourth.cigar = a.cigar;
  rewrite(g, forged);
  EXPECT_EQ(check(g, false).verdict, Verdict::kValid) << check(g, false).reason;
  const CheckOutcome outcome = check(g, true);
  EXPECT_EQ(outcome.verdict, Verdict::kInvalid);
  EXPECT_NE(outcome.reason.find("which belongs in the reported hits"), std::string::npos)
      << outcome.reason;
}

TEST(SwValidator, MovedEndIsCaughtByRescoring) {
  SKIP_WITHOUT_SW_DATA();
  const Genuine g = genuine("sw_val_end");
  swsearch::SearchResult forged = g.result.result;
  swsearch::Hit& hit = forged.queries[2].hits[7];  // no alignment: only the ends say where
  ASSERT_TRUE(hit.cigar.empty());
  hit.query_end -= 1;
  rewrite(g, forged);
  EXPECT_EQ(check(g, false).verdict, Verdict::kValid);
  const CheckOutcome outcome = check(g, true);
  EXPECT_EQ(outcome.verdict, Verdict::kInvalid);
  EXPECT_NE(outcome.reason.find("the reference scores"), std::string::npos) << outcome.reason;
}

TEST(SwValidator, MissingInputsAreTransient) {
  SKIP_WITHOUT_SW_DATA();
  const Genuine g = genuine("sw_val_missing");
  fs::remove(g.inputs_dir + "/gv.chunk_0.hxsw");
  const CheckOutcome outcome = check(g, true);
  EXPECT_EQ(outcome.verdict, Verdict::kTransient);
  EXPECT_NE(outcome.reason.find("database chunk unavailable"), std::string::npos) << outcome.reason;
}

TEST(SwValidator, CompareIgnoresEngineOnly) {
  SKIP_WITHOUT_SW_DATA();
  const Genuine a = genuine("sw_cmp_a"), b = genuine("sw_cmp_b");
  swsearch::SearchResult other = b.result.result;
  other.engine = "some GPU";
  rewrite(b, other);
  EXPECT_EQ(swsearch::compare_sw_results(a.result.files(), b.result.files()).verdict, Verdict::kValid);
  rewrite(b, other);
  // Hit 6 of query 0 (line 7) with bits 0.04 off: within what printing
  // allows the structural check, not what compare allows.
  std::string text = read_file_text(b.result.hits);
  std::size_t line = 0;
  for (int k = 0; k < 6; ++k) line = text.find('\n', line) + 1;
  std::size_t bits_end = line;
  for (int tab = 0; tab < 4; ++tab) bits_end = text.find('\t', bits_end) + 1;
  text.insert(bits_end - 1, "4");
  write_file_atomic(b.result.hits, text);
  EXPECT_EQ(swsearch::check_sw_result(b.result.files(), {}).verdict, Verdict::kValid);
  const CheckOutcome outcome = swsearch::compare_sw_results(a.result.files(), b.result.files());
  EXPECT_EQ(outcome.verdict, Verdict::kInvalid);
  EXPECT_NE(outcome.reason.find("hit 6: bits or evalue differ"), std::string::npos) << outcome.reason;
}

}  // namespace
}  // namespace helix::test
