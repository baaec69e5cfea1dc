// sw_gpu.cu: the CUDA engine of the swsearch kind (sw_engine.h): best local
// alignment scores of one query against every loaded target.
//
// Inter-sequence parallelism: targets sorted by length so that neighbours end
// together; a group of lanes scores two neighbouring targets at once in the
// 16-bit halves of its registers (pair_group_kernel). Each lane holds a
// horizontal strip of 10 to 16 query rows (per query, the height that fits
// the query best) in registers and sweeps the whole target; the lanes of a
// group hold consecutive strips and pass the strip boundary row (H and F) and
// the column's residue codes down by shuffle, a wavefront one column apart; a
// query taller than the group's strips takes several passes, between which
// the boundary row waits in scratch memory. Pairs holding a target of
// kLongTarget residues or more whose path through the groups would outlast
// the scan get a block of warps each instead, whose passes run at once
// (long_pair_kernel), started first on streams of their own. Per cell the
// recurrences of the reference with Hopper's DPX instructions
// (__viaddmax_s16x2: max(a + b, c); __vimax3_s16x2_relu: max(0, a, b, c)),
// which other GPUs emulate. A target
// whose best score could have saturated 16 bits is rescored with 32-bit cells
// (rescore_kernel). Only the best score is kept: the maximum is the same
// whatever order cells are visited in, so the score is exactly the
// reference's.
//
// Memory layout, per warp slice of 32 targets (slice w, slot l): target
// residues packed four to a word and interleaved by slot (word k of slot l at
// base_w + 32 k + l), and the scratch row the same way. The query profile
// (score of each residue code against each query row, strip by strip): the
// group kernel's blocks copy each pass's strips into shared memory; the
// other kernels read it through the read-only cache.
//
// Reported hits' ends (ends(): a few pairs per query, once per WU) and the
// traceback bits of their alignments (alignments()) run the reference's
// recurrences as they are, a warp per pair (warp_dp_kernel), so that the host
// does not; a thread per alignment walks the bits back (trace_walk_kernel,
// sw_traceback.h's walk, the reference's own), and only the CIGAR runs come
// back to the host.
//
// Streams, events, pinned memory and the warp reductions of the kernels'
// maxima are the device layer's (core/device_stream.h, core/warp_reduce.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <type_traits>

#include "core/cuda_support.h"
#include "core/device_stream.h"
#include "core/warp_reduce.cuh"
#include "sw_engine.h"
#include "sw_traceback.h"

namespace helix::swsearch {
namespace {

// Query rows per strip, a lane's, in registers, at most (and the slots of a
// profile strip). Measured on the H100 with lane groups (first 153,148
// metastudent proteins without the 20 longest, queries 100..5,005): 16 rows
// 3.9 / 9.9 / 18.9 / 36.7 / 89.6 ms, 24 rows 4.2 / 13.4 / 25.4 / 37.9 / 91.8
// (more padding), 32 rows 4.2 / 10.8 / 20.0 / 39.4 / 97.9 (128 registers: 4
// warps per scheduler, waiting on loads).
constexpr int kStripRows = 16;
constexpr int kFewestStripRows = 10;  // pair_group_kernel's lanes hold 10 to 16 rows
constexpr int kThreadsPerBlock = 128;
constexpr int kNegativeInfinity = -(1 << 29);  // below any score, and no overflow when penalties are subtracted
// A padded query row scores this against everything: such rows can never
// hold a value above a real row's maximum.
constexpr std::int8_t kPaddingScore = -127;

struct WarpSlice {
  std::uint64_t word_base;     // first packed-residue word of the warp (lane 0)
  std::uint64_t scratch_base;  // first scratch entry of the warp (lane 0)
};

struct KernelArguments {
  const std::uint32_t* packed_residues;  // per warp: word k of lane l at word_base + 32 k + l
  const WarpSlice* warps;
  const std::uint32_t* lengths;          // sorted order
  std::uint32_t target_count;           // of `only`
  const char4* profile;                  // [strip][code][kStripRows / 4] as char4
  int strips;
  int gap_open, gap_extend;
  int2* scratch;                         // per warp, entry j of lane l at scratch_base + 32 j + l: (H, F) of the strip's last row
  std::int32_t* scores;                  // sorted order
  const std::uint32_t* only;             // the targets (sorted order) to rescore, a warp each
};

// One target column j of a strip in 32-bit cells: h[r], e[r] hold H and E of
// row r at column j - 1 on entry and at j on return; `diagonal` is H of the
// row above the strip at j - 1, h_above and f the row above's H and F at j
// on entry and the strip's last row's on return.
__device__ __forceinline__ void column_of_strip(const char4* scores_of_code, int gap_open, int gap_extend,
                                                int (&h)[kStripRows], int (&e)[kStripRows], int diagonal,
                                                int& h_above, int& f, int& best) {
  char4 scores[kStripRows / 4];
#pragma unroll
  for (int k = 0; k < kStripRows / 4; ++k) scores[k] = __ldg(scores_of_code + k);
  const signed char* s = reinterpret_cast<const signed char*>(scores);
#pragma unroll
  for (int r = 0; r < kStripRows; ++r) {
    e[r] = __viaddmax_s32(h[r], -gap_open, e[r] - gap_extend);
    f = __viaddmax_s32(h_above, -gap_open, f - gap_extend);
    const int h_new = __vimax3_s32_relu(diagonal + s[r], e[r], f);
    diagonal = h[r];
    h[r] = h_new;
    h_above = h_new;
    best = max(best, h_new);
  }
}

// ------------------------------------------------------------ 16-bit pairs in lane groups
//
// The fast kernel: a group of G lanes (G a power of two, 1 .. 32, chosen per
// query) scores two neighbouring targets (sorted order 2p and 2p + 1) at once,
// in the two 16-bit halves of every register, with the packed DPX forms.
// Lane k of a group owns query strip G q + k of pass q and processes target
// column j at step j + k, taking the row above its strip (H, F at column j)
// from lane k - 1 by shuffle; lane 0 takes it from the scratch row that lane
// G - 1 of the previous pass left (H = 0 and F = minus infinity in the first
// pass). Why groups: with one thread per pair, each thread walked every strip
// of the query, so the longest pairs set a floor under the time of a query
// that grew with its length and did not shrink with the database; a group
// divides that path by G, and the scratch row is read and written once per
// pass instead of once per strip.
//
// Cells hold H - open rather than H (both gap recurrences need it, so it is
// computed once per cell), and the profile holds score + open, so that the
// diagonal sum (H - open) + (score + open) is the reference's H + score.
//
// Exactness: H >= 0 and E, F >= -(open + 1000) never wrap downwards; upwards,
// every sum is at most (largest H so far) + max matrix score, so while the
// best stays below kSaturation = 32767 - max score nothing can have wrapped.
// A half whose best reaches kSaturation is flagged and rescored in 32 bits
// (rescore_kernel). Beyond a target's end its column reads a padding code, and
// beyond the query's end (whole passes) its rows read a padding score, of -127
// against everything: such cells can never hold a value above a real cell's
// maximum.
constexpr int kPaddingCode = kAlphabetSize;  // profile rows 0..24 residues, 25 padding
constexpr int kProfileCodes = kAlphabetSize + 1;
constexpr std::uint32_t kPaddingWord = kPaddingCode * 0x01010101u;  // four columns of padding
constexpr std::uint32_t kMinusInfinityPair = 0xFC18FC18u;  // -1000 in both halves

// A query profile, built on the device from the query's codes and the matrix
// (score[code][query code], row by row): value k is strip k / (rows * codes),
// code k / rows % codes, slot k % rows of the strip; a strip holds
// rows_used query rows (the rest of its slots are padding), so slot s of
// strip t is query row t * rows_used + s. The query row's score against the
// code + offset, or kPaddingScore + offset past the query's end, in a
// padding slot and for codes past the alphabet (the pair kernels' padding
// code).
template <typename Score>
__global__ void query_profile_kernel(Score* profile, std::uint32_t values, const std::uint8_t* query,
                                     std::uint32_t query_length, const std::int8_t* matrix, int codes, int rows,
                                     int rows_used, int offset) {
  for (std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < values; k += gridDim.x * blockDim.x) {
    const std::uint32_t code = k / rows % codes, slot = k % rows;
    const std::uint32_t row = k / (rows * codes) * rows_used + slot;
    const int score = slot < static_cast<std::uint32_t>(rows_used) && row < query_length && code < kAlphabetSize
                          ? matrix[code * kAlphabetSize + query[row]]
                          : kPaddingScore;
    profile[k] = static_cast<Score>(score + offset);
  }
}

struct PairArguments {
  const std::uint32_t* packed_residues;
  const WarpSlice* warps;
  const std::uint32_t* lengths;  // sorted order
  std::uint32_t target_count;
  std::uint32_t pair_begin, pair_end;  // this launch's pairs p: sorted targets 2p and 2p + 1
  const uint4* profile;  // [strip][code 0..25][rows / 8] uint4 of int16 (score + open); whole passes
  int passes;
  std::uint32_t minus_open_pair, minus_extend_pair;  // -open and -extend in both halves
  int saturation;
  int2* scratch;                      // pair_group_kernel: per warp slice, the first target's slots
  int2* ring;                         // long_pair_kernel: pair p's rows at ring + ring_offsets[p - first_long_pair]
  const std::uint64_t* ring_offsets;
  std::uint32_t first_long_pair;
  int long_warps;                     // long_pair_kernel: warps at work in a block (its others only wait)
  std::int32_t* scores;     // sorted order
  std::uint32_t* flagged;   // targets (sorted order) to rescore in 32 bits
  std::uint32_t* flagged_count;
  // 0x10000, read at run time so that the compiler cannot turn multiplications
  // by it into shifts: pair_group_kernel splits its two shared-memory
  // addresses by integer multiply-adds, which issue to the FMA pipe instead
  // of the integer ALU that its DPX recurrences keep busy.
  std::uint32_t half_unit = 0x10000u;
};

// The two targets of pair p; an inactive pair has none (length 0).
struct TargetPair {
  std::uint32_t first = 0, second = 1, length_first = 0, length_second = 0, length = 0;
  const std::uint32_t* words_first = nullptr;  // the second's are words_first + 1 (its slot in the same slice)
  __device__ TargetPair(const PairArguments& a, std::uint32_t p, bool active) {
    if (!active) return;
    first = 2 * p, second = first + 1;
    length_first = a.lengths[first];
    length_second = second < a.target_count ? a.lengths[second] : 0;
    length = max(length_first, length_second);
    words_first = a.packed_residues + a.warps[first / 32].word_base + first % 32;  // first is even
  }
};

// Lane 0 of a group reads the pair's residues, each word (four columns) four
// columns before it needs it; the other lanes take each column's codes from
// the lane above, by shuffle beside the boundary row, instead of loading
// them. Codes: the first target's in the low byte, the second's in the next
// one; past a target's end, the padding code.
class LeadResidues {
 public:
  __device__ explicit LeadResidues(const TargetPair& pair) : pair_(pair) {
    now_first_ = word(pair.words_first, pair.length_first, 0);
    now_second_ = word(pair.words_first + 1, pair.length_second, 0);
    next_first_ = word(pair.words_first, pair.length_first, 1);
    next_second_ = word(pair.words_first + 1, pair.length_second, 1);
  }
  // Columns in order: 0, 1, 2, ...
  __device__ __forceinline__ std::uint32_t codes(std::uint32_t j) {
    if (j % 4 == 0 && j > 0) {
      now_first_ = next_first_, now_second_ = next_second_;
      next_first_ = word(pair_.words_first, pair_.length_first, j / 4 + 1);
      next_second_ = word(pair_.words_first + 1, pair_.length_second, j / 4 + 1);
    }
    const int shift = 8 * (j % 4);
    const std::uint32_t first = j < pair_.length_first ? (now_first_ >> shift) & 0xFF : kPaddingCode;
    const std::uint32_t second = j < pair_.length_second ? (now_second_ >> shift) & 0xFF : kPaddingCode;
    return first | second << 8;
  }

