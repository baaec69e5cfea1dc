// main.cpp: helix-wu, the work generator. Each registered kind adds its own
// subcommands (`helix-wu mrf make ...`); every work unit a kind makes is turned
// into BOINC templates and a create_work script beside its input files.
//
//   helix-wu <kind> <command> [options]      e.g. helix-wu mrf make --volume ct.nii.gz --name wu1 --out wu/
//
// Exit: 0 done; non-zero with one "helix-wu: error: ..." line on stderr, and no
// work unit files left behind.
#include <cstdio>

#include <CLI/CLI.hpp>

#include "core/kind.h"
#include "workunit_writer.h"

namespace {

void emit_workunit(const helix::WorkunitSpec& spec) {
  const helix::WorkunitFiles files = helix::write_workunit_files(spec);
  std::printf("work unit %s: %s\n", spec.name.c_str(), files.script.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"helix-wu: makes BOINC work units for the helix app"};
  cli.require_subcommand(1);
  for (const auto& name : helix::registered_kind_names())
    if (const helix::ServerKind* kind = helix::find_server_kind(name)) kind->add_workunit_command(cli, emit_workunit);
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return cli.exit(error);  // --help
    std::fprintf(stderr, "helix-wu: error: %s\n", error.what());
    return error.get_exit_code();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "helix-wu: error: %s\n", error.what());
    return 1;
  }
  return 0;
}
