// sw_gpu.cu: the CUDA engine of the swsearch kind (sw_engine.h): best local
// alignment scores of one query against every loaded target.
//
// Inter-sequence parallelism: targets sorted by length so that neighbours end
// together; a thread scores two neighbouring targets at once in the 16-bit
// halves of its registers (pair_kernel). It walks the DP matrices in
// horizontal strips of kStripRows query rows held in registers, sweeping the
// whole target per strip; between strips it keeps the last row's H and F in
// scratch memory. Per cell the recurrences of the reference with Hopper's DPX
// instructions (__viaddmax_s16x2: max(a + b, c); __vimax3_s16x2_relu:
// max(0, a, b, c)), which other GPUs emulate. A target whose best score could
// have saturated 16 bits is rescored with 32-bit cells (score_kernel). Only
// the best score is kept: the maximum is the same whatever order cells are
// visited in, so the score is exactly the reference's.
//
// Memory layout, per warp of 32 targets (warp w, lane l): target residues
// packed four to a word and interleaved by lane (word k of lane l at
// base_w + 32 k + l), and the scratch row the same way, so a warp's loads
// are coalesced. The query profile (score of each residue code against each
// query row, strip by strip) is read through the read-only cache.
//
// Reported hits' ends (ends(): a few pairs per query, once per WU) run the
// reference's recurrences as they are, one thread per pair (end_kernel), so
// that the host does not.
#include <cuda_runtime.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "core/cuda_support.h"
#include "sw_engine.h"