 private:
  static __device__ __forceinline__ std::uint32_t word(const std::uint32_t* words, std::uint32_t length,
                                                       std::uint32_t w) {
    return 4 * w < length ? __ldg(words + 32ull * w) : 0;  // no word past the target's own
  }
  const TargetPair& pair_;
  std::uint32_t now_first_, now_second_, next_first_, next_second_;
};

// A lane's strip of R query rows for both targets of a pair: H - open and E
// of each row at the last column done.
template <int R>
struct PairStrip {
  std::uint32_t ho[R], e[R];

  __device__ explicit PairStrip(std::uint32_t minus_open_pair) {
#pragma unroll
    for (int r = 0; r < R; ++r) ho[r] = minus_open_pair, e[r] = kMinusInfinityPair;
  }

  // The strip's profile rows for both targets' residues at one column: R
  // rows in whole uint4s of eight.
  static constexpr int kWords = (R + 7) / 8;
  struct Rows {
    uint4 first[kWords], second[kWords];
  };
  static __device__ __forceinline__ Rows load_rows(const uint4* strip_profile, int code_first, int code_second) {
    Rows rows;
#pragma unroll
    for (int k = 0; k < kWords; ++k) {
      rows.first[k] = __ldg(strip_profile + code_first * kWords + k);
      rows.second[k] = __ldg(strip_profile + code_second * kWords + k);
    }
    return rows;
  }
  // The same from a pass's strips in shared memory, interleaved by slot
  // (pass_profile_slots()): word k of each code's rows at shared address
  // (first or second) + 16 k kSlots.
  template <int kSlots>
  static __device__ __forceinline__ Rows load_shared_rows(std::uint32_t first, std::uint32_t second) {
    Rows rows;
#pragma unroll
    for (int k = 0; k < kWords; ++k) {
      rows.first[k] = load_shared_word(first + 16 * k * kSlots);
      rows.second[k] = load_shared_word(second + 16 * k * kSlots);
    }
    return rows;
  }
  static __device__ __forceinline__ uint4 load_shared_word(std::uint32_t address) {
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(address));
    return v;
  }

  // Word k of a row's scores (rows 2k, 2k + 1), k known at compile time: a
  // register, not an index into memory.
  static __device__ __forceinline__ std::uint32_t word(const uint4 (&v)[kWords], int k) {
    const uint4& q = v[k / 4];
    return k % 4 == 0 ? q.x : k % 4 == 1 ? q.y : k % 4 == 2 ? q.z : q.w;
  }

  // Target column j: `diagonal` is H - open of the row above the strip at
  // j - 1; ho_above and f are the row above's H - open and F at j on entry,
  // the strip's last row's on return. minus_open, minus_extend: -open and
  // -extend in both halves.
  __device__ __forceinline__ void column(const Rows& rows, std::uint32_t minus_open, std::uint32_t minus_extend,
                                         std::uint32_t diagonal, std::uint32_t& ho_above, std::uint32_t& f,
                                         std::uint32_t& best) {
    // First what needs only the previous column: each row's E and its
    // diagonal term, max(0, H(r - 1, j - 1) + score, E). Then the chain
    // down the strip (F, H), each row's new H - open written over its old
    // one, which nothing needs any more: the strip's state stays in the
    // same registers from column to column (no copies at the loop's end).
    std::uint32_t diagonal_term[R];
#pragma unroll
    for (int r = 0; r < R; ++r) e[r] = __viaddmax_s16x2(e[r], minus_extend, ho[r]);  // max(E - extend, H(j - 1) - open)
#pragma unroll
    for (int r = 0; r < R; ++r) {
      // Row r's score + open for the first target in the low half, the second's in the high half.
      const std::uint32_t score =
          __byte_perm(word(rows.first, r / 2), word(rows.second, r / 2), r % 2 ? 0x7632 : 0x5410);
      diagonal_term[r] = __viaddmax_s16x2_relu(r == 0 ? diagonal : ho[r - 1], score, e[r]);
    }
    std::uint32_t h_even = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      f = __viaddmax_s16x2(f, minus_extend, ho_above);  // max(F - extend, H(r - 1) - open)
      const std::uint32_t h = __vimax_s16x2_relu(diagonal_term[r], f);
      ho[r] = __vadd2(h, minus_open);
      ho_above = ho[r];
      if (r % 2 == 0) h_even = h;
      else best = __vimax3_s16x2_relu(best, h_even, h);
    }
    if (R % 2 == 1) best = __vimax_s16x2_relu(best, h_even);
  }
};

// The larger of each signed 16-bit half (the pair kernels' two targets), as
// a reduction operator: a maximum in each half, whatever the order.
struct HalvesMax {
  __device__ __forceinline__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return __vmaxs2(a, b); }
};

// A pair's two best scores, and the targets whose best may have saturated.
__device__ void record_pair_best(const PairArguments& a, const TargetPair& pair, std::uint32_t best) {
  const int best_first = static_cast<std::int16_t>(best & 0xFFFF), best_second = static_cast<std::int16_t>(best >> 16);
  a.scores[pair.first] = best_first;
  if (best_first >= a.saturation) a.flagged[atomicAdd(a.flagged_count, 1u)] = pair.first;
  if (pair.second < a.target_count) {
    a.scores[pair.second] = best_second;
    if (best_second >= a.saturation) a.flagged[atomicAdd(a.flagged_count, 1u)] = pair.second;
  }
}

// Lane 0 of a group in pair_group_kernel: the pair's residues a word (four
// columns) of each target at a time, the next word already loaded. Columns
// past a target's end read the padding code: load_targets() fills every
// word's bytes past its target's end with it, and a word wholly past the
// pair's length is not loaded.
class LeadWords {
 public:
  __device__ explicit LeadWords(const TargetPair& pair) : words_(pair.words_first), length_(pair.length) {
    now_first_ = word(0, 0), now_second_ = word(1, 0);
    next_first_ = word(0, 1), next_second_ = word(1, 1);
  }
  // The codes of the current word's column u: the first target's in the low
  // half, the second's in the high half.
  template <int u>
  __device__ __forceinline__ std::uint32_t codes() const {
    return __byte_perm(now_first_, now_second_, u | (4 + u) << 8) & 0x00FF00FFu;
  }
  // On to word w + 1, loading word w + 2.
  __device__ __forceinline__ void advance(std::uint32_t w) {
    now_first_ = next_first_, now_second_ = next_second_;
    next_first_ = word(0, w + 2), next_second_ = word(1, w + 2);
  }

 private:
  __device__ __forceinline__ std::uint32_t word(int slot, std::uint32_t w) const {
    return 4 * w < length_ ? __ldg(words_ + slot + 32ull * w) : kPaddingWord;
  }
  const std::uint32_t* words_;
  std::uint32_t length_;
  std::uint32_t now_first_, now_second_, next_first_, next_second_;
};

// Lane 0's boundary rows from the previous pass (scratch), four columns at a
// time, the next four already loaded (a wait for memory per four columns at
// most, not per column). In the first pass (load false), the query's top
// boundary: `boundary` at every column.
class SavedRows {
 public:
  __device__ SavedRows(const int2* scratch, std::uint32_t length, bool load, int2 boundary)
      : scratch_(scratch), length_(length), load_(load) {
#pragma unroll
    for (int u = 0; u < 4; ++u) now_[u] = next_[u] = boundary;
    fetch(0);
  }
  // The four columns from 4 w, taken; the four from 4 w + 4 loading.
  __device__ __forceinline__ void advance(std::uint32_t w) {
#pragma unroll
    for (int u = 0; u < 4; ++u) now_[u] = next_[u];
    fetch(w + 1);
  }
  template <int u>
  __device__ __forceinline__ int2 at() const { return now_[u]; }

 private:
  __device__ __forceinline__ void fetch(std::uint32_t w) {
    if (!load_) return;
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const std::uint32_t j = 4 * w + u;
      if (j < length_) next_[u] = scratch_[32ull * j];
    }
  }
  const int2* scratch_;
  std::uint32_t length_;
  bool load_;
  int2 now_[4], next_[4];
};

// A pass's strips in shared memory, interleaved: word k of code c's rows
// for slot l at index (c * kWords + k) * slots + l, where a lane's slot is
// its thread index modulo slots (at least 8, so that the eight lanes of a
// quarter warp have eight slots) and slot l holds strip l % G. A 16-byte
// load of each lane, each at its own code, then falls in eight distinct
// bank groups: no bank conflicts. Strips stored whole, one after another,
// put every lane's word k of every code in the same half of the banks
// (a strip of 26 codes x 32 bytes is 832 bytes), and the codes at random:
// 13.7 wavefronts a load instead of 4 (ncu, H100, query of 500).
__host__ __device__ constexpr int pass_profile_slots(int group_lanes) { return group_lanes < 8 ? 8 : group_lanes; }

// Integer multiply-adds that the compiler cannot turn into shifts or
// additions on the integer ALU (their operands come from run time: see
// PairArguments::half_unit).
__device__ __forceinline__ std::uint32_t multiply_high(std::uint32_t a, std::uint32_t b) {
  std::uint32_t result;
  asm("mul.hi.u32 %0, %1, %2;" : "=r"(result) : "r"(a), "r"(b));
  return result;
}
__device__ __forceinline__ std::uint32_t multiply_add(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  std::uint32_t result;
  asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(result) : "r"(a), "r"(b), "r"(c));
  return result;
}

