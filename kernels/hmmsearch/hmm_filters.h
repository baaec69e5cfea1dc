// hmm_filters.h: the DP filters of hmmsearch's pipeline, one target at a
// time: the CPU reference, and (every function is __host__ __device__) the
// CUDA engine's bias filter and its MSV path for very long models; its warp
// kernels for MSV, Viterbi and Forward are tested against these. Each
// reproduces its HMMER 3.3.2 counterpart's result exactly, cell by cell:
//   msv_filter_score      MSVFilter (with its SSV shortcut, which returns the
//                          same score): unsigned saturating bytes, multihit;
//   viterbi_filter_score  ViterbiFilter: signed saturating 16-bit words,
//                          including its "lazy F" rule (D->D paths are only
//                          followed on rows where they could matter);
//   forward_score         ForwardParser: float odds with sparse rescaling, in
//                          HMMER's striped order (4 lanes, Q = max(2,
//                          ceil(M/4)) segments) so every float sum is the same;
//   bias_filter_score     p7_bg_FilterScore: Easel's two-state HMM Forward.
// Scores are in nats, before the null model is subtracted.
#pragma once
#include <cmath>
#include <cstdint>

#include "hmm_profile.h"

#ifdef __CUDACC__
#define HELIX_HMM_HD __host__ __device__ __forceinline__
#else
#define HELIX_HMM_HD inline
#endif
// Unrolls a loop in device code, where a small array that a shared function
// walks with a count known after inlining then stays in registers instead
// of local memory (host compilers do their own unrolling).
#ifdef __CUDA_ARCH__
#define HELIX_HMM_UNROLL _Pragma("unroll")
#else
#define HELIX_HMM_UNROLL
#endif

