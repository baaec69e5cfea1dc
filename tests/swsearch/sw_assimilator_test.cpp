// sw_assimilator_test.cpp: the merged report over database chunks is exactly
// a single whole-database run: globins45 split by helix-wu into 3 chunks, each
// WU run with the reference engine and stored, sw_report() against one WU
// over the whole database (same params, database_residues included); so are
// the BLAST tabular and pairwise texts of `helix-wu swsearch report` (the
// library's and the command line's), whose number formats are BLAST's.
#include <filesystem>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "core/file_io.h"
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
  sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM swsearch_hits", -1, &statement, nullptr);
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
  swsearch::create_sw_tables(db);
  swsearch::create_sw_tables(db);  // idempotent
  for (std::size_t k = 0; k < chunks.size(); ++k) swsearch::store_sw_result(db, 100 + k, chunks[k].files());
  const long long stored = row_count(db);
  EXPECT_EQ(stored, 3 * 4 * 8);  // every chunk fills its top 8 for each query
  swsearch::store_sw_result(db, 100, chunks[0].files());  // re-assimilating changes nothing
  EXPECT_EQ(row_count(db), stored);
  const auto report = swsearch::sw_report(db, 8, 3);
  sqlite3_close(db);

  auto expected = whole[0].result.queries;
  std::sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.query_id < b.query_id; });
  ASSERT_EQ(report.size(), expected.size());
  bool hits_from_later_chunks = false;
  for (std::size_t q = 0; q < expected.size(); ++q) {
    EXPECT_EQ(report[q].query_id, expected[q].query_id);
    ASSERT_EQ(report[q].hits.size(), 8u);
    for (std::size_t r = 0; r < 8; ++r) {
      const swsearch::Hit &got = report[q].hits[r], &want = expected[q].hits[r];
      EXPECT_EQ(got.target_id, want.target_id);
      EXPECT_EQ(got.target_ordinal, want.target_ordinal);
      EXPECT_EQ(got.score, want.score);
      EXPECT_EQ(swsearch::hits_tsv({{}, {{"q", 0, {got}}}, 0, 0, "", {}}), swsearch::hits_tsv({{}, {{"q", 0, {want}}}, 0, 0, "", {}}))
          << "query " << expected[q].query_id << " rank " << r + 1;
      hits_from_later_chunks |= want.target_ordinal >= 15;
    }
  }
  EXPECT_TRUE(hits_from_later_chunks);  // the merge really drew on more than the first chunk
}

swsearch::ReportTexts report_texts(const std::vector<SwResult>& results, const std::string& dir) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  swsearch::create_sw_tables(db);
  for (std::size_t k = 0; k < results.size(); ++k) swsearch::store_sw_result(db, 200 + k, results[k].files());
  EXPECT_EQ(swsearch::sw_searches(db), std::vector<std::string>{"as"});
  const swsearch::SwParams params = swsearch::sw_search_params(db, "as");
  const auto merged = swsearch::sw_report(db, params.top_hits, params.alignments, "as");
  EXPECT_TRUE(swsearch::sw_report(db, params.top_hits, params.alignments, "other").empty());
  sqlite3_close(db);
  return swsearch::sw_report_texts(merged, params, swsearch::read_report_inputs(dir + "/in", params, merged));
}

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t at = 0;
  for (std::size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1)
    fields.push_back(line.substr(at, tab - at));
  fields.push_back(line.substr(at));
  return fields;
}

