// sw_assimilator_test.cpp: the merged report over database chunks is exactly
// a single whole-database run: globins45 split by helix-wu into 3 chunks, each
// WU run with the reference engine and stored, sw_report() against one WU
// over the whole database (same params, database_residues included).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "server_test_util.h"
#include "sw_test_util.h"
#include "swsearch/sw_server.h"

namespace helix::test {
namespace {

std::vector<SwResult> search(const std::string& dir, const std::string& chunk_residues) {
  const auto run = run_sw_wu({"swsearch", "make", "--db", kGlobins, "--queries", globin_queries(dir, 4), "--top-hits",
                              "8", "--alignments", "3", "--chunk-residues", chunk_residues, "--name", "as", "--out",
                              dir + "/in"});
  EXPECT_EQ(run.error, "");
  std::vector<SwResult> results;
  for (const WorkunitSpec& spec : run.specs) results.push_back(run_sw_spec(spec, dir));
  return results;
}

long long row_count(sqlite3* db) {
  sqlite3_stmt* statement = nullptr;
  sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sw_hits", -1, &statement, nullptr);
  sqlite3_step(statement);
  const long long count = sqlite3_column_int64(statement, 0);
  sqlite3_finalize(statement);
  return count;
}

TEST(SwAssimilator, MergedChunksEqualOneWholeDatabaseRun) {
  SKIP_WITHOUT_SW_DATA();
  const auto chunks = search(scratch_dir("sw_as_chunks"), "2300");
  const auto whole = search(scratch_dir("sw_as_whole"), "100000000");
  ASSERT_EQ(chunks.size(), 3u);
  ASSERT_EQ(whole.size(), 1u);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  sw::create_sw_tables(db);
  sw::create_sw_tables(db);  // idempotent
  for (std::size_t k = 0; k < chunks.size(); ++k) sw::store_sw_result(db, 100 + k, chunks[k].files());
  const long long stored = row_count(db);
  EXPECT_EQ(stored, 3 * 4 * 8);  // every chunk fills its top 8 for each query
  sw::store_sw_result(db, 100, chunks[0].files());  // re-assimilating changes nothing
  EXPECT_EQ(row_count(db), stored);
  const auto report = sw::sw_report(db, 8, 3);
  sqlite3_close(db);

  auto expected = whole[0].result.queries;
  std::sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.query_id < b.query_id; });
  ASSERT_EQ(report.size(), expected.size());
  bool hits_from_later_chunks = false;
  for (std::size_t q = 0; q < expected.size(); ++q) {
    EXPECT_EQ(report[q].query_id, expected[q].query_id);
    ASSERT_EQ(report[q].hits.size(), 8u);
    for (std::size_t r = 0; r < 8; ++r) {
      const sw::Hit &got = report[q].hits[r], &want = expected[q].hits[r];
      EXPECT_EQ(got.target_id, want.target_id);
      EXPECT_EQ(got.target_ordinal, want.target_ordinal);
      EXPECT_EQ(got.score, want.score);
      EXPECT_EQ(sw::hits_tsv({{}, {{"q", 0, {got}}}, 0, 0, ""}), sw::hits_tsv({{}, {{"q", 0, {want}}}, 0, 0, ""}))
          << "query " << expected[q].query_id << " rank " << r + 1;
      hits_from_later_chunks |= want.target_ordinal >= 15;
    }
  }
  EXPECT_TRUE(hits_from_later_chunks);  // the merge really drew on more than the first chunk
}

}  // namespace
}  // namespace helix::test
