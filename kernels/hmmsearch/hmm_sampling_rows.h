// hmm_sampling_rows.h: the sampling of one multi-domain region in hmmsearch's
// domain definition (HMMER 3.3.2's region_trace_ensemble: stochastic
// tracebacks from the region's Forward matrix, each trace's domains as
// segment pairs, and each residue's null2 odds summed over the traces),
// written once for the CPU reference and the CUDA engine: every function is
// __host__ __device__ and reads raw striped rows (hmm_dp_rows.h's layout).
//
// It walks each trace from its end, as p7_StochasticTrace does, making the
// same draws from Easel's generator with the same float and double
// arithmetic as hmm_sampling.cpp's stochastic_trace(); instead of keeping
// the path it keeps what the ensemble needs: each domain's ends (as
// Trace::index_domains gives them) and its null2 odds (as null2_by_trace
// gives them), added to the residues' sums as add_trace_null2 does. The
// hmm_sampling tests check both routes against each other.
#pragma once
#include <cstdint>

#include "hmm_envelope_rows.h"

namespace helix::hmmsearch {

// Bit y of mask[x] is set when residue code x includes residue y (0..19).
struct CodeMembers {
  std::uint32_t mask[kCodes];
};

// One domain of one sampled trace: residues i..j of the region (1-based, its
// first and last match), nodes k..m.
struct SampledPair {
  int sample = 0;
  int i = 0, j = 0, k = 0, m = 0;
};

enum SamplingStatus : int {
  kSampled = 0,
  kSamplePairsFull = 1,       // more domains than the room given: sample again with more
  kSampleNoPredecessor = 2,   // a state no path leads to: not a Forward matrix of the region
};

// Where sample_region_rows() works and writes.
struct SamplingScratch {
  float* usage;        // M + 1 floats, all 0 (left 0)
  int* used;           // M ints
  SampledPair* pairs;  // room for `room` pairs, in sample order, domains in sequence order
  int room;
  float* sums;         // Lr floats, all 0: each residue's null2 odds summed over the samples
  // False: write no usage, nodes or pairs (on the GPU all lanes of a warp
  // walk the region in step and share the sums; one lane keeps the rest).
  bool keep = true;
};

namespace sampling {

// Easel's fast generator (esl_random with the "fast" LCG) from its state.
struct EaselStream {
  std::uint32_t x;
  HELIX_HMM_HD double uniform() {
    x = x * 69069u + 1u;
    return x / 4294967296.0;
  }
};

// esl_vec_FNorm: divide by the Kahan-compensated float sum (esl_vec_FSum),
// or make the vector uniform when it sums to zero. The normalized values are
// what FChoose sees, so its rounding is part of each choice. The choices
// take arrays of a size known at compile time: their loops unroll and the
// candidates stay in registers on the GPU.
template <int N>
HELIX_HMM_HD void normalize_like_easel(float (&p)[N]) {
  const float sum = easel_float_sum(p, N);
  if (sum != 0.0f) {
    HELIX_HMM_UNROLL
    for (int c = 0; c < N; ++c) p[c] /= sum;
  } else {
    HELIX_HMM_UNROLL
    for (int c = 0; c < N; ++c) p[c] = static_cast<float>(1.0 / static_cast<float>(N));
  }
}

// esl_rnd_FChoose: index 0..N-1 drawn with probability p[i] / sum(p), one
// draw, then the deviate compared with the running sum over the total, both
// in double (a float deviate could round up to 1); -1 when nothing is chosen
// (probabilities zero or NaN).
template <int N>
HELIX_HMM_HD int fchoose(EaselStream& rng, const float (&p)[N]) {
  const double roll = rng.uniform();
  double norm = 0.0;
  HELIX_HMM_UNROLL
  for (int c = 0; c < N; ++c) norm += p[c];
  double running = 0.0;
  for (int c = 0; c < N; ++c) {
    running += static_cast<double>(p[c]);
    if (roll < running / norm) return c;
  }
  return -1;
}

// A predecessor's choice: the candidates normalized, then one draw.
template <int N>
HELIX_HMM_HD int choose(EaselStream& rng, float (&p)[N]) {
  normalize_like_easel(p);
  return fchoose(rng, p);
}

// What choose() compares its deviate with, made before the draw: the
// candidates normalized, then fchoose()'s quotients q[c] = (p[0] + ... +
// p[c]) / (p[0] + ... + p[N-1]), the same double additions and divisions.
// The choice of a deviate `roll` is the first c with roll < q[c]
// (first_below()), or -1 (none: NaN).
template <int N>
HELIX_HMM_HD void choice_quotients(float (&p)[N], double (&q)[N]) {
  normalize_like_easel(p);
  double norm = 0.0;
  HELIX_HMM_UNROLL
  for (int c = 0; c < N; ++c) norm += p[c];
  double running = 0.0;
  HELIX_HMM_UNROLL
  for (int c = 0; c < N; ++c) {
    running += static_cast<double>(p[c]);
    q[c] = running / norm;
  }
}
template <int N>
HELIX_HMM_HD int first_below(double roll, const double (&q)[N]) {
  int chosen = -1;
  HELIX_HMM_UNROLL
  for (int c = N - 1; c >= 0; --c)
    if (roll < q[c]) chosen = c;
  return chosen;
}

// The region's Forward matrix and the profile, as the choices read them.
struct ForwardCells {
  const StripedOdds& p;
  const float* rows;
  const float* x;
  int L;  // rows 0..L
  HELIX_HMM_HD float m(int i, int k) const { return rows::node_cell(rows, p.Q, i, k, rows::kCellM); }
  HELIX_HMM_HD float d(int i, int k) const { return rows::node_cell(rows, p.Q, i, k, rows::kCellD); }
  HELIX_HMM_HD float ins(int i, int k) const { return rows::node_cell(rows, p.Q, i, k, rows::kCellI); }
  HELIX_HMM_HD float t(int k, int which) const { return rows::node_transition(p, k, which); }
  HELIX_HMM_HD float dd(int k) const { return rows::node_dd(p, k); }
  HELIX_HMM_HD float special(int i, int cell) const { return x[i * kSpecialCells + cell]; }
};

// The candidates of each step's choice (HMMER's select_*), unnormalized.
// Node 0 holds nothing (HMMER shifts zeros in).
HELIX_HMM_HD void match_candidates(const ForwardCells& f, int i, int k, float (&path)[4]) {
  path[0] = f.special(i - 1, kXB) * f.t(k, rows::kTBM);
  path[1] = path[2] = path[3] = 0.0f;
  if (k > 1) {
    path[1] = f.m(i - 1, k - 1) * f.t(k, rows::kTMM);
    path[2] = f.ins(i - 1, k - 1) * f.t(k, rows::kTIM);
    path[3] = f.d(i - 1, k - 1) * f.t(k, rows::kTDM);
  }
}
HELIX_HMM_HD void delete_candidates(const ForwardCells& f, int i, int k, float (&path)[2]) {
  path[0] = path[1] = 0.0f;
  if (k > 1) {
    path[0] = f.m(i, k - 1) * f.t(k - 1, rows::kTMD);
    path[1] = f.d(i, k - 1) * f.dd(k - 1);
  }
}
HELIX_HMM_HD void insert_candidates(const ForwardCells& f, int i, int k, float (&path)[2]) {
  path[0] = f.m(i - 1, k) * f.t(k, rows::kTMI);
  path[1] = f.ins(i - 1, k) * f.t(k, rows::kTII);
}
// Row i's E is stored after rescaling, so HMMER multiplies its scale back in
// to compare it with row i-1's value: (E * t) * scale, in that order.
HELIX_HMM_HD void c_candidates(const ForwardCells& f, int i, float (&path)[2]) {
  path[0] = f.special(i - 1, kXC) * f.p.special.c_loop;
  path[1] = f.special(i, kXE) * f.p.special.e_move * f.special(i, kXScale);
}
HELIX_HMM_HD void j_candidates(const ForwardCells& f, int i, float (&path)[2]) {
  path[0] = f.special(i - 1, kXJ) * f.p.special.j_loop;
  path[1] = f.special(i, kXE) * f.p.special.e_loop * f.special(i, kXScale);
}
HELIX_HMM_HD void b_candidates(const ForwardCells& f, int i, float (&path)[2]) {
  path[0] = f.special(i, kXN) * f.p.special.n_move;
  path[1] = f.special(i, kXJ) * f.p.special.j_move;
}

// Where the walk's choices are made. On the CPU, at each step: the
// candidates, then choose(). On the GPU the whole warp walks in step
// (hmm_gpu_sampling.cu), and made so, each choice is a chain of dependent
// loads and divisions on one lane's path. But a step's candidates and
// quotients do not depend on the draws, and the walk moves along lines: down
// a diagonal in a domain (a match step a row), down a column (inserts),
// along a row (deletes), down the rows (C, J, B). So each step kind keeps a
// window: lane j holds the quotients of the step j positions further along
// the line, all 32 made at once when the walk enters the window, and a step
// inside it is a draw, a comparison and a shuffle. Most steps stay on their
// line (M -> M, ...), and those runs go up to 32 steps at once
// (ChoiceWindow::run); the CPU takes the same runs one step at a time.
#ifdef __CUDA_ARCH__
// Easel's generator jumped ahead: lane j holds (a, c) such that the state
// j + 1 draws after x is a x + c (mod 2^32), so that the lanes can take the
// draws of 32 steps at once.
struct DrawsAhead {
  std::uint32_t a = 69069u, c = 1u;
  __device__ DrawsAhead() {
    for (int j = 0; j < static_cast<int>(threadIdx.x % 32); ++j) a *= 69069u, c = c * 69069u + 1u;
  }
};

template <int N>
struct ChoiceWindow {
  int top = -1, line = 0;  // lane j: the step at position top - j of this line
  double quotient[N] = {};
  // Loads the window at `position` of line `on_line` unless it holds it;
  // candidates(position', path) gives those of the step at any position' of
  // that line at or below it.
  template <class Candidates>
  __device__ __forceinline__ void hold(int position, int on_line, Candidates candidates) {
    if (on_line != line || position > top || position <= top - 32) {
      top = position, line = on_line;
      float path[N];
      candidates(position - static_cast<int>(threadIdx.x % 32), path);
      choice_quotients(path, quotient);
    }
  }
  // The choice at `position` of line `on_line`.
  template <class Candidates>
  __device__ __forceinline__ int choose(EaselStream& rng, int position, int on_line, Candidates candidates) {
    hold(position, on_line, candidates);
    const double roll = rng.uniform();
    return __shfl_sync(0xffffffffu, first_below(roll, quotient), top - position);
  }
  // The steps from `position` on, down the line, for as long as each makes
  // choice `stay` (which keeps the walk on the line, a position further):
  // the lanes from the step's own on test each step at once, with the draw
  // it gets when every step before it stayed, until one does not stay, the
  // window ends, or a position where valid(position') is false. Returns
  // the number of steps r >= 1, with `last` the r-th step's choice (`stay`
  // where the window or the valid positions ended the run); rng has made r
  // draws, as r steps one after another would.
  template <class Candidates, class Valid>
  __device__ __forceinline__ int run(EaselStream& rng, const DrawsAhead& ahead, int position, int on_line, int stay,
                                     Candidates candidates, Valid valid, int& last) {
    const unsigned all = 0xffffffffu;
    hold(position, on_line, candidates);
    const int lane = threadIdx.x % 32, first = top - position, step = lane - first;
    const std::uint32_t a = __shfl_sync(all, ahead.a, step & 31), c = __shfl_sync(all, ahead.c, step & 31);
    const std::uint32_t x = a * rng.x + c;
    const bool takes = step >= 0 && valid(top - lane);
    const int choice = first_below(x / 4294967296.0, quotient);
    const unsigned ends = __ballot_sync(all, step >= 0 && (!takes || choice != stay));
    const int end = ends == 0 ? 32 : __ffs(ends) - 1;
    const bool end_taken = end < 32 && (__ballot_sync(all, takes) >> end & 1u);
    const int last_lane = end_taken ? end : end - 1;  // > first - 1: the run's first step is valid
    last = end_taken ? __shfl_sync(all, choice, end) : stay;
    rng.x = __shfl_sync(all, x, last_lane);
    return last_lane - first + 1;
  }
};
template <int N>
__device__ __forceinline__ void no_candidates(float (&path)[N]) {
  HELIX_HMM_UNROLL
  for (int c = 0; c < N; ++c) path[c] = 0.0f;
}
struct WalkChoices {
  ChoiceWindow<4> match;  // position i, line i - k
  ChoiceWindow<2> remove, insert, c, j, b;  // remove (a delete step): position k, line i; insert: i, line k; C, J, B: i
  const ForwardCells& f;
  const DrawsAhead ahead;
  __device__ explicit WalkChoices(const ForwardCells& cells) : f(cells) {}
  // Each line's candidates, by position on it; zeros where no step can be.
  __device__ auto match_line(int diagonal) const {
    return [this, diagonal](int row, float (&path)[4]) {
      if (row >= 1 && row - diagonal >= 1) match_candidates(f, row, row - diagonal, path); else no_candidates(path);
    };
  }
  __device__ auto delete_line(int i) const {
    return [this, i](int node, float (&path)[2]) { delete_candidates(f, i, node, path); };
  }
  __device__ auto insert_line(int k) const {
    return [this, k](int row, float (&path)[2]) {
      if (row >= 1) insert_candidates(f, row, k, path); else no_candidates(path);
    };
  }
  __device__ auto c_line() const {
    return [this](int row, float (&path)[2]) { if (row >= 1) c_candidates(f, row, path); else no_candidates(path); };
  }
  __device__ auto j_line() const {
    return [this](int row, float (&path)[2]) { if (row >= 1) j_candidates(f, row, path); else no_candidates(path); };
  }
  // Runs (ChoiceWindow::run): steps from the current one on while each
  // stays on its line (M -> M, D -> D, I -> I, C -> C, J -> J).
  __device__ int match_run(EaselStream& rng, int i, int k, int& last) {
    const int diagonal = i - k;
    return match.run(rng, ahead, i, diagonal, 1, match_line(diagonal),
                     [diagonal](int row) { return row >= 1 && row - diagonal >= 1; }, last);
  }
  __device__ int delete_run(EaselStream& rng, int i, int k, int& last) {
    return remove.run(rng, ahead, k, i, 1, delete_line(i), [](int node) { return node >= 1; }, last);
  }
  __device__ int insert_run(EaselStream& rng, int i, int k, int& last) {
    return insert.run(rng, ahead, i, k, 1, insert_line(k), [](int row) { return row >= 1; }, last);
  }
  __device__ int c_run(EaselStream& rng, int i, int& last) {
    return c.run(rng, ahead, i, 0, 0, c_line(), [](int row) { return row >= 1; }, last);
  }
  __device__ int j_run(EaselStream& rng, int i, int& last) {
    return j.run(rng, ahead, i, 0, 0, j_line(), [](int row) { return row >= 1; }, last);
  }
  __device__ int of_b(EaselStream& rng, int i) {
    return b.choose(rng, i, 0, [this](int row, float (&path)[2]) {
      if (row >= 0) b_candidates(f, row, path); else no_candidates(path);
    });
  }
};
#else
struct WalkChoices {
  const ForwardCells& f;
  explicit WalkChoices(const ForwardCells& cells) : f(cells) {}
  template <int N, class Candidates>
  int of(EaselStream& rng, Candidates candidates) {
    float path[N];
    candidates(path);
    return choose(rng, path);
  }
  int of_match(EaselStream& rng, int i, int k) {
    return of<4>(rng, [&](float (&path)[4]) { match_candidates(f, i, k, path); });
  }
  int of_delete(EaselStream& rng, int i, int k) {
    return of<2>(rng, [&](float (&path)[2]) { delete_candidates(f, i, k, path); });
  }
  int of_insert(EaselStream& rng, int i, int k) {
    return of<2>(rng, [&](float (&path)[2]) { insert_candidates(f, i, k, path); });
  }
  int of_c(EaselStream& rng, int i) { return of<2>(rng, [&](float (&path)[2]) { c_candidates(f, i, path); }); }
  int of_j(EaselStream& rng, int i) { return of<2>(rng, [&](float (&path)[2]) { j_candidates(f, i, path); }); }
  int of_b(EaselStream& rng, int i) { return of<2>(rng, [&](float (&path)[2]) { b_candidates(f, i, path); }); }
  // The GPU's runs one step after another: up to 32 steps while each
  // chooses `stay` and the next position can take a step, so that the walk's
  // bookkeeping of runs is the same code on both.
  template <class Step, class Valid>
  static int run(int stay, Step step, Valid valid, int& last) {
    int steps = 0;
    do last = step(steps++);
    while (last == stay && steps < 32 && valid(steps));
    return steps;
  }
  int match_run(EaselStream& rng, int i, int k, int& last) {
    return run(1, [&](int n) { return of_match(rng, i - n, k - n); }, [&](int n) { return i - n >= 1 && k - n >= 1; },
               last);
  }
  int delete_run(EaselStream& rng, int i, int k, int& last) {
    return run(1, [&](int n) { return of_delete(rng, i, k - n); }, [&](int n) { return k - n >= 1; }, last);
  }
  int insert_run(EaselStream& rng, int i, int k, int& last) {
    return run(1, [&](int n) { return of_insert(rng, i - n, k); }, [&](int n) { return i - n >= 1; }, last);
  }
  int c_run(EaselStream& rng, int i, int& last) {
    return run(0, [&](int n) { return of_c(rng, i - n); }, [&](int n) { return i - n >= 1; }, last);
  }
  int j_run(EaselStream& rng, int i, int& last) {
    return run(0, [&](int n) { return of_j(rng, i - n); }, [&](int n) { return i - n >= 1; }, last);
  }
};
#endif

// The predecessor each choice stands for (HMMER's select_*); -1 when no
// predecessor is possible.
HELIX_HMM_HD int match_predecessor(int choice) {
  return choice < 0 ? -1 : choice == 0 ? kTraceB : choice == 1 ? kTraceM : choice == 2 ? kTraceI : kTraceD;
}
HELIX_HMM_HD int delete_predecessor(int choice) { return choice < 0 ? -1 : (choice == 0 ? kTraceM : kTraceD); }
HELIX_HMM_HD int insert_predecessor(int choice) { return choice < 0 ? -1 : (choice == 0 ? kTraceM : kTraceI); }
HELIX_HMM_HD int c_predecessor(int choice) { return choice < 0 ? -1 : (choice == 0 ? kTraceC : kTraceE); }
HELIX_HMM_HD int j_predecessor(int choice) { return choice < 0 ? -1 : (choice == 0 ? kTraceJ : kTraceE); }
HELIX_HMM_HD int b_predecessor(int choice) { return choice < 0 ? -1 : (choice == 0 ? kTraceN : kTraceJ); }
#ifndef __CUDA_ARCH__
// One step's predecessor, one draw (stochastic_trace(), which keeps the path).
inline int previous_of_match(EaselStream& rng, WalkChoices& w, int i, int k) {
  return match_predecessor(w.of_match(rng, i, k));
}
inline int previous_of_delete(EaselStream& rng, WalkChoices& w, int i, int k) {
  return delete_predecessor(w.of_delete(rng, i, k));
}
inline int previous_of_insert(EaselStream& rng, WalkChoices& w, int i, int k) {
  return insert_predecessor(w.of_insert(rng, i, k));
}
inline int previous_of_c(EaselStream& rng, WalkChoices& w, int i) { return c_predecessor(w.of_c(rng, i)); }
inline int previous_of_j(EaselStream& rng, WalkChoices& w, int i) { return j_predecessor(w.of_j(rng, i)); }
#endif
HELIX_HMM_HD int previous_of_b(EaselStream& rng, WalkChoices& w, int i) { return b_predecessor(w.of_b(rng, i)); }
#ifdef __CUDA_ARCH__
// previous_of_e()'s choice without its serial sum where that is safe. The
// CPU adds the candidates' terms (nonnegative floats) one by one in double,
// in striped order (position s: segment s / 8, its four match lanes, then
// its four delete lanes), and takes the first whose running sum S_n passes
// the deviate. The warp sums them in another order, in two levels: each
// lane adds the segments of its 32nd of the row serially, a scan over the
// lanes' totals finds the 32nd where the sum passes the deviate, and a scan
// inside it (32 positions at a time) finds the position. That sum S'_n of
// the same terms is within (n + depth) u of the exact sum, as S_n is (n <=
// 8Q terms, depth <= Q / 4 + 24), so |S_n - S'_n| <= slack * S'_n with slack
// = (8Q + 64) DBL_EPSILON, doubled for margin. S_n never decreases, so
// when the first position where roll < S'_n + bound is also the first
// where roll < S'_n - bound, it is the CPU's choice (no earlier 32nd can
// hold it: the sum at its end, plus the bound, is short of the deviate).
// Otherwise (a deviate within the bound of a sum, about one draw in 10^10;
// a total short of the deviate, where HMMER goes round again; a
// non-finite sum) this returns false and the serial sum decides.
__device__ double inclusive_warp_scan(double value) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const double before = __shfl_up_sync(0xffffffffu, value, offset);
    if (lane >= offset) value += before;
  }
  return value;
}
// Position s of row i's E candidates: its node, whether a delete, and its
// term. Not valid (term 0, which the CPU skips: adding 0 changes nothing):
// a padding node, or s at or past `end`.
struct ECandidate {
  int node;
  bool is_delete, valid;
  double term;
  __device__ ECandidate(const ForwardCells& f, const float* row, int s, float norm, int end) {
    const int q = s / 8;
    node = (s % 4) * f.p.Q + q + 1, is_delete = (s % 8) / 4 == 1, valid = s < end && node <= f.p.M;
    term = valid ? static_cast<double>(row[q * 12 + s % 8] * norm) : 0.0;  // the row's segment q: M, D, I lanes
  }
};
__device__ bool scan_finds_e_predecessor(const ForwardCells& f, int i, double roll, float norm, int& kind, int& k) {
  const int Q = f.p.Q, lane = threadIdx.x % 32;
  const unsigned all = 0xffffffffu;
  const double slack = (8.0 * Q + 64.0) * 2.220446049250313e-16;
  const float* row = f.rows + static_cast<std::size_t>(i) * 12 * Q;
  // Level 1: lane j's segments, serially, eight loads at a time.
  const int per_lane = (Q + 31) / 32, q_begin = min(lane * per_lane, Q), q_end = min(q_begin + per_lane, Q);
  double share = 0.0;
  for (int s0 = 8 * q_begin; s0 < 8 * q_end; s0 += 8) {
    double term[8];
#pragma unroll
    for (int t = 0; t < 8; ++t) term[t] = ECandidate(f, row, s0 + t, norm, 8 * q_end).term;
#pragma unroll
    for (int t = 0; t < 8; ++t) share += term[t];
  }
  const double through = inclusive_warp_scan(share);  // the sum through lane j's 32nd
  if (__any_sync(all, !isfinite(through))) return false;
  const unsigned may_pass = __ballot_sync(all, roll < through + slack * through);
  if (may_pass == 0) return false;  // short of the deviate: HMMER's next round, serially
  // Level 2: inside the first 32nd that may pass, 32 positions at a time.
  const int owner = __ffs(may_pass) - 1;
  const double through_previous = __shfl_up_sync(all, through, 1);
  const double before_owner = owner == 0 ? 0.0 : __shfl_sync(all, through_previous, owner);
  const int s_end = 8 * __shfl_sync(all, q_end, owner);
  double total = before_owner;
  for (int base = 8 * __shfl_sync(all, q_begin, owner); base < s_end; base += 32) {
    const ECandidate c(f, row, base + lane, norm, s_end);
    const double sum = inclusive_warp_scan(c.term) + total;
    const double bound = slack * sum;
    const unsigned maybe = __ballot_sync(all, roll < sum + bound);
    const unsigned surely = __ballot_sync(all, roll < sum - bound);
    if (__any_sync(all, !isfinite(sum))) return false;
    if (maybe != 0) {
      const int first = __ffs(maybe) - 1;
      if (first != __ffs(surely) - 1 || !(__ballot_sync(all, c.valid) >> first & 1u)) return false;
      k = __shfl_sync(all, c.node, first);
      kind = __shfl_sync(all, c.is_delete, first) ? kTraceD : kTraceM;
      return true;
    }
    total = __shfl_sync(all, sum, 31);
  }
  return false;  // unsure: the serial sum decides
}
#endif

