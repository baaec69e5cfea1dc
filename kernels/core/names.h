// names.h: the names the project writes into and reads back from BOINC:
// plain file names, number fields in work-unit names, and the work unit a
// result file belongs to. One definition for every kind and tool.
#pragma once
#include <cstddef>
#include <string>

namespace helix {

// [A-Za-z0-9._-]+, not starting with '.', at most max_length characters: safe
// as a file name, in a BOINC template and in a shell command.
bool is_plain_name(const std::string& name, std::size_t max_length = std::string::npos);
// 1..9 decimal digits (so the number fits any unsigned long).
bool is_small_number(const std::string& text);
// BOINC names a result's files "<wu>_<replica>_r<random>_<file index>"
// (create_work's result names and OUTFILE_<i>; the random part, since BOINC
// 7.6, keeps a host from uploading a wingman's files) or, in older servers and
// standalone tests, "<wu>_<replica>_<file index>". Returns "<wu>" for
// "<dir>/<wu>_<digits>[_r<digits>]_<digits>", "" for any other file name.
std::string wu_name_of_result_file(const std::string& path);

}  // namespace helix