namespace helix::sw {
namespace {

// Query rows per strip, in registers. Measured on the H100 (600 k random
// targets, queries 512..4096, 16-bit kernel): 8 rows 1.2, 16 rows 2.0, 32 rows
// 2.5, 48 rows 2.7 (but more padding for short queries), 64 rows 2.0 TCUPS.
constexpr int kStripRows = 32;
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
  std::uint32_t target_count;
  const char4* profile;                  // [strip][code][kStripRows / 4] as char4
  int strips;
  int gap_open, gap_extend;
  int2* scratch;                         // per warp, entry j of lane l at scratch_base + 32 j + l: (H, F) of the strip's last row
  std::int32_t* scores;                  // sorted order
  const std::uint32_t* only;             // if not null: score only these targets (sorted order), one per thread
};

__device__ __forceinline__ int residue_at(const KernelArguments& a, const WarpSlice& warp, int lane, std::uint32_t j) {
  const std::uint32_t word = __ldg(a.packed_residues + warp.word_base + 32ull * (j / 4) + lane);
  return (word >> (8 * (j % 4))) & 0xFF;
}

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

__global__ void __launch_bounds__(kThreadsPerBlock) score_kernel(KernelArguments a) {
  const std::uint32_t thread = blockIdx.x * kThreadsPerBlock + threadIdx.x;
  if (thread >= a.target_count) return;
  const std::uint32_t target = a.only ? a.only[thread] : thread;
  const int lane = target % 32;
  const WarpSlice warp = a.warps[target / 32];
  const std::uint32_t length = a.lengths[target];
  int best = 0;
  for (int strip = 0; strip < a.strips; ++strip) {
    int h[kStripRows], e[kStripRows];
#pragma unroll
    for (int r = 0; r < kStripRows; ++r) h[r] = 0, e[r] = kNegativeInfinity;
    int boundary_h_previous = 0;  // H of the row above the strip, column j - 1 (0 at j = 0)
    const char4* strip_profile = a.profile + static_cast<std::size_t>(strip) * kAlphabetSize * (kStripRows / 4);
    for (std::uint32_t j = 0; j < length; ++j) {
      const int code = residue_at(a, warp, lane, j);
      int2* boundary = a.scratch + warp.scratch_base + 32ull * j + lane;
      int h_above = 0, f = kNegativeInfinity;  // H and F of the row above the strip, column j
      if (strip > 0) {
        const int2 saved = *boundary;
        h_above = saved.x, f = saved.y;
      }
      int diagonal = boundary_h_previous;
      boundary_h_previous = h_above;
      column_of_strip(strip_profile + code * (kStripRows / 4), a.gap_open, a.gap_extend, h, e, diagonal, h_above, f,
                      best);
      *boundary = make_int2(h_above, f);
    }
  }
  a.scores[target] = best;
}

// ------------------------------------------------------------ 16-bit pairs
//
// The fast kernel: each thread scores two neighbouring targets (sorted order
// 2p and 2p + 1) at once, in the two 16-bit halves of every register, with
// the packed DPX forms. Exactness: H >= 0 and E, F >= -(open + 1000) never
// wrap downwards; upwards, every sum is at most (largest H so far) + max
// matrix score, so while the best stays below kSaturation = 32767 - max score
// nothing can have wrapped. A half whose best reaches kSaturation is flagged
// and rescored by the 32-bit kernel. Beyond a target's end its column reads a
// padding code scoring -127 against everything: such columns can never hold a
// value above a real column's maximum.
constexpr int kPaddingCode = kAlphabetSize;  // profile rows 0..24 residues, 25 padding

struct PairArguments {
  const std::uint32_t* packed_residues;
  const WarpSlice* warps;
  const std::uint32_t* lengths;  // sorted order
  std::uint32_t target_count;
  const std::uint32_t* profile;  // [strip][code 0..25][kStripRows / 2] words, two int16 rows each
  int strips;
  std::uint32_t minus_open_pair, gap_extend_pair;  // -open and extend in both halves
  int saturation;
  int2* scratch;
  std::int32_t* scores;     // sorted order
  std::uint32_t* flagged;   // targets (sorted order) to rescore in 32 bits
  std::uint32_t* flagged_count;
};

// Residue j of a target whose packed words start at `words` (stride 32), or
// the padding code past its end.
__device__ __forceinline__ int pair_residue(const std::uint32_t* words, std::uint32_t length, std::uint32_t j) {
  if (j >= length) return kPaddingCode;
  return (__ldg(words + 32ull * (j / 4)) >> (8 * (j % 4))) & 0xFF;
}

__global__ void __launch_bounds__(kThreadsPerBlock) pair_kernel(PairArguments a) {
  // Longest pairs first: blocks start in index order, so the slowest ones
  // must not be left for the end (the tail would idle the GPU).
  const std::uint32_t pairs = (a.target_count + 1) / 2;
  const std::uint32_t thread = blockIdx.x * kThreadsPerBlock + threadIdx.x;
  if (thread >= pairs) return;
  const std::uint32_t first = 2 * (pairs - 1 - thread), second = first + 1;
  const std::uint32_t length_first = a.lengths[first];
  const std::uint32_t length_second = second < a.target_count ? a.lengths[second] : 0;
  const std::uint32_t length = max(length_first, length_second);
  const WarpSlice warp = a.warps[first / 32];  // first is even: second shares its warp slice
  const std::uint32_t* words_first = a.packed_residues + warp.word_base + first % 32;
  const std::uint32_t* words_second = words_first + 1;
  int2* scratch = a.scratch + warp.scratch_base + first % 32;  // the first target's slots hold the pair's row
  const std::uint32_t minus_infinity = 0xFC18FC18u;  // -1000 in both halves
  std::uint32_t best = 0;
  for (int strip = 0; strip < a.strips; ++strip) {
    std::uint32_t h[kStripRows], e[kStripRows];
#pragma unroll
    for (int r = 0; r < kStripRows; ++r) h[r] = 0, e[r] = minus_infinity;
    std::uint32_t boundary_h_previous = 0;
    const uint4* strip_profile =
        reinterpret_cast<const uint4*>(a.profile) + static_cast<std::size_t>(strip) * (kAlphabetSize + 1) * (kStripRows / 8);
    for (std::uint32_t j = 0; j < length; ++j) {
      const int code_first = pair_residue(words_first, length_first, j);
      const int code_second = pair_residue(words_second, length_second, j);
      int2* boundary = scratch + 32ull * j;
      std::uint32_t h_above = 0, f = minus_infinity;
      if (strip > 0) {
        const int2 saved = *boundary;
        h_above = static_cast<std::uint32_t>(saved.x), f = static_cast<std::uint32_t>(saved.y);
      }
      std::uint32_t diagonal = boundary_h_previous;
      boundary_h_previous = h_above;
      std::uint32_t rows_first[kStripRows / 2], rows_second[kStripRows / 2];
#pragma unroll
      for (int k = 0; k < kStripRows / 8; ++k) {
        const uint4 x = __ldg(strip_profile + code_first * (kStripRows / 8) + k);
        const uint4 y = __ldg(strip_profile + code_second * (kStripRows / 8) + k);
        rows_first[4 * k] = x.x, rows_first[4 * k + 1] = x.y, rows_first[4 * k + 2] = x.z, rows_first[4 * k + 3] = x.w;
        rows_second[4 * k] = y.x, rows_second[4 * k + 1] = y.y, rows_second[4 * k + 2] = y.z, rows_second[4 * k + 3] = y.w;
      }
#pragma unroll
      for (int r = 0; r < kStripRows; ++r) {
        // Row r's score for the first target in the low half, the second's in the high half.
        const std::uint32_t score = __byte_perm(rows_first[r / 2], rows_second[r / 2], r % 2 ? 0x7632 : 0x5410);
        e[r] = __viaddmax_s16x2(h[r], a.minus_open_pair, __vsub2(e[r], a.gap_extend_pair));
        f = __viaddmax_s16x2(h_above, a.minus_open_pair, __vsub2(f, a.gap_extend_pair));
        const std::uint32_t h_new = __vimax3_s16x2_relu(__vadd2(diagonal, score), e[r], f);
        diagonal = h[r];
        h[r] = h_new;
        h_above = h_new;
        best = __vmaxs2(best, h_new);
      }
      *boundary = make_int2(static_cast<int>(h_above), static_cast<int>(f));
    }
  }
  const int best_first = static_cast<std::int16_t>(best & 0xFFFF), best_second = static_cast<std::int16_t>(best >> 16);
  a.scores[first] = best_first;
  if (best_first >= a.saturation) a.flagged[atomicAdd(a.flagged_count, 1u)] = first;
  if (second < a.target_count) {
    a.scores[second] = best_second;
    if (best_second >= a.saturation) a.flagged[atomicAdd(a.flagged_count, 1u)] = second;
  }
}

// ------------------------------------------------------------ long targets
//
// Long targets (see kLongTargetLongQuery) would keep one thread busy long after the
// rest have finished, so each gets a whole warp (intra-sequence): lane k owns
// query strip 32 p + k of pass p and processes target column j at step
// j + k, taking the row above its strip (H, F at column j) from lane k - 1
// by shuffle; lane 0 takes it from the scratch row the previous pass's lane
// 31 left. 32-bit cells, so no saturation.
//
// Which targets count as long depends on the query: a warp's 32 lanes own 32
// strips of 32 rows, so a query of fewer than 16 strips (512 rows) would
// leave most lanes on padding rows. Measured on the H100, whole metastudent
// set: threshold 1024 gives 2.56 TCUPS for a 5,000-residue query (512: 2.31,
// 2048: 2.09, 4096: 1.34) but 542 GCUPS for a 100-residue one (4096: 774).
#ifndef SW_LONG_TARGET
#define SW_LONG_TARGET 1024
#endif
constexpr std::uint32_t kLongTargetLongQuery = SW_LONG_TARGET;
constexpr std::uint32_t kLongTargetShortQuery = 4096;
constexpr int kLongQueryStrips = 16;

__global__ void __launch_bounds__(kThreadsPerBlock) long_kernel(KernelArguments a, std::uint32_t first_long) {
  const std::uint32_t target = first_long + (blockIdx.x * kThreadsPerBlock + threadIdx.x) / 32;
  if (target >= a.target_count) return;  // whole warps leave together
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
  for (int step = 16; step >= 1; step /= 2) best = max(best, __shfl_xor_sync(0xffffffffu, best, step));
  if (lane == 0) a.scores[target] = best;
}

// ------------------------------------------------------------ reported hits' ends
//
// One thread per (query, target) pair, in the reference's order: target
// position j outer, query row i inner, 32-bit cells, and the best cell kept
// only when strictly better, so the end is the first cell (j, then i) that
// reaches the best score, as sw_score() has it. The column of (H, E) lives in
// scratch, interleaved by pair (row i of pair p at i * pair_count + p), so
// that a warp's lanes, on the same row, load neighbouring words.
struct EndArguments {
  const std::uint8_t* queries;         // back to back
  const std::uint64_t* query_offsets;  // query q is queries[query_offsets[q] .. query_offsets[q + 1])
  const std::uint8_t* targets;         // one per pair, back to back
  const std::uint64_t* target_offsets;
  const std::uint32_t* pair_query;
  std::uint32_t pair_count;
  const std::int8_t* matrix;  // score[target code][query code]
  int gap_open, gap_extend;
  int2* scratch;              // (H, E) of the previous column
  int3* ends;                 // (score, query end, target end), 0-based; -1 when the score is 0
};

__global__ void __launch_bounds__(kThreadsPerBlock) end_kernel(EndArguments a) {
  __shared__ int matrix[kAlphabetSize * kAlphabetSize];
  for (int k = threadIdx.x; k < kAlphabetSize * kAlphabetSize; k += blockDim.x) matrix[k] = a.matrix[k];
  __syncthreads();
  const std::uint32_t pair = blockIdx.x * kThreadsPerBlock + threadIdx.x;
  if (pair >= a.pair_count) return;
  const std::uint32_t q = a.pair_query[pair];
  const std::uint8_t* query = a.queries + a.query_offsets[q];
  const int rows = static_cast<int>(a.query_offsets[q + 1] - a.query_offsets[q]);
  const std::uint8_t* target = a.targets + a.target_offsets[pair];
  const int columns = static_cast<int>(a.target_offsets[pair + 1] - a.target_offsets[pair]);
  int2* column = a.scratch + pair;
  const std::size_t stride = a.pair_count;
  for (int i = 0; i < rows; ++i) column[i * stride] = make_int2(0, kNegativeInfinity);
  int best = 0, best_row = -1, best_column = -1;
  for (int j = 0; j < columns; ++j) {
    const int* scores = matrix + target[j] * kAlphabetSize;
    int f = kNegativeInfinity, h_above = 0, diagonal = 0;  // row 0: H = 0
    for (int i = 0; i < rows; ++i) {
      const int2 left = column[i * stride];  // H and E of row i + 1 at column j - 1
      const int e = max(left.x - a.gap_open, left.y - a.gap_extend);
      f = max(h_above - a.gap_open, f - a.gap_extend);
      const int h = max(max(0, diagonal + scores[query[i]]), max(e, f));
      diagonal = left.x;
      column[i * stride] = make_int2(h, e);
      h_above = h;
      if (h > best) best = h, best_row = i, best_column = j;
    }
  }
  a.ends[pair] = make_int3(best, best_row, best_column);
}

class GpuEngine final : public SwEngine {
 public:
  explicit GpuEngine(int device) {
    name_ = select_cuda_device(device);
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
    check_cuda(cudaStreamCreateWithFlags(&long_stream_, cudaStreamNonBlocking), "creating a stream");
    check_cuda(cudaEventCreateWithFlags(&long_done_, cudaEventDisableTiming), "creating an event");
  }
  ~GpuEngine() override {
    if (long_done_) cudaEventDestroy(long_done_);
    if (long_stream_) cudaStreamDestroy(long_stream_);
    if (stream_) cudaStreamDestroy(stream_);
  }
  std::string description() const override {
    return "GPU " + name_ + " (inter-sequence, 16-bit pairs with DPX, 32-bit rescoring)";
  }