// E(i) from any M(i,k) or D(i,k): each cell scaled by a float 1/E(i) and
// accumulated in double, in striped order (per segment the match lanes,
// then the delete lanes), going round again if rounding left the total
// short of the deviate.
HELIX_HMM_HD int previous_of_e(EaselStream& rng, const ForwardCells& f, int i, int& k) {
  const int Q = f.p.Q;
  const double roll = rng.uniform();
  const float norm = static_cast<float>(1.0 / f.special(i, kXE));
  double sum = 0.0;
#ifdef __CUDA_ARCH__
  // The whole warp walks in step: its 32 lanes load 32 candidates at once.
  const int positions = 8 * Q;
  int chosen_kind = 0;
  if (scan_finds_e_predecessor(f, i, roll, norm, chosen_kind, k)) return chosen_kind;
  // Unsure: every lane adds them one after another, in the scan's order.
  const float* row = f.rows + static_cast<std::size_t>(i) * 12 * Q;
  for (;;) {
    const double sum_before_pass = sum;
    for (int base = 0; base < positions; base += 32) {
      const ECandidate c(f, row, base + static_cast<int>(threadIdx.x % 32), norm, positions);
      const unsigned valid_lanes = __ballot_sync(0xffffffffu, c.valid);
      for (int j = 0; j < 32; ++j) {
        const double t = __shfl_sync(0xffffffffu, c.term, j);
        if (!(valid_lanes >> j & 1u)) continue;  // a padding node: skipped
        sum += t;
        if (roll < sum) {
          k = __shfl_sync(0xffffffffu, c.node, j);
          return __shfl_sync(0xffffffffu, c.is_delete, j) ? kTraceD : kTraceM;
        }
      }
    }
    if (!(sum > sum_before_pass)) return -1;  // HMMER would loop forever
  }
#else
  const int M = f.p.M;
  for (;;) {
    const double sum_before_pass = sum;
    for (int q = 0; q < Q; ++q) {
      for (int r = 0; r < 4; ++r) {
        const int node = r * Q + q + 1;
        if (node > M) continue;  // padding lanes hold zero
        sum += f.m(i, node) * norm;
        if (roll < sum) return k = node, kTraceM;
      }
      for (int r = 0; r < 4; ++r) {
        const int node = r * Q + q + 1;
        if (node > M) continue;
        sum += f.d(i, node) * norm;
        if (roll < sum) return k = node, kTraceD;
      }
    }
    if (!(sum > sum_before_pass)) return -1;  // HMMER would loop forever
  }
#endif
}

