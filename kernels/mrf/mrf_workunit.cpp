// mrf_workunit.cpp: `helix-wu mrf ...`, the mrf kind's work generator.
//   phantom  a synthetic CT volume (NIfTI) with its truth labels, for demos and tests
//   make     one work unit from a CT volume: params JSON + .hxv volume + resource bounds
//   render   PNG previews of a returned segmentation
// Every input is checked before the first file is written, so a refused
// command leaves nothing behind.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/example_data.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/size_class.h"
#include "mrf_files.h"
#include "mrf_phantom.h"
#include "mrf_server.h"

namespace helix::mrf {
namespace {

// Work per voxel update of the CPU reference, order of magnitude: six
// neighbour loads with bounds tests (~18), two table lookups and two clique
// energies (~10), the SplitMix64 proposal hash (~10), the accept test, and the
// per-sweep class sums (~6) and energy bookkeeping: about 60 operations.
constexpr double kFlopsPerVoxelUpdate = 60;
// Host memory per voxel beyond kMemoryBaseBytes (core/work_protocol.h, with
// the fpops and disk factors): volume int16 (2) + engine labels (1) + solver-state
// labels for the checkpoint (1) + result labels (1) + checkpoint zstd buffer (1).
constexpr double kMemoryBytesPerVoxel = 6;

void ensure_plain_name(const std::string& name) {
  const bool plain = !name.empty() && name[0] != '.' && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
  if (!plain) throw InputError("--name must be a plain file name ([A-Za-z0-9._-], not starting with '.')");
}

struct PhantomOptions {
  std::string out;
  std::vector<int> size{128, 128, 32};
  double noise_hu = 40;
  std::uint64_t seed = 7;
};

void run_phantom(const PhantomOptions& options) {
  PhantomSpec spec;
  for (int extent : options.size)
    if (extent < 1 || extent > static_cast<int>(kMaxDimension)) throw InputError("--size values must be in [1, 4096]");
  if (static_cast<std::uint64_t>(options.size[0]) * options.size[1] * options.size[2] > kMaxVoxels)
    throw InputError("--size gives more than 2^31 voxels");
  if (!(options.noise_hu >= 0 && options.noise_hu <= 10000)) throw InputError("--noise must be in [0, 10000] HU");
  spec.nx = options.size[0], spec.ny = options.size[1], spec.nz = options.size[2];
  spec.noise_sigma_hu = options.noise_hu;
  spec.seed = options.seed;
  const Phantom phantom = make_phantom(spec);
  std::filesystem::create_directories(options.out);
  write_nifti_volume(options.out + "/phantom.nii.gz", phantom.volume);
  write_file_atomic(options.out + "/phantom_truth.hxl",
                    encode_labels(phantom.volume.nx, phantom.volume.ny, phantom.volume.nz, phantom.truth));
}

struct MakeOptions {
  std::string volume, name, out;
  MrfParams params;  // defaults; CLI options overwrite fields
  std::vector<double> initial_means;
  SizeClass size_class = SizeClass::kNone;
};

// The options as a params JSON, checked by the same parser the app uses.
MrfParams checked_params(const MakeOptions& options) {
  nlohmann::json json = mrf_params_to_json(options.params);
  if (!options.initial_means.empty()) json["initial_means"] = options.initial_means;
  return parse_mrf_params(json);
}

WorkunitSpec workunit_spec(const MakeOptions& options, const MrfParams& params, const Volume& volume,
                           const std::string& params_path, const std::string& volume_path) {
  const double voxels = static_cast<double>(volume.size());
  const double labels_bytes = static_cast<double>(max_labels_file_bytes(volume.size()));
  WorkunitSpec spec;
  spec.name = options.name;
  spec.inputs = {{"params", params_path}, {"volume", volume_path}};
  spec.fpops_estimate = voxels * params.max_sweeps * kFlopsPerVoxelUpdate;
  spec.kind_memory_bytes = voxels * kMemoryBytesPerVoxel;
  spec.output_bytes = 2 * labels_bytes;  // the label map and its temporary file
  // One limit for every output file (WorkunitSpec has one field): the label
  // map's worst case; core raises it to the summary's declared 1 MiB. The
  // validator enforces each file's own limit.
  spec.max_output_bytes = labels_bytes;
  return spec;
}

void remove_quietly(const std::vector<std::string>& paths) {
  std::error_code ignored;
  for (const auto& path : paths) std::filesystem::remove(path, ignored);
}

void run_make(const MakeOptions& options, const std::function<void(const WorkunitSpec&)>& emit) {
  ensure_plain_name(options.name);
  const MrfParams params = checked_params(options);
  const Volume volume = read_input_volume(options.volume);
  std::filesystem::create_directories(options.out);
  const std::string params_path = options.out + "/" + options.name + ".params.json";
  const std::string volume_path = options.out + "/" + options.name + ".volume.hxv";
  try {
    write_file_atomic(params_path, mrf_params_to_json(params).dump(1) + "\n");
    write_volume_file(volume_path, volume);
    emit(workunit_spec(options, params, volume, params_path, volume_path));
  } catch (...) {
    remove_quietly({params_path, volume_path});
    throw;
  }
}

struct RenderOptions {
  std::string volume, labels, out;
  int slices = 4;
};

void run_render(const RenderOptions& options) {
  const Volume volume = read_input_volume(options.volume);
  const LabelMap labels = read_labels_file(options.labels);
  if (labels.nx != volume.nx || labels.ny != volume.ny || labels.nz != volume.nz)
    throw InputError("label map is " + std::to_string(labels.nx) + "x" + std::to_string(labels.ny) + "x" +
                     std::to_string(labels.nz) + " but the volume is " + std::to_string(volume.nx) + "x" +
                     std::to_string(volume.ny) + "x" + std::to_string(volume.nz));
  std::filesystem::create_directories(options.out);
  for (const auto& path : render_slices(volume, labels.labels, options.out, options.slices))
    std::printf("%s\n", path.c_str());
}

void add_phantom_command(CLI::App& mrf) {
  auto options = std::make_shared<PhantomOptions>();
  auto* command = mrf.add_subcommand("phantom", "write a synthetic CT phantom (NIfTI) and its truth labels (.hxl)");
  command->add_option("--out", options->out, "output directory")->required();
  command->add_option("--size", options->size, "NX NY NZ")->expected(3);
  command->add_option("--noise", options->noise_hu, "Gaussian noise sigma, HU");
  command->add_option("--seed", options->seed, "noise seed");
  command->callback([options] { run_phantom(*options); });
}

void add_make_command(CLI::App& mrf, std::function<void(const WorkunitSpec&)> emit) {
  auto options = std::make_shared<MakeOptions>();
  MrfParams& p = options->params;
  auto* command = mrf.add_subcommand("make", "make one mrf work unit from a CT volume (.nii, .nii.gz or .hxv)");
  command->add_option("--volume", options->volume, "CT volume")->required();
  command->add_option("--name", options->name, "work unit name")->required();
  command->add_option("--out", options->out, "output directory")->required();
  command->add_option("--beta-in", p.beta_in, "nats per same-label neighbour");
  command->add_option("--beta-out", p.beta_out, "nats per different-label neighbour");
  command->add_option("--threshold", p.threshold, "acceptance threshold, nats");
  command->add_option("--tolerance", p.energy_tolerance, "convergence tolerance, nats per voxel");
  command->add_option("--max-sweeps", p.max_sweeps, "sweep limit");
  command->add_option("--seed", p.seed, "proposal seed");
  command->add_option("--initial-means", options->initial_means, "air bone liver, HU")->expected(3);
  // A WU is one volume whatever its class: the class only says which hosts
  // get it (e.g. the largest volumes to GPU hosts; docs/deploy.md).
  add_size_class_option(command, &options->size_class);
  command->callback([options, emit] { run_make(*options, emit_in_size_class(emit, options->size_class)); });
}

void add_render_command(CLI::App& mrf) {
  auto options = std::make_shared<RenderOptions>();
  auto* command = mrf.add_subcommand("render", "PNG slices of a segmentation over its CT volume");
  command->add_option("--volume", options->volume, "CT volume (.hxv or NIfTI)")->required();
  command->add_option("--labels", options->labels, "label map (.hxl)")->required();
  command->add_option("--out", options->out, "output directory")->required();
  command->add_option("--slices", options->slices, "number of evenly spaced axial slices");
  command->callback([options] { run_render(*options); });
}

}  // namespace

void add_mrf_workunit_command(CLI::App& command, std::function<void(const WorkunitSpec&)> emit) {
  add_phantom_command(command);
  add_make_command(command, std::move(emit));
  add_render_command(command);
}

// A 256x256x128 phantom with noise 200, run to 100,000 sweeps at tolerance 0
// (it stops at its fixed point): 3-6 s on one core.
std::vector<std::vector<std::string>> mrf_example_commands(const std::string& dir) {
  const std::string input = dir + "/input";
  return {{"mrf", "phantom", "--out", input, "--size", "256", "256", "128", "--noise", "200", "--seed", "11"},
          {"mrf", "make", "--volume", input + "/phantom.nii.gz", "--name", "example_mrf", "--out", dir,
           "--max-sweeps", "100000", "--tolerance", "0"}};
}

}  // namespace helix::mrf
