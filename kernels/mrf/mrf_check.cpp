// mrf_check.cpp: the validator's checks of an mrf result. A volunteer host may
// return garbage (bad hardware, a truncated upload) or a forgery (made-up means
// or energies). Cheap structural checks come first; with the WU's input volume
// at hand, the class model and the final energy are recomputed on the CPU and
// must match the summary exactly (all of it is deterministic fixed point or
// exactly rounded doubles, so "equal" means bit-equal).
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <zstd.h>

#include "core/check_support.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/names.h"
#include "mrf_files.h"
#include "mrf_server.h"
#include "mrf_summary.h"

namespace helix::mrf {
namespace {

constexpr std::uint64_t kLabelsHeaderBytes = 8 + 3 * 4 + 8;  // magic, dims, frame size

// Thrown inside the checks; converted to a CheckOutcome at the top.

nlohmann::json parse_summary(const std::string& path) {
  const auto bytes = read_bounded(path, kMaxSummaryBytes, "summary");
  auto summary = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (summary.is_discarded() || !summary.is_object()) reject("summary is not a JSON object");
  return summary;
}

// An integer member (get<int64_t> alone would silently truncate 1.5).
std::int64_t integer_field(const nlohmann::json& object, const char* key) {
  const auto& value = object.at(key);
  require(value.is_number_integer(), std::string("summary field '") + key + "' is not an integer");
  return value.get<std::int64_t>();
}

// Structural facts about one result: the decoded labels and summary fields
// that the deeper checks use.
struct Parsed {
  LabelMap labels;
  nlohmann::json summary;
  MrfParams params;
  std::uint32_t sweeps = 0;
  ClassModel model;
  std::array<double, 3> spacing_mm{};
};

void check_header(const nlohmann::json& summary) {
  require(summary.value("kind", "") == "mrf", "summary kind is not \"mrf\"");
  require(summary.at("format").is_number_integer() && summary.at("format").get<int>() == kSummaryFormat,
          "summary format is not " + std::to_string(kSummaryFormat));
}

void check_dims(const nlohmann::json& summary, const LabelMap& labels) {
  const auto& dims = summary.at("dims");
  require(dims.is_array() && dims.size() == 3 && dims[0] == labels.nx && dims[1] == labels.ny && dims[2] == labels.nz,
          "summary dims differ from the label map's " + std::to_string(labels.nx) + "x" + std::to_string(labels.ny) +
              "x" + std::to_string(labels.nz));
}

// The voxel count the summary's dims claim (each 1..65535, at most kMaxVoxels
// in all): it bounds the label map's size before the map is read.
std::uint64_t summary_voxels(const nlohmann::json& summary) {
  const auto& dims = summary.at("dims");
  require(dims.is_array() && dims.size() == 3, "summary dims is not 3 integers");
  std::uint64_t voxels = 1;
  for (const auto& dim : dims) {
    require(dim.is_number_integer() && dim.get<std::int64_t>() >= 1 && dim.get<std::int64_t>() <= 65535,
            "summary dims are not integers in 1..65535");
    voxels *= static_cast<std::uint64_t>(dim.get<std::int64_t>());
  }
  require(voxels <= kMaxVoxels, "summary dims exceed the largest volume");
  return voxels;
}

// The solver stops at the first sweep whose |delta_energy| is within the
// tolerance, or at max_sweeps: the trace must tell that same story.
void check_trace(const nlohmann::json& summary, const MrfParams& params, std::uint32_t sweeps, std::size_t voxels) {
  const auto& trace = summary.at("energy_trace");
  require(trace.is_array() && trace.size() == sweeps, "energy_trace length differs from sweeps");
  const std::int64_t tolerance = energy_tolerance_fixed(params, voxels);
  for (std::uint32_t i = 0; i < sweeps; ++i) {
    require(integer_field(trace[i], "sweep") == i + 1, "energy_trace sweeps are not numbered 1..n");
    const bool within = std::llabs(integer_field(trace[i], "delta_energy")) <= tolerance;
    require(!within || i + 1 == sweeps, "energy_trace converged before its last sweep");
  }
  const bool converged = summary.at("converged").get<bool>();
  const bool last_within = std::llabs(integer_field(trace[sweeps - 1], "delta_energy")) <= tolerance;
  require(converged == last_within, "converged flag disagrees with the last energy change and the tolerance");
  require(converged || sweeps == static_cast<std::uint32_t>(params.max_sweeps),
          "stopped before max_sweeps without converging");
}

// Reported counts and volumes must be those of the returned labels.
void check_classes(Parsed& parsed) {
  const auto& classes = parsed.summary.at("classes");
  require(classes.is_array() && classes.size() == kClassCount, "summary must list 3 classes");
  std::array<std::int64_t, kClassCount> counts{};
  for (std::uint8_t label : parsed.labels.labels) ++counts[label];
  const double voxel_ml = parsed.spacing_mm[0] * parsed.spacing_mm[1] * parsed.spacing_mm[2] / 1000.0;
  for (int k = 0; k < kClassCount; ++k) {
    const auto& entry = classes[k];
    require(entry.at("label").get<int>() == k && entry.at("name").get<std::string>() == kClassNames[k],
            "classes are not listed as air, bone, liver");
    require(integer_field(entry, "voxels") == counts[k],
            std::string("reported voxel count of ") + kClassNames[k] + " differs from the label map");
    require(entry.at("volume_ml").get<double>() == static_cast<double>(counts[k]) * voxel_ml,
            std::string("reported volume of ") + kClassNames[k] + " differs from voxels x spacing");
    parsed.model.mean[k] = entry.at("mean").get<double>();
    parsed.model.variance[k] = entry.at("variance").get<double>();
  }
}

Parsed check_structure(const std::vector<std::string>& files) {
  require(files.size() == 2, "an mrf result has 2 files (labels, summary), got " + std::to_string(files.size()));
  Parsed parsed;
  parsed.summary = parse_summary(files[1]);
  check_header(parsed.summary);
  parsed.labels = decode_labels(read_bounded(files[0], max_labels_file_bytes(summary_voxels(parsed.summary)), "label map"),
                                "label map");
  check_dims(parsed.summary, parsed.labels);
  parsed.params = parse_mrf_params(parsed.summary.at("params"));
  const auto sweeps = integer_field(parsed.summary, "sweeps");
  require(sweeps >= 1 && sweeps <= parsed.params.max_sweeps, "sweeps is outside [1, max_sweeps]");
  parsed.sweeps = static_cast<std::uint32_t>(sweeps);
  parsed.spacing_mm = parsed.summary.at("spacing_mm").get<std::array<double, 3>>();
  check_trace(parsed.summary, parsed.params, parsed.sweeps, parsed.labels.labels.size());
  integer_field(parsed.summary, "final_energy");
  check_classes(parsed);
  return parsed;
}

// The input volume is the project's own file: trouble reading it is the
// server's problem, so the result is retried later (transient), not rejected.
Volume read_server_input(const std::string& inputs_dir, const std::string& name) {
  return server_read("input volume", [&] { return read_volume_file(inputs_dir + "/" + name); });
}

constexpr const char* kVolumeSuffix = ".volume.hxv";  // helix-wu mrf make: <wu>.volume.hxv, <wu>.params.json

// The WU this result answers: the one BOINC filed it under (its files' names,
// core/check_support.h), whose volume the summary must name; for a standalone
// run's files, the one the summary names. Its params must be the summary's:
// a genuine result of another WU (other volume, or the same volume with other
// params or seed) is refused.
std::string check_wu_binding(const Parsed& parsed, const std::vector<std::string>& files, const std::string& inputs_dir) {
  const std::string volume_name = parsed.summary.at("input_volume").get<std::string>();
  const std::size_t suffix = std::char_traits<char>::length(kVolumeSuffix);
  require(is_plain_name(volume_name, 255) && volume_name.size() > suffix &&
              volume_name.compare(volume_name.size() - suffix, suffix, kVolumeSuffix) == 0,
          "input_volume is not a plain file name <wu>" + std::string(kVolumeSuffix));
  const std::string summary_wu = bound_wu(files, volume_name.substr(0, volume_name.size() - suffix));
  const MrfParams wu_params = server_read("WU params", [&] {
    const auto json = nlohmann::json::parse(read_file_text(inputs_dir + "/" + summary_wu + ".params.json"), nullptr, false);
    if (json.is_discarded()) throw InputError(summary_wu + ".params.json is not JSON");
    return parse_mrf_params(json);
  });
  require(mrf_params_to_json(wu_params) == mrf_params_to_json(parsed.params),
          "the summary's params differ from WU " + summary_wu + "'s");
  return volume_name;
}

// The CPU recomputation: the reported class model must be a fixed point of the
// re-estimation from the returned labels, and the final energy must be the
// energy of those labels under that model.
void check_against_input(const Parsed& parsed, const std::vector<std::string>& files, const std::string& inputs_dir) {
  const Volume volume = read_server_input(inputs_dir, check_wu_binding(parsed, files, inputs_dir));
  require(volume.nx == parsed.labels.nx && volume.ny == parsed.labels.ny && volume.nz == parsed.labels.nz,
          "label map dimensions differ from the input volume's");
  require(volume.spacing_mm == parsed.spacing_mm, "summary spacing_mm differs from the input volume's");
  const ClassSums sums = class_statistics(volume, parsed.labels.labels);
  const ClassModel expected = estimate_class_model(sums, parsed.model, parsed.params.min_variance);
  for (int k = 0; k < kClassCount; ++k)
    if (sums.count[k] > 0)
      require(expected.mean[k] == parsed.model.mean[k] && expected.variance[k] == parsed.model.variance[k],
              std::string("reported mean/variance of ") + kClassNames[k] + " do not match the returned labels");
  const std::int64_t energy =
      labelling_energy(volume, parsed.labels.labels, parsed.model, sweep_constants(parsed.params, parsed.sweeps));
  require(energy == integer_field(parsed.summary, "final_energy"),
          "final_energy differs from the recomputed energy " + std::to_string(energy));
}

}  // namespace

std::uint64_t max_labels_file_bytes(std::uint64_t voxels) { return kLabelsHeaderBytes + ZSTD_COMPRESSBOUND(voxels); }
std::uint64_t max_labels_file_bytes() { return max_labels_file_bytes(kMaxVoxels); }

CheckOutcome check_mrf_result(const std::vector<std::string>& files, const ServerOptions& options) {
  return outcome_of([&] {
    const Parsed parsed = check_structure(files);
    if (!options.inputs_dir.empty()) check_against_input(parsed, files, options.inputs_dir);
  });
}

CheckOutcome compare_mrf_results(const std::vector<std::string>& files_a, const std::vector<std::string>& files_b) {
  return outcome_of([&] {
    require(files_a.size() == 2 && files_b.size() == 2, "an mrf result has 2 files (labels, summary)");
    const LabelMap a = decode_labels(read_bounded(files_a[0], max_labels_file_bytes(), "label map"), files_a[0]);
    const LabelMap b = decode_labels(read_bounded(files_b[0], max_labels_file_bytes(), "label map"), files_b[0]);
    require(a.nx == b.nx && a.ny == b.ny && a.nz == b.nz && a.labels == b.labels, "label maps differ");
    require(parse_summary(files_a[1]) == parse_summary(files_b[1]), "summaries differ");
  });
}

}  // namespace helix::mrf