// One domain of the trace being walked (from its E back to its B).
struct OpenDomain {
  int sqfrom = 0, sqto = 0, hmmfrom = 0, hmmto = 0;
  int emitted = 0, used = 0;
  int last_node = 0;        // the node of its last emission walked
  float last_count = 0.0f;  // emissions walked at last_node (usage[last_node] once stored)
};

// On the GPU the whole warp walks a region in step (hmm_gpu_sampling.cu):
// its lanes share the per-domain work below; on the CPU one "lane" does it all.
HELIX_HMM_HD int walk_lane() {
#ifdef __CUDA_ARCH__
  return threadIdx.x % 32;
#else
  return 0;
#endif
}
HELIX_HMM_HD int walk_lanes() {
#ifdef __CUDA_ARCH__
  return 32;
#else
  return 1;
#endif
}
// Makes one lane's writes to memory visible to the others.
HELIX_HMM_HD void walk_sync() {
#ifdef __CUDA_ARCH__
  __syncwarp();
#endif
}

// null2_by_trace for the domain: the usage of its nodes (M and I emissions,
// in the match node) as frequencies, times the match odds, per lane in node
// order; `used` holds its nodes in descending order. Resets their usage.
#ifdef __CUDA_ARCH__
// On the GPU lane x computes residue x's odds, the same terms in the same
// order, 32 nodes at a time: lane j loads node j's stripe and usage (and
// resets it: a domain's nodes are distinct), and each lane's match odds of
// eight nodes are loaded at once (one node after another, each a chain of
// two dependent loads, made the domain's close cost about 80,000 cycles at
// M = 1,142). Then lane c computes code c's mean over its residues.
__device__ void domain_null2(const StripedOdds& p, const CodeMembers& members, const OpenDomain& domain,
                             float* usage, const int* used, float* null2) {
  const unsigned all = 0xffffffffu;
  const float norm = static_cast<float>(1.0 / static_cast<float>(domain.emitted));
  const float none = 0.0f;  // N, C, J emit nothing between B and E
  const float outside = (none * norm + none * norm) + none * norm;
  const int lane = walk_lane();
  const float* match_of_x = p.match + (lane < kResidues ? lane : 0) * p.Q * 4;
  float by_lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // the striped vector's four lanes, as on the CPU
  walk_sync();
  for (int base = domain.used - 1; base >= 0; base -= 32) {  // nodes used[base], used[base - 1], ...
    const int u = base - lane, count = base + 1 < 32 ? base + 1 : 32;
    int offset = 0, stripe_lane = 0;
    float weight = 0.0f;
    if (u >= 0) {
      const int node = used[u];
      const rows::NodeStripe at = rows::node_stripe(p.Q, node);
      offset = at.q * 4 + at.z, stripe_lane = at.z;
      weight = usage[node] * norm;
      usage[node] = 0.0f;
    }
    for (int first = 0; first < count; first += 8) {
      float term[8];
      int z_of[8];
#pragma unroll
      for (int t = 0; t < 8; ++t) {
        const int from = first + t;  // < 32
        z_of[t] = __shfl_sync(all, stripe_lane, from);
        term[t] = __shfl_sync(all, weight, from) * match_of_x[__shfl_sync(all, offset, from)];
      }
#pragma unroll
      for (int t = 0; t < 8; ++t)
#pragma unroll
        for (int z = 0; z < 4; ++z)
          if (first + t < count && z == z_of[t]) by_lane[z] = by_lane[z] + term[t];
    }
  }
  const float residue_odds = ((by_lane[0] + by_lane[1]) + (by_lane[2] + by_lane[3])) + outside;
  float total = 0.0f;  // a degenerate code's: the mean of its residues' odds
  int count = 0;
  for (int y = 0; y < kResidues; ++y) {
    const float odds = __shfl_sync(all, residue_odds, y);
    if (lane >= kResidues && lane < kCodes && (members.mask[lane] >> y & 1u)) total += odds, ++count;
  }
  const float mine = lane < kResidues ? residue_odds : count > 0 ? total / static_cast<float>(count) : 1.0f;
  for (int code = 0; code < kCodes; ++code) null2[code] = __shfl_sync(all, mine, code);
  walk_sync();
}
#else
inline void domain_null2(const StripedOdds& p, const CodeMembers& members, const OpenDomain& domain, float* usage,
                         const int* used, float* null2) {
  const float norm = static_cast<float>(1.0 / static_cast<float>(domain.emitted));
  const float none = 0.0f;  // N, C, J emit nothing between B and E
  const float outside = (none * norm + none * norm) + none * norm;
  for (int x = 0; x < kResidues; ++x) {
    float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int u = domain.used - 1; u >= 0; --u) {
      const int node = used[u];
      const rows::NodeStripe at = rows::node_stripe(p.Q, node);
      lane[at.z] = lane[at.z] + (usage[node] * norm) * p.match[(x * p.Q + at.q) * 4 + at.z];
    }
    null2[x] = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + outside;
  }
  for (int code = kResidues; code < kCodes; ++code) {
    float total = 0.0f;
    int count = 0;
    for (int y = 0; y < kResidues; ++y)
      if (members.mask[code] >> y & 1u) total += null2[y], ++count;
    null2[code] = count > 0 ? total / static_cast<float>(count) : 1.0f;
  }
  for (int u = 0; u < domain.used; ++u) usage[used[u]] = 0.0f;
}
#endif

