// mrf_workunit_test.cpp: helix-wu's real mrf command lines (phantom, make,
// render): files that decode to what was asked for, and clean refusals that
// leave nothing behind.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>
#include <nifti2_io.h>
#include <pugixml.hpp>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/size_class.h"
#include "mrf/mrf_files.h"
#include "mrf/mrf_phantom.h"
#include "mrf/mrf_server.h"
#include "server_test_util.h"

namespace helix::test {
namespace {
namespace fs = std::filesystem;

const std::string kWu = HELIX_WU;

mrf::Phantom small_phantom() {
  mrf::PhantomSpec spec;
  spec.nx = 32, spec.ny = 32, spec.nz = 8;
  spec.noise_sigma_hu = 25, spec.seed = 3;
  return mrf::make_phantom(spec);
}

std::string make_phantom_files() {
  const std::string dir = scratch_dir("phantom");
  const ToolRun run = run_tool(kWu + " mrf phantom --out " + dir + " --size 32 32 8 --noise 25 --seed 3");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return dir;
}

std::string text_of(const pugi::xml_node& node, const char* child) { return node.child(child).text().as_string(); }

TEST(WorkunitTool, PhantomAndMakeWriteFilesThatDecode) {
  const mrf::Phantom expected = small_phantom();
  const std::string phantom_dir = make_phantom_files();
  EXPECT_EQ(mrf::read_labels_file(phantom_dir + "/phantom_truth.hxl").labels, expected.truth);
  const mrf::Volume from_nifti = mrf::read_nifti_volume(phantom_dir + "/phantom.nii.gz");
  EXPECT_EQ(from_nifti.voxels, expected.volume.voxels);
  EXPECT_EQ(from_nifti.spacing_mm, expected.volume.spacing_mm);

  const std::string out = scratch_dir("make");
  const ToolRun run = run_tool(kWu + " mrf make --volume " + phantom_dir + "/phantom.nii.gz --name wu7 --out " + out +
                               " --max-sweeps 12 --beta-in 0.8 --initial-means -1000 700 60");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const mrf::Volume volume = mrf::read_volume_file(out + "/wu7.volume.hxv");
  EXPECT_EQ(volume.nx, 32);
  EXPECT_EQ(volume.nz, 8);
  EXPECT_EQ(volume.voxels, expected.volume.voxels);
  const mrf::MrfParams params = mrf::parse_mrf_params(nlohmann::json::parse(read_file_text(out + "/wu7.params.json")));
  EXPECT_EQ(params.max_sweeps, 12);
  EXPECT_EQ(params.beta_in, 0.8);
  ASSERT_TRUE(params.initial_means.has_value());
  EXPECT_EQ((*params.initial_means)[1], 700);

  pugi::xml_document wu, result;
  ASSERT_TRUE(wu.load_file((out + "/wu7.wu_template.xml").c_str()));
  ASSERT_TRUE(result.load_file((out + "/wu7.result_template.xml").c_str()));
  const pugi::xml_node workunit = wu.child("input_template").child("workunit");
  EXPECT_EQ(workunit.child("rsc_fpops_est").text().as_double(), 32.0 * 32 * 8 * 12 * 60);
  EXPECT_EQ(workunit.child("rsc_fpops_bound").text().as_double(), 20 * 32.0 * 32 * 8 * 12 * 60);
  EXPECT_EQ(text_of(workunit, "min_quorum"), "2");
  EXPECT_EQ(text_of(workunit, "delay_bound"), "604800");
  std::vector<std::string> open_names;
  for (const auto& ref : workunit.children("file_ref")) open_names.push_back(text_of(ref, "open_name"));
  EXPECT_EQ(open_names, (std::vector<std::string>{"params", "volume"}));
  open_names.clear();
  for (const auto& ref : result.child("output_template").child("result").children("file_ref"))
    open_names.push_back(text_of(ref, "open_name"));
  EXPECT_EQ(open_names, (std::vector<std::string>{"labels", "summary"}));
  const std::string script = read_file_text(out + "/wu7.create_work.sh");
  EXPECT_NE(script.find("bin/stage_file --copy \"$here/wu7.volume.hxv\""), std::string::npos) << script;
  EXPECT_NE(script.find("bin/create_work --appname helix --wu_name wu7"), std::string::npos) << script;
  EXPECT_EQ(script.find("--size_class"), std::string::npos) << script;  // no class unless asked for

  // A WU is one volume whatever its size class: the class only marks it.
  const ToolRun gpu = run_tool(kWu + " mrf make --volume " + phantom_dir + "/phantom.nii.gz --name wu8 --out " + out +
                               " --size-class gpu");
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_NE(read_file_text(out + "/wu8.create_work.sh").find("  --size_class 1 \\\n"), std::string::npos);
  EXPECT_EQ(read_file_text(out + "/wu8.volume.hxv"), read_file_text(out + "/wu7.volume.hxv"));
}

void expect_refused(const std::string& arguments) {
  const std::string out = scratch_dir("refused");
  const ToolRun run = run_tool(kWu + " mrf make --name wu9 --out " + out + " " + arguments);
  EXPECT_NE(run.exit_code, 0) << arguments;
  EXPECT_EQ(line_count(run.err), 1) << run.err;
  EXPECT_TRUE(fs::is_empty(out)) << arguments << " left files behind";
}

TEST(WorkunitTool, AbsurdParametersAndBadVolumesAreRefusedCleanly) {
  const std::string phantom = make_phantom_files() + "/phantom.nii.gz";
  expect_refused("--volume " + phantom + " --max-sweeps 0");
  expect_refused("--volume " + phantom + " --beta-in 1e9");
  expect_refused("--volume " + phantom + " --initial-means 1 1 1");
  expect_refused("--volume /nonexistent/ct.nii.gz");
  const std::string garbage = scratch_dir("garbage") + "/ct.nii";
  write_file_atomic(garbage, std::string("this is not a NIfTI file at all, just text......"));
  expect_refused("--volume " + garbage);
  const std::string garbage_hxv = scratch_dir("garbage") + "/ct.hxv";
  write_file_atomic(garbage_hxv, std::string("HXVOL001 but truncated"));
  expect_refused("--volume " + garbage_hxv);
}

// A float NIfTI with scaling, as scanners export: slope/intercept applied, rounded.
TEST(WorkunitTool, NiftiReaderAppliesScalingAndRefusesOutOfRange) {
  const std::string path = scratch_dir("nifti") + "/scaled.nii";
  const std::int64_t dims[8] = {3, 4, 3, 2, 1, 1, 1, 1};
  nifti_image* image = nifti_make_new_nim(dims, DT_FLOAT32, 1);
  auto* data = static_cast<float*>(image->data);
  for (int i = 0; i < 24; ++i) data[i] = static_cast<float>(i) + 0.3f;
  image->scl_slope = 2, image->scl_inter = -1000;
  image->pixdim[1] = image->dx = 0.5, image->pixdim[2] = image->dy = 0.75, image->pixdim[3] = image->dz = 3;
  ASSERT_EQ(nifti_set_filenames(image, path.c_str(), 0, 1), 0);
  nifti_image_write(image);
  const mrf::Volume volume = mrf::read_nifti_volume(path);
  EXPECT_EQ(volume.voxels[0], -999);  // 0.3 * 2 - 1000 = -999.4, rounded to nearest
  EXPECT_EQ(volume.voxels[5], -989);  // 5.3 * 2 - 1000 = -989.4
  EXPECT_EQ(volume.spacing_mm[1], 0.75);
  image->scl_slope = 5000;
  nifti_image_write(image);
  EXPECT_THROW(mrf::read_nifti_volume(path), InputError);
  nifti_image_free(image);
}

TEST(WorkunitTool, RenderWritesSlicesAndRefusesOtherDimensions) {
  const std::string phantom = make_phantom_files();
  const std::string out = scratch_dir("render");
  const ToolRun run = run_tool(kWu + " mrf render --volume " + phantom + "/phantom.nii.gz --labels " + phantom +
                               "/phantom_truth.hxl --out " + out + " --slices 2");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(fs::exists(out + "/slice_002.png"));
  EXPECT_TRUE(fs::exists(out + "/slice_006.png"));
  const auto png = read_file_bytes(out + "/slice_002.png");
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png[1], 'P');
  EXPECT_EQ((png[16] << 24 | png[17] << 16 | png[18] << 8 | png[19]), 64);  // width: CT beside overlay
  const std::string other = scratch_dir("render_other") + "/labels.hxl";
  write_file_atomic(other, mrf::encode_labels(16, 32, 8, std::vector<std::uint8_t>(16 * 32 * 8, 0)));
  const ToolRun refused = run_tool(kWu + " mrf render --volume " + phantom + "/phantom.nii.gz --labels " + other +
                                   " --out " + out);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(line_count(refused.err), 1) << refused.err;
}

}  // namespace
}  // namespace helix::test
