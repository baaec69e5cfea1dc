// workunit_writer_test.cpp: the generic template writer (workunit/): well-formed
// templates, BOINC's bounds and limits, and clean refusals.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/size_class.h"
#include "server_test_util.h"
#include "workunit_writer.h"

namespace helix::test {
namespace {
namespace fs = std::filesystem;

std::string text_of(const pugi::xml_node& node, const char* child) { return node.child(child).text().as_string(); }

TEST(WorkunitWriter, TemplatesAreWellFormedAndRefuseBadNames) {
  const std::string dir = scratch_dir("writer");
  write_file_atomic(dir + "/a.json", std::string("{}"));
  WorkunitSpec spec;
  spec.name = "wu_x";
  spec.inputs = {{"params", dir + "/a.json"}};
  spec.outputs = {"out1", "out2", "summary"};
  spec.fpops_estimate = 1.5e13, spec.fpops_bound = 3e14, spec.memory_bound_bytes = 1e9, spec.disk_bound_bytes = 2e9;
  spec.max_output_bytes = 4096;
  const WorkunitFiles files = write_workunit_files(spec);
  pugi::xml_document result;
  ASSERT_TRUE(result.load_file(files.result_template.c_str()));
  int outputs = 0;
  for (const auto& info : result.child("output_template").children("file_info")) {
    EXPECT_EQ(text_of(info, "max_nbytes"), "4096");
    ++outputs;
  }
  EXPECT_EQ(outputs, 3);
  pugi::xml_document wu;
  ASSERT_TRUE(wu.load_file(files.wu_template.c_str()));
  EXPECT_EQ(text_of(wu.child("input_template").child("workunit"), "rsc_fpops_est"), "15000000000000");
  EXPECT_TRUE((fs::status(files.script).permissions() & fs::perms::owner_exec) != fs::perms::none);

  spec.name = "../evil";
  EXPECT_THROW(write_workunit_files(spec), InputError);
  spec.name = "wu_x";
  spec.size_class = kSizeClassCount;  // create_work would make results no scheduler ever sends
  EXPECT_THROW(write_workunit_files(spec), InputError);
}

// A spec of two inputs, the second shared with other WUs, in a fresh directory.
WorkunitSpec two_input_spec(const std::string& name) {
  const std::string dir = scratch_dir("writer_bounds");
  write_file_atomic(dir + "/p.json", std::string("{}"));
  write_file_atomic(dir + "/chunk.bin", std::string("x"));
  WorkunitSpec spec;
  spec.name = name;
  spec.inputs = {{"params", dir + "/p.json"}, {"database", dir + "/chunk.bin"}};
  spec.shared_inputs = {"database"};
  spec.outputs = {"hits", "summary"};
  spec.fpops_estimate = 1e12, spec.fpops_bound = 2e13, spec.memory_bound_bytes = 5e8, spec.disk_bound_bytes = 3e6;
  spec.max_output_bytes = 1 << 20;
  return spec;
}

// The client counts the whole slot, app version files included (11.6 MB of
// libraries copied into it), against rsc_disk_bound; create_work (server 1.6)
// sets every max_*_results it is not given to 1, so one error failed the WU.
TEST(WorkunitWriter, BoundsMakeRoomForTheAppVersionAndLetBoincRetry) {
  pugi::xml_document wu;
  ASSERT_TRUE(wu.load_string(input_template_xml(two_input_spec("wu_bounds")).c_str()));
  const pugi::xml_node workunit = wu.child("input_template").child("workunit");
  EXPECT_EQ(workunit.child("rsc_disk_bound").text().as_double(), 3e6 + kAppVersionDiskBytes);
  EXPECT_GE(kAppVersionDiskBytes, 11.6e6 * 2);  // release 0.1.0 with room to grow
  EXPECT_EQ(text_of(workunit, "target_nresults"), "2");
  EXPECT_EQ(text_of(workunit, "max_error_results"), "3");
  EXPECT_EQ(text_of(workunit, "max_total_results"), "10");
  EXPECT_EQ(text_of(workunit, "max_success_results"), "6");
}

// file_deleter deletes a WU's input files once the WU is assimilated unless
// their <file_info> says <no_delete/>: a shared chunk would be gone for every
// later WU and resend.
TEST(WorkunitWriter, SharedInputsAreKeptForTheWorkUnitsThatShareThem) {
  WorkunitSpec spec = two_input_spec("wu_shared");
  pugi::xml_document wu;
  ASSERT_TRUE(wu.load_string(input_template_xml(spec).c_str()));
  std::vector<bool> kept;
  for (const auto& info : wu.child("input_template").children("file_info"))
    kept.push_back(static_cast<bool>(info.child("no_delete")));
  EXPECT_EQ(kept, (std::vector<bool>{false, true}));
  spec.shared_inputs = {"queries"};
  EXPECT_THROW(write_workunit_files(spec), InputError);
}

// create_work stores the result template's path in a 64-byte field: a WU name
// of 38 characters ("templates/NAME.result_template.xml", 68 bytes) was refused
// after the inputs were staged. The path now depends on the template's content.
TEST(WorkunitWriter, LongWorkUnitNamesFitBoincsResultTemplateField) {
  const std::string name = "metastudent_globins_batch_0012_chunk_0034_profiles";  // 50 characters
  const WorkunitSpec spec = two_input_spec(name);
  const WorkunitFiles files = write_workunit_files(spec);
  const std::string script = read_file_text(files.script);
  const std::string flag = "--result_template ";
  const std::size_t at = script.find(flag);
  ASSERT_NE(at, std::string::npos) << script;
  const std::string path = script.substr(at + flag.size(), script.find_first_of(" \\\n", at + flag.size()) - at - flag.size());
  EXPECT_EQ(path, "templates/" + result_template_name(spec));
  EXPECT_LE(path.size(), 63u) << path;
  EXPECT_NE(script.find("cp \"$here/" + name + ".result_template.xml\" " + path), std::string::npos) << script;
  // Same outputs, same template file; other bounds, another file.
  EXPECT_EQ(result_template_name(two_input_spec("other")), result_template_name(spec));
  WorkunitSpec bigger = spec;
  bigger.max_output_bytes *= 2;
  EXPECT_NE(result_template_name(bigger), result_template_name(spec));

  WorkunitSpec too_long = two_input_spec(std::string(kMaxWorkunitName + 1, 'w'));
  EXPECT_THROW(write_workunit_files(too_long), InputError);
}

}  // namespace
}  // namespace helix::test
