// main.cpp: helix-wu, the work generator. Each registered kind adds its own
// subcommands (`helix-wu mrf make ...`); every work unit a kind makes is turned
// into BOINC templates and a create_work script beside its input files.
//
//   helix-wu <kind> <command> [options]      e.g. helix-wu mrf make --volume ct.nii.gz --name wu1 --out wu/
//   helix-wu <kind> example --out DIR        a small example WU of the kind, from real data on the machine
//   helix-wu templates --out DIR             every kind's packaged templates <kind>_in, <kind>_out
//                                            for WUs made by hand (packaging/make_release.sh)
//   helix-wu kinds                           the registered kinds, one a line (for scripts' loops)
//
// Exit: 0 done; non-zero with one "helix-wu: error: ..." line on stderr, and no
// work unit files left behind; 77 (skip) when `example` lacks its data.
#include <cstdio>
#include <filesystem>
#include <memory>

#include <CLI/CLI.hpp>

#include "core/example_data.h"
#include "core/file_io.h"
#include "core/kind.h"
#include "workunit_writer.h"

namespace {

void emit_workunit(const helix::WorkunitSpec& spec) {
  const helix::WorkunitFiles files = helix::write_workunit_files(spec);
  std::printf("work unit %s: %s\n", spec.name.c_str(), files.script.c_str());
}

// Writes DIR/<kind>_out for every kind, and DIR/<kind>_in for those whose
// input names are the same in every WU, from the kinds' declarations.
void write_packaged_templates(const std::string& dir) {
  std::filesystem::create_directories(dir);
  for (const auto& name : helix::registered_kind_names()) {
    const helix::KindSpec& kind = *helix::find_server_kind(name);
    const helix::WorkunitSpec typical = helix::hand_made_workunit(kind);
    std::string written;
    if (!kind.hand_made.inputs.empty()) {
      helix::write_file_atomic(dir + "/" + name + "_in", helix::input_template_xml(typical));
      written = name + "_in ";
    }
    helix::write_file_atomic(dir + "/" + name + "_out", helix::result_template_xml(typical));
    std::printf("%s: %s%s_out in %s\n", name.c_str(), written.c_str(), name.c_str(), dir.c_str());
  }
}

void add_templates_command(CLI::App& cli) {
  CLI::App* command = cli.add_subcommand(
      "templates", "write every kind's packaged templates (<kind>_in, <kind>_out) for WUs made by hand");
  auto dir = std::make_shared<std::string>();
  command->add_option("--out", *dir, "directory to write them into")->required();
  command->callback([dir] { write_packaged_templates(*dir); });
}

void add_kinds_command(CLI::App& cli) {
  cli.add_subcommand("kinds", "print the registered kinds, one a line")->callback([] {
    for (const auto& name : helix::registered_kind_names()) std::printf("%s\n", name.c_str());
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"helix-wu: makes BOINC work units for the helix app"};
  cli.require_subcommand(1);
  for (const auto& name : helix::registered_kind_names())
    if (const helix::KindSpec* kind = helix::find_server_kind(name))
      helix::add_kind_workunit_command(*kind, cli, emit_workunit);
  add_templates_command(cli);
  add_kinds_command(cli);
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return cli.exit(error);  // --help
    std::fprintf(stderr, "helix-wu: error: %s\n", error.what());
    return error.get_exit_code();
  } catch (const helix::MissingData& error) {
    std::fprintf(stderr, "helix-wu: no example data: %s\n", error.what());
    return helix::kMissingDataExit;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "helix-wu: error: %s\n", error.what());
    return 1;
  }
  return 0;
}