// Steps run four at a time (j % 4 known at compile time for lane 0, whose
// column is the step): lane 0 takes each column's codes from a word it
// loaded a word ahead and its boundary row from scratch it loaded four
// columns ahead; the other lanes take both from the lane above by shuffle.
// R: query rows a lane holds (10 .. 16; the profile's strips have
// kStripRows slots, the rest padding), chosen per query (strip_plan()) so
// that the group's rows fit the query closely.
// Five blocks an SM (96 registers): measured faster than 128 registers and
// four (H100, first 153,148 metastudent proteins: 8.3 against 8.4 ms at
// 500, 31.9 against 32.4 at 2,000).
template <int G, int R>
__global__ void __launch_bounds__(kThreadsPerBlock, 5) pair_group_kernel(PairArguments a) {
  using Strip = PairStrip<R>;
  static_assert(R <= kStripRows && Strip::kWords == kStripRows / 8, "a strip is one profile strip");
  const std::uint32_t group = (blockIdx.x * kThreadsPerBlock + threadIdx.x) / G;
  const int lane = threadIdx.x % G;
  // Longest pairs first: blocks start in index order, so the slowest ones
  // must not be left for the end (the tail would idle the GPU). A group past
  // the last pair still takes part in its warp's shuffles, with length 0.
  const bool active = group < a.pair_end - a.pair_begin;
  const TargetPair pair(a, a.pair_end - 1 - group, active);
  const std::uint32_t warp_length = warp_max(pair.length);  // every lane of the warp runs the same steps (its shuffles need them all)
  const std::uint32_t steps = warp_length + G - 1;
  int2* scratch = a.scratch + a.warps[pair.first / 32].scratch_base + pair.first % 32;
  const std::uint32_t minus_open = a.minus_open_pair, minus_extend = a.minus_extend_pair;
  std::uint32_t best = 0;
  // The pass's G strips of the profile, in shared memory for the whole block
  // (its warps' pairs have about the same length: sorted), so that the rows of
  // every step come from shared memory instead of through L1.
  extern __shared__ uint4 pass_profile[];
  constexpr int kSlots = pass_profile_slots(G);
  constexpr int kStripWords = kProfileCodes * Strip::kWords;
  // A code's rows start kCodeBytes after the code before's; two shared
  // addresses (one per target) travel in the halves of a word.
  constexpr std::uint32_t kCodeBytes = Strip::kWords * kSlots * sizeof(uint4);
  // (The pass's strips start past the shared window's reserved bytes, 1 KB on sm_90: 8 KB of room.)
  static_assert(kSlots * kStripWords * sizeof(uint4) + 8192 <= 0x10000, "a shared address fits a half word");
  const std::uint32_t unit = a.half_unit, minus_unit = 0u - unit, code_bytes = (unit >> 16) * kCodeBytes;
  const std::uint32_t slot_addresses =
      static_cast<std::uint32_t>(__cvta_generic_to_shared(pass_profile + threadIdx.x % kSlots)) * 0x10001u;
  for (int pass = 0; pass < a.passes; ++pass) {
    __syncthreads();  // every warp is done with the previous pass's rows
    const uint4* pass_strips = a.profile + static_cast<std::size_t>(pass) * G * kStripWords;
    for (int k = threadIdx.x; k < kSlots * kStripWords; k += kThreadsPerBlock)
      pass_profile[k] = __ldg(pass_strips + k % kSlots % G * kStripWords + k / kSlots);
    __syncthreads();
    // One pass; kStoreRows: not the last, lane G - 1 stores its row for the next.
    const auto run_pass = [&](auto store_rows_constant) {
      constexpr bool kStoreRows = decltype(store_rows_constant)::value;
      Strip strip(a.minus_open_pair);
      // above_previous: H - open of the row above at the column before; before
      // column 0, the boundary's (H = 0).
      std::uint32_t out_ho = a.minus_open_pair, out_f = kMinusInfinityPair, above_previous = a.minus_open_pair;
      LeadWords lead(pair);
      SavedRows saved(scratch, pair.length, lane == 0 && pass > 0,
                      make_int2(static_cast<int>(minus_open), static_cast<int>(kMinusInfinityPair)));
      saved.advance(0);
      std::uint32_t out_codes = 0, step0 = 0;
      // Step step0 + u; kRampUp: some lane may not have reached column 0 yet
      // (j < 0), and must wait. Past the pair's end a lane runs on: its
      // columns read the padding code, whose cells never exceed a real cell
      // (see above), so only the scratch row must not be written there. Not
      // testing for it keeps each step's state in the same registers (a
      // skipped column would cost a copy of every row's state at the join).
      const auto column = [&](auto u_constant, auto ramp_up_constant) {
        constexpr int u = decltype(u_constant)::value;
        constexpr bool kRampUp = decltype(ramp_up_constant)::value;
        const std::uint32_t from_ho = __shfl_up_sync(0xffffffffu, out_ho, 1, G);
        const std::uint32_t from_f = __shfl_up_sync(0xffffffffu, out_f, 1, G);
        const std::uint32_t from_codes = __shfl_up_sync(0xffffffffu, out_codes, 1, G);
        const int j = static_cast<int>(step0 + u) - lane;
        if (kRampUp && j < 0) return;
        std::uint32_t ho_above = from_ho, f = from_f, codes = from_codes;
        if (lane == 0) {
          codes = lead.codes<u>();
          const int2 boundary = saved.at<u>();
          ho_above = static_cast<std::uint32_t>(boundary.x), f = static_cast<std::uint32_t>(boundary.y);
        }
        const std::uint32_t diagonal = above_previous;
        above_previous = ho_above;
        // Both targets' shared addresses in one multiply-add, split by two more.
        const std::uint32_t addresses = multiply_add(codes, code_bytes, slot_addresses);
        const std::uint32_t second_address = multiply_high(addresses, unit);
        const std::uint32_t first_address = multiply_add(second_address, minus_unit, addresses);
        strip.column(Strip::template load_shared_rows<kSlots>(first_address, second_address), minus_open, minus_extend,
                     diagonal, ho_above, f, best);
        out_ho = ho_above, out_f = f, out_codes = codes;
        if (kStoreRows && lane == G - 1 && j < static_cast<int>(pair.length))
          scratch[32 * static_cast<std::uint32_t>(j)] = make_int2(static_cast<int>(out_ho), static_cast<int>(out_f));
      };
      const auto four_columns = [&](auto ramp_up) {
        column(std::integral_constant<int, 0>{}, ramp_up);
        column(std::integral_constant<int, 1>{}, ramp_up);
        column(std::integral_constant<int, 2>{}, ramp_up);
        column(std::integral_constant<int, 3>{}, ramp_up);
        if (lane == 0) {
          lead.advance(step0 / 4);
          saved.advance(step0 / 4 + 1);
        }
      };
      constexpr std::uint32_t kRampUpSteps = (G - 1 + 3) / 4 * 4;  // until lane G - 1 reaches column 0
      if constexpr (kRampUpSteps > 0)
        for (; step0 < kRampUpSteps && step0 < steps; step0 += 4) four_columns(std::true_type{});
      for (; step0 < steps; step0 += 4) four_columns(std::false_type{});
    };
    if (pass + 1 < a.passes) {
      run_pass(std::true_type{});
      __syncwarp();  // lane G - 1's rows are visible to lane 0 in the next pass
    } else {
      run_pass(std::false_type{});
    }
  }
  best = warp_reduce<G>(best, HalvesMax{});
  if (active && lane == 0) record_pair_best(a, pair, best);
}
// ------------------------------------------------------------ long targets
//
// A pair of long targets in pair_group_kernel would be one group's work for
// passes x length steps, long after the rest have finished. Here a pair gets
// a block of W warps, and the passes run at once, a few columns apart: warp w
// takes passes w, w + W, ..., strips of kLongRows rows (a shorter chain of
// dependent cells per step than kStripRows). Pass p's boundary row goes to
// pass p + 1 (the next warp) through a ring of W rows in global memory, 32
// columns at a time: lane 31 writes each column, and a counter per warp in
// shared memory says how many columns of its current pass are there; the
// next warp waits for a whole chunk of 32, loads it with all its lanes at
// once, and hands lane 0 its column by shuffle. A slot of the ring is written
// again (pass p + W) only after pass p has loaded it: pass p + W needs pass
// p + W - 1, which needs ... pass p + 1, which needs what pass p made from
// that chunk.
constexpr int kLongRows = 8;
constexpr int kMaxLongWarps = 16;
constexpr std::uint32_t kLongTarget = 3000;  // residues; sorted targets from the first pair holding one
// Queries shorter than this score the long pairs' targets transposed (the
// targets as rows, a warp each, warp_dp_kernel): a short query fills few lanes
// of long_pair_kernel, which then steps through a titin-sized target column
// by column. Measured (H200, first 153,168 metastudent proteins, titin
// among them), queries of 100 / 500 / 1,000: not transposed 13.9 / 15.3 /
// 18.8 ms, transposed 3.3 / 10.4 / 19.6.
constexpr std::size_t kTransposedQueryBelow = 768;
// The longest pairs' blocks take a whole SM (1,024 threads of 64 registers,
// most of them idle): beside other blocks, a warp that must step through a
// titin-sized target alone would get a fraction of its scheduler's issue slots.
// Measured (as above, with the 20 longest): 8 pairs 15.2 / 19.1 ms for
// queries of 500 / 1,000 against 17.6 / 20.5 with none; 24 no better.
constexpr std::size_t kExclusiveLongPairs = 8;
constexpr int kExclusiveBlockThreads = 1024;
// Long pairs that pair_group_kernel takes after all, per query
// (pairs_in_groups()): those whose path through the group kernel (passes x
// (length + lanes) steps of kGroupStepSeconds) stays within kLongestPathShare
// of the whole scan's time (query x residues at kGroupCellsPerSmSecond on each
// SM). The group kernel starts them first, so they end with the rest, at its
// rate instead of the long kernels'. H100 figures, 16-row strips at five
// blocks an SM: 3.5 TCUPS over 132 SMs, a step about 0.45 us.
constexpr double kGroupCellsPerSmSecond = 2.6e10;
constexpr double kGroupStepSeconds = 0.45e-6;
constexpr double kLongestPathShare = 0.5;

__global__ void __launch_bounds__(kExclusiveBlockThreads) long_pair_kernel(PairArguments a) {
  __shared__ volatile long long progress[kMaxLongWarps];  // pass x (length + 1) + columns written
  __shared__ std::uint32_t best_of_warp[kMaxLongWarps];
  using Strip = PairStrip<kLongRows>;
  const int warps = a.long_warps, warp_id = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uint32_t p = a.pair_end - 1 - blockIdx.x;  // longest first
  const TargetPair pair(a, p, true);
  const std::uint32_t length = pair.length;
  int2* ring = a.ring + a.ring_offsets[p - a.first_long_pair];
  if (threadIdx.x < kMaxLongWarps) progress[threadIdx.x] = 0, best_of_warp[threadIdx.x] = 0;
  __syncthreads();
  const long long row_span = length + 1;
  const int producer = (warp_id + warps - 1) % warps;
  std::uint32_t best = 0;
  for (int pass = warp_id; warp_id < warps && pass < a.passes; pass += warps) {
    const uint4* strip_profile =
        a.profile + static_cast<std::size_t>(pass * 32 + lane) * kProfileCodes * (kLongRows / 8);
    Strip strip(a.minus_open_pair);
    std::uint32_t out_ho = a.minus_open_pair, out_f = kMinusInfinityPair, above_previous = a.minus_open_pair;
    const int2* in_row = ring + static_cast<std::size_t>((pass + warps - 1) % warps) * length;
    int2* out_row = ring + static_cast<std::size_t>(pass % warps) * length;
    const bool last_pass = pass + 1 == a.passes;
    int2 chunk = make_int2(0, 0);  // lane l: the boundary row at column 32 c + l of the current chunk c
    LeadResidues lead(pair);
    std::uint32_t out_codes = 0;
    for (std::uint32_t step = 0; step < length + 31; ++step) {
      if (pass > 0 && step % 32 == 0 && step < length) {
        const std::uint32_t chunk_end = min(step + 32, length);
        if (lane == 0) {
          while (progress[producer] < (pass - 1) * row_span + chunk_end) {
          }
          __threadfence_block();
        }
        __syncwarp();
        if (step + lane < length) chunk = __ldcg(in_row + step + lane);  // not through L1: the slot held an older row
      }
      const std::uint32_t from_ho = __shfl_up_sync(0xffffffffu, out_ho, 1);
      const std::uint32_t from_f = __shfl_up_sync(0xffffffffu, out_f, 1);
      const std::uint32_t from_codes = __shfl_up_sync(0xffffffffu, out_codes, 1);
      const int saved_ho = __shfl_sync(0xffffffffu, chunk.x, step % 32);
      const int saved_f = __shfl_sync(0xffffffffu, chunk.y, step % 32);
      const std::int64_t j = static_cast<std::int64_t>(step) - lane;
      if (j < 0 || j >= length) continue;
      std::uint32_t ho_above = from_ho, f = from_f, codes = from_codes;
      if (lane == 0) {
        ho_above = a.minus_open_pair, f = kMinusInfinityPair, codes = lead.codes(static_cast<std::uint32_t>(j));
        if (pass > 0) ho_above = static_cast<std::uint32_t>(saved_ho), f = static_cast<std::uint32_t>(saved_f);
      }
      const std::uint32_t diagonal = j == 0 ? a.minus_open_pair : above_previous;
      above_previous = ho_above;
      strip.column(Strip::load_rows(strip_profile, codes & 0xFF, codes >> 8), a.minus_open_pair, a.minus_extend_pair,
                   diagonal, ho_above, f, best);
      out_ho = ho_above, out_f = f, out_codes = codes;
      if (lane == 31 && !last_pass) {
        __stcg(out_row + j, make_int2(static_cast<int>(out_ho), static_cast<int>(out_f)));
        if ((j + 1) % 32 == 0 || j + 1 == length) {
          __threadfence_block();
          progress[warp_id] = pass * row_span + j + 1;
        }
      }
    }
    __syncwarp();
  }
  best = warp_reduce(best, HalvesMax{});
  if (lane == 0 && warp_id < warps) best_of_warp[warp_id] = best;
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int w = 1; w < warps; ++w) best = __vmaxs2(best, best_of_warp[w]);
  record_pair_best(a, pair, best);
}

