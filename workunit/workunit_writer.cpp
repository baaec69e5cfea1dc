// workunit_writer.cpp: BOINC templates and the create_work script for one WU.
// Both templates are wrapped in <input_template>/<output_template> (which
// create_work accepts) so that each is one well-formed XML document.
#include "workunit_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/names.h"
#include "core/size_class.h"

namespace helix {
namespace {

// BOINC resends after a week; two hosts must agree (the validator compares them).
constexpr int kDelayBoundSeconds = 604800;
constexpr int kMinQuorum = 2;
constexpr int kTargetResults = 2;
// How many replicas BOINC may make before it gives the WU up. create_work's
// defaults (server 1.6) are 1 each, raised only to target_nresults: one client
// error, one missed deadline or one disagreement needing a third result would
// fail the WU. These are BOINC's own documented choices for a quorum of two: up
// to 3 errors, 10 replicas in all, 6 successes (disagreeing hosts).
constexpr int kMaxErrorResults = 3;
constexpr int kMaxTotalResults = 10;
constexpr int kMaxSuccessResults = 6;
static_assert(kTargetResults <= kMaxSuccessResults && kMaxSuccessResults <= kMaxTotalResults &&
              kMaxErrorResults <= kMaxTotalResults, "create_work refuses these bounds");

std::string file_name_of(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Resource numbers are whole bytes / operations; no exponent notation in templates.
std::string whole_number(double value) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(0);
  out << std::ceil(value);
  return out.str();
}

// 64-bit FNV-1a: a short, stable name for a template's content.
std::string content_hash_hex(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

bool is_shared_input(const WorkunitSpec& spec, const std::string& logical) {
  return std::find(spec.shared_inputs.begin(), spec.shared_inputs.end(), logical) != spec.shared_inputs.end();
}

void check_spec(const WorkunitSpec& spec) {
  if (!is_plain_name(spec.name, kMaxWorkunitName))
    throw InputError("work unit name '" + spec.name + "' is not a plain file name of at most " +
                     std::to_string(kMaxWorkunitName) + " characters");
  if (spec.inputs.empty() || spec.inputs.front().first != "params")
    throw InputError("a work unit's first input must be \"params\"");
  for (const auto& [logical, path] : spec.inputs)
    if (!is_plain_name(logical) || !is_plain_name(file_name_of(path)))
      throw InputError("input '" + logical + "' (" + path + ") is not named by a plain file name");
  for (const auto& logical : spec.outputs)
    if (!is_plain_name(logical)) throw InputError("output name '" + logical + "' is not plain");
  for (const auto& logical : spec.shared_inputs)
    if (std::none_of(spec.inputs.begin(), spec.inputs.end(), [&](const auto& input) { return input.first == logical; }))
      throw InputError("shared input '" + logical + "' is not one of the work unit's inputs");
  if (spec.size_class < -1 || spec.size_class >= kSizeClassCount)
    throw InputError("size class " + std::to_string(spec.size_class) + " is not one of 0.." +
                     std::to_string(kSizeClassCount - 1));
}

}  // namespace

std::string input_template_xml(const WorkunitSpec& spec) {
  std::ostringstream xml;
  xml << "<input_template>\n";
  for (std::size_t i = 0; i < spec.inputs.size(); ++i)
    xml << "  <file_info>\n    <number>" << i << "</number>\n"
        << (is_shared_input(spec, spec.inputs[i].first) ? "    <no_delete/>\n" : "") << "  </file_info>\n";
  xml << "  <workunit>\n";
  for (std::size_t i = 0; i < spec.inputs.size(); ++i)
    xml << "    <file_ref>\n      <file_number>" << i << "</file_number>\n      <open_name>"
        << xml_escape(spec.inputs[i].first) << "</open_name>\n    </file_ref>\n";
  xml << "    <rsc_fpops_est>" << whole_number(spec.fpops_estimate) << "</rsc_fpops_est>\n"
      << "    <rsc_fpops_bound>" << whole_number(spec.fpops_bound) << "</rsc_fpops_bound>\n"
      << "    <rsc_memory_bound>" << whole_number(spec.memory_bound_bytes) << "</rsc_memory_bound>\n"
      << "    <rsc_disk_bound>" << whole_number(spec.disk_bound_bytes + kAppVersionDiskBytes) << "</rsc_disk_bound>\n"
      << "    <delay_bound>" << kDelayBoundSeconds << "</delay_bound>\n"
      << "    <min_quorum>" << kMinQuorum << "</min_quorum>\n"
      << "    <target_nresults>" << kTargetResults << "</target_nresults>\n"
      << "    <max_error_results>" << kMaxErrorResults << "</max_error_results>\n"
      << "    <max_total_results>" << kMaxTotalResults << "</max_total_results>\n"
      << "    <max_success_results>" << kMaxSuccessResults << "</max_success_results>\n"
      << "  </workunit>\n</input_template>\n";
  return xml.str();
}

std::string result_template_xml(const WorkunitSpec& spec) {
  std::ostringstream xml;
  xml << "<output_template>\n";
  for (std::size_t i = 0; i < spec.outputs.size(); ++i)
    xml << "  <file_info>\n    <name><OUTFILE_" << i << "/></name>\n    <generated_locally/>\n"
        << "    <upload_when_present/>\n    <max_nbytes>" << whole_number(spec.max_output_bytes)
        << "</max_nbytes>\n    <url><UPLOAD_URL/></url>\n  </file_info>\n";
  xml << "  <result>\n";
  for (std::size_t i = 0; i < spec.outputs.size(); ++i)
    xml << "    <file_ref>\n      <file_name><OUTFILE_" << i << "/></file_name>\n      <open_name>"
        << xml_escape(spec.outputs[i]) << "</open_name>\n      <copy_file/>\n    </file_ref>\n";
  xml << "  </result>\n</output_template>\n";
  return xml.str();
}

std::string result_template_name(const WorkunitSpec& spec) {
  return "helix_" + content_hash_hex(result_template_xml(spec)) + "_out.xml";
}

std::string create_work_script(const WorkunitSpec& spec) {
  const std::string& name = spec.name;
  const std::string result_template = result_template_name(spec);
  std::ostringstream sh;
  sh << "#!/bin/bash\n"
     << "# Creates BOINC work unit " << name << ". Run from the BOINC project directory\n"
     << "# (it calls bin/stage_file and bin/create_work and writes to templates/).\n"
     << "# The resource bounds (rsc_fpops_est/bound, rsc_memory_bound, rsc_disk_bound)\n"
     << "# and the quorum are in the WU template, so create_work needs no flags for them.\n"
     << (spec.size_class >= 0 ? "# Size class " + std::to_string(spec.size_class) +
                                    ": the app needs n_size_classes " + std::to_string(kSizeClassCount) +
                                    " and size_regulator running (docs/deploy.md).\n"
                              : std::string())
     << "set -euo pipefail\n"
     << "here=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\n"
     << "# The result template goes to templates/ under a name made from its content:\n"
     << "# BOINC stores its path in 64 bytes, whatever the length of the WU's name.\n"
     << "cp \"$here/" << name << ".wu_template.xml\" templates/\n"
     << "cp \"$here/" << name << ".result_template.xml\" templates/" << result_template << "\n";
  for (const auto& input : spec.inputs) sh << "bin/stage_file --copy \"$here/" << file_name_of(input.second) << "\"\n";
  sh << "bin/create_work --appname helix --wu_name " << name << " \\\n"
     << "  --wu_template templates/" << name << ".wu_template.xml \\\n"
     << "  --result_template templates/" << result_template;
  if (spec.size_class >= 0) sh << " \\\n  --size_class " << spec.size_class;
  for (const auto& input : spec.inputs) sh << " \\\n  " << file_name_of(input.second);
  sh << "\n";
  return sh.str();
}

WorkunitFiles write_workunit_files(const WorkunitSpec& spec) {
  check_spec(spec);
  const std::string dir = std::filesystem::path(spec.inputs.front().second).parent_path().string();
  const std::string prefix = (dir.empty() ? std::string(".") : dir) + "/" + spec.name;
  const WorkunitFiles files{prefix + ".wu_template.xml", prefix + ".result_template.xml", prefix + ".create_work.sh"};
  try {
    write_file_atomic(files.wu_template, input_template_xml(spec));
    write_file_atomic(files.result_template, result_template_xml(spec));
    write_file_atomic(files.script, create_work_script(spec));
    using std::filesystem::perms;
    std::filesystem::permissions(files.script, perms::owner_exec | perms::group_exec | perms::others_exec,
                                 std::filesystem::perm_options::add);
  } catch (...) {
    std::error_code ignored;
    for (const auto& path : {files.wu_template, files.result_template, files.script})
      std::filesystem::remove(path, ignored);
    throw;
  }
  return files;
}

}  // namespace helix
