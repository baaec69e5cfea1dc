// results_db.cpp: the generic part of the results database. Kinds create and
// fill their own tables (named <kind>_...); printing walks those tables through
// the schema, so no kind is named here.
#include "results_db.h"

#include <cctype>
#include <stdexcept>

#include <sqlite3.h>

#include "core/kind.h"
#include "result_kind.h"

namespace helix {
namespace {

// Another assimilator or a query may hold the lock briefly.
constexpr int kBusyTimeoutMs = 10000;
// Longer text cells (e.g. a summary's JSON) are cut when printed.
constexpr std::size_t kMaxCellChars = 24;

void execute(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    throw std::runtime_error("sqlite: " + text);
  }
}

struct StatementFinalize {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using Statement = std::unique_ptr<sqlite3_stmt, StatementFinalize>;

Statement prepare(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK)
    throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db));
  return Statement(statement);
}

void step_done(sqlite3* db, sqlite3_stmt* statement) {
  if (sqlite3_step(statement) != SQLITE_DONE) throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db));
}

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
  Statement rows = prepare(db, "SELECT * FROM \"" + table + "\" WHERE wu_id = ?");
  sqlite3_bind_int64(rows.get(), 1, wu_id);
  while (sqlite3_step(rows.get()) == SQLITE_ROW) {
    std::fprintf(out, "  %-12s", table.c_str());
    for (int column = 0; column < sqlite3_column_count(rows.get()); ++column) {
      const std::string name = sqlite3_column_name(rows.get(), column);
      if (name != "wu_id") std::fprintf(out, " %s=%s", name.c_str(), cell_text(rows.get(), column).c_str());
    }
    std::fprintf(out, "\n");
  }
}

std::vector<std::string> kind_tables(sqlite3* db, const std::string& kind) {
  Statement names = prepare(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ? ORDER BY name");
  const std::string prefix = kind + "_";
  sqlite3_bind_int(names.get(), 1, static_cast<int>(prefix.size()));
  sqlite3_bind_text(names.get(), 2, prefix.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<std::string> tables;
  while (sqlite3_step(names.get()) == SQLITE_ROW)
    tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(names.get(), 0)));
  return tables;
}

}  // namespace

void DbClose::operator()(sqlite3* db) const { sqlite3_close(db); }

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
    if (const ServerKind* kind = find_server_kind(name)) kind->create_tables(db.get());
  return db;
}

void store_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files) {
  const ServerKind& kind = result_kind(files);
  execute(db, "BEGIN IMMEDIATE");
  try {
    Statement insert = prepare(db, "INSERT OR REPLACE INTO results (wu_id, kind) VALUES (?, ?)");
    sqlite3_bind_int64(insert.get(), 1, wu_id);
    const std::string kind_name = kind.name();
    sqlite3_bind_text(insert.get(), 2, kind_name.c_str(), -1, SQLITE_TRANSIENT);
    step_done(db, insert.get());
    kind.store_result(db, wu_id, files);
    execute(db, "COMMIT");
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void store_error(sqlite3* db, long long wu_id, long long error_mask) {
  Statement insert = prepare(db, "INSERT OR REPLACE INTO errors (wu_id, error_mask) VALUES (?, ?)");
  sqlite3_bind_int64(insert.get(), 1, wu_id);
  sqlite3_bind_int64(insert.get(), 2, error_mask);
  step_done(db, insert.get());
}

void store_unassimilable(sqlite3* db, long long wu_id, const std::string& reason) {
  Statement insert = prepare(db, "INSERT OR REPLACE INTO unassimilable (wu_id, reason) VALUES (?, ?)");
  sqlite3_bind_int64(insert.get(), 1, wu_id);
  sqlite3_bind_text(insert.get(), 2, reason.c_str(), -1, SQLITE_TRANSIENT);
  step_done(db, insert.get());
}

void print_results(sqlite3* db, std::optional<long long> wu_id, std::FILE* out) {
  Statement results = prepare(db, "SELECT wu_id, kind FROM results WHERE ?1 IS NULL OR wu_id = ?1 ORDER BY wu_id");
  if (wu_id) sqlite3_bind_int64(results.get(), 1, *wu_id);
  while (sqlite3_step(results.get()) == SQLITE_ROW) {
    const long long id = sqlite3_column_int64(results.get(), 0);
    const std::string kind = reinterpret_cast<const char*>(sqlite3_column_text(results.get(), 1));
    std::fprintf(out, "WU %lld  kind %s\n", id, kind.c_str());
    for (const auto& table : kind_tables(db, kind)) print_kind_table(db, table, id, out);
  }
  Statement errors = prepare(db, "SELECT wu_id, error_mask FROM errors WHERE ?1 IS NULL OR wu_id = ?1 ORDER BY wu_id");
  if (wu_id) sqlite3_bind_int64(errors.get(), 1, *wu_id);
  while (sqlite3_step(errors.get()) == SQLITE_ROW)
    std::fprintf(out, "WU %lld  failed, error_mask %lld\n", static_cast<long long>(sqlite3_column_int64(errors.get(), 0)),
                 static_cast<long long>(sqlite3_column_int64(errors.get(), 1)));
  Statement unstored =
      prepare(db, "SELECT wu_id, reason FROM unassimilable WHERE ?1 IS NULL OR wu_id = ?1 ORDER BY wu_id");
  if (wu_id) sqlite3_bind_int64(unstored.get(), 1, *wu_id);
  while (sqlite3_step(unstored.get()) == SQLITE_ROW)
    std::fprintf(out, "WU %lld  unassimilable: %s\n", static_cast<long long>(sqlite3_column_int64(unstored.get(), 0)),
                 reinterpret_cast<const char*>(sqlite3_column_text(unstored.get(), 1)));
}

}  // namespace helix
