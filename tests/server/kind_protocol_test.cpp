// kind_protocol_test.cpp: what every registered kind's declaration must hold
// for the server tools to treat it generically (core/kind.h, docs/kinds.md).
// A kind that breaks one fails here, whatever its own tests say.
#include <sqlite3.h>

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/kind.h"
#include "core/sqlite_support.h"
#include "core/work_protocol.h"

namespace helix::test {
namespace {

std::set<std::string> table_names(sqlite3* db) {
  std::set<std::string> names;
  Query tables(db, "SELECT name FROM sqlite_master WHERE type = 'table'");
  while (tables.step()) names.insert(tables.text(0));
  return names;
}

TEST(KindProtocol, EveryKindIsCompleteAndEndsWithTheSummary) {
  ASSERT_FALSE(registered_kind_names().empty());
  for (const std::string& name : registered_kind_names()) {
    const KindSpec* kind = find_server_kind(name);
    ASSERT_NE(kind, nullptr) << name;
    EXPECT_EQ(kind->name, name);
    EXPECT_FALSE(kind->description.empty()) << name;
    EXPECT_NE(kind->run, nullptr) << name;
    ASSERT_FALSE(kind->outputs.empty()) << name;
    EXPECT_EQ(kind->outputs.back().name, "summary") << name;
    EXPECT_EQ(kind->outputs.back().max_bytes, kMaxSummaryBytes) << name;
    const ServerFunctions& server = kind->server;
    EXPECT_TRUE(server.add_workunit_command && server.check_result && server.compare_results &&
                server.create_tables && server.store_result && server.example_commands)
        << name << " leaves a server function out";
  }
}

// helix-assimilate's query prints a kind's rows by walking the tables named
// <kind>_... (assimilator/results_db.cpp): a table named otherwise is never shown.
TEST(KindProtocol, EveryKindsTablesAreNamedForIt) {
  for (const std::string& name : registered_kind_names()) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
    find_server_kind(name)->server.create_tables(db);
    const std::set<std::string> tables = table_names(db);
    EXPECT_FALSE(tables.empty()) << name;
    for (const std::string& table : tables) EXPECT_EQ(table.rfind(name + "_", 0), 0u) << name << ": table " << table;
    sqlite3_close(db);
  }
}

}  // namespace
}  // namespace helix::test