// sums[pos - 1] += value for pos = first..last, the lanes sharing them.
HELIX_HMM_HD void add_to_sums(float* sums, int first, int last, float value) {
  walk_sync();
  for (int pos = first + walk_lane(); pos <= last; pos += walk_lanes()) sums[pos - 1] += value;
  walk_sync();
}
HELIX_HMM_HD void add_null2_to_sums(float* sums, int first, int last, const float* null2, const std::uint8_t* codes) {
  walk_sync();
  for (int pos = first + walk_lane(); pos <= last; pos += walk_lanes()) sums[pos - 1] += null2[codes[pos - 1]];
  walk_sync();
}

// What the walk keeps of n match steps from (i, k) that each chose M: the
// emissions at (i - 1, k - 1) ... (i - n, k - n), each at a new node, as n
// turns of sample_region_rows' loop record them; i and k move on by n. On
// the GPU the lanes share the nodes' stores (usage 1 each; the last node
// stays open).
HELIX_HMM_HD void record_match_run(const SamplingScratch& s, OpenDomain& domain, int& i, int& k, int n) {
#ifdef __CUDA_ARCH__
  const bool stores = true;  // every lane its share (s.keep marks the lane that keeps the rest)
#else
  const bool stores = s.keep;
#endif
  if (stores) {
    if (walk_lane() == 0 && domain.used > 0) s.usage[domain.last_node] = domain.last_count;
    for (int j = walk_lane(); j < n; j += walk_lanes()) {
      s.used[domain.used + j] = k - 1 - j;
      if (j < n - 1) s.usage[k - 1 - j] = 1.0f;
    }
  }
  if (domain.sqto == 0) domain.sqto = i - 1, domain.hmmto = k - 1;
  domain.used += n, domain.emitted += n;
  domain.last_node = k - n, domain.last_count = 1.0f;
  i -= n, k -= n;
  domain.sqfrom = i, domain.hmmfrom = k;
}

}  // namespace sampling

