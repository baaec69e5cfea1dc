// glcm_workunit.cpp: `helix-wu glcm ...`, the glcm kind's work generator.
//   make  work units from grey PNG images (with masks, or a detected well as
//         the ROI), batched by estimated cost
//   map   one feature of a result's maps as a PNG, for a person to look at
// Every image is read and its ROI checked before the first file is written,
// so a refused command leaves nothing behind.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/example_data.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/size_class.h"
#include "core/names.h"
#include "glcm_server.h"

namespace helix::glcm {
namespace {

namespace fs = std::filesystem;

// Host memory beyond kMemoryBaseBytes (core/work_protocol.h, with the fpops
// and disk factors): per pixel of the largest image: grey, ROI, window_centres' prefix sums (int32),
// libpng's rows and the engine's copy (16 bytes with slack); per window, held
// for the whole job: its centre, the maps' sums per level and the current
// block's sums, twice (the checkpoint and the maps file encode copies).
constexpr double kMemoryBytesPerPixel = 16;

struct MakeOptions {
  std::vector<std::string> images, masks;
  std::string image_dir, name, out;
  bool detect_well = false;
  double well_margin_px = -1;  // < 0: default_well_margin()
  std::string levels = "64,32,16", distances = "1-25";
  int map_distance = 0;
  double max_cost = kDefaultMaxCostPerWu;
  SizeClass size_class = SizeClass::kNone;
};

// One input image, checked: where its pixels and ROI come from and its windows.
struct PlannedImage {
  std::string name, image_path, mask_path;  // mask_path empty: detected well or whole image
  bool detected = false;
  WellCircle well;
  double margin_px = 0;
  int width = 0, height = 0;
  std::uint64_t windows = 0;
  double cost = 0;
};

std::vector<std::string> image_paths(const MakeOptions& options) {
  std::vector<std::string> paths = options.images;
  if (!options.image_dir.empty()) {
    std::error_code error;
    if (!fs::is_directory(options.image_dir, error)) throw InputError("--image-dir " + options.image_dir + " is not a directory");
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(options.image_dir)) {
      std::string extension = entry.path().extension().string();
      std::transform(extension.begin(), extension.end(), extension.begin(),
                     [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
      if (entry.is_regular_file() && extension == ".png") found.push_back(entry.path().string());
    }
    if (found.empty()) throw InputError("--image-dir " + options.image_dir + " holds no .png file");
    std::sort(found.begin(), found.end());
    paths.insert(paths.end(), found.begin(), found.end());
  }
  if (paths.empty()) throw InputError("give images with --image or --image-dir");
  return paths;
}

// The levels, distances and map distance, checked by the parser the app uses
// (on a placeholder image, before any image is read).
GlcmParams checked_settings(const MakeOptions& options) {
  GlcmParams params;
  params.level_divisors = parse_levels_list(options.levels);
  params.distances = parse_distance_list(options.distances);
  params.map_distance = options.map_distance;
  params.images = {{"placeholder", "placeholder", ""}};
  GlcmParams checked = parse_glcm_params(glcm_params_json(params));
  checked.images.clear();
  return checked;
}

PlannedImage plan_image(const std::string& path, const std::string& mask_path, const MakeOptions& options,
                        const GlcmParams& settings) {
  PlannedImage plan;
  plan.name = fs::path(path).stem().string();
  if (!is_plain_name(plan.name) || plan.name.size() > 64)
    throw InputError("image " + path + ": its name \"" + plan.name +
                     "\" must be 1..64 characters of [A-Za-z0-9._-], not starting with '.' (rename the file)");
  plan.image_path = path, plan.mask_path = mask_path;
  const GreyImage image = read_grey_png(path);
  plan.width = image.width, plan.height = image.height;
  std::vector<std::uint8_t> roi(image.pixels.size(), 1);
  if (!mask_path.empty()) roi = read_mask_png(mask_path, image.width, image.height);
  if (options.detect_well) {
    plan.detected = true;
    plan.well = detect_well(image, path);
    plan.margin_px = options.well_margin_px >= 0 ? options.well_margin_px : default_well_margin(plan.well);
    roi = well_mask(image.width, image.height, plan.well, plan.margin_px).pixels;
  }
  plan.windows = window_centres(roi, image.width, image.height, kWindowRadius).size();
  if (plan.windows == 0)
    throw InputError("image " + path + ": its ROI holds no local window (a disc of radius " +
                     std::to_string(kWindowRadius) + " px must fit inside it)");
  plan.cost = image_cost(plan.windows, settings);
  return plan;
}

std::vector<PlannedImage> plan_images(const MakeOptions& options, const GlcmParams& settings) {
  const std::vector<std::string> paths = image_paths(options);
  if (!options.masks.empty() && options.masks.size() != paths.size())
    throw InputError("--mask given " + std::to_string(options.masks.size()) + " times for " +
                     std::to_string(paths.size()) + " images (one per image, in the same order)");
  if (options.well_margin_px >= 0 && !options.detect_well) throw InputError("--well-margin needs --detect-well");
  std::vector<PlannedImage> plans;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    plans.push_back(plan_image(paths[i], options.masks.empty() ? "" : options.masks[i], options, settings));
    for (std::size_t j = 0; j + 1 < plans.size(); ++j)
      if (plans[j].name == plans.back().name)
        throw InputError("images " + plans[j].image_path + " and " + paths[i] + " have the same name \"" +
                         plans.back().name + "\"");
  }
  return plans;
}

// The params of one WU: its images under their WU file names.
GlcmParams wu_params(const GlcmParams& settings, const std::vector<PlannedImage>& plans,
                     const std::vector<std::size_t>& members, const std::string& wu_name) {
  GlcmParams params = settings;
  for (std::size_t slot = 0; slot < members.size(); ++slot) {
    const PlannedImage& plan = plans[members[slot]];
    const bool has_mask = plan.detected || !plan.mask_path.empty();
    params.images.push_back({plan.name, wu_image_file(wu_name, slot), has_mask ? wu_mask_file(wu_name, slot) : ""});
  }
  return parse_glcm_params(glcm_params_json(params));
}

std::vector<std::vector<std::size_t>> plan_batches(const std::vector<PlannedImage>& plans, const GlcmParams& settings,
                                                   double max_cost) {
  std::vector<BatchItem> items;
  std::vector<std::string> names;
  for (const PlannedImage& plan : plans) {
    items.push_back({plan.cost, plan.windows, image_summary_bytes(settings, plan.name, plan.width, plan.height, plan.windows)});
    names.push_back(plan.image_path);
  }
  return batch_images(items, names, max_cost, max_windows_per_wu(settings));
}

std::vector<std::string> wu_names(const std::string& prefix, const std::vector<std::vector<std::size_t>>& batches) {
  std::vector<std::string> names;
  std::size_t most_images = 0;
  for (std::size_t k = 0; k < batches.size(); ++k) {
    names.push_back(prefix + "_" + std::to_string(k));
    most_images = std::max(most_images, batches[k].size());
  }
  // parse_glcm_params allows file names of at most 64 characters.
  const std::string longest = wu_image_file(names.back(), most_images - 1);
  if (longest.size() > 64)
    throw InputError("--name " + prefix + " is too long: WU file names such as " + longest +
                     " must stay within 64 characters");
  return names;
}

WorkunitSpec workunit_spec(const std::string& wu_name, const GlcmParams& params, const std::vector<PlannedImage>& plans,
                           const std::vector<std::size_t>& members, const std::vector<std::string>& inputs) {
  WorkunitSpec spec;
  spec.name = wu_name;
  spec.inputs.push_back({"params", inputs[0]});
  for (std::size_t i = 1; i < inputs.size(); ++i) spec.inputs.push_back({fs::path(inputs[i]).filename().string(), inputs[i]});
  double cost = 0, largest_image = 0;
  std::vector<std::uint64_t> windows;
  for (std::size_t member : members) {
    cost += plans[member].cost;
    windows.push_back(plans[member].windows);
    largest_image = std::max(largest_image, static_cast<double>(plans[member].width) * plans[member].height);
  }
  spec.fpops_estimate = cost * kFlopsPerUpdateStep;
  const double maps_raw = static_cast<double>(maps_raw_bytes(params, windows));
  const double maps_file = static_cast<double>(max_maps_file_bytes(params, windows));
  const double features = static_cast<double>(max_features_bytes(params));
  std::uint64_t total_windows = 0;
  for (std::uint64_t n : windows) total_windows += n;
  spec.kind_memory_bytes = kMemoryBytesPerPixel * largest_image + 2 * maps_raw +
                           2 * static_cast<double>(total_windows) * sizeof(FixedFeatures);
  spec.output_bytes = features + maps_file + maps_raw;
  // One limit for every output file (WorkunitSpec has one field; core raises
  // it to the summary's declared bound); the validator enforces each file's own.
  spec.max_output_bytes = std::max(features, maps_file);
  return spec;
}

// Writes one WU's inputs into `out`; returns their paths, params first.
std::vector<std::string> write_wu_inputs(const std::string& out, const std::string& wu_name, const GlcmParams& params,
                                         const std::vector<PlannedImage>& plans, const std::vector<std::size_t>& members,
                                         std::vector<std::string>& written) {
  std::vector<std::string> paths{out + "/" + wu_params_file(wu_name)};
  written.push_back(paths[0]);
  write_file_atomic(paths[0], glcm_params_json(params).dump(1) + "\n");
  for (std::size_t slot = 0; slot < members.size(); ++slot) {
    const PlannedImage& plan = plans[members[slot]];
    const std::string image_path = out + "/" + params.images[slot].image_file;
    written.push_back(image_path);
    write_file_atomic(image_path, read_file_bytes(plan.image_path));  // the PNG as given (16-bit stays 16-bit)
    paths.push_back(image_path);
    if (params.images[slot].mask_file.empty()) continue;
    const std::string mask_path = out + "/" + params.images[slot].mask_file;
    written.push_back(mask_path);
    if (plan.detected)
      write_grey_png(mask_path, well_mask(plan.width, plan.height, plan.well, plan.margin_px));
    else
      write_file_atomic(mask_path, read_file_bytes(plan.mask_path));
    paths.push_back(mask_path);
  }
  return paths;
}

void remove_quietly(const std::vector<std::string>& paths) {
  std::error_code ignored;
  for (const auto& path : paths) fs::remove(path, ignored);
}

void report_plan(const PlannedImage& plan) {
  if (plan.detected)
    std::printf("image %s: well at (%.1f, %.1f), radius %.1f px, ROI radius %.1f px, %llu windows\n", plan.name.c_str(),
                plan.well.centre_x, plan.well.centre_y, plan.well.radius, plan.well.radius - plan.margin_px,
                static_cast<unsigned long long>(plan.windows));
}

void run_make(const MakeOptions& options, const std::function<void(const WorkunitSpec&)>& emit) {
  if (!is_plain_name(options.name)) throw InputError("--name must be a plain name ([A-Za-z0-9._-], not starting with '.')");
  const GlcmParams settings = checked_settings(options);
  const std::vector<PlannedImage> plans = plan_images(options, settings);
  const std::vector<std::vector<std::size_t>> batches = plan_batches(plans, settings, options.max_cost);
  const std::vector<std::string> names = wu_names(options.name, batches);
  std::vector<GlcmParams> params;
  for (std::size_t k = 0; k < batches.size(); ++k) params.push_back(wu_params(settings, plans, batches[k], names[k]));
  for (const PlannedImage& plan : plans) report_plan(plan);
  fs::create_directories(options.out);
  std::vector<std::string> written;
  try {
    for (std::size_t k = 0; k < batches.size(); ++k) {
      const auto inputs = write_wu_inputs(options.out, names[k], params[k], plans, batches[k], written);
      for (const char* suffix : {".wu_template.xml", ".result_template.xml", ".create_work.sh"})
        written.push_back(options.out + "/" + names[k] + suffix);  // what emit's writer makes
      emit(workunit_spec(names[k], params[k], plans, batches[k], inputs));
    }
  } catch (...) {
    remove_quietly(written);
    throw;
  }
}

struct MapOptions {
  std::string maps, image, feature = "entropy", out, underlay;
  int levels = 64;
};

void run_map(const MapOptions& options) {
  const int feature = feature_index(options.feature);
  const DecodedMaps maps = decode_maps(read_file_bytes(options.maps), kMaxWindowsPerWuWithoutMaps);
  GreyImage underlay;
  if (!options.underlay.empty()) underlay = read_grey_png(options.underlay);
  const GreyImage picture =
      render_feature_map(maps, options.image, options.levels, feature, options.underlay.empty() ? nullptr : &underlay);
  write_grey_png(options.out, picture);
  std::printf("%s\n", options.out.c_str());
}

void add_make_command(CLI::App& glcm, std::function<void(const WorkunitSpec&)> emit) {
  auto options = std::make_shared<MakeOptions>();
  auto* command = glcm.add_subcommand("make", "make glcm work units from grey PNG images, batched by cost");
  auto* image = command->add_option("--image", options->images, "grey PNG image (8- or 16-bit), repeatable");
  auto* dir = command->add_option("--image-dir", options->image_dir, "directory whose *.png files are the images");
  image->excludes(dir);
  auto* mask = command->add_option("--mask", options->masks, "ROI mask PNG per image, same order (nonzero inside)");
  auto* detect = command->add_flag("--detect-well", options->detect_well, "ROI: the detected circular well");
  mask->excludes(detect);
  command->add_option("--well-margin", options->well_margin_px, "px to shrink the detected well by (default 10 % of its radius)");
  command->add_option("--levels", options->levels, "grey levels, any of 64,32,16");
  command->add_option("--distances", options->distances, "distances in 1..25: list and ranges, e.g. 1-25 or 1,2,5-7");
  command->add_option("--map-distance", options->map_distance, "distance of the per-window maps (0: none)");
  command->add_option("--max-cost-per-wu", options->max_cost,
                      "windows x displacements x levels per WU (default 3e8; size class gpu 4.8e10)");
  add_size_class_option(command, &options->size_class);
  command->add_option("--name", options->name, "WU name prefix: WUs are PREFIX_0, PREFIX_1, ...")->required();
  command->add_option("--out", options->out, "output directory")->required();
  command->callback([options, emit, command] {
    if (!option_given(command, "--max-cost-per-wu"))
      options->max_cost = size_class_default(options->size_class, kDefaultMaxCostPerWu, kGpuMaxCostPerWu);
    run_make(*options, emit_in_size_class(emit, options->size_class));
  });
}

void add_map_command(CLI::App& glcm) {
  auto options = std::make_shared<MapOptions>();
  auto* command = glcm.add_subcommand("map", "one feature of a result's maps as an 8-bit grey PNG");
  command->add_option("--maps", options->maps, "the result's maps file")->required();
  command->add_option("--image", options->image, "image name (as in the features table)")->required();
  command->add_option("--levels", options->levels, "64, 32 or 16");
  command->add_option("--feature", options->feature, "feature name, e.g. entropy, contrast, correlation");
  command->add_option("--underlay", options->underlay, "the image itself, shown dimmed where there is no window");
  command->add_option("--out", options->out, "PNG to write")->required();
  command->callback([options] { run_map(*options); });
}

}  // namespace

void add_glcm_workunit_command(CLI::App& command, std::function<void(const WorkunitSpec&)> emit) {
  add_make_command(command, std::move(emit));
  add_map_command(command);
}

// skimage's text.png and microaneurysms.png, 16 levels, distances 1-6: twelve
// blocks (checkpoints fall between them), 3-6 s on one core.
std::vector<std::vector<std::string>> glcm_example_commands(const std::string& dir) {
  const std::string text = skimage_data_file("text.png"), eye = skimage_data_file("microaneurysms.png");
  require_data_files({{text, "python3-skimage"}, {eye, "python3-skimage"}});
  return {{"glcm", "make", "--image", text, "--image", eye, "--levels", "16", "--distances", "1-6", "--map-distance",
           "2", "--name", "example_glcm", "--out", dir}};
}

}  // namespace helix::glcm
