// mrf_store.cpp: accepted mrf results in SQLite. One row per WU in mrf_results
// (the summary and the label map as returned, for later analysis) and one row
// per class in mrf_classes (what people query). INSERT OR REPLACE keyed on the
// WU id makes re-assimilating a WU a no-op. Schema: docs/database.md.
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "core/errors.h"
#include "core/file_io.h"
#include "mrf_files.h"
#include "mrf_server.h"

namespace helix::mrf {
namespace {

void execute(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    throw std::runtime_error("sqlite: " + text);
  }
}

// A prepared statement that finalizes itself; bind() takes values in order.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db));
  }
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

}  // namespace

void create_mrf_tables(sqlite3* db) {
  execute(db,
          "CREATE TABLE IF NOT EXISTS mrf_results ("
          " wu_id INTEGER PRIMARY KEY, dims TEXT NOT NULL, sweeps INTEGER NOT NULL, converged INTEGER NOT NULL,"
          " final_energy INTEGER NOT NULL, summary_json TEXT NOT NULL, labels BLOB NOT NULL);"
          "CREATE TABLE IF NOT EXISTS mrf_classes ("
          " wu_id INTEGER NOT NULL, label INTEGER NOT NULL, name TEXT NOT NULL, mean REAL NOT NULL,"
          " variance REAL NOT NULL, voxels INTEGER NOT NULL, volume_ml REAL NOT NULL,"
          " PRIMARY KEY (wu_id, label));");
}

void store_mrf_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files) {
  if (files.size() != 2) throw InputError("an mrf result has 2 files (labels, summary)");
  const std::vector<std::uint8_t> labels = read_file_bytes(files[0]);
  decode_labels(labels, files[0]);  // only well-formed label maps go into the database
  const std::string summary_text = read_file_text(files[1]);
  const auto summary = nlohmann::json::parse(summary_text, nullptr, false);
  if (summary.is_discarded() || !summary.is_object()) throw InputError(files[1] + " is not a JSON object");
  const auto& dims = summary.at("dims");
  Statement(db, "INSERT OR REPLACE INTO mrf_results VALUES (?, ?, ?, ?, ?, ?, ?)")
      .bind(wu_id)
      .bind(dims.at(0).dump() + "x" + dims.at(1).dump() + "x" + dims.at(2).dump())
      .bind(summary.at("sweeps").get<long long>())
      .bind(static_cast<long long>(summary.at("converged").get<bool>()))
      .bind(summary.at("final_energy").get<long long>())
      .bind(summary_text)
      .bind(labels)
      .run();
  Statement insert_class(db, "INSERT OR REPLACE INTO mrf_classes VALUES (?, ?, ?, ?, ?, ?, ?)");
  for (const auto& entry : summary.at("classes"))
    insert_class.bind(wu_id)
        .bind(entry.at("label").get<long long>())
        .bind(entry.at("name").get<std::string>())
        .bind(entry.at("mean").get<double>())
        .bind(entry.at("variance").get<double>())
        .bind(entry.at("voxels").get<long long>())
        .bind(entry.at("volume_ml").get<double>())
        .run();
}

}  // namespace helix::mrf
