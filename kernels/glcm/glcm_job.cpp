// glcm_job.cpp: a glcm work unit from params to result (glcm_job.h): each
// image's blocks, as many a call as the engine takes, checkpointed between
// calls (core/checkpoint.h's envelope around the blocks and maps so far).
#include "glcm_job.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/byte_codec.h"
#include "core/checkpoint.h"
#include "core/errors.h"
#include "core/phase_clock.h"

namespace helix::glcm {
namespace {

constexpr char kStateMagic[8] = {'H', 'X', 'G', 'L', 'C', 'S', '0', '1'};

// ---------------------------------------------------------------- checkpoints

// A checkpoint is reused only by the same parameters (which name the files).
std::string state_fingerprint(const GlcmParams& params) { return glcm_params_json(params).dump(); }

void put_block(ByteWriter& w, const BlockResult& b) {
  w.put<std::int32_t>(b.level_divisor), w.put<std::int32_t>(b.distance);
  for (const Features* f : {&b.statistics.max, &b.statistics.mean, &b.statistics.min, &b.statistics.range})
    for (double v : *f) w.put<double>(v);
  for (int k = 0; k < kFeatureCount; ++k) w.put<std::int32_t>(b.max_window[k]), w.put<std::int32_t>(b.min_window[k]);
}
BlockResult get_block(ByteReader& r) {
  BlockResult b;
  b.level_divisor = r.get<std::int32_t>(), b.distance = r.get<std::int32_t>();
  for (Features* f : {&b.statistics.max, &b.statistics.mean, &b.statistics.min, &b.statistics.range})
    for (double& v : *f) v = r.get<double>();
  for (int k = 0; k < kFeatureCount; ++k) b.max_window[k] = r.get<std::int32_t>(), b.min_window[k] = r.get<std::int32_t>();
  return b;
}

// State: the images finished or begun, with their blocks and maps so far.
std::vector<std::uint8_t> encode_state(const GlcmResult& result) {
  ByteWriter w = begin_checkpoint(kStateMagic, state_fingerprint(result.params));
  w.put<std::uint32_t>(result.images.size());
  for (const ImageResult& image : result.images) {
    w.put<std::uint32_t>(image.blocks.size());
    for (const BlockResult& b : image.blocks) put_block(w, b);
    w.put<std::uint32_t>(image.maps.size());
    for (const auto& map : image.maps) put_window_sums(w, map);
  }
  return std::move(w.bytes());
}

// Restores blocks and maps into `result` (whose images are still empty);
// returns false, leaving it untouched, for another WU's state or damage.
bool decode_state(const std::vector<std::uint8_t>& bytes, GlcmResult& result) {
  return read_checkpoint(bytes, kStateMagic, state_fingerprint(result.params), [&](ByteReader& r) {
    const auto image_count = r.get<std::uint32_t>();
    if (image_count > result.params.images.size()) return false;
    std::vector<ImageResult> images(image_count);
    const std::size_t blocks_per_image = result.params.level_divisors.size() * result.params.distances.size();
    for (ImageResult& image : images) {
      const auto block_count = r.get<std::uint32_t>();
      if (block_count > blocks_per_image) return false;
      for (std::uint32_t b = 0; b < block_count; ++b) image.blocks.push_back(get_block(r));
      const auto map_count = r.get<std::uint32_t>();
      if (map_count > result.params.level_divisors.size()) return false;
      for (std::uint32_t m = 0; m < map_count; ++m) image.maps.push_back(get_window_sums(r, 1u << 28));
    }
    if (r.remaining() != 0) return false;
    result.images = std::move(images);
    return true;
  });
}

// ---------------------------------------------------------------- the job

struct LoadedImage {
  GreyImage image;
  std::vector<WindowCentre> centres;
};

LoadedImage load_image(const GlcmImageInput& input, Runtime& runtime) {
  LoadedImage loaded;
  loaded.image = read_grey_png(runtime.resolve(input.image_file));
  const std::vector<std::uint8_t> roi =
      input.mask_file.empty() ? std::vector<std::uint8_t>(loaded.image.pixels.size(), 1)
                              : read_mask_png(runtime.resolve(input.mask_file), loaded.image.width, loaded.image.height);
  loaded.centres = window_centres(roi, loaded.image.width, loaded.image.height, kWindowRadius);
  if (loaded.centres.empty())
    throw InputError("image " + input.name + ": its ROI holds no local window (a disc of radius " +
                     std::to_string(kWindowRadius) + " px must fit inside it)");
  return loaded;
}

// Work of a block, for progress: windows x displacements.
double block_work(std::size_t windows, int distance) {
  return static_cast<double>(windows) * static_cast<double>(displacement_set(distance).size());
}

class JobProgress {
 public:
  JobProgress(const GlcmParams& params, Runtime& runtime) : runtime_(runtime) {
    for (int d : params.distances) per_image_ += block_work(1, d) * params.level_divisors.size();
    total_ = per_image_ * params.images.size();
  }
  // Images before `image` are done; in it, blocks up to `block` (exclusive).
  void report(std::size_t image, const GlcmParams& params, std::size_t block) {
    double done = per_image_ * image;
    for (std::size_t b = 0; b < block; ++b) done += block_work(1, params.distances[b % params.distances.size()]);
    runtime_.report_progress(std::min(1.0, done / total_));
  }