  void load_targets(const TargetSet& targets) override {
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
    std::vector<std::uint32_t> packed(words, 0);
    for (std::size_t t = 0; t < n; ++t) {
      const std::size_t original = order_[t];
      lengths[t] = static_cast<std::uint32_t>(targets.length(original));
      const std::uint8_t* residues = targets.begin(original);
      const WarpSlice& warp = warps[t / 32];
      for (std::uint32_t j = 0; j < lengths[t]; ++j)
        packed[warp.word_base + 32 * (j / 4) + t % 32] |= static_cast<std::uint32_t>(residues[j]) << (8 * (j % 4));
    }
    packed_.upload(packed.data(), packed.size(), "copying targets to the GPU");
    warps_.upload(warps.data(), warps.size(), "copying target layout to the GPU");
    lengths_.upload(lengths.data(), lengths.size(), "copying target lengths to the GPU");
    scratch_.allocate(scratch, "allocating the DP scratch rows on the GPU");
    scores_.allocate(n, "allocating scores on the GPU");
    flagged_.allocate(n, "allocating the saturation list on the GPU");
    flagged_count_.allocate(1, "allocating the saturation count on the GPU");
    target_count_ = n;
    // Sorted: the targets up to a threshold are a prefix.
    short_count_long_query_ = static_cast<std::size_t>(
        std::upper_bound(lengths.begin(), lengths.end(), kLongTargetLongQuery) - lengths.begin());
    short_count_short_query_ = static_cast<std::size_t>(
        std::upper_bound(lengths.begin(), lengths.end(), kLongTargetShortQuery) - lengths.begin());
  }