// ------------------------------------------------------------ 32-bit rescoring
//
// Targets whose 16-bit best may have saturated, a warp each (they are rare,
// but may be the longest targets): lane k owns query strip 32 p + k of pass p
// and processes target column j at step j + k, as pair_group_kernel does, in
// 32-bit cells, so no saturation.
__global__ void __launch_bounds__(kThreadsPerBlock) rescore_kernel(KernelArguments a) {
  const std::uint32_t warp_index = (blockIdx.x * kThreadsPerBlock + threadIdx.x) / 32;
  if (warp_index >= a.target_count) return;  // whole warps leave together
  const std::uint32_t target = a.only[warp_index];
  const int lane = threadIdx.x % 32;
  const WarpSlice warp = a.warps[target / 32];
  const std::uint32_t* words = a.packed_residues + warp.word_base + target % 32;
  int2* scratch = a.scratch + warp.scratch_base + target % 32;
  const std::uint32_t length = a.lengths[target];
  int best = 0;
  for (int pass = 0; pass * 32 < a.strips; ++pass) {
    const char4* strip_profile =
        a.profile + static_cast<std::size_t>(pass * 32 + lane) * kAlphabetSize * (kStripRows / 4);
    int h[kStripRows], e[kStripRows];
#pragma unroll
    for (int r = 0; r < kStripRows; ++r) h[r] = 0, e[r] = kNegativeInfinity;
    int out_h = 0, out_f = kNegativeInfinity, above_previous = 0;
    for (std::uint32_t step = 0; step < length + 31; ++step) {
      const int from_h = __shfl_up_sync(0xffffffffu, out_h, 1), from_f = __shfl_up_sync(0xffffffffu, out_f, 1);
      const std::int64_t j = static_cast<std::int64_t>(step) - lane;
      if (j < 0 || j >= length) continue;
      int h_above = from_h, f = from_f;
      if (lane == 0) {
        h_above = 0, f = kNegativeInfinity;
        if (pass > 0) {
          const int2 saved = scratch[32ull * j];
          h_above = saved.x, f = saved.y;
        }
      }
      int diagonal = j == 0 ? 0 : above_previous;
      above_previous = h_above;
      const int code = (__ldg(words + 32ull * (j / 4)) >> (8 * (j % 4))) & 0xFF;
      column_of_strip(strip_profile + code * (kStripRows / 4), a.gap_open, a.gap_extend, h, e, diagonal, h_above, f,
                      best);
      out_h = h_above, out_f = f;
      if (lane == 31) scratch[32ull * j] = make_int2(out_h, out_f);
    }
    __syncwarp();  // lane 31's row is visible to lane 0 in the next pass
  }
  best = warp_max(best);
  if (lane == 0) a.scores[target] = best;
}

// ------------------------------------------------------------ reported hits: ends and traceback bits
//
// A warp per (query, target) pair, 32-bit cells, the reference's recurrences
// exactly: lane k owns query strip 32 p + k (32 rows) of pass p and processes
// target column j at step j + k, the row above passed by shuffle (lane 0 of
// a later pass loads it from the scratch row lane 31 of the pass before left,
// 32 columns at a time with all lanes). Scores from the matrix in shared
// memory, the strip's query codes in registers, so one launch serves pairs of
// any query.
//
// Score (kScore): the best score only (the transposed scan of long targets).
//
// Ends (kEnd): the whole matrix; each lane keeps, of its rows' cells,
// the best score's smallest column, then smallest row, and so does the warp:
// the first cell in sw_score()'s order (target position outer) that reaches
// the best.
//
// Traceback (kTrace): the box of rows x columns up to a hit's end, every
// cell's TracebackBits (4 bits: 32 rows of a strip make a uint4 per column,
// at bits[(j * strips + strip)]), and H at the box's corner; the host walks
// them with trace_back(), the reference's own walk.
struct WarpDpArguments {
  const std::uint8_t* queries;         // back to back
  const std::uint64_t* query_offsets;  // query q is queries[query_offsets[q] .. query_offsets[q + 1])
  const std::uint8_t* targets;         // one per pair, back to back
  const std::uint64_t* target_offsets;
  const std::uint32_t* pair_query;
  const int2* boxes;                   // traceback: per pair (rows, columns)
  std::uint32_t pair_count;
  const std::int8_t* matrix;           // score[target code][query code]
  int gap_open, gap_extend;
  int2* scratch;                       // per pair, from scratch_offsets[pair]: (H, F) per column
  const std::uint64_t* scratch_offsets;
  uint4* bits;                         // traceback: per pair, from bits_offsets[pair]
  const std::uint64_t* bits_offsets;
  int3* results;                       // ends: (score, query end, target end), -1 when 0; traceback: (corner H, 0, 0)
  // Above 0: every pair's target is targets[0 .. same_target_length), query
  // q = pair (pair_query unused), scratch at pair * same_target_length (the
  // transposed scan: one copy of the query serves every long target).
  std::uint32_t same_target_length;
};

// What warp_dp_kernel keeps: the best score (the transposed scan), the first
// cell holding it (ends), or every cell's traceback bits (alignments).
enum class WarpDp { kScore, kEnd, kTrace };

// Of two cells, the higher score wins, then the smaller column, then the smaller row.
__device__ __forceinline__ bool better_end(int score, int column, int row, int other_score, int other_column,
                                           int other_row) {
  if (score != other_score) return score > other_score;
  if (column != other_column) return column < other_column;
  return row < other_row;
}

// A lane's best cell, and the better of two as a reduction operator: a strict
// order (better_end), so the warp's best is the same whatever the order.
struct BestEnd {
  int score, row, column;
};
struct BetterEnd {
  __device__ __forceinline__ BestEnd operator()(const BestEnd& mine, const BestEnd& other) const {
    return better_end(other.score, other.column, other.row, mine.score, mine.column, mine.row) ? other : mine;
  }
};

template <WarpDp kMode>
__global__ void __launch_bounds__(kThreadsPerBlock) warp_dp_kernel(WarpDpArguments a) {
  constexpr bool kTrace = kMode == WarpDp::kTrace;
  __shared__ int matrix[kAlphabetSize * kAlphabetSize];
  for (int k = threadIdx.x; k < kAlphabetSize * kAlphabetSize; k += blockDim.x) matrix[k] = a.matrix[k];
  __syncthreads();
  const std::uint32_t pair = (blockIdx.x * kThreadsPerBlock + threadIdx.x) / 32;
  if (pair >= a.pair_count) return;  // whole warps leave together
  const int lane = threadIdx.x % 32;
  const bool same_target = a.same_target_length > 0;
  const std::uint32_t q = same_target ? pair : a.pair_query[pair];
  const std::uint8_t* query = a.queries + a.query_offsets[q];
  const std::uint8_t* target = same_target ? a.targets : a.targets + a.target_offsets[pair];
  int rows = static_cast<int>(a.query_offsets[q + 1] - a.query_offsets[q]);
  int columns = same_target ? static_cast<int>(a.same_target_length)
                            : static_cast<int>(a.target_offsets[pair + 1] - a.target_offsets[pair]);
  if (kTrace) rows = a.boxes[pair].x, columns = a.boxes[pair].y;
  const int strips = (rows + 31) / 32, passes = (strips + 31) / 32;
  int2* scratch = a.scratch + (same_target ? std::uint64_t{pair} * a.same_target_length : a.scratch_offsets[pair]);
  int best = 0, best_row = -1, best_column = -1, corner = 0;
  for (int pass = 0; pass < passes; ++pass) {
    const int strip = pass * 32 + lane, first_row = strip * 32;
    std::uint8_t codes[32];  // padding rows (past the query) hold residue 0: below every real row, never counted
#pragma unroll
    for (int r = 0; r < 32; ++r) codes[r] = first_row + r < rows ? query[first_row + r] : 0;
    int h[32], e[32];
#pragma unroll
    for (int r = 0; r < 32; ++r) h[r] = 0, e[r] = kNegativeInfinity;
    int out_h = 0, out_f = kNegativeInfinity, above_previous = 0;
    int2 chunk = make_int2(0, kNegativeInfinity);  // lane l: the previous pass's row at column 32 c + l
    for (int step = 0; step < columns + 31; ++step) {
      // The previous pass's boundary row, 32 columns at a time by all lanes:
      // one load's latency per 32 steps instead of lane 0's every step.
      if (pass > 0 && step % 32 == 0 && step < columns && step + lane < columns) chunk = __ldcg(scratch + step + lane);
      const int from_h = __shfl_up_sync(0xffffffffu, out_h, 1), from_f = __shfl_up_sync(0xffffffffu, out_f, 1);
      const int saved_h = __shfl_sync(0xffffffffu, chunk.x, step % 32);
      const int saved_f = __shfl_sync(0xffffffffu, chunk.y, step % 32);
      const int j = step - lane;
      if (j < 0 || j >= columns) continue;
      int h_above = from_h, f = from_f;
      if (lane == 0) {
        h_above = 0, f = kNegativeInfinity;
        if (pass > 0) h_above = saved_h, f = saved_f;
      }
      int diagonal = j == 0 ? 0 : above_previous;
      above_previous = h_above;
      const int* scores = matrix + target[j] * kAlphabetSize;
      std::uint32_t words[4] = {0, 0, 0, 0};
#pragma unroll
      for (int r = 0; r < 32; ++r) {
        const int e_open = h[r] - a.gap_open, e_extend = e[r] - a.gap_extend;
        e[r] = max(e_open, e_extend);
        const int f_open = h_above - a.gap_open, f_extend = f - a.gap_extend;
        f = max(f_open, f_extend);
        const int from_diagonal = diagonal + scores[codes[r]];
        int value = 0, source = kHFromZero;
        if (from_diagonal > value) value = from_diagonal, source = kHFromDiagonal;
        if (f > value) value = f, source = kHFromF;
        if (e[r] > value) value = e[r], source = kHFromE;
        diagonal = h[r];
        h[r] = value;
        h_above = value;
        if (kTrace) {
          words[r / 8] |= static_cast<std::uint32_t>(source | (e_extend > e_open ? kEExtends : 0) |
                                                     (f_extend > f_open ? kFExtends : 0))
                          << (4 * (r % 8));
          if (first_row + r == rows - 1 && j == columns - 1) corner = value;
        } else if (kMode == WarpDp::kScore) {
          // Padding rows (past the last real one) hold residue 0, which can
          // score positively against the columns (A against A): they must
          // not count. (They lie below every real row, so no real cell reads them.)
          if (first_row + r < rows) best = max(best, value);
        } else if (value >= best && value > 0 && first_row + r < rows &&
                   better_end(value, j, first_row + r, best, best_column, best_row)) {
          best = value, best_row = first_row + r, best_column = j;  // passes revisit columns: compare, not just >
        }
      }
      if (kTrace && strip < strips)
        a.bits[a.bits_offsets[pair] + static_cast<std::uint64_t>(j) * strips + strip] =
            make_uint4(words[0], words[1], words[2], words[3]);
      out_h = h_above, out_f = f;
      if (lane == 31 && pass + 1 < passes) scratch[j] = make_int2(out_h, out_f);
    }
    __syncwarp();  // lane 31's row is visible to lane 0 in the next pass
  }
  if constexpr (kMode == WarpDp::kTrace) {
    corner = warp_max(corner);
    if (lane == 0) a.results[pair] = make_int3(corner, 0, 0);  // H >= 0: only the corner's owner holds a non-zero
  } else if constexpr (kMode == WarpDp::kScore) {
    best = warp_max(best);
    if (lane == 0) a.results[pair] = make_int3(best, 0, 0);
  } else {
    const BestEnd end = warp_reduce(BestEnd{best, best_row, best_column}, BetterEnd{});
    if (lane == 0) a.results[pair] = end.score > 0 ? make_int3(end.score, end.row, end.column) : make_int3(0, -1, -1);
  }
}

// Scores in sorted positions back into the targets' own order: out[original[t]] = sorted[t].
__global__ void unsort_scores_kernel(const std::int32_t* sorted, const std::uint32_t* original, std::int32_t* out,
                                     std::uint32_t count) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < count) out[original[t]] = sorted[t];
}

// The best scores of warp_dp_kernel's results into the engine's sorted scores.
__global__ void copy_scores_kernel(const int3* results, std::int32_t* scores, std::uint32_t count) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count) scores[k] = results[k].x;
}

