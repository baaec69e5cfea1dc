// Tests of hmm_sampling.h: Easel's fast generator against values derived
// from its definition; the ensemble's linkage and clustering on hand-made
// segment pairs with known clusters; null2 by trace on a hand-made profile;
// stochastic traces (valid paths, HMMER's number of draws, path frequencies
// that match path probabilities from Forward); real multi-domain regions
// against hmmsearch 3.3.2's envelopes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/file_io.h"
#include "hmm_alphabet.h"
#include "hmm_file.h"
#include "hmm_profile.h"
#include "hmm_sampling.h"
#include "hmm_test_data.h"

namespace helix::hmmsearch {
namespace {

using namespace test_data;  // NOLINT: kTutorial, kProteins, ...

// ---------------------------------------------------------------------------
// EaselFastRandom

// Easel's definition: state0 = mix3(seed, 87654321, 12345678) (Bob Jenkins'
// mix, 32-bit wrapping), then x <- 69069 x + 1 mod 2^32, esl_random = x / 2^32.
// For seed 42, worked out independently (Python, arbitrary precision, & 0xffffffff):
//   state0 = 1265258399
//   x1 = 69069 * 1265258399 + 1 mod 2^32 = 432788820
//   x2 = 3613595717, x3 = 2598039618, x4 = 264748763, x5 = 2256532576
TEST(EaselFastRandom, Seed42MatchesEaselsDefinition) {
  EXPECT_EQ(easel_mix3(42u, 87654321u, 12345678u), 1265258399u);
  EaselFastRandom rng(42);
  EXPECT_EQ(rng.seed(), 42u);
  EXPECT_EQ(rng.state(), 1265258399u);
  const std::uint32_t expected[] = {432788820u, 3613595717u, 2598039618u, 264748763u, 2256532576u};
  for (std::uint32_t x : expected) EXPECT_EQ(rng.next_uint32(), x);
  // The LCG step itself, by its definition, from an arbitrary state.
  std::uint64_t x = 2256532576u;
  for (int n = 0; n < 1000; ++n) {
    x = (x * 69069u + 1u) % 4294967296u;
    ASSERT_EQ(rng.next_uint32(), static_cast<std::uint32_t>(x));
  }
}

TEST(EaselFastRandom, UniformIsStateOverTwoToThe32AndReseedRestarts) {
  EaselFastRandom rng(42);
  EXPECT_EQ(rng.uniform(), 432788820.0 / 4294967296.0);
  EXPECT_EQ(rng.uniform(), 3613595717.0 / 4294967296.0);
  rng.reseed();
  EXPECT_EQ(rng.uniform(), 432788820.0 / 4294967296.0);
  rng.init(7);
  const double first_of_7 = rng.uniform();
  rng.init(7);
  EXPECT_EQ(rng.uniform(), first_of_7);
  EXPECT_NE(first_of_7, 432788820.0 / 4294967296.0);
  EXPECT_THROW(EaselFastRandom(0), std::invalid_argument);
}

TEST(EaselFastRandom, ChooseComparesOneDrawWithCumulativeSums) {
  // Seed 42's deviates: 0.1008, 0.8414, 0.6049, 0.0616, 0.5254.
  // Cumulative 0.25, 0.75, 1.0 -> choices 0, 2, 1, 0, 1.
  EaselFastRandom rng(42);
  const float p[3] = {0.25f, 0.5f, 0.25f};
  const int expected[] = {0, 2, 1, 0, 1};
  for (int c : expected) EXPECT_EQ(rng.choose(p), c);
  // Unnormalized weights are divided by their sum: same choices.
  rng.reseed();
  const float w[3] = {1.0f, 2.0f, 1.0f};
  for (int c : expected) EXPECT_EQ(rng.choose(w), c);
  // A zero weight is never chosen.
  const float z[3] = {0.0f, 1.0f, 0.0f};
  for (int n = 0; n < 100; ++n) EXPECT_EQ(rng.choose(z), 1);
}

// The state whose next draw is x: x = 69069 s + 1 (mod 2^32), s = (x - 1) / 69069.
std::uint32_t state_before(std::uint32_t x) {
  std::uint32_t inverse = 69069u;  // Newton's iteration for the inverse of an odd number mod 2^32
  for (int n = 0; n < 5; ++n) inverse *= 2u - 69069u * inverse;
  return (x - 1u) * inverse;
}

// The GPU walk makes a match step's choice from quotients made before the
// draw (choice_quotients, then first_below): the same choice as choose().
TEST(EaselFastRandom, ChoiceQuotientsMakeChoosesChoices) {
  // A deviate exactly on a cumulative sum is not below it: 0.25 -> 1.
  const float quarter[4] = {0.25f, 0.75f, 0.0f, 0.0f};
  for (const auto& [x, expected] : {std::pair<std::uint32_t, int>{1u << 30, 1}, {(1u << 30) - 1u, 0}}) {
    sampling::EaselStream stream{state_before(x)};
    float p[4] = {quarter[0], quarter[1], quarter[2], quarter[3]};
    double q[4];
    sampling::choice_quotients(p, q);
    EXPECT_EQ(q[0], 0.25);
    EXPECT_EQ(q[3], 1.0);
    EXPECT_EQ(sampling::first_below(stream.uniform(), q), expected);
    sampling::EaselStream again{state_before(x)};
    float r[4] = {quarter[0], quarter[1], quarter[2], quarter[3]};
    EXPECT_EQ(sampling::choose(again, r), expected);
  }
  // Random weights over 30 orders of magnitude, zeros, all zero, NaN.
  EaselFastRandom weights(7);
  int differing = 0, seen[5] = {0, 0, 0, 0, 0};
  for (int n = 0; n < 20000; ++n) {
    float p[4];
    for (float& w : p) {
      const double u = weights.uniform();
      w = u < 0.2 ? 0.0f : static_cast<float>(std::pow(10.0, 30.0 * weights.uniform() - 25.0));
    }
    if (n % 1000 == 0) p[0] = p[1] = p[2] = p[3] = 0.0f;
    if (n % 1000 == 1) p[2] = std::nanf("");
    float a[4] = {p[0], p[1], p[2], p[3]}, b[4] = {p[0], p[1], p[2], p[3]};
    double q[4];
    sampling::choice_quotients(a, q);
    sampling::EaselStream walk{static_cast<std::uint32_t>(n * 2654435761u)}, cpu = walk;
    const int by_quotients = sampling::first_below(walk.uniform(), q), by_choose = sampling::choose(cpu, b);
    differing += by_quotients != by_choose;
    ++seen[by_choose + 1];
  }
  EXPECT_EQ(differing, 0);
  EXPECT_GT(seen[0], 0);  // NaN: no choice
  for (int c = 1; c < 5; ++c) EXPECT_GT(seen[c], 1000) << "choice " << c - 1;
}

// ---------------------------------------------------------------------------
// Segment-pair linkage and clustering

TEST(SegmentPairEnsemble, LinkageFollowsHmmersRule) {
  const ClusterParameters params;
  // Same segment: linked.
  EXPECT_TRUE(segment_pairs_linked({0, 10, 50, 1, 40}, {1, 10, 50, 1, 40}, params));
  // Sequence overlap 8 of the smaller 10: 0.8, linked; 7 of 10: not.
  EXPECT_TRUE(segment_pairs_linked({0, 1, 10, 1, 10}, {1, 3, 20, 1, 10}, params));
  EXPECT_FALSE(segment_pairs_linked({0, 1, 10, 1, 10}, {1, 4, 20, 1, 10}, params));
  // Of the larger (18): 8/18 fails.
  ClusterParameters of_larger = params;
  of_larger.of_smaller = false;
  EXPECT_FALSE(segment_pairs_linked({0, 1, 10, 1, 10}, {1, 3, 20, 1, 10}, of_larger));
  // HMMER's model overlap lacks the +1: nodes 1..5 and 2..5 share 4 of the
  // smaller's 4 nodes, but count 3/4 = 0.75 < 0.8, so they are not linked.
  EXPECT_FALSE(segment_pairs_linked({0, 1, 5, 1, 5}, {1, 1, 5, 2, 5}, params));
  EXPECT_TRUE(segment_pairs_linked({0, 1, 10, 1, 10}, {1, 1, 10, 2, 10}, params));  // 8/9
  // Diagonals: start diagonals 5 apart and end diagonals 5 apart: not linked;
  // either within 4: linked.
  EXPECT_FALSE(segment_pairs_linked({0, 1, 100, 1, 100}, {1, 6, 100, 1, 95}, params));
  EXPECT_TRUE(segment_pairs_linked({0, 1, 100, 1, 100}, {1, 5, 100, 1, 96}, params));
  EXPECT_TRUE(segment_pairs_linked({0, 1, 100, 1, 100}, {1, 10, 100, 10, 100}, params));
}

TEST(SegmentPairEnsemble, ClusterNumbersFollowEaselsStacks) {
  // Pairs A, B, C, A: Easel's stacks number C's cluster before B's.
  SegmentPairEnsemble ensemble;
  ensemble.add(0, 10, 50, 1, 40);
  ensemble.add(0, 100, 150, 1, 50);
  ensemble.add(0, 200, 250, 1, 50);
  ensemble.add(1, 11, 50, 2, 40);
  int n = 0;
  const std::vector<int> numbers = ensemble.link_clusters(ClusterParameters{}, n);
  EXPECT_EQ(n, 3);
  EXPECT_EQ(numbers, (std::vector<int>{0, 2, 1, 0}));
}

// esl_cluster_SingleLinkage as Easel writes it: every unclustered pair
// looked at for each pair extended. link_clusters() looks only at pairs that
// can overlap; its numbers must not change.
std::vector<int> easel_single_linkage(const std::vector<SegmentPair>& pairs, const ClusterParameters& params) {
  const int n = static_cast<int>(pairs.size());
  std::vector<int> available(n), to_extend, assignment(n, -1);
  for (int v = 0; v < n; ++v) available[v] = n - v - 1;
  int navailable = n, nclusters = 0;
  while (navailable > 0) {
    to_extend.push_back(available[--navailable]);
    while (!to_extend.empty()) {
      const int v = to_extend.back();
      to_extend.pop_back();
      assignment[v] = nclusters;
      for (int a = navailable - 1; a >= 0; --a)
        if (segment_pairs_linked(pairs[v], pairs[available[a]], params)) {
          to_extend.push_back(available[a]);
          available[a] = available[--navailable];
        }
    }
    ++nclusters;
  }
  return assignment;
}

TEST(SegmentPairEnsemble, ClusterNumbersEqualEaselsOnRandomEnsembles) {
  // Many domains along a long region, each sampled with jittered ends (and
  // some long pairs spanning several), so that chains of links, holes filled
  // from the stack's top and clusters of one pair all occur.
  std::uint32_t state = 12345;
  auto next = [&](int range) { return static_cast<int>((state = state * 1103515245u + 12345u) >> 8) % range; };
  for (int round = 0; round < 40; ++round) {
    SegmentPairEnsemble ensemble;
    const int domains = 1 + next(30), samples = 1 + next(60);
    for (int sample = 0; sample < samples; ++sample)
      for (int d = 0; d < domains; ++d) {
        if (d > 0 && next(4) == 0) continue;  // every sample adds its first pair (samples arrive in order)
        const int i = 1 + d * 90 + next(9), j = i + 60 + next(30) + (next(20) == 0 ? 200 : 0);
        const int k = 1 + next(6), m = k + (j - i) - next(8);
        ensemble.add(sample, i, j, k, m);
      }
    for (const ClusterParameters& params : {ClusterParameters{}, ClusterParameters{0.5f, false, 10, 0.25f, 0.02f},
                                            ClusterParameters{0.0f, true, 4, 0.25f, 0.02f}}) {
      int n = 0;
      const std::vector<int> numbers = ensemble.link_clusters(params, n);
      const std::vector<int> expected = easel_single_linkage(ensemble.pairs(), params);
      ASSERT_EQ(numbers, expected) << "round " << round;
      EXPECT_EQ(n, expected.empty() ? 0 : *std::max_element(expected.begin(), expected.end()) + 1);
    }
  }
}

TEST(SegmentPairEnsemble, SamplesMustArriveInOrder) {
  SegmentPairEnsemble ensemble;
  ensemble.add(0, 1, 2, 1, 2);
  ensemble.add(1, 1, 2, 1, 2);
  EXPECT_THROW(ensemble.add(3, 1, 2, 1, 2), std::invalid_argument);
  EXPECT_EQ(ensemble.samples(), 2);
}

// 100 traces: domain A (i 101..180, k 1..80) in every trace, split in two
// pieces in traces 0..9; domain B (i 20..60) in 60 traces; a rare domain C in
// 20 (posterior 0.20 < 0.25). Endpoint threshold: ceil(traces * 0.02).
TEST(SegmentPairEnsemble, ClustersHandMadeSamples) {
  SegmentPairEnsemble ensemble;
  for (int t = 0; t < 100; ++t) {
    if (t < 60) ensemble.add(t, 20 + t % 3, 60 - t % 2, 5 + t % 3, 45 - t % 2);  // B: i 20..22, j 59..60
    if (t < 10) {
      // A split in two; each piece links to the whole (near diagonals).
      ensemble.add(t, 102, 178, 2, 78);
      ensemble.add(t, 103, 180, 3, 80);
    } else {
      // i = 100 in one trace only, 101 otherwise; j = 182 in one trace,
      // 181 in one, 180 in the rest.
      const int i = t == 10 ? 100 : 101;
      const int j = t == 11 ? 182 : (t == 12 ? 181 : 180);
      ensemble.add(t, i, j, 1, 80);
    }
    if (t >= 80) ensemble.add(t, 300, 340, 1, 40);  // C
  }
  const std::vector<EnsembleCluster> clusters = ensemble.cluster(ClusterParameters{});
  ASSERT_EQ(clusters.size(), 2u);
  // B: threshold ceil(60 * 0.02) = 2; the leftmost start, rightmost end.
  EXPECT_EQ(clusters[0].i, 20);
  EXPECT_EQ(clusters[0].j, 60);
  EXPECT_EQ(clusters[0].k, 5);
  EXPECT_EQ(clusters[0].m, 45);
  EXPECT_FLOAT_EQ(clusters[0].posterior, 0.6f);
  // A: posterior 1.0 (a split trace counts once); threshold 2, so i = 100
  // (one pair) and j = 182, 181 (one each) are passed over.
  EXPECT_EQ(clusters[1].i, 101);
  EXPECT_EQ(clusters[1].j, 180);
  EXPECT_EQ(clusters[1].k, 1);
  EXPECT_EQ(clusters[1].m, 80);
  EXPECT_FLOAT_EQ(clusters[1].posterior, 1.0f);
  EXPECT_EQ(clusters[0].cluster, 0);  // pair 0 is B's
}

TEST(SegmentPairEnsemble, EndpointFallsBackToMostFrequent) {
  // 120 traces, one pair each on one diagonal, all starts different except
  // i = 40 (traces 1 and 30): threshold ceil(120 * 0.02) = 3 is never met, so
  // the most frequent start is taken (not the leftmost).
  SegmentPairEnsemble ensemble;
  for (int t = 0; t < 120; ++t) {
    const int i = t == 1 ? 40 : 10 + t;
    ensemble.add(t, i, 1000, i - 9, 991);
  }
  const std::vector<EnsembleCluster> clusters = ensemble.cluster(ClusterParameters{});
  ASSERT_EQ(clusters.size(), 1u);
  EXPECT_EQ(clusters[0].i, 40);
  EXPECT_EQ(clusters[0].k, 31);
  EXPECT_EQ(clusters[0].j, 1000);
  EXPECT_EQ(clusters[0].m, 991);
  EXPECT_FLOAT_EQ(clusters[0].posterior, 1.0f);
}

TEST(SegmentPairEnsemble, SortsByStartKeepingClusterOrderOnTies) {
  // Two unlinked clusters (diagonals far apart) with the same start; the
  // later-numbered one must stay second.
  SegmentPairEnsemble ensemble;
  for (int t = 0; t < 10; ++t) {
    ensemble.add(t, 50, 150, 1, 100);
    ensemble.add(t, 50, 150, 30, 130);
  }
  ensemble.add(10, 5, 40, 1, 36);  // an earlier, rare one: dropped (0.09)
  const std::vector<EnsembleCluster> clusters = ensemble.cluster(ClusterParameters{});
  ASSERT_EQ(clusters.size(), 2u);
  EXPECT_LT(clusters[0].cluster, clusters[1].cluster);
  EXPECT_EQ(clusters[0].k, 1);
  EXPECT_EQ(clusters[1].k, 30);
}

// ---------------------------------------------------------------------------
// A hand-made profile (M = 3) in odds ratios.

struct TinyProfile {
  static constexpr int M = 3;
  SearchProfile search;
  OddsProfile odds;