TEST(SwAssimilator, ReportTextsOfChunksEqualOneWholeDatabaseRun) {
  SKIP_WITHOUT_SW_DATA();
  const std::string chunks_dir = scratch_dir("sw_report_chunks"), whole_dir = scratch_dir("sw_report_whole");
  const swsearch::ReportTexts chunks = report_texts(search(chunks_dir, "2300"), chunks_dir);
  const swsearch::ReportTexts whole = report_texts(search(whole_dir, "100000000"), whole_dir);
  EXPECT_EQ(chunks.tabular, whole.tabular);
  EXPECT_EQ(chunks.commented, whole.commented);
  EXPECT_EQ(chunks.alignments, whole.alignments);
  // 4 queries x 3 aligned hits, 12 columns each; every query is a database
  // member, so its first row is itself: 100 % identity over its whole length.
  std::vector<std::string> rows;
  for (std::size_t at = 0; at < whole.tabular.size();) {
    const std::size_t end = whole.tabular.find('\n', at);
    rows.push_back(whole.tabular.substr(at, end - at));
    at = end + 1;
  }
  ASSERT_EQ(rows.size(), 12u);
  for (std::size_t q = 0; q < 4; ++q) {
    const auto self = fields_of(rows[3 * q]);
    ASSERT_EQ(self.size(), 12u);
    EXPECT_EQ(self[0], self[1]);
    EXPECT_EQ(self[2], "100.000");
    EXPECT_EQ(self[4], "0");  // mismatches
    EXPECT_EQ(self[5], "0");  // gap opens
    EXPECT_EQ(self[6], "1");
    EXPECT_EQ(self[3], self[7]);  // length = query end
    const auto other = fields_of(rows[3 * q + 1]);
    ASSERT_EQ(other.size(), 12u);
    const int length = std::stoi(other[3]), identities_percent = static_cast<int>(std::stod(other[2]));
    EXPECT_GT(length, 0);
    EXPECT_LT(identities_percent, 100);
    EXPECT_EQ(std::stoi(other[4]) + std::stoi(other[5]) > 0 || identities_percent == 100, true);
  }
  // MYG_ESCGI against MYG_HORSE (globins45): 137 of 152 identical, no gap, as blastp aligns them.
  EXPECT_NE(whole.tabular.find("MYG_ESCGI\tMYG_HORSE\t90.132\t152\t15\t0\t2\t153\t2\t153\t"), std::string::npos);
  EXPECT_NE(whole.commented.find("# Fields: query acc.ver, subject acc.ver, % identity, alignment length, mismatches, "
                                 "gap opens, q. start, q. end, s. start, s. end, evalue, bit score\n# 3 hits found\n"),
            std::string::npos);
  EXPECT_NE(whole.alignments.find(" Identities = 137/152 (90%), Positives = 143/152 (94%), Gaps = 0/152 (0%)"),
            std::string::npos);
  EXPECT_NE(whole.alignments.find("\nSbjct  1    VLSDAEWQLVLNIWAKVEADVAGHGQDILIRLFKGHPETLEKFDKFKHLKTEAEMKASED  60\n"),
            std::string::npos);
}

TEST(SwAssimilator, ReportCommandWritesTheMergedTexts) {
  SKIP_WITHOUT_SW_DATA();
  // The chunks' results in a results database on disk, then `helix-wu swsearch
  // report` through its command line: its files equal one whole-database
  // run's texts; a search it does not hold is one error line.
  const std::string chunks_dir = scratch_dir("sw_report_cli"), whole_dir = scratch_dir("sw_report_cli_whole");
  const auto chunks = search(chunks_dir, "2300");
  const swsearch::ReportTexts whole = report_texts(search(whole_dir, "100000000"), whole_dir);
  const std::string db_path = chunks_dir + "/results.sqlite";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  swsearch::create_sw_tables(db);
  for (std::size_t k = 0; k < chunks.size(); ++k) swsearch::store_sw_result(db, 300 + k, chunks[k].files());
  sqlite3_close(db);
  const ToolRun report = run_tool(std::string(HELIX_WU) + " swsearch report --results " + db_path + " --inputs " +
                                  chunks_dir + "/in --out " + chunks_dir + "/report");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(read_file_text(chunks_dir + "/report/as.blast6.tsv"), whole.tabular);
  EXPECT_EQ(read_file_text(chunks_dir + "/report/as.blast7.tsv"), whole.commented);
  EXPECT_EQ(read_file_text(chunks_dir + "/report/as.alignments.txt"), whole.alignments);
  const ToolRun missing = run_tool(std::string(HELIX_WU) + " swsearch report --results " + db_path +
                                   " --search other --inputs " + chunks_dir + "/in --out " + chunks_dir + "/none");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "helix-wu: error: no swsearch result of search \"other\" is stored\n");
  EXPECT_FALSE(std::filesystem::exists(chunks_dir + "/none"));
}

TEST(SwReport, NumbersAreFormattedAsBlastFormatsThem) {
  // As blastp 2.12.0+ prints them (-outfmt 6) for these values.
  EXPECT_EQ(swsearch::blast_evalue_text(1e-200), "0.0");
  EXPECT_EQ(swsearch::blast_evalue_text(2.2e-150), "2e-150");
  EXPECT_EQ(swsearch::blast_evalue_text(3.1e-45), "3e-45");
  EXPECT_EQ(swsearch::blast_evalue_text(0.01234), "0.012");
  EXPECT_EQ(swsearch::blast_evalue_text(0.5712), "0.57");
  EXPECT_EQ(swsearch::blast_evalue_text(1.74), "1.7");
  EXPECT_EQ(swsearch::blast_evalue_text(36.2), "36");
  EXPECT_EQ(swsearch::blast_evalue_text(578.4), "578");
  EXPECT_EQ(swsearch::blast_bits_text(726.9), "726");  // cut, not rounded
  EXPECT_EQ(swsearch::blast_bits_text(22.24), "22.2");
  EXPECT_EQ(swsearch::blast_bits_text(12345.6), "1.235e+04");
}

}  // namespace
}  // namespace helix::test