  std::vector<std::int32_t> scores(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix,
                                   const GapPenalties& gaps) override {
    std::vector<std::int32_t> result(target_count_, 0);
    if (target_count_ == 0 || query.empty()) return result;
    check_gaps(gaps);
    const int strips = static_cast<int>((query.size() + kStripRows - 1) / kStripRows);
    short_count_ = strips >= kLongQueryStrips ? short_count_long_query_ : short_count_short_query_;
    // Both profiles before any launch: reallocating a buffer (cudaFree) while
    // a kernel runs would wait for it.
    upload_profile8(query, matrix, strips);
    upload_profile16(query, matrix, strips);
    // Long targets on their own stream, started first, beside the pairs.
    if (short_count_ < target_count_) score_long_targets(query, matrix, gaps, strips);
    if (short_count_ > 0) score_pairs(query, matrix, gaps, strips);
    check_cuda(cudaEventRecord(long_done_, long_stream_), "recording the long targets' end");
    check_cuda(cudaStreamWaitEvent(stream_, long_done_, 0), "joining the long targets' stream");
    std::uint32_t flagged = 0;
    check_cuda(cudaMemcpyAsync(&flagged, flagged_count_.data, sizeof flagged, cudaMemcpyDeviceToHost, stream_),
               "copying the saturation count back");
    check_cuda(cudaStreamSynchronize(stream_), "scoring on the GPU");
    if (flagged > 0) rescore_in_32_bits(query, matrix, gaps, strips, flagged);
    std::vector<std::int32_t> sorted(target_count_);
    check_cuda(cudaMemcpy(sorted.data(), scores_.data, target_count_ * sizeof(std::int32_t), cudaMemcpyDeviceToHost),
               "copying scores back");
    for (std::size_t t = 0; t < target_count_; ++t) result[order_[t]] = sorted[t];
    return result;
  }

