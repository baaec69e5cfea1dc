// hmm_assimilator_test.cpp: a search merged over its database chunks is
// exactly one whole-database run: 2,000 real proteins (mmseqs2-examples)
// and the 45 globins, searched with globins4, fn3 and Pkinase in 7 chunks
// (helix-wu), each WU run with the reference engine and stored; the merged
// report (counts, every row's scores and domain definition, and per profile
// its tblout, domtblout and text report) equals a single WU's over the whole
// database, byte for byte.
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
  hmmsearch::create_hmm_tables(db);
  hmmsearch::create_hmm_tables(db);  // idempotent
  for (std::size_t c = 0; c < run.specs.size(); ++c) {
    const HmmResult result = run_hmm_spec(run.specs[c], d.dir);
    ASSERT_EQ(hmmsearch::check_hmm_result(result.files(), {d.dir + "/in"}).reason, "");
    hmmsearch::store_hmm_result(db, 100 + c, result.files());
    if (c == 0) {
      EXPECT_THROW(hmmsearch::hmm_report(db, "as", false), InputError);  // 1 of 7 chunks
      EXPECT_EQ(hmmsearch::hmm_report(db, "as", true).chunks_stored, 1u);
      const long long rows = count_rows(db, "hmmsearch_passed"), domains = count_rows(db, "hmmsearch_domains");
      EXPECT_EQ(count_rows(db, "hmmsearch_targets"), rows);
      hmmsearch::store_hmm_result(db, 100, result.files());  // re-assimilating changes nothing
      EXPECT_EQ(count_rows(db, "hmmsearch_passed"), rows);
      EXPECT_EQ(count_rows(db, "hmmsearch_targets"), rows);
      EXPECT_EQ(count_rows(db, "hmmsearch_domains"), domains);
      EXPECT_EQ(count_rows(db, "hmmsearch_profiles"), 3);
    }
  }
  EXPECT_EQ(hmmsearch::hmm_searches(db), std::vector<std::string>{"as"});
  const hmmsearch::SearchReport report = hmmsearch::hmm_report(db, "as", false);
  sqlite3_close(db);
  EXPECT_EQ(report.chunks_stored, 7u);
  EXPECT_THROW(
      {
        sqlite3* other = nullptr;
        sqlite3_open(db_path.c_str(), &other);
        try {
          hmmsearch::hmm_report(other, "nosuch", false);
        } catch (...) {
          sqlite3_close(other);
          throw;
        }
        sqlite3_close(other);
      },
      InputError);

  // One WU over the whole database (one chunk), run the same way.
  const auto whole_run = run_hmm_wu({"hmmsearch", "make", "--name", "wh", "--profiles", d.profiles, "--database", d.fasta,
                                     "-E", "0.01", "--out", d.dir + "/whole"});
  ASSERT_EQ(whole_run.specs.size(), 1u);
  fs::create_directories(d.dir + "/whole_result");
  const hmmsearch::HmmJobResult whole = run_hmm_spec(whole_run.specs[0], d.dir + "/whole_result").result;
  EXPECT_EQ(report.params.database_sequences, 2045u);
  ASSERT_EQ(report.profiles.size(), 3u);
  for (std::uint32_t p = 0; p < 3; ++p) {
    const hmmsearch::PipelineCounts &got = report.profiles[p].counts, &want = whole.profiles[p].counts;
    EXPECT_EQ(got.targets, want.targets);
    EXPECT_EQ(got.residues, want.residues);
    EXPECT_EQ(got.past_msv, want.past_msv);
    EXPECT_EQ(got.past_bias, want.past_bias);
    EXPECT_EQ(got.past_viterbi, want.past_viterbi);
    EXPECT_EQ(got.past_forward, want.past_forward);
  }
  // Every stored row is the whole run's, bit for bit, domains included.
  ASSERT_EQ(report.rows.size(), whole.rows.size());
  std::size_t domains = 0;
  for (std::size_t k = 0; k < report.rows.size(); ++k) {
    const hmmsearch::ScoreRow &got = report.rows[k], &want = whole.rows[k];
    EXPECT_TRUE(got.profile == want.profile && got.ordinal == want.ordinal && got.name == want.name &&
                got.description == want.description)
        << k;
    EXPECT_TRUE(hmmsearch::same_scores(got.scores, want.scores)) << got.name;
    EXPECT_TRUE(hmmsearch::same_domains(got.domains, want.domains)) << got.name << ": "
                                                             << hmmsearch::domains_difference(got.domains, want.domains);
    domains += got.domains.definition.domains.size();
  }
  EXPECT_GT(domains, 60u);  // the globins, fn3 repeats and real kinases, from several chunks
  // The texts: the whole run's (with hmmsearch's default domZ: the targets
  // reported over the whole database, which no single chunk knows).
  std::size_t reported_rows = 0;
  for (std::uint32_t p = 0; p < 3; ++p) {
    const hmmsearch::ProfileTexts merged = hmmsearch::profile_texts(report.profiles[p], p, report.rows, report.params, true);
    const hmmsearch::ProfileTexts single = hmmsearch::profile_texts(whole.profiles[p], p, whole.rows, whole.params, true);
    EXPECT_EQ(merged.tblout, single.tblout) << report.profiles[p].name;
    EXPECT_EQ(merged.domtblout, single.domtblout) << report.profiles[p].name;
    EXPECT_EQ(merged.out, single.out) << report.profiles[p].name;
    for (char c : merged.tblout) reported_rows += c == '\n';
    reported_rows -= 3;  // the header lines
  }
  EXPECT_GT(reported_rows, 45u);
  EXPECT_NE(hmmsearch::profile_texts(report.profiles[0], 0, report.rows, report.params, true)
                .out.find("  [number of targets reported over threshold]\n"),
            std::string::npos);

  // `helix-wu hmmsearch report` writes the same, three files per profile.
  const auto reported = run_hmm_wu({"hmmsearch", "report", "--results", db_path, "--out", d.dir + "/report"});
  ASSERT_EQ(reported.error, "");
  for (std::uint32_t p = 0; p < 3; ++p) {
    const std::string base = d.dir + "/report/as." + report.profiles[p].name;
    const hmmsearch::ProfileTexts single = hmmsearch::profile_texts(whole.profiles[p], p, whole.rows, whole.params, true);
    EXPECT_EQ(read_file_text(base + ".tblout"), single.tblout);
    EXPECT_EQ(read_file_text(base + ".domtblout"), single.domtblout);
    EXPECT_EQ(read_file_text(base + ".out"), single.out);
  }
  EXPECT_NE(run_hmm_wu({"hmmsearch", "report", "--results", d.dir + "/none.sqlite", "--out", d.dir + "/r2"}).error, "");
}

}  // namespace
}  // namespace helix::test
