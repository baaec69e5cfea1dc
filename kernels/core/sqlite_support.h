// sqlite_support.h: the SQLite helpers every kind's assimilator storage
// uses: execute() for schema statements and Statement, a prepared statement
// that finalizes itself (errors become std::runtime_error("sqlite: ...")); and
// for the searches' merged reports, the results database opened read-only and
// the search a report is about.
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

inline void execute(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
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