  // `strong`: residues 6, 9, 1 have odds 100 at nodes 1, 2, 3 (a repeat of them
  // drives E far over HMMER's rescaling threshold).
  explicit TinyProfile(int L, bool strong = false) {
    search.M = M;
    search.fwd_match.assign(static_cast<std::size_t>(kCodes) * M, 0.0f);
    for (int x = 0; x < kResidues; ++x)
      for (int k = 1; k <= M; ++k)
        search.fwd_match[x * M + k - 1] = 0.2f + 0.15f * static_cast<float>((x * 7 + k * 3) % 11);
    if (strong) search.fwd_match[6 * M + 0] = search.fwd_match[9 * M + 1] = search.fwd_match[1 * M + 2] = 100.0f;
    // Node k's cell: entries into M_k (bm, mm, im, dm), then M_k -> D_k+1,
    // M_k -> I_k, I_k -> I_k, D_k -> D_k+1; nothing beyond node M.
    search.fwd_transitions = {{0.5f, 0.0f, 0.0f, 0.0f, 0.1f, 0.1f, 0.3f, 0.2f},
                              {0.3f, 0.8f, 0.7f, 0.8f, 0.1f, 0.1f, 0.3f, 0.2f},
                              {0.2f, 0.8f, 0.7f, 0.8f, 0.0f, 0.0f, 0.0f, 0.0f}};
    odds = odds_profile(search, L, true);
  }
  float match(int code, int k) const { return search.fwd_match[code * M + k - 1]; }
};

TEST(Null2ByTrace, WeightsMatchOddsByNodeUsage) {
  TinyProfile tiny(10);
  // S N N B M1 I1 M2 E C C T over residues 1..4 (N emits 1, M1 2, I1 3, M2 4).
  Trace trace;
  trace.append(kTraceS, 0, 0), trace.append(kTraceN, 0, 0), trace.append(kTraceN, 0, 1);
  trace.append(kTraceB, 0, 0), trace.append(kTraceM, 1, 2), trace.append(kTraceI, 1, 3);
  trace.append(kTraceM, 2, 4), trace.append(kTraceE, 0, 0), trace.append(kTraceC, 0, 0);
  trace.append(kTraceT, 0, 0);
  const std::array<float, kCodes> null2 = null2_by_trace(tiny.odds, trace, 3, 7);
  // Node 1 used twice (its insert counts as its match), node 2 once, of 3.
  const float norm = static_cast<float>(1.0 / 3.0f);
  for (int x = 0; x < kResidues; ++x) {
    const float expected = 2.0f * norm * tiny.match(x, 1) + 1.0f * norm * tiny.match(x, 2);
    EXPECT_NEAR(null2[x], expected, 1e-6f) << x;
  }
  const int N = 11, D = 2, Q = 13, E = 3, I = 7, L = 9, K = 8, C = 1;
  EXPECT_FLOAT_EQ(null2[21], (null2[N] + null2[D]) / 2.0f);  // B
  EXPECT_FLOAT_EQ(null2[22], (null2[I] + null2[L]) / 2.0f);  // J
  EXPECT_FLOAT_EQ(null2[23], (null2[Q] + null2[E]) / 2.0f);  // Z
  EXPECT_FLOAT_EQ(null2[24], null2[K]);                       // O
  EXPECT_FLOAT_EQ(null2[25], null2[C]);                       // U
  float sum = 0.0f;
  for (int x = 0; x < kResidues; ++x) sum += null2[x];
  EXPECT_FLOAT_EQ(null2[26], sum / 20.0f);  // X
  EXPECT_EQ(null2[kGapCode], 1.0f);
  EXPECT_EQ(null2[kNonresidueCode], 1.0f);
  EXPECT_EQ(null2[kMissingCode], 1.0f);
  // Trace positions outside the domain (N, C) add their share on top.
  const std::array<float, kCodes> whole = null2_by_trace(tiny.odds, trace, 0, 9);
  EXPECT_NEAR(whole[0], 0.25f * 2.0f * tiny.match(0, 1) + 0.25f * tiny.match(0, 2) + 0.25f, 1e-6f);
}

// ---------------------------------------------------------------------------
// Stochastic traces

// The product of the path's transition and emission odds.
double path_odds(const Trace& trace, const std::uint8_t* codes, const OddsProfile& p) {
  const int M = p.core.M;
  const SpecialOdds& x = p.special;
  auto t = [&](int k) -> const CellTransitions<float>& { return p.core.transitions[k - 1]; };
  double odds = 1.0;
  for (int z = 0; z + 1 < trace.size(); ++z) {
    const int s = trace.state[z], n = trace.state[z + 1], k = trace.k[z], k2 = trace.k[z + 1];
    if (s == kTraceM) odds *= p.core.match[codes[trace.i[z] - 1] * M + k - 1];
    double step = 0.0;
    if (s == kTraceS && n == kTraceN) step = 1.0;
    else if (s == kTraceN) step = n == kTraceN ? x.n_loop : (n == kTraceB ? x.n_move : 0.0);
    else if (s == kTraceB && n == kTraceM) step = t(k2).bm;
    else if (s == kTraceM && n == kTraceM && k2 == k + 1) step = t(k2).mm;
    else if (s == kTraceM && n == kTraceI && k2 == k) step = t(k).mi;
    else if (s == kTraceM && n == kTraceD && k2 == k + 1) step = t(k).md;
    else if (s == kTraceI && n == kTraceI && k2 == k) step = t(k).ii;
    else if (s == kTraceI && n == kTraceM && k2 == k + 1) step = t(k2).im;
    else if (s == kTraceD && n == kTraceD && k2 == k + 1) step = t(k).dd;
    else if (s == kTraceD && n == kTraceM && k2 == k + 1) step = t(k2).dm;
    else if ((s == kTraceM || s == kTraceD) && n == kTraceE) step = 1.0;
    else if (s == kTraceE) step = n == kTraceC ? x.e_move : (n == kTraceJ ? x.e_loop : 0.0);
    else if (s == kTraceJ) step = n == kTraceJ ? x.j_loop : (n == kTraceB ? x.j_move : 0.0);
    else if (s == kTraceC) step = n == kTraceC ? x.c_loop : (n == kTraceT ? x.c_move : 0.0);
    odds *= step;
  }
  return odds;
}

// A valid path: S first, T last, residues 1..L emitted once each in order by
// N, C, J (all but the first of a run), M and I; M/D/I nodes in 1..M.
::testing::AssertionResult valid_path(const Trace& trace, int L, int M) {
  if (trace.size() < 2 || trace.state.front() != kTraceS || trace.state.back() != kTraceT)
    return ::testing::AssertionFailure() << "not S..T";
  int next = 1;
  for (int z = 0; z < trace.size(); ++z) {
    const int s = trace.state[z];
    const bool core = s == kTraceM || s == kTraceD || s == kTraceI;
    if (core != (trace.k[z] >= 1 && trace.k[z] <= M)) return ::testing::AssertionFailure() << "node at " << z;
    const bool run_start = (s == kTraceN || s == kTraceC || s == kTraceJ) && trace.state[z - 1] != s;
    const bool emits = s == kTraceM || s == kTraceI || ((s == kTraceN || s == kTraceC || s == kTraceJ) && !run_start);
    if (emits ? trace.i[z] != next++ : trace.i[z] != 0) return ::testing::AssertionFailure() << "residue at " << z;
  }
  if (next != L + 1) return ::testing::AssertionFailure() << "emitted " << next - 1 << " of " << L;
  return ::testing::AssertionSuccess();
}

std::string path_key(const Trace& trace) {
  std::string key;
  for (int z = 0; z < trace.size(); ++z)
    key += "?MDISNBECTJ"[trace.state[z]] + std::to_string(trace.k[z]) + ":" + std::to_string(trace.i[z]) + " ";
  return key;
}

// Draws one trace should take: one per state on the way back from the
// first C, except N (whose predecessor is fixed) and S, T.
int expected_draws(const Trace& trace) {
  int draws = 0;
  for (int z = 0; z < trace.size(); ++z) {
    const int s = trace.state[z];
    draws += !(s == kTraceS || s == kTraceN || s == kTraceT);
  }
  return draws;
}

// Samples `samples` traces; each must be a valid path taking HMMER's number
// of draws, and each path frequent enough to measure must be sampled with
// its probability, odds(path) / Forward total. Returns the paths checked.
int check_path_frequencies(const std::vector<std::uint8_t>& codes, const TinyProfile& tiny, int samples,
                           double& covered) {
  const int L = static_cast<int>(codes.size());
  DpMatrix fwd;
  const double total = std::exp(static_cast<double>(forward_matrix(codes.data(), L, tiny.odds, fwd)));
  EaselFastRandom rng(42);
  std::map<std::string, std::pair<int, double>> seen;  // path -> count, probability
  for (int n = 0; n < samples; ++n) {
    EaselFastRandom before = rng;
    const Trace trace = stochastic_trace(rng, codes.data(), L, tiny.odds, fwd);
    EXPECT_TRUE(valid_path(trace, L, TinyProfile::M)) << path_key(trace);
    for (int d = expected_draws(trace); d > 0; --d) before.next_uint32();
    EXPECT_EQ(before.state(), rng.state()) << "draws differ from HMMER's for " << path_key(trace);
    if (::testing::Test::HasFailure()) return 0;
    auto& entry = seen[path_key(trace)];
    entry.first++;
    entry.second = path_odds(trace, codes.data(), tiny.odds) / total;
  }
  covered = 0.0;
  int checked = 0;
  for (const auto& [key, entry] : seen) {
    const double p = entry.second, freq = static_cast<double>(entry.first) / samples;
    covered += p;
    EXPECT_GT(p, 0.0) << key;
    if (p < 0.002) continue;
    ++checked;
    EXPECT_NEAR(freq, p, 5.0 * std::sqrt(p * (1 - p) / samples) + 1e-4) << key;
  }
  return checked;
}

TEST(StochasticTrace, PathFrequenciesMatchForwardProbabilities) {
  const std::vector<std::uint8_t> codes = {3, 8, 15, 2, 11};
  double covered = 0.0;
  EXPECT_GT(check_path_frequencies(codes, TinyProfile(5), 40000, covered), 10);
  EXPECT_LE(covered, 1.0 + 1e-5);
  EXPECT_GT(covered, 0.9);
}

TEST(StochasticTrace, PathFrequenciesWithRescaledRows) {
  // Three copies of the strong residues: E exceeds 1e4 on rows 3, 6, 9, so
  // the C and J choices there compare a rescaled E (times its scale) with the
  // previous row's unscaled C or J.
  const std::vector<std::uint8_t> codes = {6, 9, 1, 6, 9, 1, 6, 9, 1};
  const TinyProfile tiny(9, true);
  DpMatrix fwd;
  forward_matrix(codes.data(), 9, tiny.odds, fwd);
  EXPECT_NE(fwd.x(3, kXScale), 1.0f);
  EXPECT_NE(fwd.x(9, kXScale), 1.0f);
  double covered = 0.0;
  EXPECT_GT(check_path_frequencies(codes, tiny, 40000, covered), 3);
  EXPECT_LE(covered, 1.0 + 1e-5);
  EXPECT_GT(covered, 0.9);
}

TEST(StochasticTrace, LongTargetWithRescaledRows) {
  // The model's best residues repeated: rows get rescaled (E > 1e4), so the
  // C/J choices must multiply the scale back in.
  const int L = 300;
  TinyProfile tiny(L, true);
  std::vector<std::uint8_t> codes(L);
  for (int i = 0; i < L; ++i) codes[i] = static_cast<std::uint8_t>((i % 3 == 0) ? 6 : (i % 3 == 1 ? 9 : 1));
  DpMatrix fwd;
  forward_matrix(codes.data(), L, tiny.odds, fwd);
  int rescaled = 0;
  for (int i = 1; i <= L; ++i) rescaled += fwd.x(i, kXScale) != 1.0f;
  EaselFastRandom rng(42);
  double domains = 0;
  for (int n = 0; n < 200; ++n) {
    EaselFastRandom before = rng;
    Trace trace = stochastic_trace(rng, codes.data(), L, tiny.odds, fwd);
    ASSERT_TRUE(valid_path(trace, L, TinyProfile::M));
    for (int d = expected_draws(trace); d > 0; --d) before.next_uint32();
    ASSERT_EQ(before.state(), rng.state());
    trace.index_domains();
    domains += static_cast<double>(trace.domains.size());
  }
  EXPECT_GT(rescaled, 20);
  EXPECT_GT(domains / 200, 10.0);  // a repeat this strong is covered by many domains
}

// ---------------------------------------------------------------------------
// Real multi-domain regions: fn3 on fibronectin repeats cut from
// 7LESS_DROME (hmmer-examples) and joined: residues 826..914, 826..900 and
// 1809..1891 (247 residues). hmmsearch 3.3.2 (--max, default domain
// options) finds regions 1..89 and 90..247, both clustered, and reports the
// envelopes 1..89, 90..167, 157..247 with domain biases 0.0, 0.0, 1.4 bits.
// The same held for ~400 envelopes (about 120 of them clustered) of hmmemit
// samples of fn3, Pkinase and globins4 with 35-55% of residues mutated.


// The residues of a Swiss-Prot entry (its SQ block).
std::vector<std::uint8_t> swissprot_codes(const std::string& text) {
  const std::size_t start = text.find("\nSQ ");
  const std::size_t body = text.find('\n', start + 1), end = text.find("\n//", body);
  if (start == std::string::npos || body == std::string::npos || end == std::string::npos)
    throw std::runtime_error("no SQ block");
  std::string letters;
  for (std::size_t c = body; c < end; ++c)
    if (std::isalpha(static_cast<unsigned char>(text[c]))) letters += text[c];
  return digitize(letters, "7LESS_DROME");
}

float domain_bias_bits(const std::vector<float>& null2_scores, const RegionEnvelope& envelope) {
  float correction = 0.0f;
  for (int i = envelope.i; i <= envelope.j; ++i) correction += null2_scores[i];
  correction = std::max(0.0f, correction);
  return hmmer_flogsum(0.0f, std::log(1.0f / 256.0f) + correction) / 0.69314718055994529f;  // omega = 1/256
}

// hmmer-examples' fn3 profile and 7LESS_DROME (many fn3 repeats); false
// when they are not installed.
bool read_fn3_and_sevenless(std::vector<ProfileHmm>& hmms, std::vector<std::uint8_t>& codes) {
  try {
    hmms = parse_hmm_file(read_text_maybe_gzipped(kTutorial + "fn3.hmm"), "fn3.hmm");
    codes = swissprot_codes(read_text_maybe_gzipped(kTutorial + "7LESS_DROME"));
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

TEST(SampleRegionEnvelopes, MatchesHmmsearchOnFibronectinRepeats) {
  std::vector<ProfileHmm> hmms;
  std::vector<std::uint8_t> whole;
  if (!read_fn3_and_sevenless(hmms, whole)) GTEST_SKIP() << "hmmer-examples not found";
  std::vector<std::uint8_t> codes;
  for (auto [from, to] : {std::pair{826, 914}, {826, 900}, {1809, 1891}})
    codes.insert(codes.end(), whole.begin() + from - 1, whole.begin() + to);
  const int L = static_cast<int>(codes.size());
  ASSERT_EQ(L, 247);
  const SearchProfile profile = configure_profile(hmms.front());
  const OddsProfile multihit = odds_profile(profile, L, true);
  const DomainDefinitionOptions options;
  EaselFastRandom rng(options.seed);
  std::vector<float> null2_scores(L + 1, -7.0f);

  auto sample = [&](int ireg, int jreg) {
    DpMatrix fwd;
    forward_matrix(codes.data() + ireg - 1, jreg - ireg + 1, multihit, fwd);
    return sample_region_envelopes(multihit, codes.data(), ireg, jreg, fwd, options, rng, null2_scores);
  };
  const std::vector<RegionEnvelope> first = sample(1, 89);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].i, 1);
  EXPECT_EQ(first[0].j, 89);
  EXPECT_NEAR(domain_bias_bits(null2_scores, first[0]), 0.0f, 0.05f);

  rng.next_uint32();  // a used generator: the region reseeds it
  const std::vector<RegionEnvelope> second = sample(90, 247);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].i, 90);
  EXPECT_EQ(second[0].j, 167);
  EXPECT_EQ(second[1].i, 157);
  EXPECT_EQ(second[1].j, 247);
  EXPECT_NEAR(domain_bias_bits(null2_scores, second[0]), 0.0f, 0.05f);
  EXPECT_NEAR(domain_bias_bits(null2_scores, second[1]), 1.4f, 0.05f);
  EXPECT_EQ(null2_scores[0], -7.0f);  // untouched outside the regions
  for (int i = 1; i <= L; ++i) ASSERT_TRUE(std::isfinite(null2_scores[i])) << i;