// One alignment walked back over its traceback bits (warp_dp_kernel's
// kTrace layout): where it starts, what it counts, and its CIGAR runs (last
// first), reserved in `runs` after the walk by one atomic add (their place
// in the buffer varies from run to run; each pair's runs do not).
struct WalkedAlignment {
  int query_begin, target_begin, identities, length;
  std::uint32_t first_run, run_count;
  int left_matrix;  // the bits led the walk off the matrix
};

struct TraceWalkArguments {
  WarpDpArguments dp;  // the batch warp_dp_kernel traced: its pairs, boxes, bits and corners (results)
  TracebackRun* scratch_runs;  // per pair, rows + columns of room from scratch_offsets[pair]
  const std::uint64_t* scratch_offsets;
  TracebackRun* runs;  // the pairs' runs, compact
  unsigned long long* runs_used;
  WalkedAlignment* walked;
};

__global__ void __launch_bounds__(kThreadsPerBlock) trace_walk_kernel(TraceWalkArguments a) {
  const WarpDpArguments& dp = a.dp;
  const std::uint32_t pair = blockIdx.x * blockDim.x + threadIdx.x;
  if (pair >= dp.pair_count) return;
  WalkedAlignment out{-1, -1, 0, 0, 0, 0, 0};
  if (dp.results[pair].x == 0) {  // the corner's H: nothing to walk, the host sees the score
    a.walked[pair] = out;
    return;
  }
  const int2 box = dp.boxes[pair];
  const int strips = (box.x + 31) / 32;
  const uint4* bits = dp.bits + dp.bits_offsets[pair];
  TracebackRun* scratch = a.scratch_runs + a.scratch_offsets[pair];
  std::uint32_t count = 0;
  const TracebackWalk walk = walk_traceback(
      dp.queries + dp.query_offsets[dp.pair_query[pair]], dp.targets + dp.target_offsets[pair], box.x, box.y,
      [&](int i, int j) {
        const uint4 w = bits[static_cast<std::size_t>(j - 1) * strips + (i - 1) / 32];
        const int r = (i - 1) % 32;
        const std::uint32_t word = r < 8 ? w.x : r < 16 ? w.y : r < 24 ? w.z : w.w;
        return static_cast<std::uint8_t>((word >> (4 * (r % 8))) & 0xF);
      },
      [&](TracebackRun run) { scratch[count++] = run; });
  out.query_begin = walk.query_begin, out.target_begin = walk.target_begin;
  out.identities = walk.identities, out.length = walk.length;
  out.left_matrix = walk.left_matrix;
  if (!walk.left_matrix) {
    out.first_run = static_cast<std::uint32_t>(atomicAdd(a.runs_used, static_cast<unsigned long long>(count)));
    out.run_count = count;
    for (std::uint32_t k = 0; k < count; ++k) a.runs[out.first_run + k] = scratch[k];
  }
  a.walked[pair] = out;
}

// ------------------------------------------------------------ best scores
//
// best_scores() on the device: a histogram of the positive scores, the
// threshold (the limit-th largest score) from it, and the targets at or above
// it compacted into a short list, so the host copies and ranks about `limit`
// scores a query instead of every target's.
constexpr int kScoreBins = 1 << 15;  // scores 1..32766 counted exactly; the last bin holds every score >= 32767
constexpr int kThresholdThreads = 1024;
constexpr int kBinsPerThresholdThread = kScoreBins / kThresholdThreads;

__global__ void score_histogram_kernel(const std::int32_t* scores, std::uint32_t count, std::uint32_t* bins) {
  for (std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < count; t += gridDim.x * blockDim.x) {
    const std::int32_t score = scores[t];
    if (score > 0) atomicAdd(&bins[min(score, kScoreBins - 1)], 1u);
  }
}

// One block: *threshold = the highest bin b with at least `limit` positive
// scores in bins >= b, or 1 (every positive score) when there are fewer.
// Thread k sums the k-th group of bins from the top; an inclusive scan over
// the threads gives each group's count from the top, and the one group where
// it first reaches `limit` walks its bins down to find b.
__global__ void __launch_bounds__(kThresholdThreads)
    score_threshold_kernel(const std::uint32_t* bins, std::uint32_t limit, std::int32_t* threshold) {
  __shared__ std::uint32_t from_top[kThresholdThreads];
  const int k = threadIdx.x;
  const int high = kScoreBins - k * kBinsPerThresholdThread;  // the group is bins [high - per, high)
  std::uint32_t mine = 0;
  for (int b = high - kBinsPerThresholdThread; b < high; ++b) mine += bins[b];
  from_top[k] = mine;
  __syncthreads();
  for (int offset = 1; offset < kThresholdThreads; offset *= 2) {
    const std::uint32_t add = k >= offset ? from_top[k - offset] : 0;
    __syncthreads();
    from_top[k] += add;
    __syncthreads();
  }
  const std::uint32_t above = k > 0 ? from_top[k - 1] : 0;  // scores in bins >= high
  if (above < limit && from_top[k] >= limit) {
    std::uint32_t running = above;
    for (int b = high - 1; b >= high - kBinsPerThresholdThread; --b) {
      running += bins[b];
      if (running >= limit) {
        *threshold = max(b, 1);
        break;
      }
    }
  }
  if (k == kThresholdThreads - 1 && from_top[k] < limit) *threshold = 1;
}

// Every target whose score is positive and >= *threshold, as (sorted position, score).
__global__ void best_scores_kernel(const std::int32_t* scores, std::uint32_t count, const std::int32_t* threshold,
                                   std::uint32_t* found, int2* best) {
  const std::int32_t lowest = max(*threshold, 1);
  for (std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < count; t += gridDim.x * blockDim.x) {
    const std::int32_t score = scores[t];
    if (score >= lowest) best[atomicAdd(found, 1u)] = make_int2(static_cast<int>(t), score);
  }
}

// What one query's selection copies back at once: the count and, speculatively,
// this many entries (a second copy fetches the rest when ties make more).
constexpr std::uint32_t kBestCopiedAtOnce = 4096;
struct BestScoresHost {
  std::uint32_t found;
  int2 best[kBestCopiedAtOnce];
};

