// sqlite_support.h: the SQLite helpers of every server tool, written once
// (errors become std::runtime_error("sqlite: ...")):
//   execute()          schema and transaction statements
//   Statement          a prepared INSERT that finalizes itself: bind() in column order, run()
//   Query              a prepared SELECT that finalizes itself: bind(index, value), rows through step()
//   DatabaseClose      the deleter of an owned sqlite3*
//   open_results_read_only(), chosen_search()   the searches' merged reports
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.h"

namespace helix {

inline void execute(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    throw std::runtime_error("sqlite: " + text);
  }
}

// bind() takes values in column order; run() executes and resets for the next row.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db));
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(statement_); }
  Statement& bind(long long value) { return check(sqlite3_bind_int64(statement_, ++index_, value)); }
  Statement& bind(double value) { return check(sqlite3_bind_double(statement_, ++index_, value)); }
  Statement& bind(const std::string& text) {
    return check(sqlite3_bind_text(statement_, ++index_, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
  }
  Statement& bind(const std::vector<std::uint8_t>& blob) {
    return check(sqlite3_bind_blob64(statement_, ++index_, blob.data(), blob.size(), SQLITE_TRANSIENT));
  }
  void run() {
    if (sqlite3_step(statement_) != SQLITE_DONE) throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db_));
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
    index_ = 0;
  }

 private:
  Statement& check(int code) {
    if (code != SQLITE_OK) throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db_));
    return *this;
  }
  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
  int index_ = 0;
};

// A prepared query that finalizes itself; rows through step().
class Query {
 public:
  Query(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db));
  }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;
  ~Query() { sqlite3_finalize(statement_); }
  Query& bind(int index, long long value) { sqlite3_bind_int64(statement_, index, value); return *this; }
  Query& bind(int index, const std::string& text) {
    sqlite3_bind_text(statement_, index, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // True with a row to read; false when done (a statement without rows is done at once).
  bool step() {
    const int code = sqlite3_step(statement_);
    if (code == SQLITE_ROW) return true;
    if (code != SQLITE_DONE) throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db_));
    return false;
  }
  long long integer(int column) const { return sqlite3_column_int64(statement_, column); }
  double real(int column) const { return sqlite3_column_double(statement_, column); }
  std::string text(int column) const {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement_, column));
    return text ? std::string(text, sqlite3_column_bytes(statement_, column)) : std::string();
  }
  // The statement itself, for readers of many columns of one row.
  sqlite3_stmt* row() const { return statement_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
};

struct DatabaseClose {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
using ReadOnlyDatabase = std::unique_ptr<sqlite3, DatabaseClose>;

// The results database (helix-assimilate --db) for reading; InputError when
// it does not exist or cannot be opened.
inline ReadOnlyDatabase open_results_read_only(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw InputError("results database " + path + " does not exist");
  sqlite3* raw = nullptr;
  const int code = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  ReadOnlyDatabase db(raw);
  if (code != SQLITE_OK) throw InputError(path + ": " + (raw ? sqlite3_errmsg(raw) : "cannot open"));
  return db;
}

// The search a report is about: `given`, or else the database's only one of
// `kind` (`stored`); InputError when there is none or several to choose from.
inline std::string chosen_search(const std::string& given, const std::vector<std::string>& stored,
                                 const std::string& path, const std::string& kind) {
  if (!given.empty()) return given;
  if (stored.size() != 1)
    throw InputError(path + " holds " + std::to_string(stored.size()) + " " + kind +
                     " searches: name one with --search");
  return stored.front();
}

}  // namespace helix
