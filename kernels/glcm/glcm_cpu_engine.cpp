// glcm_cpu_engine.cpp: window geometry shared by the engines (slide plans,
// runs, tables) and the CPU engine: one sliding GLCM per (displacement, run),
// updated pair by pair with exact integer sums (see glcm_engine.h).
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "glcm_engine.h"

namespace helix::glcm {
namespace {

bool in_disc(int dx, int dy, int radius) { return dx * dx + dy * dy <= radius * radius; }

// A pixel of the disc at x that the disc at x + 1 lacks (relative to x).
bool leaves_when_sliding(int dx, int dy, int radius) {
  return in_disc(dx, dy, radius) && !in_disc(dx - 1, dy, radius);
}
// A pixel of the disc at x + 1 that the disc at x lacks (relative to x + 1).
bool enters_when_sliding(int dx, int dy, int radius) {
  return in_disc(dx, dy, radius) && !in_disc(dx + 1, dy, radius);
}

// One GLCM as it slides along a run: its symmetric counts (one entry per
// unordered level pair), its histograms and their integer sums.
class SlidingGlcm {
 public:
  SlidingGlcm(int levels, const std::vector<std::int64_t>& xlogx)
      : levels_(levels), xlogx_(xlogx.data()), cells_(static_cast<std::size_t>(levels) * levels) {}

  void clear() {
    std::fill(cells_.begin(), cells_.end(), 0);
    std::fill(std::begin(marginal_), std::end(marginal_), 0);
    std::fill(std::begin(sum_histogram_), std::end(sum_histogram_), 0);
    std::fill(std::begin(difference_histogram_), std::end(difference_histogram_), 0);
    sums_ = GlcmSums{};
  }

  // Adds (sign +1) or removes (sign -1) the pair of grey levels (a, b).
  void update(int a, int b, int sign) {
    const int low = a < b ? a : b, high = a < b ? b : a, difference = high - low;
    add_pair_linear(sums_, a, b, sign);
    std::int32_t& cell = cells_[static_cast<std::size_t>(low) * levels_ + high];
    const std::int64_t old = cell;
    // A diagonal cell c(a,a) grows by 2; an off-diagonal pair grows c(a,b) and c(b,a) by 1 each.
    const int weight = difference == 0 ? 1 : 2;
    cell += difference == 0 ? 2 * sign : sign;
    sums_.sum_counts_squared += weight * (static_cast<std::int64_t>(cell) * cell - old * old);
    sums_.cell_xlogx += weight * (xlogx_[cell] - xlogx_[old]);
    bump(marginal_[a], sign, sums_.marginal_xlogx);
    bump(marginal_[b], sign, sums_.marginal_xlogx);
    bump(sum_histogram_[a + b], 2 * sign, sums_.sum_xlogx);
    bump(difference_histogram_[difference], 2 * sign, sums_.difference_xlogx);
  }

  // The sums of the GLCM as it stands (the IDM numerator is made from the histogram now).
  const GlcmSums& sums() {
    sums_.idm_numerator = idm_numerator(difference_histogram_, levels_);
    return sums_;
  }

 private:
  void bump(std::int32_t& bin, int amount, std::int64_t& xlogx_sum) {
    const std::int32_t old = bin;
    bin += amount;
    xlogx_sum += xlogx_[bin] - xlogx_[old];
  }

  int levels_;
  const std::int64_t* xlogx_;
  std::vector<std::int32_t> cells_;
  std::int32_t marginal_[kMaxLevels] = {};
  std::int32_t sum_histogram_[2 * kMaxLevels - 1] = {};
  std::int32_t difference_histogram_[kMaxLevels] = {};
  GlcmSums sums_{};
};

void add_features(const GlcmSums& sums, const std::vector<std::int64_t>& xlogx, FixedFeatures& out) {
  double f[kFeatureCount];
  haralick_features(sums, xlogx[static_cast<std::size_t>(sums.total)], f);
  for (int k = 0; k < kFeatureCount; ++k) out[k] += feature_to_fixed(k, f[k]);
}

class CpuEngine final : public GlcmEngine {
 public:
  std::string description() const override { return "CPU (sliding windows, one thread)"; }

  void load(const GreyImage& image, const std::vector<WindowCentre>& centres) override {
    for (const WindowCentre& c : centres)
      if (c.x < kWindowRadius || c.y < kWindowRadius || c.x + kWindowRadius >= image.width ||
          c.y + kWindowRadius >= image.height)
        throw std::invalid_argument("glcm: a window centre is too close to the image border");
    image_ = image;
    centres_ = centres;
    runs_ = window_runs(centres, static_cast<int>(centres.size()) + 1);
    xlogx_ = xlogx_table(max_window_total(kWindowRadius) + 2);
  }

  std::vector<FixedFeatures> window_sums(int level_divisor, int distance) override {
    if (level_divisor != 4 && level_divisor != 8 && level_divisor != 16)
      throw std::invalid_argument("glcm: level divisor must be 4, 8 or 16");
    std::vector<std::uint8_t> levels(image_.pixels.size());
    for (std::size_t i = 0; i < levels.size(); ++i) levels[i] = static_cast<std::uint8_t>(quantise(image_.pixels[i], level_divisor));
    std::vector<FixedFeatures> sums(centres_.size(), FixedFeatures{});
    SlidingGlcm glcm(level_count(level_divisor), xlogx_);
    for (const Displacement& delta : displacement_set(distance)) {
      const SlidePlan plan = slide_plan(kWindowRadius, delta);
      const LinearPlan linear = linearise(plan);
      for (const WindowRun& run : runs_) slide_along(run, linear, levels.data(), glcm, sums);
    }
    return sums;
  }

