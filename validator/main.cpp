// main.cpp: helix-validate, the checks BOINC's script_validator runs.
//
//   helix-validate init [--inputs DIR] f1 ... fn      one result's output files
//       exit 0 valid, 3 transient (retry later), 1 invalid
//   helix-validate compare f1 ... fn g1 ... gn        two results, split in half
//       exit 0 equivalent, 1 not, 3 transient (a file gone since init checked
//       it; script_validator 1.6+ compares again later)
//
// The kind is read from each result's last file (its JSON summary). When not
// valid, one line on stderr says why (it lands in the validator's log).
//
// The daemon, in the project's config.xml (DIR: a flat copy of the WU input
// files, e.g. the --out directory of helix-wu, so the validator can recompute).
// script_validator passes only its keywords (files, files2, result_id, ...)
// and drops every other word, so init and --inputs DIR live in wrapper
// scripts in bin/ (docs/deploy.md):
//   script_validator --app helix
//       --init_script helix_validate_init          (helix-validate init --inputs DIR "$@")
//       --compare_script helix_validate_compare    (helix-validate compare "$@")
// (the script name alone: BOINC then appends the files; server 1.6.2 drops
// keywords written after the name, docs/deploy.md section 4).
// The WU a result answers is told by its files' BOINC names, never by its
// content (core/check_support.h, wu_of_result).
#include <cstdio>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/kind.h"
#include "core/result_kind.h"

namespace {

constexpr int kExitValid = 0, kExitInvalid = 1;

int report(const helix::CheckOutcome& outcome, const char* mode) {
  if (outcome.verdict != helix::Verdict::kValid)
    std::fprintf(stderr, "helix-validate %s: %s: %s\n", mode,
                 outcome.verdict == helix::Verdict::kTransient ? "transient" : "invalid", outcome.reason.c_str());
  return static_cast<int>(outcome.verdict);
}

int run_init(const std::vector<std::string>& args) {
  helix::ServerOptions options;
  std::vector<std::string> files;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--inputs" && i + 1 < args.size()) options.inputs_dir = args[++i];
    else files.push_back(args[i]);
  }
  const helix::KindSpec& kind = helix::result_kind(files);
  return report(kind.server.check_result(files, options), "init");
}

int run_compare(const std::vector<std::string>& files) {
  if (files.empty() || files.size() % 2 != 0)
    throw helix::InputError("compare needs the files of two results (an even, non-zero count)");
  // BOINC compares only results that passed init: a file that is gone or
  // unreadable now was lost on the server, which is no verdict on either result.
  if (const auto lost = helix::first_unreadable(files))
    return report({helix::Verdict::kTransient, "result file " + *lost + " is gone or unreadable since it was checked"},
                  "compare");
  const std::vector<std::string> a(files.begin(), files.begin() + files.size() / 2);
  const std::vector<std::string> b(files.begin() + files.size() / 2, files.end());
  const helix::KindSpec& kind = helix::result_kind(a);
  if (&helix::result_kind(b) != &kind) throw helix::InputError("the two results are of different kinds");
  return report(kind.server.compare_results(a, b), "compare");
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const std::string mode = args.empty() ? "" : args[0];
  const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  try {
    if (mode == "init") return run_init(rest);
    if (mode == "compare") return run_compare(rest);
    std::fprintf(stderr, "usage: helix-validate init [--inputs DIR] FILE... | compare FILES_A... FILES_B...\n");
    return kExitInvalid;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "helix-validate %s: invalid: %s\n", mode.c_str(), error.what());
    return kExitInvalid;
  }
  return kExitValid;
}
