// mrf_store.cpp: accepted mrf results in SQLite. One row per WU in mrf_results
// (the summary and the label map as returned, for later analysis) and one row
// per class in mrf_classes (what people query). INSERT OR REPLACE keyed on the
// WU id makes re-assimilating a WU a no-op. Schema: docs/database.md.
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/sqlite_support.h"
#include "mrf_files.h"
#include "mrf_server.h"

namespace helix::mrf {

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