namespace helix::hmmsearch {

constexpr double kLn2 = 0.69314718055994529;                           // Easel's eslCONST_LOG2
constexpr float kMsvScale = static_cast<float>(3.0 / 0.69314718055994529);    // third-bits per nat
constexpr float kVitScale = static_cast<float>(500.0 / 0.69314718055994529);  // 1/500 bits per nat

// Views of a SearchProfile's arrays (host or device memory).
struct MsvView {
  int M;
  const std::uint8_t* cost;  // [code * M + k - 1]
  std::uint8_t bias, tbm, tec;
};
struct ViterbiView {
  int M;
  const std::int16_t* match;  // [code * M + k - 1]
  const CellTransitions<std::int16_t>* transitions;
  std::int16_t e_loop, e_move;
  int dd_bound;
};
struct ForwardView {
  int M;
  const float* match;  // [code * M + k - 1]
  const CellTransitions<float>* transitions;
  float e_loop, e_move;
};

HELIX_HMM_HD int forward_segments(int M) { return M <= 8 ? 2 : (M - 1) / 4 + 1; }
// Scratch each filter needs for one target.
HELIX_HMM_HD int msv_scratch_bytes(int M) { return M + 1; }
HELIX_HMM_HD int viterbi_scratch_words(int M) { return 3 * (M + 1); }
HELIX_HMM_HD int forward_scratch_floats(int M) { return 6 * 4 * forward_segments(M); }

HELIX_HMM_HD int saturate_word(int v) { return v < -32768 ? -32768 : (v > 32767 ? 32767 : v); }
HELIX_HMM_HD int max_int(int a, int b) { return a > b ? a : b; }

// The MSV score (nats) of the final J state's byte value.
HELIX_HMM_HD float msv_score_of_xj(int xJ, std::uint8_t tjb) {
  float score = static_cast<float>(xJ - tjb) - static_cast<float>(SearchProfile::kMsvBase);
  score /= kMsvScale;
  score -= 3.0;  // HMMER's approximation of the N, C, J loops: about L log(L/(L+3))
  return score;
}

// MSV: the final J state's byte after the whole target (the score's only
// variable part), or -1 when the byte range overflows (HMMER's eslERANGE: a
// score too high to measure, which passes).
HELIX_HMM_HD int msv_filter_xj(const std::uint8_t* codes, int L, const MsvView& p, std::uint8_t tjb,
                               std::uint8_t* row) {
  const int base = SearchProfile::kMsvBase;
  const int tjbm = (tjb + p.tbm) & 255;
  for (int k = 0; k <= p.M; ++k) row[k] = 0;
  int xJ = 0, xB = max_int(base - tjbm, 0);
  for (int i = 0; i < L; ++i) {
    const std::uint8_t* cost = p.cost + codes[i] * p.M;
    int xE = 0, diagonal = 0;  // diagonal: M(i-1, k-1); 0 is minus infinity
    for (int k = 1; k <= p.M; ++k) {
      int sv = max_int(diagonal, xB) + p.bias;
      sv = sv > 255 ? 255 : sv;
      sv = max_int(sv - cost[k - 1], 0);
      xE = max_int(xE, sv);
      diagonal = row[k];
      row[k] = static_cast<std::uint8_t>(sv);
    }
    if (xE + p.bias >= 255) return -1;
    xE = max_int(xE - p.tec, 0);
    xJ = max_int(xJ, xE);
    xB = max_int(max_int(base, xJ) - tjbm, 0);
  }
  return xJ;
}

// MSV: best multihit ungapped score; +infinity on overflow.
HELIX_HMM_HD float msv_filter_score(const std::uint8_t* codes, int L, const MsvView& p, std::uint8_t tjb,
                                    std::uint8_t* row) {
  const int xJ = msv_filter_xj(codes, L, p, tjb, row);
  return xJ < 0 ? __builtin_huge_valf() : msv_score_of_xj(xJ, tjb);
}

// The Viterbi filter's score (nats) of the final C state's word.
HELIX_HMM_HD float viterbi_score_of_xc(int xC, std::int16_t move) {
  if (xC <= -32768) return -__builtin_huge_valf();
  float score = static_cast<float>(xC) + static_cast<float>(move) - static_cast<float>(SearchProfile::kVitBase);
  score /= kVitScale;
  score -= 3.0;
  return score;
}

// Viterbi filter: best multihit gapped score in words. +infinity on overflow.
HELIX_HMM_HD float viterbi_filter_score(const std::uint8_t* codes, int L, const ViterbiView& p, std::int16_t move,
                                        std::int16_t* rows) {
  const int M = p.M;
  std::int16_t* mrow = rows;
  std::int16_t* irow = rows + (M + 1);
  std::int16_t* drow = rows + 2 * (M + 1);
  for (int k = 0; k <= M; ++k) mrow[k] = irow[k] = drow[k] = -32768;
  const int xN = SearchProfile::kVitBase;
  int xB = xN + move, xJ = -32768, xC = -32768;
  for (int i = 0; i < L; ++i) {
    const std::int16_t* emission = p.match + codes[i] * M;
    int xE = -32768, dmax = -32768;
    int m_diagonal = -32768, i_diagonal = -32768, d_diagonal = -32768;  // (i-1, k-1)
    int to_d = -32768;                                                  // M(i, k-1) -> D(i, k)
    for (int k = 1; k <= M; ++k) {
      const CellTransitions<std::int16_t>& t = p.transitions[k - 1];
      int sv = saturate_word(xB + t.bm);
      sv = max_int(sv, saturate_word(m_diagonal + t.mm));
      sv = max_int(sv, saturate_word(i_diagonal + t.im));
      sv = max_int(sv, saturate_word(d_diagonal + t.dm));
      sv = saturate_word(sv + emission[k - 1]);
      xE = max_int(xE, sv);
      m_diagonal = mrow[k], i_diagonal = irow[k], d_diagonal = drow[k];  // now (i-1, k)
      mrow[k] = static_cast<std::int16_t>(sv);
      drow[k] = static_cast<std::int16_t>(to_d);
      to_d = saturate_word(sv + t.md);
      dmax = max_int(dmax, to_d);
      irow[k] = static_cast<std::int16_t>(max_int(saturate_word(m_diagonal + t.mi), saturate_word(i_diagonal + t.ii)));
    }
    if (xE >= 32767) return __builtin_huge_valf();
    xC = static_cast<std::int16_t>(max_int(xC, xE + p.e_move));
    xJ = static_cast<std::int16_t>(max_int(xJ, xE + p.e_loop));
    xB = static_cast<std::int16_t>(max_int(xJ + move, xN + move));
    // HMMER's lazy F: D->D paths only when they could beat B->M on the next row.
    if (dmax + p.dd_bound > xB)
      for (int k = 2; k <= M; ++k)
        drow[k] = static_cast<std::int16_t>(max_int(drow[k], saturate_word(drow[k - 1] + p.transitions[k - 2].dd)));
  }
  return viterbi_score_of_xc(xC, move);
}

// The bias filter's recurrence (bias_filter_score), a row at a time: each
// row's two cells are scaled by their greatest (scale_row() returns it: the
// score adds up the logs of these), then carried to the next residue. The
// logs are not part of the recurrence, so the GPU takes them apart from it.
struct BiasFilterRows {
  float t00, t01, t10, t11;
  float dp0, dp1;
  HELIX_HMM_HD BiasFilterRows(std::uint8_t first_code, const BiasFilterHmm& filter, const LengthConfig& config)
      : t00(config.null_p1),
        t01(1.0f - config.null_p1),
        t10(filter.biased_to_normal),
        t11(filter.biased_loop),
        dp0(filter.emission_odds[first_code * 2] * filter.start_normal),
        dp1(filter.emission_odds[first_code * 2 + 1] * filter.start_biased) {}
  HELIX_HMM_HD float scale_row() {
    float max = 0.0;
    max = dp0 > max ? dp0 : max;
    max = dp1 > max ? dp1 : max;
    dp0 /= max, dp1 /= max;
    return max;
  }
  HELIX_HMM_HD void next_row(std::uint8_t code, const BiasFilterHmm& filter) {
    const float* odds = filter.emission_odds + code * 2;
    float next0 = 0.0;
    next0 += dp0 * t00;
    next0 += dp1 * t10;
    next0 *= odds[0];
    float next1 = 0.0;
    next1 += dp0 * t01;
    next1 += dp1 * t11;
    next1 *= odds[1];
    dp0 = next0, dp1 = next1;
  }
  // The last row's sum, after its scale_row().
  HELIX_HMM_HD float end() const {
    float end = 0.0;
    end += dp0 * 1.0f;
    end += dp1 * 1.0f;
    return end;
  }
};

// A term of the bias filter's score: the log of a row's scale (or of the end).
HELIX_HMM_HD float bias_filter_log(float scale) { return static_cast<float>(log(static_cast<double>(scale))); }

// The bias filter's score from its logs' sum (added in row order, then the end's).
HELIX_HMM_HD float bias_filter_total(float log_score, int L, const LengthConfig& config) {
  return log_score + static_cast<float>(L) * config.log_p1 + config.log_1_minus_p1;
}

// The bias filter's null score (nats) for a target: Easel's esl_hmm_Forward
// on HMMER's two-state composition HMM (normal background / the model's
// average composition), rescaled every row, whose normal state's loop is the
// null model's L/(L+1) (hmmsearch resets it for every target).
HELIX_HMM_HD float bias_filter_score(const std::uint8_t* codes, int L, const BiasFilterHmm& filter,
                                     const LengthConfig& config) {
  BiasFilterRows rows(codes[0], filter, config);
  float log_score = 0.0;
  for (int i = 0;; ++i) {
    log_score += bias_filter_log(rows.scale_row());
    if (i + 1 == L) break;
    rows.next_row(codes[i + 1], filter);
  }
  log_score += bias_filter_log(rows.end());
  return bias_filter_total(log_score, L, config);
}

// Forward: log of the summed probability of all multihit local paths (nats).
HELIX_HMM_HD float forward_score(const std::uint8_t* codes, int L, const ForwardView& p, float move, float loop,
                                 float* scratch) {
  const int M = p.M, Q = forward_segments(M);
  float* rows[2][3];  // [previous/current][M, D, I], each [q * 4 + lane]
  for (int r = 0; r < 2; ++r)
    for (int s = 0; s < 3; ++s) rows[r][s] = scratch + (r * 3 + s) * 4 * Q;
  for (int c = 0; c < 4 * Q; ++c) rows[1][0][c] = rows[1][1][c] = rows[1][2][c] = 0.0f;
  const CellTransitions<float> none{0, 0, 0, 0, 0, 0, 0, 0};
  auto cell_of = [&](int q, int z) { return q + 1 + z * Q; };  // striped: lane z holds k = q+1+zQ
  float xN = 1.f, xJ = 0.f, xB = move, xC = 0.f, totscale = 0.0f;
  int current = 1;
  for (int i = 0; i < L; ++i) {
    const int previous = current;
    current ^= 1;
    float *pm = rows[previous][0], *pd = rows[previous][1], *pi = rows[previous][2];
    float *cm = rows[current][0], *cd = rows[current][1], *ci = rows[current][2];
    const float* emission = p.match + codes[i] * M;
    float xEv[4] = {0, 0, 0, 0}, dcv[4] = {0, 0, 0, 0};
    float mpv[4], dpv[4], ipv[4];
    for (int z = 0; z < 4; ++z) {  // right shift of the last segment: lane z takes lane z-1
      mpv[z] = z ? pm[(Q - 1) * 4 + z - 1] : 0.0f;
      dpv[z] = z ? pd[(Q - 1) * 4 + z - 1] : 0.0f;
      ipv[z] = z ? pi[(Q - 1) * 4 + z - 1] : 0.0f;
    }
    for (int q = 0; q < Q; ++q)
      for (int z = 0; z < 4; ++z) {
        const int k = cell_of(q, z), c = q * 4 + z;
        const CellTransitions<float>& t = k <= M ? p.transitions[k - 1] : none;
        const float e = k <= M ? emission[k - 1] : 0.0f;
        float sv = xB * t.bm;
        sv = sv + mpv[z] * t.mm;
        sv = sv + ipv[z] * t.im;
        sv = sv + dpv[z] * t.dm;
        sv = sv * e;
        xEv[z] = xEv[z] + sv;
        mpv[z] = pm[c], dpv[z] = pd[c], ipv[z] = pi[c];
        cm[c] = sv;
        cd[c] = dcv[z];
        dcv[z] = sv * t.md;
        const float from_m = mpv[z] * t.mi;
        ci[c] = from_m + ipv[z] * t.ii;
      }
    auto shift = [](float* v) { v[3] = v[2], v[2] = v[1], v[1] = v[0], v[0] = 0.0f; };
    auto dd = [&](int q, int z) { const int k = cell_of(q, z); return k <= M ? p.transitions[k - 1].dd : 0.0f; };
    shift(dcv);
    for (int z = 0; z < 4; ++z) cd[z] = 0.0f;
    for (int q = 0; q < Q; ++q)
      for (int z = 0; z < 4; ++z) cd[q * 4 + z] = dcv[z] + cd[q * 4 + z], dcv[z] = cd[q * 4 + z] * dd(q, z);
    for (int pass = 1; pass < 4; ++pass) {  // carry D->D paths across segment boundaries
      shift(dcv);
      bool changed = false;
      for (int q = 0; q < Q; ++q)
        for (int z = 0; z < 4; ++z) {
          const float sum = dcv[z] + cd[q * 4 + z];
          changed = changed || sum > cd[q * 4 + z];
          cd[q * 4 + z] = sum;
          dcv[z] = dcv[z] * dd(q, z);
        }
      if (M >= 100 && !changed) break;  // HMMER serializes fully only for small models
    }
    for (int q = 0; q < Q; ++q)
      for (int z = 0; z < 4; ++z) xEv[z] = cd[q * 4 + z] + xEv[z];
    float xE = (xEv[0] + xEv[1]) + (xEv[2] + xEv[3]);
    xN = xN * loop;
    xC = (xC * loop) + (xE * p.e_move);
    xJ = (xJ * loop) + (xE * p.e_loop);
    xB = (xJ * move) + (xN * move);
    if (xE > 1.0e4) {  // sparse rescaling keeps the odds in float range
      xN = xN / xE, xC = xC / xE, xJ = xJ / xE, xB = xB / xE;
      const float scale = static_cast<float>(1.0 / xE);
      for (int c = 0; c < 4 * Q; ++c) cm[c] = cm[c] * scale, cd[c] = cd[c] * scale, ci[c] = ci[c] * scale;
      totscale = static_cast<float>(totscale + log(static_cast<double>(xE)));
    }
  }
  return static_cast<float>(totscale + log(static_cast<double>(xC * move)));
}

}  // namespace helix::hmmsearch