 private:
  Runtime& runtime_;
  double per_image_ = 0, total_ = 0;
};

void run_image(const GlcmParams& params, std::size_t index, GlcmEngine& engine, Runtime& runtime,
               GlcmResult& result, JobProgress& progress) {
  const std::size_t blocks_per_image = params.level_divisors.size() * params.distances.size();
  ImageResult& image = result.images[index];
  PhaseClock clock;
  const LoadedImage loaded = load_image(params.images[index], runtime);
  result.phases.images += clock.lap().cpu;
  image.name = params.images[index].name;
  image.width = loaded.image.width, image.height = loaded.image.height;
  image.centres = loaded.centres;
  if (image.blocks.size() == blocks_per_image) return;
  clock.lap();
  engine.load(loaded.image, loaded.centres);
  result.phases.loads += clock.lap().cpu;
  // The engine takes blocks_per_call() blocks at a time (one on the CPU, the
  // image's rest on the GPU: one wait), checkpoints between calls.
  for (std::size_t first = image.blocks.size(); first < blocks_per_image;) {
    const std::size_t end = first + std::min(engine.blocks_per_call(), blocks_per_image - first);
    std::vector<BlockRequest> requests;
    for (std::size_t b = first; b < end; ++b) {
      const int distance = params.distances[b % params.distances.size()];
      requests.push_back({params.level_divisors[b / params.distances.size()], distance,
                          distance == params.map_distance});
    }
    std::vector<BlockOutput> outputs = engine.blocks(requests);
    for (std::size_t k = 0; k < requests.size(); ++k) {
      const BlockRequest& r = requests[k];
      image.blocks.push_back(block_result(r.level_divisor, r.distance, image.centres.size(), outputs[k].reduction));
      if (r.keep_windows) image.maps.push_back(std::move(outputs[k].windows));
    }
    progress.report(index, params, end);
    checkpoint_block_boundary(runtime, [&] { return encode_state(result); });
    first = end;
  }
  result.phases.blocks += clock.lap().cpu;
}

}  // namespace

GlcmResult run_glcm_job(const GlcmParams& params, GlcmEngine& engine, Runtime& runtime) {
  GlcmResult result;
  result.params = params;
  result.engine = engine.description();
  if (auto saved = runtime.restore_state()) decode_state(*saved, result);
  result.images.resize(params.images.size());
  JobProgress progress(params, runtime);
  for (std::size_t i = 0; i < params.images.size(); ++i) run_image(params, i, engine, runtime, result, progress);
  runtime.report_progress(1.0);
  return result;
}

}  // namespace helix::glcm
