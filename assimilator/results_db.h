// results_db.h: the assimilator's SQLite database (schema: docs/database.md).
//   open_results_db()   opens/creates the file and every table (generic + each kind's)
//   store_result()      one accepted result, in one transaction, idempotent
//   store_error()       one failed WU, idempotent
//   store_unassimilable() one result that cannot be stored, and why, idempotent
//   print_results()     a readable table of what is stored
#pragma once
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/sqlite_support.h"

namespace helix {

using ResultsDb = std::unique_ptr<sqlite3, DatabaseClose>;

// Throws std::runtime_error when the file cannot be opened or the schema made.
ResultsDb open_results_db(const std::string& path);
// Stores results(wu_id, kind) and the kind's own rows in one transaction
// (rolled back on any error, which is rethrown). Storing the same result again
// leaves every row as it was.
void store_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files);
// Records errors(wu_id, error_mask) (INSERT OR REPLACE).
void store_error(sqlite3* db, long long wu_id, long long error_mask);
// Records unassimilable(wu_id, reason) (INSERT OR REPLACE): a result BOINC
// accepted that no kind can store (the assimilator must not stop on it).
void store_unassimilable(sqlite3* db, long long wu_id, const std::string& reason);
// Prints every stored result (or only wu_id) with its kind's rows, then the
// errors and the unassimilable results.
void print_results(sqlite3* db, std::optional<long long> wu_id, std::FILE* out);

}  // namespace helix
