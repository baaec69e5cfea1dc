// glcm_store.cpp: accepted glcm results in SQLite. One row per image in
// glcm_images and one per (image, levels, distance, feature) in glcm_features,
// the table exactly as returned (doubles stored as 8-byte REALs, so they read
// back bit for bit). INSERT OR REPLACE on primary keys that name each row
// makes re-assimilating a WU a no-op. Schema: docs/database.md.
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/sqlite_support.h"
#include "glcm_server.h"

namespace helix::glcm {

namespace {

void store_images(sqlite3* db, long long wu_id, const nlohmann::json& summary) {
  Statement insert(db, "INSERT OR REPLACE INTO glcm_images VALUES (?, ?, ?, ?, ?)");
  for (const auto& image : summary.at("images"))
    insert.bind(wu_id)
        .bind(image.at("name").get<std::string>())
        .bind(image.at("width").get<long long>())
        .bind(image.at("height").get<long long>())
        .bind(image.at("windows").get<long long>())
        .run();
}

void store_rows(sqlite3* db, long long wu_id, const std::vector<FeatureRow>& rows) {
  Statement insert(db, "INSERT OR REPLACE INTO glcm_features VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const FeatureRow& row : rows)
    insert.bind(wu_id)
        .bind(row.image)
        .bind(static_cast<long long>(row.levels))
        .bind(static_cast<long long>(row.distance))
        .bind(row.feature)
        .bind(row.max)
        .bind(row.mean)
        .bind(row.min)
        .bind(row.range)
        .bind(static_cast<long long>(row.max_x))
        .bind(static_cast<long long>(row.max_y))
        .bind(static_cast<long long>(row.min_x))
        .bind(static_cast<long long>(row.min_y))
        .run();
}

}  // namespace

void create_glcm_tables(sqlite3* db) {
  // "range" is quoted: RANGE is an SQL keyword (window frames). SQLite also
  // takes it bare, but a copy of the schema in another database may not.
  execute(db,
          "CREATE TABLE IF NOT EXISTS glcm_images ("
          " wu_id INTEGER NOT NULL, image TEXT NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,"
          " windows INTEGER NOT NULL, PRIMARY KEY (wu_id, image));"
          "CREATE TABLE IF NOT EXISTS glcm_features ("
          " wu_id INTEGER NOT NULL, image TEXT NOT NULL, levels INTEGER NOT NULL, distance INTEGER NOT NULL,"
          " feature TEXT NOT NULL, max REAL NOT NULL, mean REAL NOT NULL, min REAL NOT NULL, \"range\" REAL NOT NULL,"
          " max_x INTEGER NOT NULL, max_y INTEGER NOT NULL, min_x INTEGER NOT NULL, min_y INTEGER NOT NULL,"
          " PRIMARY KEY (wu_id, image, levels, distance, feature));");
}

void store_glcm_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files) {
  if (files.size() != 3) throw InputError("a glcm result has 3 files (features, maps, summary)");
  const auto summary = nlohmann::json::parse(read_file_text(files[2]), nullptr, false);
  if (summary.is_discarded() || !summary.is_object()) throw InputError(files[2] + " is not a JSON object");
  const std::vector<FeatureRow> rows = parse_features_tsv(read_file_text(files[0]));
  store_images(db, wu_id, summary);
  store_rows(db, wu_id, rows);
}

}  // namespace helix::glcm
