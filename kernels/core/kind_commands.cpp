// kind_commands.cpp: what the work generator derives from a kind's
// declaration (core/kind.h): its `helix-wu <kind> ...` commands
// (add_kind_workunit_command: the kind's own, every WU they make completed
// from the declaration, and `example`) and the hand-made WU of the packaged
// templates. Server side (helix_server_kinds): the app links none of it.
#include <algorithm>
#include <filesystem>
#include <memory>

#include <CLI/CLI.hpp>

#include "core/errors.h"
#include "core/kind.h"
#include "core/work_protocol.h"

namespace helix {
namespace {

// The declared outputs, and BOINC's bounds by the protocol's policy
// (core/work_protocol.h), on every WU the kind makes:
//   rsc_fpops_bound   kFpopsBoundFactor x the estimate;
//   rsc_memory_bound  kMemoryBaseBytes + the kind's own memory;
//   disk              kDiskBoundFactor x (the inputs' sizes + the kind's output
//                     bytes + the declared outputs' fixed bounds);
//   max_nbytes        at least every declared fixed output bound.
EmitWorkunit completing(const KindSpec& kind, EmitWorkunit emit) {
  return [&kind, emit = std::move(emit)](const WorkunitSpec& made) {
    WorkunitSpec spec = made;
    spec.outputs = output_names(kind);
    spec.fpops_bound = kFpopsBoundFactor * spec.fpops_estimate;
    spec.memory_bound_bytes = kMemoryBaseBytes + spec.kind_memory_bytes;
    double file_bytes = spec.output_bytes;
    for (const auto& input : spec.inputs) file_bytes += static_cast<double>(std::filesystem::file_size(input.second));
    for (const OutputFile& output : kind.outputs) {
      file_bytes += static_cast<double>(output.max_bytes);
      spec.max_output_bytes = std::max(spec.max_output_bytes, static_cast<double>(output.max_bytes));
    }
    spec.disk_bound_bytes = kDiskBoundFactor * file_bytes;
    emit(spec);
  };
}

void add_example_command(const KindSpec& kind, CLI::App& kind_command, const EmitWorkunit& emit) {
  CLI::App* example = kind_command.add_subcommand(
      "example", "make a small example " + kind.name + " WU from real data on this machine (a few s on one core)");
  auto dir = std::make_shared<std::string>();
  example->add_option("--out", *dir, "directory for the WU (and, under input/, what it is made from)")->required();
  example->callback([&kind, dir, emit] {
    for (const std::vector<std::string>& words : kind.server.example_commands(*dir))
      run_kind_command_line(kind, words, emit);
  });
}

}  // namespace

void run_kind_command_line(const KindSpec& kind, const std::vector<std::string>& words, const EmitWorkunit& emit) {
  CLI::App cli{"helix-wu"};
  cli.require_subcommand(1);
  add_kind_workunit_command(kind, cli, emit);
  std::vector<std::string> argv_words{"helix-wu"};
  argv_words.insert(argv_words.end(), words.begin(), words.end());
  std::vector<char*> argv;
  for (std::string& word : argv_words) argv.push_back(word.data());
  try {
    cli.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& error) {
    throw InputError(error.what());
  }
}

WorkunitSpec hand_made_workunit(const KindSpec& kind) {
  const HandMadeWorkunit& typical = kind.hand_made;
  WorkunitSpec spec;
  spec.inputs.push_back({"params", ""});
  for (const std::string& input : typical.inputs) spec.inputs.push_back({input, ""});
  spec.shared_inputs = typical.shared_inputs;
  spec.outputs = output_names(kind);
  spec.fpops_estimate = typical.fpops_estimate;
  spec.fpops_bound = kFpopsBoundFactor * typical.fpops_estimate;
  spec.memory_bound_bytes = typical.memory_bound_bytes;
  spec.disk_bound_bytes = typical.disk_bound_bytes;
  spec.max_output_bytes = typical.max_output_bytes;
  return spec;
}

void add_kind_workunit_command(const KindSpec& kind, CLI::App& parent, EmitWorkunit emit) {
  CLI::App* kind_command = parent.add_subcommand(kind.name, kind.description);
  kind_command->require_subcommand(1);
  kind.server.add_workunit_command(*kind_command, completing(kind, emit));
  if (kind.server.example_commands) add_example_command(kind, *kind_command, emit);
}

}  // namespace helix