 private:
  // The plan's offsets as differences of pixel indices in this image.
  struct LinearPlan {
    std::ptrdiff_t delta;
    std::vector<std::ptrdiff_t> all, removed, added;
  };
  LinearPlan linearise(const SlidePlan& plan) const {
    auto index = [&](int dx, int dy) { return static_cast<std::ptrdiff_t>(dy) * image_.width + dx; };
    LinearPlan linear{index(plan.delta.dx, plan.delta.dy), {}, {}, {}};
    for (const Offset& o : plan.all_pairs) linear.all.push_back(index(o.dx, o.dy));
    for (const Offset& o : plan.removed_pairs) linear.removed.push_back(index(o.dx, o.dy));
    for (const Offset& o : plan.added_pairs) linear.added.push_back(index(o.dx, o.dy));
    return linear;
  }

  void slide_along(const WindowRun& run, const LinearPlan& plan, const std::uint8_t* levels, SlidingGlcm& glcm,
                   std::vector<FixedFeatures>& sums) const {
    const std::uint8_t* centre = levels + static_cast<std::ptrdiff_t>(run.y) * image_.width + run.x;
    glcm.clear();
    for (std::ptrdiff_t p : plan.all) glcm.update(centre[p], centre[p + plan.delta], +1);
    add_features(glcm.sums(), xlogx_, sums[run.first]);
    for (int step = 1; step < run.count; ++step) {
      for (std::ptrdiff_t p : plan.removed) glcm.update(centre[p], centre[p + plan.delta], -1);
      ++centre;
      for (std::ptrdiff_t p : plan.added) glcm.update(centre[p], centre[p + plan.delta], +1);
      add_features(glcm.sums(), xlogx_, sums[run.first + step]);
    }
  }

  GreyImage image_;
  std::vector<WindowCentre> centres_;
  std::vector<WindowRun> runs_;
  std::vector<std::int64_t> xlogx_;
};

}  // namespace

SlidePlan slide_plan(int radius, Displacement delta) {
  SlidePlan plan{delta, {}, {}, {}};
  for (int dy = -radius; dy <= radius; ++dy) {
    for (int dx = -radius; dx <= radius; ++dx) {
      if (!in_disc(dx, dy, radius) || !in_disc(dx + delta.dx, dy + delta.dy, radius)) continue;
      plan.all_pairs.push_back({dx, dy});
      if (leaves_when_sliding(dx, dy, radius) || leaves_when_sliding(dx + delta.dx, dy + delta.dy, radius))
        plan.removed_pairs.push_back({dx, dy});
      if (enters_when_sliding(dx, dy, radius) || enters_when_sliding(dx + delta.dx, dy + delta.dy, radius))
        plan.added_pairs.push_back({dx, dy});
    }
  }
  return plan;
}

std::vector<WindowRun> window_runs(const std::vector<WindowCentre>& centres, int max_count) {
  std::vector<WindowRun> runs;
  for (int i = 0; i < static_cast<int>(centres.size()); ++i) {
    const WindowCentre& c = centres[i];
    WindowRun* last = runs.empty() ? nullptr : &runs.back();
    if (last && last->y == c.y && last->x + last->count == c.x && last->count < max_count)
      ++last->count;
    else
      runs.push_back({i, 1, c.x, c.y});
  }
  return runs;
}

WindowReduction reduce_windows(const std::vector<FixedFeatures>& window_sums) {
  if (window_sums.empty()) throw std::invalid_argument("glcm: no windows to reduce");
  WindowReduction r;
  r.max = r.min = window_sums.front();
  for (std::size_t w = 0; w < window_sums.size(); ++w) {
    for (int k = 0; k < kFeatureCount; ++k) {
      const std::int64_t v = window_sums[w][k];
      if (v > r.max[k]) r.max[k] = v, r.max_window[k] = static_cast<std::int32_t>(w);
      if (v < r.min[k]) r.min[k] = v, r.min_window[k] = static_cast<std::int32_t>(w);
      r.total[k] += v;
    }
  }
  return r;
}

BlockOutput GlcmEngine::block(int level_divisor, int distance, bool keep_windows) {
  BlockOutput out;
  std::vector<FixedFeatures> sums = window_sums(level_divisor, distance);
  out.reduction = reduce_windows(sums);
  if (keep_windows) out.windows = std::move(sums);
  return out;
}

std::vector<BlockOutput> GlcmEngine::blocks(const std::vector<BlockRequest>& requests) {
  std::vector<BlockOutput> out;
  out.reserve(requests.size());
  for (const BlockRequest& r : requests) out.push_back(block(r.level_divisor, r.distance, r.keep_windows));
  return out;
}

std::vector<std::int64_t> xlogx_table(int max_count) {
  std::vector<std::int64_t> table(static_cast<std::size_t>(max_count) + 1);
  for (int x = 0; x <= max_count; ++x) table[x] = xlogx_fixed(x);
  return table;
}

int max_window_total(int radius) {
  int pixels = 0;
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) pixels += in_disc(dx, dy, radius);
  return 2 * pixels;  // a pair per pixel at most, 2 counts per pair
}

std::unique_ptr<GlcmEngine> make_cpu_engine() { return std::make_unique<CpuEngine>(); }

}  // namespace helix::glcm
