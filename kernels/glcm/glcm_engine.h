// glcm_engine.h: the fast paths of the glcm kind. Both engines compute, for
// one (quantisation, distance) block, every window's FixedFeatures: exactly
// the integers window_fixed_sums() (the reference) gives, so the doubles made
// from them are bit-identical (docs/glcm.md, "Engines").
//
// Contents:
//   Offset, SlidePlan, slide_plan()   which pixel pairs change when a window moves one pixel right
//   WindowRun, window_runs()          centres grouped into horizontal runs of consecutive windows
//   WindowReduction, reduce_windows() a block's windows reduced to max, min, where, and total
//   GlcmEngine                        load an image and its windows, compute blocks
//   make_cpu_engine(), make_gpu_engine()       (gpu_device_count(): core/gpu_devices.h)
//
// How: a window's GLCM is built once per run of consecutive centres; moving it
// one pixel right removes the pairs that touch the column leaving the disc and
// adds those that touch the column entering it (about 130 of the ~800 pairs at
// radius 16), updating the GLCM's integer sums (GlcmSums) as it goes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glcm.h"

namespace helix::glcm {

struct Offset {
  int dx;
  int dy;
};

// For one displacement delta and window radius: the pairs (p, p + delta) of a
// window, each given by its first pixel p relative to the window centre.
struct SlidePlan {
  Displacement delta;
  std::vector<Offset> all_pairs;      // every pair of the window (p and p + delta in the disc)
  std::vector<Offset> removed_pairs;  // pairs of the window at x that the window at x + 1 lacks (relative to x)
  std::vector<Offset> added_pairs;    // pairs of the window at x + 1 that the one at x lacks (relative to x + 1)
};
SlidePlan slide_plan(int radius, Displacement delta);

// Consecutive window centres in one row: centres[first], ..., centres[first + count - 1]
// are (x, y), (x + 1, y), ..., (x + count - 1, y).
struct WindowRun {
  int first;
  int count;
  int x;
  int y;
};
// Splits row-major centres into runs of at most max_count windows.
std::vector<WindowRun> window_runs(const std::vector<WindowCentre>& centres, int max_count);

// Per feature, over a block's windows' fixed sums: the max and min, the first
// window (lowest index) reaching each, and the exact total. Integers: any
// engine that reduces the same sums gets the same reduction.
struct WindowReduction {
  std::array<std::int64_t, kFeatureCount> max{}, min{};
  std::array<std::int32_t, kFeatureCount> max_window{}, min_window{};
  std::array<__int128, kFeatureCount> total{};
};
// Throws std::invalid_argument on an empty list.
WindowReduction reduce_windows(const std::vector<FixedFeatures>& window_sums);

// A computed block: its reduction, and every window's sums when asked for.
struct BlockOutput {
  WindowReduction reduction;
  std::vector<FixedFeatures> windows;
};
// A block to compute: level divisor, distance, and whether its windows' sums come back.
struct BlockRequest {
  int level_divisor;
  int distance;
  bool keep_windows;
};

class GlcmEngine {
 public:
  virtual ~GlcmEngine() = default;
  virtual std::string description() const = 0;
  // The image (8-bit grey) and its window centres (window_centres(), radius kWindowRadius).
  virtual void load(const GreyImage& image, const std::vector<WindowCentre>& centres) = 0;
  // For each window (in centres order) its window_fixed_sums() at this level
  // divisor (4, 8, 16) and distance (1..kMaxDistance).
  virtual std::vector<FixedFeatures> window_sums(int level_divisor, int distance) = 0;
  // The block reduced (on the engine's hardware where it can), with the
  // windows' sums only when keep_windows. Requires at least one window.
  // The default reduces window_sums() on the host.
  virtual BlockOutput block(int level_divisor, int distance, bool keep_windows);
  // Several blocks of the loaded image, in order: block() of each by default.
  // The GPU engine queues them all and waits once.
  virtual std::vector<BlockOutput> blocks(const std::vector<BlockRequest>& requests);
  // How many blocks the job asks for in one blocks() call (it checkpoints
  // between calls): 1 by default (the CPU engine takes seconds a block), the
  // whole image on the GPU.
  virtual std::size_t blocks_per_call() const { return 1; }
};

std::unique_ptr<GlcmEngine> make_cpu_engine();
// Throws GpuError when the device cannot be used.
std::unique_ptr<GlcmEngine> make_gpu_engine(int device);

// X(x) = round(2^44 x ln x) for 0 <= x < kMaxTotal (0 for x = 0, 1), the value
// docs/glcm.md defines, rounded once from x ln x computed in binary128 (113-bit
// significand, about 2^-80 absolute here, where the rounding needs 2^-44); throws
// std::logic_error should x ln x ever fall too near a rounding boundary to tell.
// The entropy of a histogram x_k with total S is (X(S) - sum X(x_k)) / (2^44 S):
// an exact integer numerator, one rounding at the end, exactly 0 for a single
// non-empty bin, and a mutual information of exactly 0 for a GLCM whose rows
// are proportional. For x < 2^15, X < 2^62.4 and sums of X over bins of total
// x stay below X(x). Host only: the engines read it from xlogx_table().
std::int64_t xlogx_fixed(std::int64_t x);
// The entropy table X(0..max_count) (xlogx_fixed), shared by every engine.
std::vector<std::int64_t> xlogx_table(int max_count);
// The largest count a window's histograms reach: S = 2 x pairs of the disc.
int max_window_total(int radius);

}  // namespace helix::glcm