class GpuEngine final : public SwEngine {
 public:
  explicit GpuEngine(int device) {
    name_ = select_cuda_device(device);
    check_cuda(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device),
               "reading the GPU's multiprocessor count");
    std::size_t free_bytes = 0, total_bytes = 0;
    check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "reading the GPU's free memory");
    round_residues_ = free_bytes / 2 / kDeviceBytesPerResidue;
    stream_.create("creating a stream");
    long_stream_.create("creating a stream");
    exclusive_stream_.create("creating a stream");
    long_done_.create("creating an event");
    exclusive_done_.create("creating an event");
    score_bins_.allocate(kScoreBins, "allocating the score histogram on the GPU");
    best_found_.allocate(1, "allocating the best scores' count on the GPU");
    best_threshold_.allocate(1, "allocating the best scores' threshold on the GPU");
    host_best_.reserve(1, "allocating pinned memory");
    flagged_host_.reserve(1, "allocating pinned memory");
  }
  std::string description() const override {
    return "GPU " + name_ + " (16-bit pairs in lane groups with DPX, long pairs a block each, 32-bit rescoring)";
  }

  std::uint64_t round_residues() const override { return round_residues_; }

  void load_targets(const SequenceSet& targets) override {
    const std::size_t n = targets.size();
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::size_t x, std::size_t y) { return targets.length(x) < targets.length(y); });
    std::vector<std::uint32_t> lengths(n);
    std::vector<WarpSlice> warps((n + 31) / 32);
    std::uint64_t words = 0, scratch = 0;
    for (std::size_t w = 0; w < warps.size(); ++w) {
      const std::size_t last = std::min(n, 32 * w + 32) - 1;
      const std::uint64_t longest = targets.length(order_[last]);  // sorted: the warp's longest
      warps[w] = {words, scratch};
      words += 32 * ((longest + 3) / 4);
      scratch += 32 * longest;
    }
    // Bytes past a target's end hold the padding code (pair_group_kernel's
    // lane 0 reads whole words).
    std::vector<std::uint32_t> packed(words, kPaddingWord);
    for (std::size_t t = 0; t < n; ++t) {
      const std::size_t original = order_[t];
      lengths[t] = static_cast<std::uint32_t>(targets.length(original));
      const std::uint8_t* residues = targets.begin(original);
      const WarpSlice& warp = warps[t / 32];
      std::uint32_t* column = packed.data() + warp.word_base + t % 32;  // word w at column[32 w]
      const std::uint32_t whole_words = lengths[t] / 4;
      // Whole words as they lie (column j in byte j % 4: little-endian), then the last one padded.
      static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "a word's first residue in its low byte");
      for (std::uint32_t w = 0; w < whole_words; ++w) std::memcpy(column + 32 * w, residues + 4 * w, 4);
      if (lengths[t] % 4 != 0) {
        std::uint32_t word = kPaddingWord;
        for (std::uint32_t j = 4 * whole_words; j < lengths[t]; ++j)
          word = (word & ~(0xFFu << (8 * (j % 4)))) | static_cast<std::uint32_t>(residues[j]) << (8 * (j % 4));
        column[32 * whole_words] = word;
      }
    }
    packed_.upload(packed.data(), packed.size(), "copying targets to the GPU");
    warps_.upload(warps.data(), warps.size(), "copying target layout to the GPU");
    lengths_.upload(lengths.data(), lengths.size(), "copying target lengths to the GPU");
    scratch_.allocate(scratch, "allocating the DP scratch rows on the GPU");
    scores_.allocate(n, "allocating scores on the GPU");
    const std::vector<std::uint32_t> original(order_.begin(), order_.end());
    original_positions_.upload(original.data(), n, "copying the targets' order to the GPU");
    unsorted_scores_.allocate(n, "allocating scores on the GPU");
    scores_host_.reserve(n, "allocating pinned memory for the scores");
    flagged_.allocate(n, "allocating the saturation list on the GPU");
    flagged_count_.allocate(1, "allocating the saturation count on the GPU");
    best_.allocate(std::max<std::size_t>(n, kBestCopiedAtOnce), "allocating the best scores on the GPU");
    target_count_ = n;
    place_long_pairs(lengths);
    sorted_lengths_ = lengths;
    residues_ = std::accumulate(lengths.begin(), lengths.end(), std::uint64_t{0});
    // The long pairs' targets once more, each contiguous, for the transposed path.
    std::vector<std::uint8_t> long_residues;
    std::vector<std::uint64_t> long_offsets{0};
    for (std::size_t t = 2 * bulk_pairs_; t < n; ++t) {
      const std::uint8_t* residues = targets.begin(order_[t]);
      long_residues.insert(long_residues.end(), residues, residues + lengths[t]);
      long_offsets.push_back(long_residues.size());
    }
    if (long_residues.empty()) long_residues.push_back(0);  // no empty upload; the offsets say there is nothing
    long_targets_.upload(long_residues.data(), long_residues.size(), "copying the long targets to the GPU");
    long_target_offsets_.upload(long_offsets.data(), long_offsets.size(), "copying the long targets to the GPU");
  }

  std::vector<std::int32_t> scores(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix,
                                   const GapPenalties& gaps) override {
    if (target_count_ == 0 || query.empty()) return std::vector<std::int32_t>(target_count_, 0);
    // The scores are put back in the targets' order on the device and copied
    // into pinned memory in the scan's queue (a copy to pageable memory and a
    // scattered loop over them on the host took 0.6-0.9 ms a query after the
    // GPU was done, for 153,168 targets).
    scan_then(query, matrix, gaps, [&] { queue_scores_copy(); });
    return std::vector<std::int32_t>(scores_host_.data, scores_host_.data + target_count_);
  }

  std::vector<ScoredTarget> best_scores(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix,
                                        const GapPenalties& gaps, std::size_t limit) override {
    if (target_count_ == 0 || query.empty() || limit == 0) return SwEngine::best_scores(query, matrix, gaps, limit);
    scan_then(query, matrix, gaps, [&] { queue_best_selection(limit); });
    const BestScoresHost& host = *host_best_.data;
    const std::uint32_t found = host.found;
    std::vector<int2> entries(host.best, host.best + std::min(found, kBestCopiedAtOnce));
    if (found > kBestCopiedAtOnce) {  // many ties at the threshold
      entries.resize(found);
      check_cuda(cudaMemcpy(entries.data() + kBestCopiedAtOnce, best_.data + kBestCopiedAtOnce,
                            (found - kBestCopiedAtOnce) * sizeof(int2), cudaMemcpyDeviceToHost),
                 "copying the best scores back");
    }
    std::vector<ScoredTarget> best;
    best.reserve(found);
    for (const int2& e : entries) best.push_back({static_cast<std::uint32_t>(order_[e.x]), e.y});
    return best;
  }

 private:
  // The scan of the query, then what queue_results() queues to copy back,
  // with one wait per query: only a saturated score (rare: a 16-bit best near
  // its ceiling) makes a second round, its rescoring and queue_results() again.
  template <class QueueResults>
  void scan_then(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix, const GapPenalties& gaps,
                 const QueueResults& queue_results) {
    const int strips = queue_scan(query, matrix, gaps);
    queue_results();
    stream_.synchronize("scoring on the GPU");
    if (*flagged_host_.data > 0) {
      rescore_saturated(gaps, strips);
      queue_results();
      stream_.synchronize("copying the rescored results back");
    }
  }

  // Queues scores_ (sorted positions) into scores_host_ in the targets' own order.
  void queue_scores_copy() {
    const auto count = static_cast<std::uint32_t>(target_count_);
    unsort_scores_kernel<<<(count + 255) / 256, 256, 0, stream_>>>(scores_.data, original_positions_.data,
                                                                   unsorted_scores_.data, count);
    check_cuda(cudaGetLastError(), "launching the scores' reordering");
    check_cuda(cudaMemcpyAsync(scores_host_.data, unsorted_scores_.data, count * sizeof(std::int32_t),
                               cudaMemcpyDeviceToHost, stream_),
               "copying scores back");
  }

  // Queues the 16-bit scan of the query against every loaded target into
  // scores_ on stream_, then the count of saturated targets into
  // flagged_host_ (valid once the stream is synchronized). Returns the
  // query's strips. The stream must be idle: the inputs' buffers are reused.
  int queue_scan(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix, const GapPenalties& gaps) {
    check_gaps(gaps);
    const int strips = static_cast<int>((query.size() + kStripRows - 1) / kStripRows);  // the rescoring's
    const StripPlan plan = strip_plan(query.size());
    const int long_strips = static_cast<int>((query.size() + kLongRows - 1) / kLongRows);
    const int long_passes = (long_strips + 31) / 32;
    // Every input the launches read, queued before any launch: a buffer that
    // grows (cudaFree waits for the device) does so before this query's kernels.
    // The host copies only the query's codes; its profiles are built on the device.
    upload_matrix(matrix);
    queue_upload_query(query);
    queue_pair_profile(profile16_, kStripRows, plan.rows, plan.passes * plan.lanes, gaps);
    group_pairs_ = pairs_in_groups(plan, query.size());
    const bool long_rest = group_pairs_ < bulk_pairs_ + long_pairs_;
    const bool transposed = long_rest && query.size() < kTransposedQueryBelow;
    if (long_rest && !transposed) queue_pair_profile(profile_long_, kLongRows, kLongRows, long_passes * 32, gaps);
    if (transposed) reserve_transposed_rows(query.size());
    check_cuda(cudaMemsetAsync(flagged_count_.data, 0, sizeof(std::uint32_t), stream_), "clearing the saturation count");
    long_done_.record(stream_, "ordering the long pairs after the clearing");
    long_stream_.wait_for(long_done_, "ordering the long pairs after the clearing");
    exclusive_stream_.wait_for(long_done_, "ordering the long pairs after the clearing");
    // Long pairs on their own stream(s), started first, beside the rest.
    if (transposed) score_long_transposed(gaps);
    else if (long_rest) score_long_pairs(matrix, gaps, long_passes);
    score_pairs(matrix, gaps, plan);
    long_done_.record(long_stream_, "recording the long pairs' end");
    exclusive_done_.record(exclusive_stream_, "recording the long pairs' end");
    stream_.wait_for(long_done_, "joining the long pairs' stream");
    stream_.wait_for(exclusive_done_, "joining the long pairs' stream");
    check_cuda(cudaMemcpyAsync(flagged_host_.data, flagged_count_.data, sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                               stream_), "copying the saturation count back");
    return strips;
  }

  // The targets queue_scan() flagged, rescored in 32 bits; the stream is idle after.
  void rescore_saturated(const GapPenalties& gaps, int strips) {
    queue_rescore_profile(strips);
    rescore_in_32_bits(gaps, strips, *flagged_host_.data);
  }

  // Queues the selection of the `limit` best of scores_ (score_threshold_kernel's
  // ties included) and their copy into host_best_ on stream_.
  void queue_best_selection(std::size_t limit) {
    const std::uint32_t count = static_cast<std::uint32_t>(target_count_);
    const int blocks = static_cast<int>(std::min<std::size_t>((target_count_ + 255) / 256, 1024));
    check_cuda(cudaMemsetAsync(score_bins_.data, 0, kScoreBins * sizeof(std::uint32_t), stream_), "clearing the score histogram");
    check_cuda(cudaMemsetAsync(best_found_.data, 0, sizeof(std::uint32_t), stream_), "clearing the best scores' count");
    score_histogram_kernel<<<blocks, 256, 0, stream_>>>(scores_.data, count, score_bins_.data);
    score_threshold_kernel<<<1, kThresholdThreads, 0, stream_>>>(
        score_bins_.data, static_cast<std::uint32_t>(std::min<std::size_t>(limit, count)), best_threshold_.data);
    best_scores_kernel<<<blocks, 256, 0, stream_>>>(scores_.data, count, best_threshold_.data, best_found_.data,
                                                    best_.data);
    check_cuda(cudaGetLastError(), "launching the best scores' selection");
    BestScoresHost& host = *host_best_.data;
    check_cuda(cudaMemcpyAsync(&host.found, best_found_.data, sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                               stream_), "copying the best scores back");
    check_cuda(cudaMemcpyAsync(host.best, best_.data, kBestCopiedAtOnce * sizeof(int2), cudaMemcpyDeviceToHost,
                               stream_), "copying the best scores back");
  }

  // Copies `n` staged (pinned) elements into `buffer` on stream_, in order with
  // the kernels after it; the buffer grows only when it is too small.
  template <typename T>
  void queue_upload(DeviceBuffer<T>& buffer, const T* staged, std::size_t n, const char* what) {
    if (n > buffer.capacity) buffer.allocate(n, what);
    buffer.count = n;
    if (n > 0) check_cuda(cudaMemcpyAsync(buffer.data, staged, n * sizeof(T), cudaMemcpyHostToDevice, stream_), what);
  }

 public:
  std::vector<LocalScore> ends(const std::vector<std::vector<std::uint8_t>>& queries,
                               const std::vector<HitPair>& pairs, const ScoreMatrix& matrix,
                               const GapPenalties& gaps) override {
    std::vector<LocalScore> out(pairs.size());
    if (pairs.empty()) return out;
    check_gaps(gaps);
    upload_queries_and_matrix(queries, matrix);
    for (const WarpDpBatch& batch : batches(pairs, {}, queries)) {
      const std::vector<int3> results = run_warp_dp<WarpDp::kEnd>(pairs, batch, gaps, nullptr);
      for (std::size_t k = 0; k < batch.pairs.size(); ++k)
        out[batch.pairs[k]] = LocalScore{results[k].x, results[k].y, results[k].z};
    }
    return out;
  }

  std::vector<Alignment> alignments(const std::vector<std::vector<std::uint8_t>>& queries,
                                    const std::vector<HitPair>& pairs, const std::vector<LocalScore>& ends,
                                    const ScoreMatrix& matrix, const GapPenalties& gaps) override {
    if (ends.size() != pairs.size()) throw std::invalid_argument("alignments: one end per pair");
    std::vector<Alignment> out(pairs.size());
    check_gaps(gaps);
    for (std::size_t p = 0; p < pairs.size(); ++p) check_end(queries, pairs[p], ends[p]);
    upload_queries_and_matrix(queries, matrix);
    for (const WarpDpBatch& batch : batches(pairs, ends, queries)) {
      TracedBatch traced;
      const std::vector<int3> corners = run_warp_dp<WarpDp::kTrace>(pairs, batch, gaps, &traced);
      for (std::size_t k = 0; k < batch.pairs.size(); ++k) {
        const std::size_t p = batch.pairs[k];
        Alignment& a = out[p];
        a.score = corners[k].x;
        if (a.score == 0) continue;  // a wrong end: nothing walked; the caller sees the score
        const WalkedAlignment& walk = traced.walked[k];
        if (walk.left_matrix) throw std::invalid_argument("trace_back: the walk left the matrix");
        a.query_begin = walk.query_begin, a.target_begin = walk.target_begin;
        a.query_end = ends[p].query_end, a.target_end = ends[p].target_end;
        a.identities = walk.identities, a.length = walk.length;
        append_cigar_of_reversed_runs(traced.runs.data() + walk.first_run, walk.run_count, a.cigar);
      }
    }
    return out;
  }

 private:
  // Lanes per pair of targets: enough for one strip each up to a warp (a
  // power of two, for the shuffles' width); taller queries take passes.
  static int lanes_per_pair(int strips) {
    int lanes = 1;
    while (lanes < strips && lanes < 32) lanes *= 2;
    return lanes;
  }

  // How pair_group_kernel covers a query: rows a lane holds, lanes a pair,
  // passes.
  struct StripPlan {
    int rows = kStripRows, lanes = 1, passes = 1;
  };
  // The plan with the least work: lanes x passes x (rows + a column's fixed
  // cost, about ten rows' worth of instructions). With 16 rows only, a
  // query of 100 residues filled 8 x 16 = 128 rows and one of 360 filled 512
  // (42 % padding); 14 and 12 rows fill 112 and 384, 13 rows 104.
  static StripPlan strip_plan(std::size_t query_length) {
    constexpr double kColumnCostInRows = 10;
    StripPlan best;
    double best_cost = 0;
    for (int rows = kStripRows; rows >= kFewestStripRows; --rows) {
      const int strips = static_cast<int>((query_length + rows - 1) / rows);
      const int lanes = lanes_per_pair(strips);
      const int passes = (strips + lanes - 1) / lanes;
      const double cost = double(lanes) * passes * (rows + kColumnCostInRows);
      if (rows == kStripRows || cost < best_cost) best = {rows, lanes, passes}, best_cost = cost;
    }
    return best;
  }

  // The query's codes into query_ on stream_, staged in pinned memory.
  void queue_upload_query(const std::vector<std::uint8_t>& query) {
    query_host_.reserve(query.size(), "allocating pinned memory for the query");
    std::copy(query.begin(), query.end(), query_host_.data);
    queue_upload(query_, query_host_.data, query.size(), "copying the query to the GPU");
  }

  // The pair kernels' profile of the query in query_ (int16 score + open,
  // strips of `rows` slots holding `rows_used` query rows each), built into
  // `buffer` on stream_.
  void queue_pair_profile(DeviceBuffer<uint4>& buffer, int rows, int rows_used, int padded_strips,
                          const GapPenalties& gaps) {
    const std::size_t values = static_cast<std::size_t>(padded_strips) * kProfileCodes * rows;  // rows: 8 or 16
    if (values / 8 > buffer.capacity) buffer.allocate(values / 8, "allocating the query profile on the GPU");
    buffer.count = values / 8;
    queue_query_profile(reinterpret_cast<std::int16_t*>(buffer.data), values, kProfileCodes, rows, rows_used,
                        gaps.open);
  }

  // query_profile_kernel on stream_ for the query in query_ (see there).
  template <typename Score>
  void queue_query_profile(Score* profile, std::size_t values, int codes, int rows, int rows_used, int offset) {
    const int blocks = static_cast<int>(std::min<std::size_t>((values + 255) / 256, 1024));
    query_profile_kernel<Score><<<blocks, 256, 0, stream_>>>(profile, static_cast<std::uint32_t>(values), query_.data,
                                                             static_cast<std::uint32_t>(query_.count), matrix_.data,
                                                             codes, rows, rows_used, offset);
    check_cuda(cudaGetLastError(), "launching the query profile's kernel");
  }

  // Sorted targets from the first pair holding one of kLongTarget residues
  // or more are long pairs, each with a ring of kMaxLongWarps boundary rows.
  void place_long_pairs(const std::vector<std::uint32_t>& lengths) {
    const std::size_t first_long =
        static_cast<std::size_t>(std::lower_bound(lengths.begin(), lengths.end(), kLongTarget) - lengths.begin());
    const std::size_t pairs = (target_count_ + 1) / 2;
    bulk_pairs_ = first_long / 2;
    long_pairs_ = pairs - bulk_pairs_;
    std::vector<std::uint64_t> offsets;
    std::uint64_t ring = 0;
    for (std::size_t p = bulk_pairs_; p < pairs; ++p) {
      offsets.push_back(ring);
      ring += std::uint64_t{kMaxLongWarps} * lengths[std::min(2 * p + 1, target_count_ - 1)];  // the pair's longer
    }
    if (long_pairs_ == 0) return;
    ring_offsets_.upload(offsets.data(), offsets.size(), "copying the long pairs' layout to the GPU");
    ring_.allocate(ring, "allocating the long pairs' boundary rows on the GPU");
  }

  // Pairs [0, result) go to pair_group_kernel for this query: the static
  // split's bulk, then long pairs while their path through the group kernel
  // stays short beside the scan (see kLongestPathShare).
  std::size_t pairs_in_groups(const StripPlan& plan, std::size_t query_length) const {
    const double scan_seconds =
        double(query_length) * double(residues_) / (double(sm_count_) * kGroupCellsPerSmSecond);
    std::size_t pairs = bulk_pairs_;
    for (; pairs < bulk_pairs_ + long_pairs_; ++pairs) {
      const std::uint32_t longer = sorted_lengths_[std::min(2 * pairs + 1, target_count_ - 1)];
      const double path_seconds = double(plan.passes) * (longer + plan.lanes) * kGroupStepSeconds;
      if (path_seconds > kLongestPathShare * scan_seconds) break;
    }
    return pairs;
  }

  PairArguments pair_arguments(const ScoreMatrix& matrix, const GapPenalties& gaps, const uint4* profile,
                               int passes) const {
    const std::uint32_t minus_open = static_cast<std::uint16_t>(-gaps.open);
    const std::uint32_t minus_extend = static_cast<std::uint16_t>(-gaps.extend);
    return PairArguments{packed_.data,
                         warps_.data,
                         lengths_.data,
                         static_cast<std::uint32_t>(target_count_),
                         0,
                         static_cast<std::uint32_t>(group_pairs_),
                         profile,
                         passes,
                         minus_open * 0x10001u,
                         minus_extend * 0x10001u,
                         32767 - matrix.max_score,
                         scratch_.data,
                         ring_.data,
                         ring_offsets_.data,
                         static_cast<std::uint32_t>(bulk_pairs_),
                         0,
                         scores_.data,
                         flagged_.data,
                         flagged_count_.data};
  }

  template <int G, int R>
  void launch_pair_groups(const PairArguments& args) {
    const std::size_t threads = std::size_t{args.pair_end - args.pair_begin} * G;
    const std::size_t shared_bytes =
        std::size_t{pass_profile_slots(G)} * kProfileCodes * (kStripRows / 8) * sizeof(uint4);
    pair_group_kernel<G, R><<<static_cast<unsigned>((threads + kThreadsPerBlock - 1) / kThreadsPerBlock),
                              kThreadsPerBlock, shared_bytes, stream_>>>(args);
  }
  template <int G>
  void launch_pair_groups(const PairArguments& args, int rows) {
    static_assert(kFewestStripRows == 10 && kStripRows == 16, "one case per strip height");
    switch (rows) {
      case 10: launch_pair_groups<G, 10>(args); break;
      case 11: launch_pair_groups<G, 11>(args); break;
      case 12: launch_pair_groups<G, 12>(args); break;
      case 13: launch_pair_groups<G, 13>(args); break;
      case 14: launch_pair_groups<G, 14>(args); break;
      case 15: launch_pair_groups<G, 15>(args); break;
      default: launch_pair_groups<G, 16>(args); break;
    }
  }

  void score_pairs(const ScoreMatrix& matrix, const GapPenalties& gaps, const StripPlan& plan) {
    if (group_pairs_ == 0) return;
    const PairArguments args = pair_arguments(matrix, gaps, profile16_.data, plan.passes);
    switch (plan.lanes) {
      case 1: launch_pair_groups<1>(args, plan.rows); break;
      case 2: launch_pair_groups<2>(args, plan.rows); break;
      case 4: launch_pair_groups<4>(args, plan.rows); break;
      case 8: launch_pair_groups<8>(args, plan.rows); break;
      case 16: launch_pair_groups<16>(args, plan.rows); break;
      default: launch_pair_groups<32>(args, plan.rows); break;
    }
    check_cuda(cudaGetLastError(), "launching the SW kernel");
  }

  // A short query against the long targets, transposed: warp_dp_kernel with
  // the long targets as its rows and the query as every pair's columns (one
  // copy, query_, serves them all). A Smith-Waterman score does not change
  // when the two sequences swap roles (parse_ncbi_matrix refuses asymmetric
  // matrices), and a query of a few hundred rows leaves most lanes of the
  // other way round idle. Here room for each long target's boundary row.
  void reserve_transposed_rows(std::size_t query_length) {
    const std::size_t targets = target_count_ - 2 * bulk_pairs_;
    if (transposed_scratch_.capacity < targets * query_length)
      transposed_scratch_.allocate(targets * query_length, "allocating the long targets' DP rows on the GPU");
    if (transposed_results_.capacity < targets)
      transposed_results_.allocate(targets, "allocating the long targets' scores on the GPU");
  }

  // The long targets past pair_group_kernel's (group_pairs_), transposed.
  void score_long_transposed(const GapPenalties& gaps) {
    const std::uint32_t targets = static_cast<std::uint32_t>(target_count_ - 2 * group_pairs_);
    const std::size_t skipped = 2 * (group_pairs_ - bulk_pairs_);  // long targets the groups took
    const WarpDpArguments args{long_targets_.data,
                               long_target_offsets_.data + skipped,
                               query_.data,
                               nullptr,
                               nullptr,
                               nullptr,
                               targets,
                               matrix_.data,
                               gaps.open,
                               gaps.extend,
                               transposed_scratch_.data,
                               nullptr,
                               nullptr,
                               nullptr,
                               transposed_results_.data,
                               static_cast<std::uint32_t>(query_.count)};
    const std::size_t threads = std::size_t{targets} * 32;
    warp_dp_kernel<WarpDp::kScore><<<static_cast<unsigned>((threads + kThreadsPerBlock - 1) / kThreadsPerBlock),
                                     kThreadsPerBlock, 0, long_stream_>>>(args);
    check_cuda(cudaGetLastError(), "launching the long targets' SW kernel");
    copy_scores_kernel<<<(targets + 255) / 256, 256, 0, long_stream_>>>(transposed_results_.data,
                                                                        scores_.data + 2 * group_pairs_, targets);
    check_cuda(cudaGetLastError(), "launching the long targets' score copy");
  }

  // The kExclusiveLongPairs longest pairs a block of kExclusiveBlockThreads
  // each, on their own stream; the other long pairs a block of just their
  // warps, on another.
  void score_long_pairs(const ScoreMatrix& matrix, const GapPenalties& gaps, int passes) {
    PairArguments args = pair_arguments(matrix, gaps, profile_long_.data, passes);
    args.long_warps = std::min(passes, kMaxLongWarps);
    const std::size_t end = bulk_pairs_ + long_pairs_, rest = end - group_pairs_;
    const std::size_t exclusive = std::min(kExclusiveLongPairs, rest);
    args.pair_begin = static_cast<std::uint32_t>(end - exclusive);
    args.pair_end = static_cast<std::uint32_t>(end);
    if (exclusive > 0) {
      long_pair_kernel<<<static_cast<unsigned>(exclusive), kExclusiveBlockThreads, 0, exclusive_stream_>>>(args);
      check_cuda(cudaGetLastError(), "launching the long-pair SW kernel");
    }
    if (exclusive == rest) return;
    args.pair_end = args.pair_begin;
    args.pair_begin = static_cast<std::uint32_t>(group_pairs_);
    long_pair_kernel<<<static_cast<unsigned>(rest - exclusive), 32 * args.long_warps, 0, long_stream_>>>(args);
    check_cuda(cudaGetLastError(), "launching the long-pair SW kernel");
  }

  // The 32-bit kernel's 8-bit profile of the query in query_ (the scan's),
  // padded to whole passes of 32 strips, built on stream_.
  void queue_rescore_profile(int strips) {
    const std::size_t values = static_cast<std::size_t>((strips + 31) / 32 * 32) * kAlphabetSize * kStripRows;
    if (values / 4 > profile8_.capacity) profile8_.allocate(values / 4, "allocating the query profile on the GPU");
    profile8_.count = values / 4;
    queue_query_profile(reinterpret_cast<std::int8_t*>(profile8_.data), values, kAlphabetSize, kStripRows, kStripRows,
                        0);
  }

  // Targets whose 16-bit best may have saturated, again with 32-bit cells, a warp each.
  void rescore_in_32_bits(const GapPenalties& gaps, int strips, std::uint32_t flagged) {
    const KernelArguments args{packed_.data, warps_.data, lengths_.data, flagged,       profile8_.data, strips,
                               gaps.open,    gaps.extend, scratch_.data,  scores_.data, flagged_.data};
    const std::uint32_t warps_per_block = kThreadsPerBlock / 32;
    rescore_kernel<<<(flagged + warps_per_block - 1) / warps_per_block, kThreadsPerBlock, 0, stream_>>>(args);
    check_cuda(cudaGetLastError(), "launching the 32-bit SW kernel");
    stream_.synchronize("rescoring on the GPU");
  }

  // Device memory for one batch of hits: scratch rows and traceback bits.
  static constexpr std::size_t kHitBatchBytes = std::size_t{256} << 20;

  void upload_queries_and_matrix(const std::vector<std::vector<std::uint8_t>>& queries, const ScoreMatrix& matrix) {
    std::vector<std::uint8_t> residues;
    std::vector<std::uint64_t> offsets{0};
    for (const auto& query : queries) {
      residues.insert(residues.end(), query.begin(), query.end());
      offsets.push_back(residues.size());
    }
    if (residues.empty()) residues.push_back(0);  // no empty upload; the offsets say there is nothing
    end_queries_.upload(residues.data(), residues.size(), "copying the queries to the GPU");
    end_query_offsets_.upload(offsets.data(), offsets.size(), "copying the queries to the GPU");
    upload_matrix(matrix);
  }

  // The matrix on the device (score[target code][query code], row by row), for
  // the transposed scan and the hits' kernels; uploaded only when it changes.
  void upload_matrix(const ScoreMatrix& matrix) {
    if (matrix_.data && matrix_scores_ == matrix.score) return;
    std::vector<std::int8_t> scores;
    for (const auto& row : matrix.score) scores.insert(scores.end(), row.begin(), row.end());
    matrix_.upload(scores.data(), scores.size(), "copying the matrix to the GPU");
    matrix_scores_ = matrix.score;
  }

  // A hit's end must lie inside its sequences (sw_align's own check).
  static void check_end(const std::vector<std::vector<std::uint8_t>>& queries, const HitPair& pair,
                        const LocalScore& end) {
    if (end.score == 0) return;
    if (end.query_end < 0 || end.query_end >= static_cast<int>(queries.at(pair.query).size()) ||
        end.target_end < 0 || end.target_end >= static_cast<int>(pair.target_length))
      throw std::invalid_argument("sw_align: end (" + std::to_string(end.query_end) + ", " +
                                  std::to_string(end.target_end) + ") lies outside the sequences");
  }

  // Pairs for one warp_dp_kernel launch, within kHitBatchBytes; with ends,
  // the traceback of the box up to each end (pairs scoring 0 have none).
  struct WarpDpBatch {
    std::vector<std::size_t> pairs;
    std::vector<int2> boxes;                 // traceback: (rows, columns)
    std::vector<std::uint64_t> bits_offsets; // traceback: first uint4 of each pair's bits
    std::uint64_t bits_words = 0, scratch_entries = 0;
  };
  static std::vector<WarpDpBatch> batches(const std::vector<HitPair>& pairs, const std::vector<LocalScore>& ends,
                                          const std::vector<std::vector<std::uint8_t>>& queries) {
    std::vector<WarpDpBatch> out(1);
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      const bool trace = !ends.empty();
      if (trace && ends[p].score == 0) continue;
      const int rows = trace ? ends[p].query_end + 1 : static_cast<int>(queries[pairs[p].query].size());
      const int columns = trace ? ends[p].target_end + 1 : static_cast<int>(pairs[p].target_length);
      const std::uint64_t words = trace ? static_cast<std::uint64_t>(columns) * ((rows + 31) / 32) : 0;
      const std::uint64_t bytes = words * sizeof(uint4) + static_cast<std::uint64_t>(columns) * sizeof(int2);
      WarpDpBatch* batch = &out.back();
      if (!batch->pairs.empty() &&
          (batch->bits_words + words) * sizeof(uint4) + (batch->scratch_entries + columns) * sizeof(int2) +
                  bytes > kHitBatchBytes)
        batch = &out.emplace_back();
      batch->pairs.push_back(p);
      batch->boxes.push_back(make_int2(rows, columns));
      batch->bits_offsets.push_back(batch->bits_words);
      batch->bits_words += words;
      batch->scratch_entries += static_cast<std::uint64_t>(columns);
    }
    if (out.back().pairs.empty()) out.pop_back();
    return out;
  }

  // A traceback batch's walks, back from the device.
  struct TracedBatch {
    std::vector<WalkedAlignment> walked;  // per batch pair
    std::vector<TracebackRun> runs;       // walked[k]'s at [first_run, first_run + run_count)
  };

  template <WarpDp kMode>
  std::vector<int3> run_warp_dp(const std::vector<HitPair>& pairs, const WarpDpBatch& batch, const GapPenalties& gaps,
                                TracedBatch* traced) {
    const std::size_t count = batch.pairs.size();
    std::vector<std::uint8_t> residues;
    std::vector<std::uint64_t> offsets{0}, scratch_offsets;
    std::vector<std::uint32_t> pair_query;
    std::uint64_t scratch = 0;
    for (std::size_t k = 0; k < count; ++k) {
      const HitPair& pair = pairs[batch.pairs[k]];
      const std::size_t columns = static_cast<std::size_t>(batch.boxes[k].y);  // the box's (ends: whole) target
      residues.insert(residues.end(), pair.target, pair.target + columns);
      offsets.push_back(residues.size());
      pair_query.push_back(static_cast<std::uint32_t>(pair.query));
      scratch_offsets.push_back(scratch);
      scratch += columns;
    }
    if (residues.empty()) residues.push_back(0);  // no empty upload; the offsets say there is nothing
    end_targets_.upload(residues.data(), residues.size(), "copying the hits' targets to the GPU");
    end_target_offsets_.upload(offsets.data(), offsets.size(), "copying the hits' targets to the GPU");
    end_pair_query_.upload(pair_query.data(), pair_query.size(), "copying the hits' queries to the GPU");
    end_scratch_offsets_.upload(scratch_offsets.data(), count, "copying the hits' layout to the GPU");
    end_boxes_.upload(batch.boxes.data(), count, "copying the hits' boxes to the GPU");
    end_scratch_.allocate(std::max<std::uint64_t>(scratch, 1), "allocating the hits' DP rows on the GPU");
    end_results_.allocate(count, "allocating the hits' results on the GPU");
    constexpr bool kTrace = kMode == WarpDp::kTrace;
    if (kTrace) {
      end_bits_offsets_.upload(batch.bits_offsets.data(), count, "copying the hits' layout to the GPU");
      end_bits_.allocate(std::max<std::uint64_t>(batch.bits_words, 1), "allocating the traceback bits on the GPU");
      prepare_traceback_walks(batch);
    }
    const WarpDpArguments args{end_queries_.data,   end_query_offsets_.data,   end_targets_.data,
                               end_target_offsets_.data, end_pair_query_.data, end_boxes_.data,
                               static_cast<std::uint32_t>(count), matrix_.data, gaps.open,
                               gaps.extend,         end_scratch_.data,         end_scratch_offsets_.data,
                               end_bits_.data,      end_bits_offsets_.data,    end_results_.data,
                               0};
    const std::size_t threads = count * 32;
    warp_dp_kernel<kMode><<<static_cast<unsigned>((threads + kThreadsPerBlock - 1) / kThreadsPerBlock),
                            kThreadsPerBlock, 0, stream_>>>(args);
    check_cuda(cudaGetLastError(), "launching the hits' DP kernel");
    if (kTrace) launch_traceback_walks(args);
    stream_.synchronize("the hits' dynamic programming on the GPU");
    std::vector<int3> results(count);
    check_cuda(cudaMemcpy(results.data(), end_results_.data, count * sizeof(int3), cudaMemcpyDeviceToHost),
               "copying the hits' results back");
    if (kTrace) {
      traced->walked.resize(count);
      check_cuda(cudaMemcpy(traced->walked.data(), walked_.data, count * sizeof(WalkedAlignment),
                            cudaMemcpyDeviceToHost), "copying the alignments back");
      unsigned long long used = 0;
      check_cuda(cudaMemcpy(&used, runs_used_.data, sizeof used, cudaMemcpyDeviceToHost), "copying the alignments back");
      traced->runs.resize(used);
      if (used > 0)
        check_cuda(cudaMemcpy(traced->runs.data(), runs_.data, used * sizeof(TracebackRun), cudaMemcpyDeviceToHost),
                   "copying the alignments back");
    }
    return results;
  }

  // The walks' buffers, allocated before any launch of the batch (a cudaFree
  // would wait for the kernels).
  void prepare_traceback_walks(const WarpDpBatch& batch) {
    std::vector<std::uint64_t> scratch_offsets;
    std::uint64_t room = 0;
    for (const int2& box : batch.boxes) {
      scratch_offsets.push_back(room);
      room += static_cast<std::uint64_t>(box.x) + box.y + 2;  // a walk's columns, off the matrix included
    }
    walk_scratch_offsets_.upload(scratch_offsets.data(), scratch_offsets.size(), "copying the alignments' layout to the GPU");
    walk_scratch_.allocate(room, "allocating the alignments' runs on the GPU");
    runs_.allocate(room, "allocating the alignments' runs on the GPU");
    walked_.allocate(batch.boxes.size(), "allocating the alignments on the GPU");
    if (!runs_used_.data) runs_used_.allocate(1, "allocating the alignments' runs on the GPU");
  }

  // A thread per pair walks its bits (trace_walk_kernel), in stream order after warp_dp_kernel.
  void launch_traceback_walks(const WarpDpArguments& traced) {
    check_cuda(cudaMemsetAsync(runs_used_.data, 0, sizeof(unsigned long long), stream_), "clearing the runs' count");
    const TraceWalkArguments args{traced, walk_scratch_.data, walk_scratch_offsets_.data, runs_.data, runs_used_.data,
                                  walked_.data};
    trace_walk_kernel<<<(traced.pair_count + kThreadsPerBlock - 1) / kThreadsPerBlock, kThreadsPerBlock, 0, stream_>>>(
        args);
    check_cuda(cudaGetLastError(), "launching the traceback walks");
  }

  // Device memory a loaded residue takes: its packed code (1), its warp's
  // scratch column (8), the long targets' second copy and slack. A load may
  // take half of the memory free when the engine starts.
  static constexpr std::uint64_t kDeviceBytesPerResidue = 12;

  std::string name_;
  std::uint64_t round_residues_ = 0;
  CudaStream stream_;
  CudaStream long_stream_;       // the long pairs' kernel, beside the rest
  CudaStream exclusive_stream_;  // the longest pairs' kernel, beside both
  CudaEvent long_done_, exclusive_done_;
  std::vector<std::size_t> order_;  // sorted position -> original target index
  std::size_t target_count_ = 0;
  std::size_t bulk_pairs_ = 0, long_pairs_ = 0;  // sorted pairs [0, bulk) to pair_group_kernel, the rest to long_pair_kernel
  std::size_t group_pairs_ = 0;                   // this query's pairs to pair_group_kernel (>= bulk_pairs_)
  std::vector<std::uint32_t> sorted_lengths_;     // of the loaded targets, sorted order
  std::uint64_t residues_ = 0;
  int sm_count_ = 0;
  DeviceBuffer<std::uint32_t> packed_;
  DeviceBuffer<WarpSlice> warps_;
  DeviceBuffer<std::uint32_t> lengths_;
  DeviceBuffer<int2> scratch_;
  DeviceBuffer<std::int32_t> scores_;
  DeviceBuffer<std::uint32_t> original_positions_;  // sorted position -> original target index (order_)
  DeviceBuffer<std::int32_t> unsorted_scores_;      // scores_ in the targets' own order
  DeviceBuffer<char4> profile8_;
  DeviceBuffer<uint4> profile16_, profile_long_;
  DeviceBuffer<std::uint8_t> query_;  // the scan's query, its codes
  // The transposed path (queries shorter than kTransposedQueryBelow): the
  // long pairs' targets, contiguous (query_ is every long target's columns).
  DeviceBuffer<std::uint8_t> long_targets_;
  DeviceBuffer<std::uint64_t> long_target_offsets_;
  DeviceBuffer<int2> transposed_scratch_;
  DeviceBuffer<int3> transposed_results_;
  DeviceBuffer<int2> ring_;
  DeviceBuffer<std::uint64_t> ring_offsets_;
  DeviceBuffer<std::uint32_t> flagged_, flagged_count_;
  DeviceBuffer<std::uint32_t> score_bins_, best_found_;  // best_scores(): the histogram, the count found
  DeviceBuffer<std::int32_t> best_threshold_;
  DeviceBuffer<int2> best_;                       // (sorted position, score) of the best scores
  PinnedBuffer<BestScoresHost> host_best_;
  PinnedBuffer<std::uint32_t> flagged_host_;  // queue_scan()'s saturated targets
  PinnedBuffer<std::int32_t> scores_host_;    // scores(): every target's, in its own order
  PinnedBuffer<std::uint8_t> query_host_;  // the scan's query, staged for its asynchronous copy
  // ends()
  DeviceBuffer<std::uint8_t> end_queries_, end_targets_;
  DeviceBuffer<std::uint64_t> end_query_offsets_, end_target_offsets_;
  DeviceBuffer<std::uint32_t> end_pair_query_;
  DeviceBuffer<std::int8_t> matrix_;  // upload_matrix()'s
  std::array<std::array<std::int8_t, kAlphabetSize>, kAlphabetSize> matrix_scores_{};  // what matrix_ holds
  DeviceBuffer<int2> end_scratch_, end_boxes_;
  DeviceBuffer<std::uint64_t> end_scratch_offsets_, end_bits_offsets_;
  DeviceBuffer<uint4> end_bits_;
  DeviceBuffer<int3> end_results_;
  DeviceBuffer<std::uint64_t> walk_scratch_offsets_;
  DeviceBuffer<TracebackRun> walk_scratch_, runs_;
  DeviceBuffer<unsigned long long> runs_used_;
  DeviceBuffer<WalkedAlignment> walked_;
};

}  // namespace

std::unique_ptr<SwEngine> make_gpu_engine(int device) { return std::make_unique<GpuEngine>(device); }
}  // namespace helix::swsearch
