// assimilator_test.cpp: helix-assimilate's real command lines against a
// scratch database: store, store again (nothing changes), --error, query.
#include <cmath>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "server_test_util.h"

namespace helix::test {
namespace {

// Every row of every table, as text: equal dumps mean an unchanged database.
std::string dump(const std::string& db_path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  std::string text;
  for (const char* query : {"SELECT wu_id, kind FROM results ORDER BY wu_id",
                            "SELECT wu_id, dims, sweeps, converged, final_energy, summary_json, hex(labels) FROM mrf_results ORDER BY wu_id",
                            "SELECT * FROM mrf_classes ORDER BY wu_id, label",
                            "SELECT * FROM errors ORDER BY wu_id"}) {
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, query, -1, &statement, nullptr), SQLITE_OK) << query;
    while (sqlite3_step(statement) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(statement); ++c) {
        const auto* cell = sqlite3_column_text(statement, c);
        text += (cell ? reinterpret_cast<const char*>(cell) : "NULL") + std::string("|");
      }
      text += "\n";
    }
    sqlite3_finalize(statement);
    text += "--\n";
  }
  sqlite3_close(db);
  return text;
}

int row_count(const std::string& db_path, const std::string& table) {
  const ToolRun run = run_tool("sqlite3 " + db_path + " 'SELECT count(*) FROM " + table + "' 2>/dev/null || true");
  return run.out.empty() ? -1 : std::stoi(run.out);
}

TEST(Assimilator, StoreTwiceChangesNothingAndQueryShowsClasses) {
  const GenuineResult genuine = genuine_result("assimilate");
  const std::string db = scratch_dir("db") + "/results.sqlite";
  const std::string tool = std::string(HELIX_ASSIMILATE) + " --db " + db;
  const std::string store = tool + " 42 " + genuine.labels_path + " " + genuine.summary_path;

  ASSERT_EQ(run_tool(store).exit_code, 0);
  const std::string first = dump(db);
  EXPECT_NE(first.find("42|mrf|"), std::string::npos) << first;
  EXPECT_NE(first.find("42|2|liver|"), std::string::npos) << first;
  ASSERT_EQ(run_tool(store).exit_code, 0);
  EXPECT_EQ(dump(db), first);

  ASSERT_EQ(run_tool(tool + " --error 4 43").exit_code, 0);
  ASSERT_EQ(run_tool(tool + " --error 4 43").exit_code, 0);
  const std::string with_error = dump(db);
  EXPECT_NE(with_error.find("43|4|"), std::string::npos) << with_error;
  if (row_count(db, "mrf_classes") >= 0) {  // the sqlite3 shell is optional
    EXPECT_EQ(row_count(db, "mrf_classes"), 3);
    EXPECT_EQ(row_count(db, "errors"), 1);
  }

  const ToolRun query = run_tool(tool + " query --wu-id 42");
  ASSERT_EQ(query.exit_code, 0) << query.err;
  EXPECT_NE(query.out.find("WU 42  kind mrf"), std::string::npos) << query.out;
  for (int k = 0; k < 3; ++k) {
    const double mean = genuine.summary["classes"][k]["mean"].get<double>();
    const std::string whole = std::to_string(static_cast<long long>(std::trunc(mean)));
    EXPECT_NE(query.out.find("mean=" + whole), std::string::npos) << query.out;
    EXPECT_NE(query.out.find("voxels=" + genuine.summary["classes"][k]["voxels"].dump()), std::string::npos);
  }
  EXPECT_NE(run_tool(tool + " query").out.find("WU 43  failed, error_mask 4"), std::string::npos);
  // As script_assimilator calls it for a failed WU: --error N WU_NAME WU_ID BATCH_ID.
  ASSERT_EQ(run_tool(tool + " --error 16 ct_0044 44 0").exit_code, 0);
  EXPECT_NE(run_tool(tool + " query").out.find("WU 44  failed, error_mask 16"), std::string::npos);
  EXPECT_EQ(run_tool(tool + " --error 16 ct_0044 44").exit_code, 1);
}

// script_assimilator stops the daemon on any exit but 0, and a restarted
// daemon meets the same WU first: a result that cannot be stored for what it
// holds is recorded (with the reason) and the exit is 0, so BOINC moves on.
TEST(Assimilator, RecordsAResultItCannotStoreAndLetsTheDaemonGoOn) {
  const GenuineResult genuine = genuine_result("assimilate_bad");
  const std::string db = scratch_dir("db_bad") + "/results.sqlite";
  const std::string tool = std::string(HELIX_ASSIMILATE) + " --db " + db;
  const ToolRun run = run_tool(tool + " 7 " + genuine.summary_path + " " + genuine.summary_path);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(line_count(run.err), 1) << run.err;
  const std::string stored = run_tool(tool + " query").out;
  EXPECT_EQ(stored.rfind("WU 7  unassimilable: ", 0), 0u) << stored;
  EXPECT_EQ(line_count(stored), 1) << stored;
  EXPECT_EQ(run_tool(tool + " 7 " + genuine.summary_path + " " + genuine.summary_path).exit_code, 0);
  EXPECT_EQ(run_tool(tool + " query").out, stored);  // idempotent
  // The next WU is stored as usual.
  ASSERT_EQ(run_tool(tool + " 8 " + genuine.labels_path + " " + genuine.summary_path).exit_code, 0);
  EXPECT_NE(run_tool(tool + " query --wu-id 8").out.find("WU 8  kind mrf"), std::string::npos);
}

// The server's trouble is not the result's: a file BOINC names that is not
// there (or a database that cannot be written) stops the daemon (exit 1, one
// line), to resume at this WU once fixed; nothing is recorded.
TEST(Assimilator, ServerTroubleExitsOneAndRecordsNothing) {
  const GenuineResult genuine = genuine_result("assimilate_gone");
  const std::string dir = scratch_dir("db_gone");
  const std::string tool = std::string(HELIX_ASSIMILATE) + " --db " + dir + "/results.sqlite";
  const ToolRun gone = run_tool(tool + " 9 " + genuine.labels_path + " " + dir + "/no_such_summary");
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_EQ(line_count(gone.err), 1) << gone.err;
  EXPECT_EQ(run_tool(tool + " query").out, "");
  const ToolRun no_db = run_tool(std::string(HELIX_ASSIMILATE) + " --db " + dir + "/no/such/dir/results.sqlite 9 " +
                                 genuine.labels_path + " " + genuine.summary_path);
  EXPECT_EQ(no_db.exit_code, 1);
  EXPECT_EQ(line_count(no_db.err), 1) << no_db.err;
  EXPECT_EQ(run_tool(tool + " notanumber " + genuine.labels_path).exit_code, 1);
}

// script_assimilator's two --error forms (server 1.4.x/7.20: N WU_ID; 1.6+:
// N WU_NAME WU_ID BATCH_ID); a failed WU named "query" is a name, not the
// query command.
TEST(Assimilator, BothErrorFormsAndAWorkUnitNamedQuery) {
  const std::string tool = std::string(HELIX_ASSIMILATE) + " --db " + scratch_dir("db_error_forms") + "/results.sqlite";
  ASSERT_EQ(run_tool(tool + " --error 32 query 42 0").exit_code, 0);
  ASSERT_EQ(run_tool(tool + " --error 8 43").exit_code, 0);
  EXPECT_EQ(run_tool(tool + " query").out, "WU 42  failed, error_mask 32\nWU 43  failed, error_mask 8\n");
}

}  // namespace
}  // namespace helix::test