// region_trace_ensemble's sampling for region codes[0 .. Lr-1], whose
// Forward matrix (multihit, the target's length model) is `rows`/`x`:
// `samples` traces drawn from generator state `rng_state` (after the
// region's reseeding). Writes the segment pairs and the residues' null2
// sums; `pair_count` gets the number of pairs.
HELIX_HMM_HD int sample_region_rows(const StripedOdds& p, const CodeMembers& members, const std::uint8_t* codes,
                                    int Lr, const float* rows, const float* x, int samples, std::uint32_t rng_state,
                                    const SamplingScratch& s, int& pair_count) {
  using namespace sampling;
  const ForwardCells f{p, rows, x, Lr};
  WalkChoices choices(f);
  EaselStream rng{rng_state};
  float null2[kCodes];
  pair_count = 0;
  for (int sample = 0; sample < samples; ++sample) {
    const int first_pair = pair_count;
    int i = Lr, k = 0, hi = Lr;  // hi: residues above it have their sum for this sample
    int current = kTraceC;
    OpenDomain domain;
    while (current != kTraceS) {
      int previous = -1;
      switch (current) {
        // A run of steps that stay on their line (up to 32 at once on the
        // GPU: WalkChoices): all but the last recorded here, the last below.
        case kTraceM:
          if (i >= 1 && k >= 1) {
            int last = 0;
            const int steps = choices.match_run(rng, i, k, last);
            if (steps > 1) record_match_run(s, domain, i, k, steps - 1);
            previous = match_predecessor(last), --k, --i;
          }
          break;
        case kTraceD:
          if (k >= 1) {
            int last = 0;
            k -= choices.delete_run(rng, i, k, last) - 1;  // D -> D: no emission
            previous = delete_predecessor(last), --k;
          }
          break;
        case kTraceI:
          if (i >= 1 && k >= 1) {
            int last = 0;
            const int stays = choices.insert_run(rng, i, k, last) - 1;  // I -> I: node k emits again
            i -= stays, domain.emitted += stays, domain.last_count += static_cast<float>(stays);
            previous = insert_predecessor(last), --i;
          }
          break;
        case kTraceN: previous = i == 0 ? kTraceS : kTraceN; break;
        case kTraceC:
          if (i >= 1) {
            int last = 0;
            i -= choices.c_run(rng, i, last) - 1;  // C -> C emits residue i
            previous = c_predecessor(last);
          }
          break;
        case kTraceJ:
          if (i >= 1) {
            int last = 0;
            i -= choices.j_run(rng, i, last) - 1;
            previous = j_predecessor(last);
          }
          break;
        case kTraceE: previous = previous_of_e(rng, f, i, k); break;
        case kTraceB: previous = previous_of_b(rng, choices, i); break;
        default: break;
      }
      if (previous < 0) return kSampleNoPredecessor;
      if (previous == kTraceE) {
        domain = OpenDomain{};
      } else if (previous == kTraceM || previous == kTraceI) {  // emits residue i at node k
        // The walk's k never grows within a domain, so a node is new exactly
        // when it differs from the last one (null2_by_trace's usage[k] == 0).
        // Its count is kept here and stored when the walk leaves the node:
        // a read-modify-write of usage[k] at every step stalled the walk.
        if (domain.used == 0 || domain.last_node != k) {
          if (domain.used > 0 && s.keep) s.usage[domain.last_node] = domain.last_count;
          if (s.keep) s.used[domain.used] = k;
          ++domain.used, domain.last_node = k, domain.last_count = 0.0f;
        }
        domain.last_count += 1.0f;
        ++domain.emitted;
        if (previous == kTraceM) {
          domain.sqfrom = i, domain.hmmfrom = k;
          if (domain.sqto == 0) domain.sqto = i, domain.hmmto = k;
        }
      } else if (previous == kTraceB) {
        if (pair_count >= s.room) return kSamplePairsFull;
        if (domain.used > 0 && s.keep) s.usage[domain.last_node] = domain.last_count;
        domain_null2(p, members, domain, s.usage, s.used, null2);
        if (domain.sqto > 0) {  // add_trace_null2: 1 outside, null2 inside (the first residue counts as outside)
          add_to_sums(s.sums, domain.sqto + 1, hi, 1.0f);
          add_null2_to_sums(s.sums, domain.sqfrom + 1, domain.sqto, null2, codes);
          hi = domain.sqfrom;
        }
        if (s.keep) s.pairs[pair_count] = SampledPair{sample, domain.sqfrom, domain.sqto, domain.hmmfrom, domain.hmmto};
        ++pair_count;
      }
      // Staying in N, C or J emits residue i; moving on does not.
      if ((previous == kTraceN || previous == kTraceC || previous == kTraceJ) && previous == current) --i;
      current = previous;
    }
    add_to_sums(s.sums, 1, hi, 1.0f);
    if (!s.keep) continue;
    for (int a = first_pair, b = pair_count - 1; a < b; ++a, --b) {  // walked from the end: sequence order
      const SampledPair t = s.pairs[a];
      s.pairs[a] = s.pairs[b], s.pairs[b] = t;
    }
  }
  return kSampled;
}

}  // namespace helix::hmmsearch
