// main.cpp: helix-assimilate, run by BOINC's script_assimilator for every
// finished work unit.
//
//   helix-assimilate [--db PATH] WU_ID FILE...          store the canonical result
//   helix-assimilate [--db PATH] --error N WU_ID         record a WU that failed (error_mask N)
//   helix-assimilate [--db PATH] --error N WU_NAME WU_ID BATCH_ID   the same, as script_assimilator calls it
//   helix-assimilate [--db PATH] query [--wu-id N]       print what is stored
//
// PATH defaults to $HELIX_RESULTS_DB, else results.sqlite in the current
// directory. Running it twice with the same arguments changes nothing; a
// store is one transaction, so a crash part-way leaves the database as it was.
//
// Exit codes, as script_assimilator takes them: any exit but 0 stops the
// assimilator daemon, which meets the same WU first again after a restart.
//   0  stored; or the result cannot be stored because of what it holds (a
//      summary no kind reads, a damaged file): that never changes on a retry,
//      so it is recorded in the `unassimilable` table with the reason, one
//      line goes to stderr, and BOINC moves on (docs/database.md);
//   1  the server's trouble, which a retry after a fix can cure (the database
//      cannot be opened or written, a result file is missing or unreadable),
//      or a command line script_assimilator never writes: the daemon stops
//      with one line in its log, and resumes at this WU once restarted.
//
// script_assimilator passes its keywords (wu_id, files, ...) and drops every
// other word of --script, so options such as --db reach helix-assimilate only
// through a wrapper script in bin/ (docs/deploy.md):
//   script_assimilator --app helix --script helix_assimilate   (BOINC appends WU_ID FILE...)
// It calls failed WUs as "helix_assimilate --error N WU_NAME WU_ID BATCH_ID".
//
// Test switch: HELIX_ASSIMILATE_KILL_AFTER_ROWS=N makes the process SIGKILL
// itself right after its Nth row change, inside the open transaction, as a
// power cut or the OOM killer would (tests/server/assimilator_crash_test.cpp).
#include <signal.h>
#include <unistd.h>

#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/file_io.h"
#include "results_db.h"

namespace {

struct Command {
  std::string db_path = "results.sqlite";
  std::optional<long long> error_mask;
  bool query = false;
  std::optional<long long> query_wu_id;
  std::vector<std::string> positional;  // WU_ID FILE... (or WU_ID for --error)
};

long long parse_integer(const std::string& text, const char* what) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) throw std::runtime_error(std::string(what) + " must be an integer, got '" + text + "'");
  return value;
}

// Options first; then "query" is the command only as the first word of a
// command line without --error (a failed WU may be named "query").
Command parse_command(const std::vector<std::string>& args) {
  Command command;
  if (const char* path = std::getenv("HELIX_RESULTS_DB")) command.db_path = path;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool has_value = i + 1 < args.size();
    if (arg == "--db" && has_value) command.db_path = args[++i];
    else if (arg == "--error" && has_value) command.error_mask = parse_integer(args[++i], "--error");
    else if (arg == "--wu-id" && has_value) command.query_wu_id = parse_integer(args[++i], "--wu-id");
    else command.positional.push_back(arg);
  }
  if (!command.error_mask && !command.positional.empty() && command.positional.front() == "query") {
    command.query = true;
    command.positional.erase(command.positional.begin());
  }
  return command;
}

// See "Test switch" above. The hook runs after each row change, before COMMIT.
void arm_kill_switch(sqlite3* db) {
  const char* rows = std::getenv("HELIX_ASSIMILATE_KILL_AFTER_ROWS");
  if (!rows) return;
  static long long remaining = parse_integer(rows, "HELIX_ASSIMILATE_KILL_AFTER_ROWS");
  sqlite3_update_hook(
      db, [](void*, int, const char*, const char*, sqlite3_int64) {
        if (--remaining == 0) ::kill(::getpid(), SIGKILL);
      },
      nullptr);
}

// The two forms script_assimilator has used for a failed WU: "--error N WU_ID"
// (server 1.4.x / 7.20) and "--error N WU_NAME WU_ID BATCH_ID" (1.6+).
long long error_wu_id(const std::vector<std::string>& positional) {
  if (positional.size() == 1) return parse_integer(positional[0], "WU_ID");
  if (positional.size() == 3) return parse_integer(positional[1], "WU_ID");
  throw std::runtime_error("--error takes WU_ID, or WU_NAME WU_ID BATCH_ID");
}

// Stores the result, or records why it cannot be stored (see the exit codes).
void assimilate(sqlite3* db, long long wu_id, const std::vector<std::string>& files) {
  // A file BOINC names but the server cannot read is the server's trouble
  // (upload directory, permissions), not the result's.
  if (const auto lost = helix::first_unreadable(files))
    throw std::runtime_error("result file " + *lost + " is missing or unreadable");
  try {
    helix::store_result(db, wu_id, files);
  } catch (const helix::InputError& error) {
    helix::store_unassimilable(db, wu_id, error.what());
    std::fprintf(stderr, "helix-assimilate: WU %lld cannot be stored, recorded as unassimilable: %s\n", wu_id,
                 error.what());
  }
}

void run(const Command& command) {
  if (!command.query && command.positional.empty())
    throw std::runtime_error("usage: helix-assimilate [--db PATH] WU_ID FILE... | --error N WU_ID | query [--wu-id N]");
  if (command.query && !command.positional.empty()) throw std::runtime_error("query takes only --wu-id");
  helix::ResultsDb db = helix::open_results_db(command.db_path);
  if (command.query) return helix::print_results(db.get(), command.query_wu_id, stdout);
  arm_kill_switch(db.get());
  if (command.error_mask) return helix::store_error(db.get(), error_wu_id(command.positional), *command.error_mask);
  const long long wu_id = parse_integer(command.positional.front(), "WU_ID");
  const std::vector<std::string> files(command.positional.begin() + 1, command.positional.end());
  assimilate(db.get(), wu_id, files);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    run(parse_command(std::vector<std::string>(argv + 1, argv + argc)));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "helix-assimilate: error: %s\n", error.what());
    return 1;
  }
  return 0;
}
