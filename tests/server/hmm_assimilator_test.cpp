// hmm_assimilator_test.cpp: a search merged over its database chunks is
// exactly one whole-database run: 2,000 real proteins (mmseqs2-examples)
// and the 45 globins, searched with globins4, fn3 and Pkinase in 7 chunks
// (helix-wu), each WU run with the reference engine and stored; the merged
// report's tblout per profile equals tblout_text() of search_chunk() over the
// whole database byte for byte, and its summed counts equal that run's.
#include <filesystem>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "core/errors.h"
#include "core/file_io.h"
#include "hmm_test_util.h"
#include "hmmsearch/hmm_file.h"
#include "hmmsearch/hmm_server.h"
#include "server_test_util.h"

namespace helix::test {
namespace {
namespace fs = std::filesystem;

const std::vector<std::string> kProfiles = {"globins4.hmm", "fn3.hmm", "Pkinase.hmm"};

struct Database {
  std::string dir, fasta, profiles;
};
Database make_database() {
  Database d;
  d.dir = scratch_dir("hmm_as");
  d.fasta = mmseqs_proteins(d.dir, 2000);
  write_file_atomic(d.fasta, read_file_text(d.fasta) + read_file_text(tutorial_file("globins45.fa")));
  d.profiles = profiles_file_of(d.dir, kProfiles);
  return d;
}

long long count_rows(sqlite3* db, const char* table) {
  sqlite3_stmt* statement = nullptr;
  sqlite3_prepare_v2(db, (std::string("SELECT COUNT(*) FROM ") + table).c_str(), -1, &statement, nullptr);
  sqlite3_step(statement);
  const long long count = sqlite3_column_int64(statement, 0);
  sqlite3_finalize(statement);
  return count;
}

TEST(HmmAssimilator, MergedChunksEqualOneWholeDatabaseRun) {
  SKIP_WITHOUT_HMM_DATA();
  const Database d = make_database();
  const auto run = run_hmm_wu({"hmmsearch", "make", "--name", "as", "--profiles", d.profiles, "--database", d.fasta,
                               "--chunk-residues", "150000", "-E", "0.01", "--out", d.dir + "/in"});
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.specs.size(), 7u);
  const std::string db_path = d.dir + "/results.sqlite";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  hmm::create_hmm_tables(db);
  hmm::create_hmm_tables(db);  // idempotent
  for (std::size_t c = 0; c < run.specs.size(); ++c) {
    const HmmResult result = run_hmm_spec(run.specs[c], d.dir);
    ASSERT_EQ(hmm::check_hmm_result(result.files(), {d.dir + "/in"}).reason, "");
    hmm::store_hmm_result(db, 100 + c, result.files());
    if (c == 0) {
      EXPECT_THROW(hmm::hmm_report(db, "as", false), InputError);  // 1 of 7 chunks
      EXPECT_EQ(hmm::hmm_report(db, "as", true).chunks_stored, 1u);
      const long long rows = count_rows(db, "hmmsearch_passed");
      hmm::store_hmm_result(db, 100, result.files());  // re-assimilating changes nothing
      EXPECT_EQ(count_rows(db, "hmmsearch_passed"), rows);
      EXPECT_EQ(count_rows(db, "hmmsearch_profiles"), 3);
    }
  }
  EXPECT_EQ(hmm::hmm_searches(db), std::vector<std::string>{"as"});
  const hmm::SearchReport report = hmm::hmm_report(db, "as", false);
  sqlite3_close(db);
  EXPECT_EQ(report.chunks_stored, 7u);
  EXPECT_THROW(
      {
        sqlite3* other = nullptr;
        sqlite3_open(db_path.c_str(), &other);
        try {
          hmm::hmm_report(other, "nosuch", false);
        } catch (...) {
          sqlite3_close(other);
          throw;
        }
        sqlite3_close(other);
      },
      InputError);

  // One hmmsearch over the whole database: search_chunk on all targets, Z = all.
  const auto targets = hmm::parse_targets(read_file_text(d.fasta), "database");
  ASSERT_EQ(targets.size(), 2045u);
  EXPECT_EQ(report.params.database_sequences, 2045u);
  const hmm::TargetChunk chunk = hmm::make_target_chunk(targets);
  const auto hmms = hmm::parse_hmm_file(read_file_text(d.profiles), "profiles");
  auto engine = hmm::make_reference_engine();
  engine->load_targets(chunk);
  const hmm::PipelineOptions options = report.params.pipeline();
  ASSERT_EQ(report.profiles.size(), 3u);
  std::size_t reported_hits = 0;
  for (std::uint32_t p = 0; p < 3; ++p) {
    const hmm::SearchProfile profile = hmm::configure_profile(hmms[p]);
    engine->load_profile(profile);
    const hmm::ChunkSearch whole = hmm::search_chunk(profile, chunk, *engine, options);
    std::vector<hmm::TblHit> hits;
    for (const hmm::PassedTarget& t : whole.passed)
      if (t.reported) hits.push_back({targets[t.target].name, "", targets[t.target].description, t.score_bits, 0.0f, t.ln_p});
    reported_hits += hits.size();
    const std::string expected_tblout = hmm::tblout_text(profile, hits, 2045);
    EXPECT_EQ(hmm::tblout_text_of(report.profiles[p], p, report.rows, report.params), expected_tblout) << hmms[p].name;
    const hmm::PipelineCounts& got = report.profiles[p].counts;
    EXPECT_EQ(got.targets, whole.counts.targets);
    EXPECT_EQ(got.residues, whole.counts.residues);
    EXPECT_EQ(got.past_msv, whole.counts.past_msv);
    EXPECT_EQ(got.past_bias, whole.counts.past_bias);
    EXPECT_EQ(got.past_viterbi, whole.counts.past_viterbi);
    EXPECT_EQ(got.past_forward, whole.counts.past_forward);
    const std::string stats = hmm::stats_text_of(report.profiles[p], report.params);
    EXPECT_NE(stats.find(hmm::pipeline_statistics_text(profile, whole.counts, options)), std::string::npos) << stats;
    // Every stored score is the whole run's, bit for bit.
    std::size_t k = 0;
    for (const hmm::ScoreRow& row : report.rows) {
      if (row.profile != p) continue;
      ASSERT_LT(k, whole.passed.size());
      EXPECT_EQ(row.ordinal, whole.passed[k].target);
      EXPECT_TRUE(hmm::same_scores(row.scores, whole.passed[k])) << row.name;
      ++k;
    }
    EXPECT_EQ(k, whole.passed.size());
  }
  EXPECT_GT(reported_hits, 45u);  // the globins and real kinases, from several chunks

  // `helix-wu hmmsearch report` writes the same, one tblout and stats per profile.
  const auto reported = run_hmm_wu({"hmmsearch", "report", "--results", db_path, "--out", d.dir + "/report"});
  ASSERT_EQ(reported.error, "");
  for (std::uint32_t p = 0; p < 3; ++p) {
    const std::string base = d.dir + "/report/as." + report.profiles[p].name;
    EXPECT_EQ(read_file_text(base + ".tblout"), hmm::tblout_text_of(report.profiles[p], p, report.rows, report.params));
    EXPECT_EQ(read_file_text(base + ".stats"), hmm::stats_text_of(report.profiles[p], report.params));
  }
  EXPECT_NE(run_hmm_wu({"hmmsearch", "report", "--results", d.dir + "/none.sqlite", "--out", d.dir + "/r2"}).error, "");
}

}  // namespace
}  // namespace helix::test
