#include "hmm_profile.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>

namespace helix::hmmsearch {

const std::array<float, kResidues> kBackground = {0.0787945f, 0.0151600f, 0.0535222f, 0.0668298f, 0.0397062f,
                                                  0.0695071f, 0.0229198f, 0.0590092f, 0.0594422f, 0.0963728f,
                                                  0.0237718f, 0.0414386f, 0.0482904f, 0.0395639f, 0.0540978f,
                                                  0.0683364f, 0.0540687f, 0.0673417f, 0.0114135f, 0.0304133f};

namespace {

constexpr double kLog2 = 0.69314718055994529;  // Easel's eslCONST_LOG2
constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();
const float kByteScale = static_cast<float>(3.0 / kLog2);    // third-bits
const float kWordScale = static_cast<float>(500.0 / kLog2);  // 1/500 bits

// The file holds -ln p as text; HMMER keeps p = expf(-x) as a float.
float probability(double minus_log) {
  return std::isinf(minus_log) ? 0.0f : std::exp(static_cast<float>(-1.0 * minus_log));
}

// Transition indices of HMMER's generic profile (p7P_MM ... p7P_BM).
enum GenericTransition { kGMM = 0, kGMI, kGMD, kGIM, kGII, kGDM, kGDD, kGBM, kGenericTransitions };

// Scores in nats as p7_ProfileConfig leaves them for local multihit search.
struct GenericProfile {
  int M = 0;
  std::vector<float> match;  // [code * (M + 1) + k]
  std::vector<std::array<float, kGenericTransitions>> transition;  // [k], k = 0..M; BM[k-1] enters M_k
  float msc(int code, int k) const { return match[code * (M + 1) + k]; }
  float tsc(int k, int t) const { return transition[k][t]; }
};

std::vector<float> match_occupancy(const ProfileHmm& hmm, const std::vector<std::array<float, kTransitionCount>>& t) {
  std::vector<float> occupancy(hmm.length + 1, 0.0f);
  occupancy[1] = t[0][kMI] + t[0][kMM];
  for (int k = 2; k <= hmm.length; ++k)
    occupancy[k] = occupancy[k - 1] * (t[k - 1][kMM] + t[k - 1][kMI]) + (1.0 - occupancy[k - 1]) * t[k - 1][kDM];
  return occupancy;
}

// Background-weighted mean score of a degenerate code (Easel's FExpectScore).
float expected_score(int code, const float* scores) {
  float result = 0.f, denominator = 0.f;
  for (int residue = 0; residue < kResidues; ++residue)
    if (code_includes(code, residue)) {
      result += scores[residue] * kBackground[residue];
      denominator += kBackground[residue];
    }
  return result / denominator;
}

GenericProfile generic_profile(const ProfileHmm& hmm) {
  const int M = hmm.length;
  GenericProfile gm;
  gm.M = M;
  std::vector<std::array<float, kTransitionCount>> t(M + 1);
  for (int k = 0; k <= M; ++k)
    for (int j = 0; j < kTransitionCount; ++j) t[k][j] = probability(hmm.transitions[k][j]);

  std::array<float, kGenericTransitions> impossible;
  impossible.fill(kMinusInfinity);
  gm.transition.assign(M + 1, impossible);
  const std::vector<float> occupancy = match_occupancy(hmm, t);
  float Z = 0.;
  for (int k = 1; k <= M; ++k) Z += occupancy[k] * static_cast<float>(M - k + 1);
  for (int k = 1; k <= M; ++k) gm.transition[k - 1][kGBM] = std::log(static_cast<double>(occupancy[k] / Z));
  for (int k = 1; k < M; ++k)
    for (int j = 0; j < kTransitionCount; ++j) gm.transition[k][j] = std::log(static_cast<double>(t[k][j]));

  gm.match.assign(static_cast<std::size_t>(kCodes) * (M + 1), kMinusInfinity);
  for (int k = 1; k <= M; ++k) {
    float scores[kCodes];
    for (int x = 0; x < kCodes; ++x) scores[x] = kMinusInfinity;
    for (int x = 0; x < kResidues; ++x) {
      const float p = probability(hmm.match_emissions[k][x]);
      scores[x] = std::log(static_cast<double>(p) / kBackground[x]);
    }
    for (int x = kFirstDegenerate; x <= kLastDegenerate; ++x) scores[x] = expected_score(x, scores);
    for (int x = 0; x < kCodes; ++x) gm.match[x * (M + 1) + k] = scores[x];
  }
  return gm;
}

std::uint8_t unbiased_byteify(float score) {
  const float cost = -1.0f * std::round(kByteScale * score);
  return cost > 255. ? 255 : static_cast<std::uint8_t>(static_cast<int>(cost));
}

std::uint8_t biased_byteify(float score, std::uint8_t bias) {
  const float cost = -1.0f * std::round(kByteScale * score);
  if (cost > 255 - bias) return 255;
  return static_cast<std::uint8_t>(static_cast<int>(cost) + bias);
}

std::int16_t wordify(float score) {
  const float word = std::round(kWordScale * score);
  if (word >= 32767.0) return 32767;
  if (word <= -32768.0) return -32768;
  return static_cast<std::int16_t>(word);
}

void convert_msv(const GenericProfile& gm, SearchProfile& profile) {
  const int M = gm.M;
  float max_score = 0.0;  // inserts score 0, so the bias is never negative
  for (int x = 0; x < kResidues; ++x)
    for (int k = 1; k <= M; ++k) max_score = std::max(max_score, gm.msc(x, k));
  profile.msv_bias = unbiased_byteify(-1.0 * max_score);
  profile.msv_cost.resize(static_cast<std::size_t>(kCodes) * M);
  for (int x = 0; x < kCodes; ++x)
    for (int k = 1; k <= M; ++k) profile.msv_cost[x * M + k - 1] = biased_byteify(gm.msc(x, k), profile.msv_bias);
  profile.msv_tbm = unbiased_byteify(std::log(2.0f / (static_cast<float>(M) * static_cast<float>(M + 1))));
  profile.msv_tec = unbiased_byteify(std::log(0.5f));
}

// Transitions around match state k in the filters' layout: "into" ones come
// from node k-1, "out" ones from node k and do not exist at k = M.
template <typename T, typename Convert>
CellTransitions<T> cell_transitions(const GenericProfile& gm, int k, Convert convert, T impossible) {
  auto out = [&](int t) { return k < gm.M ? convert(gm.tsc(k, t)) : impossible; };
  return {convert(gm.tsc(k - 1, kGBM)), convert(gm.tsc(k - 1, kGMM)), convert(gm.tsc(k - 1, kGIM)),
          convert(gm.tsc(k - 1, kGDM)), out(kGMD), out(kGMI), out(kGII), out(kGDD)};
}

void convert_viterbi(const GenericProfile& gm, SearchProfile& profile) {
  const int M = gm.M;
  profile.vit_match.resize(static_cast<std::size_t>(kCodes) * M);
  for (int x = 0; x < kCodes; ++x)
    for (int k = 1; k <= M; ++k) profile.vit_match[x * M + k - 1] = wordify(gm.msc(x, k));
  profile.vit_transitions.resize(M);
  for (int k = 1; k <= M; ++k) {
    auto cell = cell_transitions<std::int16_t>(gm, k, wordify, -32768);
    // Only the DD's escape the clamp; an II of cost 0 is not allowed ("or hell may occur").
    for (std::int16_t* t : {&cell.bm, &cell.mm, &cell.im, &cell.dm, &cell.md, &cell.mi})
      *t = std::min<std::int16_t>(*t, 0);
    cell.ii = std::min<std::int16_t>(cell.ii, -1);
    profile.vit_transitions[k - 1] = cell;
  }
  profile.vit_e_loop = wordify(static_cast<float>(-kLog2));
  profile.vit_e_move = wordify(static_cast<float>(-kLog2));
  profile.vit_dd_bound = -32768;
  for (int k = 2; k < M - 1; ++k) {
    const int bound = wordify(gm.tsc(k, kGDD)) + wordify(gm.tsc(k + 1, kGDM)) - wordify(gm.tsc(k + 1, kGBM));
    profile.vit_dd_bound = std::max(profile.vit_dd_bound, bound);
  }
}

void convert_forward(const GenericProfile& gm, SearchProfile& profile) {
  const int M = gm.M;
  profile.fwd_match.resize(static_cast<std::size_t>(kCodes) * M);
  for (int x = 0; x < kCodes; ++x)
    for (int k = 1; k <= M; ++k) profile.fwd_match[x * M + k - 1] = easel_sse_expf(gm.msc(x, k));
  profile.fwd_transitions.resize(M);
  for (int k = 1; k <= M; ++k) profile.fwd_transitions[k - 1] = cell_transitions<float>(gm, k, easel_sse_expf, 0.0f);
  profile.fwd_e_loop = std::exp(static_cast<float>(-kLog2));
  profile.fwd_e_move = std::exp(static_cast<float>(-kLog2));
}

BiasFilterHmm bias_filter_hmm(const ProfileHmm& hmm) {
  BiasFilterHmm filter;
  std::array<float, kResidues> compo;
  for (int x = 0; x < kResidues; ++x) compo[x] = probability(hmm.compo[x]);
  const float biased_length = static_cast<float>(hmm.length) / 8.0;
  filter.biased_to_normal = 1.0f / (biased_length + 1.0f);
  filter.biased_loop = biased_length / (biased_length + 1.0f);
  const float* emission[2] = {kBackground.data(), compo.data()};
  for (int state = 0; state < 2; ++state) {
    for (int x = 0; x < kResidues; ++x) filter.emission_odds[x * 2 + state] = emission[state][x] / kBackground[x];
    for (int x : {kGapCode, kNonresidueCode, kMissingCode}) filter.emission_odds[x * 2 + state] = 1.0;
    for (int x = kFirstDegenerate; x <= kLastDegenerate; ++x) {
      float sum = 0.0f, denominator = 0.0f;
      for (int y = 0; y < kResidues; ++y)
        if (code_includes(x, y)) sum += emission[state][y], denominator += kBackground[y];
      filter.emission_odds[x * 2 + state] = denominator > 0.0f ? sum / denominator : 0.0f;
    }
  }
  return filter;
}

}  // namespace

float easel_sse_expf(float x) {
  constexpr float kMaxLog = 88.3762626647949f, kMinLog = -88.3762626647949f;
  if (x <= kMinLog) return 0.0f;
  if (x > kMaxLog) return std::numeric_limits<float>::infinity();
  // exp(x) = 2^k e^f with k = floor(0.5 + x / ln 2), f in [-0.5, 0.5] ln 2.
  float fx = x * static_cast<float>(1.44269504088896341);
  fx = fx + 0.5f;
  float whole = static_cast<float>(static_cast<int>(fx));
  if (whole > fx) whole = whole - 1.0f;
  fx = whole;
  const int k = static_cast<int>(fx);
  const float high = fx * 0.693359375f, low = fx * -2.12194440e-4f;
  x = x - high;
  x = x - low;
  const float z = x * x;
  float y = 1.9875691500E-4f;
  for (float c : {1.3981999507E-3f, 8.3334519073E-3f, 4.1665795894E-2f, 1.6666665459E-1f}) y = y * x, y = y + c;
  y = y * x;
  y = y + 5.0000001201E-1f;
  y = y * z;
  y = y + x;
  y = y + 1.0f;
  const std::uint32_t bits = static_cast<std::uint32_t>(k + 127) << 23;
  float two_to_k;
  std::memcpy(&two_to_k, &bits, sizeof two_to_k);
  return y * two_to_k;
}

SearchProfile configure_profile(const ProfileHmm& hmm) {
  const GenericProfile gm = generic_profile(hmm);
  SearchProfile profile;
  profile.name = hmm.name;
  profile.accession = hmm.accession;
  profile.description = hmm.description;
  profile.M = hmm.length;
  profile.msv_mu = static_cast<float>(hmm.msv.mu_or_tau), profile.msv_lambda = static_cast<float>(hmm.msv.lambda);
  profile.viterbi_mu = static_cast<float>(hmm.viterbi.mu_or_tau);
  profile.viterbi_lambda = static_cast<float>(hmm.viterbi.lambda);
  profile.forward_tau = static_cast<float>(hmm.forward.mu_or_tau);
  profile.forward_lambda = static_cast<float>(hmm.forward.lambda);
  convert_msv(gm, profile);
  convert_viterbi(gm, profile);
  convert_forward(gm, profile);
  profile.bias_filter = bias_filter_hmm(hmm);
  auto annotation = [](const std::vector<char>& line) {
    return line.empty() ? std::string() : ' ' + std::string(line.begin() + 1, line.end());
  };
  profile.consensus = annotation(hmm.consensus);
  profile.reference = annotation(hmm.reference);
  profile.structure = annotation(hmm.structure);
  return profile;
}

LengthConfig length_config(int L) {
  LengthConfig config;
  config.L = L;
  config.msv_tjb = unbiased_byteify(std::log(3.0f / static_cast<float>(L + 3)));
  const float nj = 1.0f;  // multihit: one J "visit" expected
  const float move = (2.0f + nj) / (static_cast<float>(L) + 2.0f + nj);
  config.fwd_move = move;
  config.fwd_loop = 1.0f - move;
  config.vit_move = wordify(std::log(move));
  config.null_p1 = static_cast<float>(L) / static_cast<float>(L + 1);
  config.null_score = static_cast<float>(static_cast<float>(L) * std::log(static_cast<double>(config.null_p1)) +
                                         std::log(1. - config.null_p1));
  config.log_p1 = std::log(config.null_p1);
  config.log_1_minus_p1 = std::log(static_cast<float>(1. - config.null_p1));
  return config;
}

namespace {

// shared_length_config()'s table. Static storage of constant-initialized
// members: zero pages until a length of theirs is asked for.
class SharedLengthConfigs {
 public:
  const LengthConfig& at(int L) {
    if (L < 0 || static_cast<std::size_t>(L) > kMaxTargetLength)
      throw std::out_of_range("shared_length_config: target length " + std::to_string(L) + " is outside 0.." +
                              std::to_string(kMaxTargetLength));
    const int page = L / kPageLengths;
    if (!ready_[page].load(std::memory_order_acquire)) fill(page);
    return configs_[L];
  }

 private:
  static constexpr int kPageLengths = 4096;
  static constexpr int kPages = static_cast<int>(kMaxTargetLength) / kPageLengths + 1;
  void fill(int page) {
    const std::lock_guard<std::mutex> hold(filling_);
    if (ready_[page].load(std::memory_order_relaxed)) return;
    for (int L = page * kPageLengths; L < (page + 1) * kPageLengths; ++L) configs_[L] = length_config(L);
    ready_[page].store(true, std::memory_order_release);
  }
  std::mutex filling_;
  std::atomic<bool> ready_[kPages] = {};
  LengthConfig configs_[kPages * kPageLengths];
};

}  // namespace

const LengthConfig& shared_length_config(int L) {
  static SharedLengthConfigs table;
  return table.at(L);
}

}  // namespace helix::hmmsearch