  std::vector<LocalScore> ends(const std::vector<std::vector<std::uint8_t>>& queries,
                               const std::vector<HitPair>& pairs, const ScoreMatrix& matrix,
                               const GapPenalties& gaps) override {
    std::vector<LocalScore> out;
    out.reserve(pairs.size());
    if (pairs.empty()) return out;
    check_gaps(gaps);
    upload_queries_and_matrix(queries, matrix);
    std::size_t longest_query = 1;
    for (const auto& query : queries) longest_query = std::max(longest_query, query.size());
    // Batches whose scratch stays within kEndScratchBytes (a long query's
    // column is long: titin's is 280 kB).
    const std::size_t batch = std::max<std::size_t>(1, kEndScratchBytes / (sizeof(int2) * longest_query));
    for (std::size_t first = 0; first < pairs.size(); first += batch) {
      const std::size_t count = std::min(batch, pairs.size() - first);
      for (const int3& end : ends_of_batch(pairs, first, count, longest_query, gaps))
        out.push_back(LocalScore{end.x, end.y, end.z});
    }
    return out;
  }

 private:
  // The query's score against every residue code (and padding), strip by
  // strip, each row widened to `Score`.
  template <typename Score>
  std::vector<Score> make_profile(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix, int strips,
                                  int codes) const {
    std::vector<Score> profile(static_cast<std::size_t>(strips) * codes * kStripRows, kPaddingScore);
    for (int strip = 0; strip < strips; ++strip)
      for (int code = 0; code < kAlphabetSize; ++code)
        for (int r = 0; r < kStripRows; ++r) {
          const std::size_t row = static_cast<std::size_t>(strip) * kStripRows + r;
          if (row < query.size())
            profile[(static_cast<std::size_t>(strip) * codes + code) * kStripRows + r] = matrix.score[code][query[row]];
        }
    return profile;
  }

