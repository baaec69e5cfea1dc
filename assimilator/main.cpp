// main.cpp: helix-assimilate, run by BOINC's script_assimilator for every
// finished work unit.
//
//   helix-assimilate [--db PATH] WU_ID FILE...          store the canonical result
//   helix-assimilate [--db PATH] --error N WU_ID         record a WU that failed (error_mask N)
//   helix-assimilate [--db PATH] query [--wu-id N]       print what is stored
//
// PATH defaults to $HELIX_RESULTS_DB, else results.sqlite in the current
// directory. Running it twice with the same arguments changes nothing.
// Exit 0 on success; 1 with one line on stderr otherwise (script_assimilator
// then leaves the WU unassimilated, to be retried).
//
// The daemon, in the project's config.xml:
//   script_assimilator --app helix --script "helix-assimilate --db /path/results.sqlite wu_id files"
// script_assimilator calls error WUs with the program name alone
// ("helix-assimilate --error N WU_ID"), so set HELIX_RESULTS_DB in the daemon's
// environment, or run it from the directory that holds results.sqlite.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

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

Command parse_command(const std::vector<std::string>& args) {
  Command command;
  if (const char* path = std::getenv("HELIX_RESULTS_DB")) command.db_path = path;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool has_value = i + 1 < args.size();
    if (arg == "--db" && has_value) command.db_path = args[++i];
    else if (arg == "--error" && has_value) command.error_mask = parse_integer(args[++i], "--error");
    else if (arg == "--wu-id" && has_value) command.query_wu_id = parse_integer(args[++i], "--wu-id");
    else if (arg == "query" && command.positional.empty()) command.query = true;
    else command.positional.push_back(arg);
  }
  return command;
}

void run(const Command& command) {
  if (!command.query && command.positional.empty())
    throw std::runtime_error("usage: helix-assimilate [--db PATH] WU_ID FILE... | --error N WU_ID | query [--wu-id N]");
  if (command.query && !command.positional.empty()) throw std::runtime_error("query takes only --wu-id");
  helix::ResultsDb db = helix::open_results_db(command.db_path);
  if (command.query) return helix::print_results(db.get(), command.query_wu_id, stdout);
  const long long wu_id = parse_integer(command.positional.front(), "WU_ID");
  const std::vector<std::string> files(command.positional.begin() + 1, command.positional.end());
  if (command.error_mask) {
    if (!files.empty()) throw std::runtime_error("--error takes only the WU id");
    return helix::store_error(db.get(), wu_id, *command.error_mask);
  }
  helix::store_result(db.get(), wu_id, files);
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
