// sw_store.cpp: accepted swsearch results in SQLite: one row per reported hit
// in swsearch_hits, as returned (bits and E-value as printed, read back as REALs).
// INSERT OR REPLACE on (wu_id, query_id, target_ordinal) makes re-assimilating
// a WU a no-op. sw_report() merges the chunks' rankings per query. Schema:
// docs/database.md.
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/sqlite_support.h"
#include "sw_server.h"

namespace helix::swsearch {

void create_sw_tables(sqlite3* db) {
  execute(db,
          "CREATE TABLE IF NOT EXISTS swsearch_hits ("
          " wu_id INTEGER NOT NULL, query_id TEXT NOT NULL, target_id TEXT NOT NULL, target_ordinal INTEGER NOT NULL,"
          " score INTEGER NOT NULL, bits REAL NOT NULL, evalue REAL NOT NULL,"
          " query_start INTEGER NOT NULL, query_end INTEGER NOT NULL, target_start INTEGER NOT NULL,"
          " target_end INTEGER NOT NULL, identities INTEGER NOT NULL, length INTEGER NOT NULL, cigar TEXT NOT NULL,"
          " PRIMARY KEY (wu_id, query_id, target_ordinal));"
          "CREATE INDEX IF NOT EXISTS swsearch_hits_by_query ON swsearch_hits (query_id, score DESC, target_ordinal);"
          "CREATE TABLE IF NOT EXISTS swsearch_chunks (wu_id INTEGER PRIMARY KEY, search TEXT NOT NULL, params TEXT NOT NULL);");
}

void store_sw_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files) {
  if (files.size() != 2) throw InputError("a swsearch result has 2 files (hits, summary)");
  const auto rows = parse_hits_tsv(read_file_text(files[0]));
  const nlohmann::json summary = nlohmann::json::parse(read_file_text(files[1]), nullptr, false);
  if (!summary.is_object() || !summary.contains("params")) throw InputError(files[1] + ": not a swsearch summary");
  const SwParams params = parse_sw_params(summary.at("params"));
  Statement(db, "INSERT OR REPLACE INTO swsearch_chunks VALUES (?, ?, ?)")
      .bind(wu_id)
      .bind(params.search)
      .bind(sw_params_json(params).dump())
      .run();
  Statement insert(db, "INSERT OR REPLACE INTO swsearch_hits VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const auto& f : rows) {
    insert.bind(wu_id).bind(f[0]).bind(f[1]).bind(std::stoll(f[12])).bind(std::stoll(f[2]));
    insert.bind(std::stod(f[3])).bind(std::stod(f[4]));
    for (int k = 5; k <= 10; ++k) insert.bind(std::stoll(f[k]));
    insert.bind(f[11] == "-" ? std::string() : f[11]).run();
  }
}

namespace {

// Per query, every stored hit (of the search ?3, or of all when ?3 is NULL)
// ranked over all chunks; the alignment columns blanked past the first
// `alignments` of the merged ranking.
constexpr const char* kReportSql =
    "SELECT query_id, target_id, target_ordinal, score, bits, evalue, rank <= ?2 AS aligned,"
    " query_start, query_end, target_start, target_end, identities, length, cigar FROM ("
    "  SELECT *, ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY score DESC, target_ordinal ASC) AS rank"
    "  FROM swsearch_hits WHERE ?3 IS NULL OR wu_id IN (SELECT wu_id FROM swsearch_chunks WHERE search = ?3))"
    " WHERE rank <= ?1 ORDER BY query_id, rank";

Hit hit_of_row(sqlite3_stmt* row) {
  Hit h;
  h.target_id = reinterpret_cast<const char*>(sqlite3_column_text(row, 1));
  h.target_ordinal = static_cast<std::uint64_t>(sqlite3_column_int64(row, 2));
  h.score = sqlite3_column_int(row, 3);
  h.bits = sqlite3_column_double(row, 4);
  h.evalue = sqlite3_column_double(row, 5);
  const bool aligned = sqlite3_column_int(row, 6) != 0;
  h.query_end = sqlite3_column_int(row, 8);
  h.target_end = sqlite3_column_int(row, 10);
  if (!aligned) return h;
  h.query_start = sqlite3_column_int(row, 7);
  h.target_start = sqlite3_column_int(row, 9);
  h.identities = sqlite3_column_int(row, 11);
  h.length = sqlite3_column_int(row, 12);
  h.cigar = reinterpret_cast<const char*>(sqlite3_column_text(row, 13));
  return h;
}

}  // namespace

std::vector<QueryHits> sw_report(sqlite3* db, int top_hits, int alignments, const std::string& search) {
  Query rows(db, kReportSql);
  rows.bind(1, static_cast<long long>(top_hits)).bind(2, static_cast<long long>(alignments));
  if (!search.empty()) rows.bind(3, search);
  std::vector<QueryHits> report;
  while (rows.step()) {
    const std::string query_id = rows.text(0);
    if (report.empty() || report.back().query_id != query_id) report.push_back({query_id, 0, {}});
    report.back().hits.push_back(hit_of_row(rows.row()));
  }
  return report;
}

}  // namespace helix::swsearch

namespace helix::swsearch {

// The first column of every row of `sql`, which takes `argument` as ?1 when not empty.
std::vector<std::string> text_column(sqlite3* db, const char* sql, const std::string& argument) {
  Query rows(db, sql);
  if (!argument.empty()) rows.bind(1, argument);
  std::vector<std::string> values;
  while (rows.step()) values.push_back(rows.text(0));
  return values;
}

std::vector<std::string> sw_searches(sqlite3* db) {
  return text_column(db, "SELECT DISTINCT search FROM swsearch_chunks ORDER BY search", "");
}

SwParams sw_search_params(sqlite3* db, const std::string& search) {
  const std::vector<std::string> found =
      text_column(db, "SELECT DISTINCT params FROM swsearch_chunks WHERE search = ?1", search);
  if (found.empty()) throw InputError("no swsearch result of search \"" + search + "\" is stored");
  if (found.size() > 1) throw InputError("the stored results of search \"" + search + "\" disagree on their params");
  return parse_sw_params(nlohmann::json::parse(found.front()));
}

}  // namespace helix::swsearch
