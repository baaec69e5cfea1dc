// results_db.cpp: the generic part of the results database. Kinds create and
// fill their own tables (named <kind>_...); printing walks those tables through
// the schema, so no kind is named here.
#include "results_db.h"

#include <cctype>
#include <stdexcept>

#include <sqlite3.h>

#include "core/kind.h"
#include "core/result_kind.h"
#include "core/sqlite_support.h"

namespace helix {
namespace {

// Another assimilator or a query may hold the lock briefly.
constexpr int kBusyTimeoutMs = 10000;
// Longer text cells (e.g. a summary's JSON) are cut when printed.
constexpr std::size_t kMaxCellChars = 24;

std::string cell_text(sqlite3_stmt* statement, int column) {
  switch (sqlite3_column_type(statement, column)) {
    case SQLITE_NULL: return "NULL";
    case SQLITE_BLOB: return "(" + std::to_string(sqlite3_column_bytes(statement, column)) + " bytes)";
    default: {
      std::string text;  // one line per row: runs of whitespace (e.g. JSON indentation) become one space
      for (const char* c = reinterpret_cast<const char*>(sqlite3_column_text(statement, column)); *c; ++c)
        if (!std::isspace(static_cast<unsigned char>(*c))) text += *c;
        else if (text.empty() || text.back() != ' ') text += ' ';
      return text.size() > kMaxCellChars ? text.substr(0, kMaxCellChars - 3) + "..." : text;
    }
  }
}

// Prints the rows of one kind table for one WU as "  table: col=value ...".
void print_kind_table(sqlite3* db, const std::string& table, long long wu_id, std::FILE* out) {
  Query rows(db, "SELECT * FROM \"" + table + "\" WHERE wu_id = ?");
  rows.bind(1, wu_id);
  while (rows.step()) {
    std::fprintf(out, "  %-12s", table.c_str());
    for (int column = 0; column < sqlite3_column_count(rows.row()); ++column) {
      const std::string name = sqlite3_column_name(rows.row(), column);
      if (name != "wu_id") std::fprintf(out, " %s=%s", name.c_str(), cell_text(rows.row(), column).c_str());
    }
    std::fprintf(out, "\n");
  }
}

std::vector<std::string> kind_tables(sqlite3* db, const std::string& kind) {
  Query names(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ? ORDER BY name");
  const std::string prefix = kind + "_";
  names.bind(1, static_cast<long long>(prefix.size())).bind(2, prefix);
  std::vector<std::string> tables;
  while (names.step()) tables.push_back(names.text(0));
  return tables;
}

}  // namespace


ResultsDb open_results_db(const std::string& path) {
  sqlite3* raw = nullptr;
  const int code = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  ResultsDb db(raw);
  if (code != SQLITE_OK) throw std::runtime_error(path + ": " + (raw ? sqlite3_errmsg(raw) : "cannot open"));
  sqlite3_busy_timeout(db.get(), kBusyTimeoutMs);
  execute(db.get(),
          "CREATE TABLE IF NOT EXISTS results (wu_id INTEGER PRIMARY KEY, kind TEXT NOT NULL);"
          "CREATE TABLE IF NOT EXISTS errors (wu_id INTEGER PRIMARY KEY, error_mask INTEGER NOT NULL);"
          "CREATE TABLE IF NOT EXISTS unassimilable (wu_id INTEGER PRIMARY KEY, reason TEXT NOT NULL);");
  for (const auto& name : registered_kind_names())
    if (const KindSpec* kind = find_server_kind(name)) kind->server.create_tables(db.get());
  return db;
}

void store_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files) {
  const KindSpec& kind = result_kind(files);
  execute(db, "BEGIN IMMEDIATE");
  try {
    Statement(db, "INSERT OR REPLACE INTO results (wu_id, kind) VALUES (?, ?)").bind(wu_id).bind(kind.name).run();
    kind.server.store_result(db, wu_id, files);
    execute(db, "COMMIT");
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void store_error(sqlite3* db, long long wu_id, long long error_mask) {
  Statement(db, "INSERT OR REPLACE INTO errors (wu_id, error_mask) VALUES (?, ?)").bind(wu_id).bind(error_mask).run();
}

void store_unassimilable(sqlite3* db, long long wu_id, const std::string& reason) {
  Statement(db, "INSERT OR REPLACE INTO unassimilable (wu_id, reason) VALUES (?, ?)").bind(wu_id).bind(reason).run();
}

void print_results(sqlite3* db, std::optional<long long> wu_id, std::FILE* out) {
  Query results(db, "SELECT wu_id, kind FROM results WHERE ?1 IS NULL OR wu_id = ?1 ORDER BY wu_id");
  if (wu_id) results.bind(1, *wu_id);
  while (results.step()) {
    const long long id = results.integer(0);
    const std::string kind = results.text(1);
    std::fprintf(out, "WU %lld  kind %s\n", id, kind.c_str());
    for (const auto& table : kind_tables(db, kind)) print_kind_table(db, table, id, out);
  }
  Query errors(db, "SELECT wu_id, error_mask FROM errors WHERE ?1 IS NULL OR wu_id = ?1 ORDER BY wu_id");
  if (wu_id) errors.bind(1, *wu_id);
  while (errors.step()) std::fprintf(out, "WU %lld  failed, error_mask %lld\n", errors.integer(0), errors.integer(1));
  Query unstored(db, "SELECT wu_id, reason FROM unassimilable WHERE ?1 IS NULL OR wu_id = ?1 ORDER BY wu_id");
  if (wu_id) unstored.bind(1, *wu_id);
  while (unstored.step())
    std::fprintf(out, "WU %lld  unassimilable: %s\n", unstored.integer(0), unstored.text(1).c_str());
}

}  // namespace helix