  // Reproducible from any generator state.
  const std::vector<float> kept = null2_scores;
  for (int n = 0; n < 5; ++n) rng.next_uint32();
  const std::vector<RegionEnvelope> repeat = sample(90, 247);
  ASSERT_EQ(repeat.size(), second.size());
  for (std::size_t d = 0; d < repeat.size(); ++d) {
    EXPECT_EQ(repeat[d].i, second[d].i);
    EXPECT_EQ(repeat[d].j, second[d].j);
    EXPECT_EQ(repeat[d].posterior, second[d].posterior);
  }
  EXPECT_EQ(null2_scores, kept);
}

// The walk of hmm_sampling_rows.h (what every engine runs) keeps only each
// trace's domains and null2 odds; here the same samples are drawn as whole
// traces with stochastic_trace(), indexed and scored with null2_by_trace(),
// and summed as HMMER's region_trace_ensemble does: the same pairs, the
// same sums, bit for bit.
TEST(SampleRegion, TheWalkKeepsWhatTheTracesSay) {
  std::vector<ProfileHmm> hmms;
  std::vector<std::uint8_t> whole;
  if (!read_fn3_and_sevenless(hmms, whole)) GTEST_SKIP() << "hmmer-examples not found";
  const SearchProfile profile = configure_profile(hmms.front());
  const int L = static_cast<int>(whole.size());
  const OddsProfile multihit = odds_profile(profile, L, true);
  int domains = 0;
  for (auto [ireg, jreg] : {std::pair{800, 1000}, {1, L}, {1700, 2100}, {826, 914}}) {
    const int Lr = jreg - ireg + 1;
    const std::uint8_t* region = whole.data() + ireg - 1;
    DpMatrix fwd;
    forward_matrix(region, Lr, multihit, fwd);
    const RegionSamples walked = sample_region(multihit, region, Lr, fwd, 200, EaselFastRandom(42).state());

    EaselFastRandom rng(42);
    std::vector<SampledPair> pairs;
    std::vector<float> sums(Lr, 0.0f);
    for (int t = 0; t < 200; ++t) {
      Trace trace = stochastic_trace(rng, region, Lr, multihit, fwd);
      trace.index_domains();
      int pos = 1;
      for (const TraceDomain& d : trace.domains) {
        pairs.push_back({t, d.sqfrom, d.sqto, d.hmmfrom, d.hmmto});
        const std::array<float, kCodes> null2 = null2_by_trace(multihit, trace, d.tfrom, d.tto);
        for (; pos <= d.sqfrom; ++pos) sums[pos - 1] += 1.0f;
        for (; pos <= d.sqto; ++pos) sums[pos - 1] += null2[region[pos - 1]];
      }
      for (; pos <= Lr; ++pos) sums[pos - 1] += 1.0f;
    }
    const std::string where = "region " + std::to_string(ireg) + ".." + std::to_string(jreg);
    ASSERT_EQ(walked.pairs.size(), pairs.size()) << where;
    for (std::size_t n = 0; n < pairs.size(); ++n) {
      const SampledPair &a = walked.pairs[n], &b = pairs[n];
      ASSERT_TRUE(a.sample == b.sample && a.i == b.i && a.j == b.j && a.k == b.k && a.m == b.m) << where << " pair " << n;
    }
    ASSERT_EQ(walked.sums.size(), sums.size());
    for (int pos = 0; pos < Lr; ++pos)
      ASSERT_EQ(std::memcmp(&walked.sums[pos], &sums[pos], sizeof(float)), 0) << where << " residue " << pos + 1;
    domains += static_cast<int>(pairs.size());
  }
  EXPECT_GT(domains, 1000);  // 7LESS_DROME holds many fn3 repeats
}

}  // namespace
}  // namespace helix::hmmsearch