  void upload_profile16(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix, int strips) {
    const std::vector<std::int16_t> profile = make_profile<std::int16_t>(query, matrix, strips, kAlphabetSize + 1);
    profile16_.upload(reinterpret_cast<const std::uint32_t*>(profile.data()), profile.size() / 2,
                      "copying the query profile");
  }

  void score_pairs(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix, const GapPenalties& gaps,
                   int strips) {
    check_cuda(cudaMemsetAsync(flagged_count_.data, 0, sizeof(std::uint32_t), stream_), "clearing the saturation count");
    const std::uint32_t minus_open = static_cast<std::uint16_t>(-gaps.open);
    PairArguments args{packed_.data,
                       warps_.data,
                       lengths_.data,
                       static_cast<std::uint32_t>(short_count_),
                       profile16_.data,
                       strips,
                       minus_open * 0x10001u,
                       static_cast<std::uint32_t>(gaps.extend) * 0x10001u,
                       32767 - matrix.max_score,
                       scratch_.data,
                       scores_.data,
                       flagged_.data,
                       flagged_count_.data};
    const std::size_t pairs = (short_count_ + 1) / 2;
    pair_kernel<<<static_cast<unsigned>((pairs + kThreadsPerBlock - 1) / kThreadsPerBlock), kThreadsPerBlock, 0,
                  stream_>>>(args);
    check_cuda(cudaGetLastError(), "launching the SW kernel");
  }

  // The 8-bit profile of the 32-bit kernels, padded to whole passes of 32 strips.
  void upload_profile8(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix, int strips) {
    const int padded = (strips + 31) / 32 * 32;
    const std::vector<std::int8_t> profile = make_profile<std::int8_t>(query, matrix, padded, kAlphabetSize);
    profile8_.upload(reinterpret_cast<const char4*>(profile.data()), profile.size() / 4, "copying the query profile");
  }

  // Targets longer than kLongTarget: a warp each.
  void score_long_targets(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix, const GapPenalties& gaps,
                          int strips) {
    KernelArguments args{packed_.data, warps_.data, lengths_.data, static_cast<std::uint32_t>(target_count_),
                         profile8_.data, strips, gaps.open, gaps.extend, scratch_.data, scores_.data, nullptr};
    const std::size_t warps = target_count_ - short_count_;
    const std::size_t per_block = kThreadsPerBlock / 32;
    long_kernel<<<static_cast<unsigned>((warps + per_block - 1) / per_block), kThreadsPerBlock, 0, long_stream_>>>(
        args, static_cast<std::uint32_t>(short_count_));
    check_cuda(cudaGetLastError(), "launching the long-target SW kernel");
  }

  // Targets whose 16-bit best may have saturated, again with 32-bit cells.
  void rescore_in_32_bits(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix, const GapPenalties& gaps,
                          int strips, std::uint32_t flagged) {
    KernelArguments args{packed_.data, warps_.data, lengths_.data, flagged, profile8_.data, strips, gaps.open,
                         gaps.extend, scratch_.data, scores_.data, flagged_.data};
    score_kernel<<<(flagged + kThreadsPerBlock - 1) / kThreadsPerBlock, kThreadsPerBlock, 0, stream_>>>(args);
    check_cuda(cudaGetLastError(), "launching the 32-bit SW kernel");
    check_cuda(cudaStreamSynchronize(stream_), "rescoring on the GPU");
  }

  static constexpr std::size_t kEndScratchBytes = std::size_t{128} << 20;

