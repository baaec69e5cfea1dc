// kind_work_units.cpp: see kind_work_units.h. Each kind sizes its own example
// (kernels/<kind>/*_workunit.cpp, `example_commands`); docs/reliability.md has
// the run times measured here.
#include "kind_work_units.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "core/example_data.h"
#include "core/file_io.h"

#ifndef HELIX_REGISTERED_KINDS
#error "HELIX_REGISTERED_KINDS (HELIX_KINDS, comma-separated) comes from tests/faults/CMakeLists.txt"
#endif

namespace helix::faults {
namespace {
namespace fs = std::filesystem;

// The name of the first WU (in name order) whose create_work script is in
// `dir`: an example may make several WUs; one is enough here.
std::string first_work_unit_name(const std::string& dir) {
  const std::string suffix = ".create_work.sh";
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (file.size() > suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0)
      names.push_back(file.substr(0, file.size() - suffix.size()));
  }
  if (names.empty()) throw std::runtime_error("helix-wu wrote no *" + suffix + " in " + dir);
  return *std::min_element(names.begin(), names.end());
}

// The first line of `text`, without its newline.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// `helix-wu <kind> example --out <dir>/wu`, run in `dir`; no WU (and the
// reason) when helix-wu says the data is missing.
ExampleWorkUnit make_example(const std::string& kind, const std::string& dir) {
  try {
    run_work_generator({kind, "example", "--out", dir + "/wu"}, dir);
  } catch (const WorkGeneratorFailed& failed) {
    if (failed.exit_status != kMissingDataExit) throw;
    return {std::nullopt, first_line(failed.stderr_text)};
  }
  return {read_work_unit(dir + "/wu", first_work_unit_name(dir + "/wu")), ""};
}

// $HELIX_FAULT_WU_DIR/<kind> when the variable is set, else "".
std::string shared_work_unit_dir(const std::string& kind) {
  const char* shared = std::getenv("HELIX_FAULT_WU_DIR");
  return shared ? std::string(shared) + "/" + kind : "";
}

// Written last: the WU in the shared directory is complete.
constexpr const char* kCompleteMark = "complete";

// Whether `path` lies under `dir`.
bool is_under(const fs::path& path, const fs::path& dir) {
  const fs::path relative = path.lexically_normal().lexically_relative(dir.lexically_normal());
  return !relative.empty() && *relative.begin() != "..";
}

}  // namespace

const std::vector<std::string>& registered_kinds() {
  static const std::vector<std::string> kinds = [] {
    std::vector<std::string> names;
    std::istringstream list(HELIX_REGISTERED_KINDS);
    for (std::string name; std::getline(list, name, ',');)
      if (!name.empty()) names.push_back(name);
    return names;
  }();
  return kinds;
}

ExampleWorkUnit example_work_unit(const std::string& kind, const std::string& scratch) {
  const std::string shared = shared_work_unit_dir(kind);
  if (shared.empty()) return make_example(kind, scratch);
  if (fs::exists(shared + "/" + kCompleteMark))
    return {read_work_unit(shared + "/wu", first_work_unit_name(shared + "/wu")), ""};
  fs::remove_all(shared);
  ExampleWorkUnit made = make_example(kind, shared);
  if (!made.work_unit) return made;
  // Keep only the WU itself, what a moved build needs to carry: not what it
  // was made from (helix-wu's <out>/input), unless the WU reads from there.
  const fs::path sources = fs::path(shared) / "wu" / "input";
  const auto& inputs = made.work_unit->inputs;
  if (std::none_of(inputs.begin(), inputs.end(), [&](const auto& input) { return is_under(input.second, sources); }))
    fs::remove_all(sources);
  fs::remove(shared + "/helix-wu.stderr");
  write_file_atomic(shared + "/" + kCompleteMark, std::string("made by fault_tests\n"));
  return made;
}

}  // namespace helix::faults
