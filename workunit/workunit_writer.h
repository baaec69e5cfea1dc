// workunit_writer.h: turns a kind's WorkunitSpec into what BOINC's create_work
// needs: an input (WU) template, a result template and a script that stages
// the input files and calls create_work. Kind-independent.
#pragma once
#include <cstddef>
#include <string>

#include "core/kind.h"

namespace helix {

// The app version's files in a task's slot. The client counts the whole slot
// against rsc_disk_bound, and a release copies its libraries into it
// (<copy_file/>, packaging/make_release.sh): 11.6 MB in release 0.1.0. The
// release test (tests/packaging) fails a release that outgrows this.
constexpr double kAppVersionDiskBytes = 64.0 * (1 << 20);
// BOINC keeps a WU name in 256 bytes and names result files
// "<wu>_<replica>_r<random>_<index>"; 200 leaves room for the suffix.
constexpr std::size_t kMaxWorkunitName = 200;

// BOINC input template: one <file_info> per input (<no_delete/> for the spec's
// shared inputs), <workunit> with the file refs (logical names), the rsc_*
// bounds (rsc_disk_bound: the spec's plus kAppVersionDiskBytes), quorum 2 of 2
// and the replica limits (max_error/total/success_results).
std::string input_template_xml(const WorkunitSpec& spec);
// BOINC result template: one uploaded <file_info> per output (max_nbytes from
// the spec) and the <result> file refs with their logical names.
std::string result_template_xml(const WorkunitSpec& spec);
// The result template's file name in the project's templates/, from its
// content ("helix_<hash>_out.xml"): WUs with the same outputs share one file,
// and the path create_work stores fits BOINC's 64-byte field whatever the
// WU's name.
std::string result_template_name(const WorkunitSpec& spec);
// Bash script, run from the BOINC project directory: copies the templates to
// templates/, stages each input with bin/stage_file, runs bin/create_work.
std::string create_work_script(const WorkunitSpec& spec);

struct WorkunitFiles {
  std::string wu_template, result_template, script;
};
// Writes NAME.wu_template.xml, NAME.result_template.xml and NAME.create_work.sh
// (executable) into the directory of the first input file, each atomically.
// Throws InputError (and removes what it wrote) when the spec is unusable:
// no inputs, an input not named by a plain file name, a bad WU name.
WorkunitFiles write_workunit_files(const WorkunitSpec& spec);

}  // namespace helix