  void upload_queries_and_matrix(const std::vector<std::vector<std::uint8_t>>& queries, const ScoreMatrix& matrix) {
    std::vector<std::uint8_t> residues;
    std::vector<std::uint64_t> offsets{0};
    for (const auto& query : queries) {
      residues.insert(residues.end(), query.begin(), query.end());
      offsets.push_back(residues.size());
    }
    end_queries_.upload(residues.data(), residues.size(), "copying the queries to the GPU");
    end_query_offsets_.upload(offsets.data(), offsets.size(), "copying the queries to the GPU");
    std::vector<std::int8_t> scores;
    for (const auto& row : matrix.score) scores.insert(scores.end(), row.begin(), row.end());
    end_matrix_.upload(scores.data(), scores.size(), "copying the matrix to the GPU");
  }

  std::vector<int3> ends_of_batch(const std::vector<HitPair>& pairs, std::size_t first, std::size_t count,
                                  std::size_t longest_query, const GapPenalties& gaps) {
    std::vector<std::uint8_t> residues;
    std::vector<std::uint64_t> offsets{0};
    std::vector<std::uint32_t> pair_query;
    for (std::size_t p = first; p < first + count; ++p) {
      residues.insert(residues.end(), pairs[p].target, pairs[p].target + pairs[p].target_length);
      offsets.push_back(residues.size());
      pair_query.push_back(static_cast<std::uint32_t>(pairs[p].query));
    }
    end_targets_.upload(residues.data(), residues.size(), "copying the hits' targets to the GPU");
    end_target_offsets_.upload(offsets.data(), offsets.size(), "copying the hits' targets to the GPU");
    end_pair_query_.upload(pair_query.data(), pair_query.size(), "copying the hits' queries to the GPU");
    end_scratch_.allocate(count * longest_query, "allocating the hits' DP columns on the GPU");
    end_results_.allocate(count, "allocating the hits' ends on the GPU");
    const EndArguments args{end_queries_.data, end_query_offsets_.data, end_targets_.data, end_target_offsets_.data,
                            end_pair_query_.data, static_cast<std::uint32_t>(count), end_matrix_.data, gaps.open,
                            gaps.extend, end_scratch_.data, end_results_.data};
    end_kernel<<<static_cast<unsigned>((count + kThreadsPerBlock - 1) / kThreadsPerBlock), kThreadsPerBlock, 0,
                 stream_>>>(args);
    check_cuda(cudaGetLastError(), "launching the hits' end kernel");
    check_cuda(cudaStreamSynchronize(stream_), "finding the hits' ends on the GPU");
    std::vector<int3> ends(count);
    check_cuda(cudaMemcpy(ends.data(), end_results_.data, count * sizeof(int3), cudaMemcpyDeviceToHost),
               "copying the hits' ends back");
    return ends;
  }

  std::string name_;
  cudaStream_t stream_ = nullptr;
  cudaStream_t long_stream_ = nullptr;  // the long targets' kernel, beside the pairs'
  cudaEvent_t long_done_ = nullptr;
  std::vector<std::size_t> order_;  // sorted position -> original target index
  std::size_t target_count_ = 0;
  std::size_t short_count_ = 0;  // this query's: sorted targets [0, short_count_) go to the pair kernel, the rest to long_kernel
  std::size_t short_count_long_query_ = 0, short_count_short_query_ = 0;
  DeviceBuffer<std::uint32_t> packed_;
  DeviceBuffer<WarpSlice> warps_;
  DeviceBuffer<std::uint32_t> lengths_;
  DeviceBuffer<int2> scratch_;
  DeviceBuffer<std::int32_t> scores_;
  DeviceBuffer<char4> profile8_;
  DeviceBuffer<std::uint32_t> profile16_;
  DeviceBuffer<std::uint32_t> flagged_, flagged_count_;
  // ends()
  DeviceBuffer<std::uint8_t> end_queries_, end_targets_;
  DeviceBuffer<std::uint64_t> end_query_offsets_, end_target_offsets_;
  DeviceBuffer<std::uint32_t> end_pair_query_;
  DeviceBuffer<std::int8_t> end_matrix_;
  DeviceBuffer<int2> end_scratch_;
  DeviceBuffer<int3> end_results_;
};

}  // namespace

std::unique_ptr<SwEngine> make_gpu_engine(int device) { return std::make_unique<GpuEngine>(device); }
int sw_gpu_device_count() { return cuda_device_count(); }

}  // namespace helix::sw
