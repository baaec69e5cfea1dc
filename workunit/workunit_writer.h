// workunit_writer.h: turns a kind's WorkunitSpec into what BOINC's create_work
// needs: an input (WU) template, a result template and a script that stages
// the input files and calls create_work. Kind-independent.
#pragma once
#include <string>

#include "core/kind.h"

namespace helix {

// BOINC input template: one <file_info> per input, <workunit> with the file
// refs (logical names) and the rsc_* bounds, quorum 2 of 2.
std::string input_template_xml(const WorkunitSpec& spec);
// BOINC result template: one uploaded <file_info> per output (max_nbytes from
// the spec) and the <result> file refs with their logical names.
std::string result_template_xml(const WorkunitSpec& spec);
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
