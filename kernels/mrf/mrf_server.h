// mrf_server.h: the project-side pieces of the mrf kind, used by
// mrf_kind.cpp (the kind's declaration, core/kind.h) and by tests.
//
// Contents
//   read_nifti_volume(), write_nifti_volume()   NIfTI-1 CT volumes <-> Volume (mrf_nifti.cpp)
//   read_input_volume()                         .nii / .nii.gz / .hxv, whichever the path names
//   render_slices()                             PNG previews of a segmentation (mrf_render.cpp)
//   check_mrf_result(), compare_mrf_results()   validator checks (mrf_check.cpp)
//   create_mrf_tables(), store_mrf_result()     assimilator storage (mrf_store.cpp)
//   add_mrf_workunit_command()                  `helix-wu mrf ...` (mrf_workunit.cpp)
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/kind.h"
#include "core/work_protocol.h"
#include "mrf.h"

namespace helix::mrf {

// Reads a 3-D NIfTI-1/2 volume of any integer or real datatype. Applies
// scl_slope/scl_inter when the slope is set, rounds to the nearest integer and
// takes pixdim[1..3] as the spacing. Throws InputError (one line) for a missing
// or unreadable file, 4-D data, empty or absurd dimensions or spacing, complex/RGB
// datatypes, and values that do not fit int16 after scaling.
Volume read_nifti_volume(const std::string& path);

// Writes `volume` as NIfTI-1 int16 (gzip-compressed when the path ends in .gz),
// pixdim = spacing in mm. Written to a temporary name and renamed, so the path
// holds either nothing or the whole file. Throws InputError on failure.
void write_nifti_volume(const std::string& path, const Volume& volume);

// A .hxv file is read as-is; anything else goes through read_nifti_volume().
Volume read_input_volume(const std::string& path);

// Writes `slice_count` evenly spaced axial slices as out_dir/slice_ZZZ.png
// (ZZZ = slice index z): left half the CT in a soft-tissue window, right half
// the same with the labels overlaid. Returns the paths written. InputError when
// the label map's dimensions differ from the volume's or slice_count is not in [1, nz].
std::vector<std::string> render_slices(const Volume& volume, const std::vector<std::uint8_t>& labels,
                                       const std::string& out_dir, int slice_count);

// Largest label file a result may return: the header plus zstd's worst-case
// frame for kMaxVoxels labels. Largest summary: 1 MiB.
std::uint64_t max_labels_file_bytes();
std::uint64_t max_labels_file_bytes(std::uint64_t voxels);

// Validator init mode for files = {labels.hxl, summary.json}; see docs/server.md
// for the list of checks. Never throws: every failure is an outcome.
CheckOutcome check_mrf_result(const std::vector<std::string>& files, const ServerOptions& options);
// Equivalent iff both label maps decode and are identical and both summaries
// are equal as JSON values. Never throws.
CheckOutcome compare_mrf_results(const std::vector<std::string>& files_a, const std::vector<std::string>& files_b);

// Creates mrf_results and mrf_classes if absent. Throws std::runtime_error on SQL errors.
void create_mrf_tables(sqlite3* db);
// INSERT OR REPLACE of one result (the caller holds the transaction): storing
// the same result twice leaves the database unchanged. Throws InputError for
// unreadable files, std::runtime_error on SQL errors.
void store_mrf_result(sqlite3* db, long long wu_id, const std::vector<std::string>& files);

// Adds phantom, make and render to `helix-wu mrf` (`command`, which core makes from the declaration).
void add_mrf_workunit_command(CLI::App& command, std::function<void(const WorkunitSpec&)> emit);
// `helix-wu mrf example`: the small example WU's command lines (core/kind.h,
// ServerFunctions::example_commands).
std::vector<std::vector<std::string>> mrf_example_commands(const std::string& dir);

}  // namespace helix::mrf
