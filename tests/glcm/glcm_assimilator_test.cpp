// glcm_assimilator_test.cpp: the glcm kind's SQLite storage: stored rows equal
// the returned table value for value (doubles bit for bit), storing twice
// changes nothing, garbage is refused; and helix-assimilate's real command
// line once glcm is a registered kind.
#include <filesystem>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/kind.h"
#include "glcm/glcm_server.h"
#include "glcm_test_util.h"
#include "server_test_util.h"

namespace helix::test {
namespace {
using namespace helix::glcm;

class Database {
 public:
  explicit Database(const std::string& path) { EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK); }
  ~Database() { sqlite3_close(db_); }
  sqlite3* get() { return db_; }
  // Every row of a query, cells joined by '|' (doubles as %.17g: exact).
  std::vector<std::string> rows(const char* query) {
    std::vector<std::string> out;
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, query, -1, &statement, nullptr), SQLITE_OK) << sqlite3_errmsg(db_);
    while (sqlite3_step(statement) == SQLITE_ROW) {
      std::string line;
      for (int c = 0; c < sqlite3_column_count(statement); ++c) {
        char cell[64];
        if (sqlite3_column_type(statement, c) == SQLITE_FLOAT)
          std::snprintf(cell, sizeof cell, "%.17g", sqlite3_column_double(statement, c));
        line += (c ? "|" : "") + (sqlite3_column_type(statement, c) == SQLITE_FLOAT
                                      ? std::string(cell)
                                      : std::string(reinterpret_cast<const char*>(sqlite3_column_text(statement, c))));
      }
      out.push_back(line);
    }
    sqlite3_finalize(statement);
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

void store(Database& db, long long wu_id, const std::vector<std::string>& files) {
  ASSERT_EQ(sqlite3_exec(db.get(), "BEGIN", nullptr, nullptr, nullptr), SQLITE_OK);
  create_glcm_tables(db.get());
  store_glcm_result(db.get(), wu_id, files);
  ASSERT_EQ(sqlite3_exec(db.get(), "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
}

TEST(GlcmAssimilator, StoredRowsEqualTheTableAndStoringTwiceChangesNothing) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine genuine = glcm_genuine("store");
  Database db(scratch_dir("glcm_db") + "/results.sqlite");
  store(db, 42, genuine.files());
  const std::vector<FeatureRow> table = parse_features_tsv(read_file_text(genuine.files()[0]));
  const char* features_query =
      "SELECT wu_id, image, levels, distance, feature, max, mean, min, \"range\", max_x, max_y, min_x, min_y "
      "FROM glcm_features ORDER BY rowid";
  const std::vector<std::string> stored = db.rows(features_query);
  ASSERT_EQ(stored.size(), table.size());
  char expected[512];
  for (std::size_t r = 0; r < table.size(); ++r) {
    const FeatureRow& row = table[r];
    std::snprintf(expected, sizeof expected, "42|%s|%d|%d|%s|%.17g|%.17g|%.17g|%.17g|%d|%d|%d|%d", row.image.c_str(),
                  row.levels, row.distance, row.feature.c_str(), row.max, row.mean, row.min, row.range, row.max_x,
                  row.max_y, row.min_x, row.min_y);
    EXPECT_EQ(stored[r], expected);
  }
  // Doubles come back bit for bit: the gravel 16-level entropy maximum at distance 3.
  const std::vector<std::string> entropy = db.rows(
      "SELECT max FROM glcm_features WHERE wu_id = 42 AND image = 'gravel' AND levels = 16 AND distance = 3 "
      "AND feature = 'entropy'");
  char exact[64];
  std::snprintf(exact, sizeof exact, "%.17g", genuine.result.images[1].blocks[3].statistics.max[kEntropy]);
  EXPECT_EQ(entropy, std::vector<std::string>{exact});
  EXPECT_EQ(db.rows("SELECT * FROM glcm_images ORDER BY image"),
            (std::vector<std::string>{"42|brick|64|60|896",
                                      "42|gravel|90|90|" + std::to_string(genuine.result.images[1].centres.size())}));

  store(db, 42, genuine.files());
  EXPECT_EQ(db.rows(features_query), stored);
  EXPECT_EQ(db.rows("SELECT count(*) FROM glcm_images"), std::vector<std::string>{"2"});
  store(db, 43, genuine.files());  // another WU's rows beside them
  EXPECT_EQ(db.rows("SELECT count(*) FROM glcm_features"), std::vector<std::string>{std::to_string(2 * table.size())});
}

TEST(GlcmAssimilator, GarbageIsRefused) {
  SKIP_WITHOUT_SKIMAGE();
  const GlcmGenuine genuine = glcm_genuine("store_bad");
  Database db(scratch_dir("glcm_db_bad") + "/results.sqlite");
  create_glcm_tables(db.get());
  EXPECT_THROW(store_glcm_result(db.get(), 1, {genuine.files()[0], genuine.files()[2]}), InputError);
  write_file_atomic(genuine.files()[0], std::string("not a table\n"));
  EXPECT_THROW(store_glcm_result(db.get(), 1, genuine.files()), InputError);
  EXPECT_EQ(db.rows("SELECT count(*) FROM glcm_features"), std::vector<std::string>{"0"});
}

// Through helix-assimilate's real command line, once glcm is in HELIX_KINDS.
TEST(GlcmAssimilator, HelixAssimilateCommandLine) {
  SKIP_WITHOUT_SKIMAGE();
  if (!find_server_kind("glcm")) GTEST_SKIP() << "glcm is not a registered kind yet (HELIX_KINDS)";
  const GlcmGenuine genuine = glcm_genuine("tool_store");
  const std::string db_path = scratch_dir("glcm_db_tool") + "/results.sqlite";
  const std::string store_command = std::string(HELIX_ASSIMILATE) + " --db " + db_path + " 7 " + genuine.files()[0] +
                                    " " + genuine.files()[1] + " " + genuine.files()[2];
  ASSERT_EQ(run_tool(store_command).exit_code, 0);
  ASSERT_EQ(run_tool(store_command).exit_code, 0);
  Database db(db_path);
  EXPECT_EQ(db.rows("SELECT wu_id, kind FROM results"), std::vector<std::string>{"7|glcm"});
  EXPECT_EQ(db.rows("SELECT count(*) FROM glcm_features"), std::vector<std::string>{"104"});
  const ToolRun query = run_tool(std::string(HELIX_ASSIMILATE) + " --db " + db_path + " query --wu-id 7");
  EXPECT_NE(query.out.find("WU 7  kind glcm"), std::string::npos) << query.out;
}

}  // namespace
}  // namespace helix::test
