// sw_gpu_test.cpp: the CUDA engine's scores equal the reference's for every
// pair: random and real-length sequences, every matrix, edge cases (length
// 0 and 1 targets, an empty query, a target longer than anything else, scores
// beyond 16 bits), long pairs; the reported hits' ends and alignments.
// Skipped without a GPU.
#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <filesystem>

#include <gtest/gtest.h>

#include "core/gpu_devices.h"
#include "sw_engine.h"

namespace helix::swsearch {
namespace {

// Debian's ncbi-data matrices; $HELIX_NCBI_DATA overrides (the GPU machine has a copy, not the package).
const std::string kMatrixDir = [] {
  const char* override_dir = std::getenv("HELIX_NCBI_DATA");
  return std::string(override_dir ? override_dir : "/usr/share/ncbi/data") + "/";
}();

std::vector<std::uint8_t> random_protein(std::uint32_t& state, int length) {
  std::vector<std::uint8_t> codes;
  for (int k = 0; k < length; ++k) {
    state = state * 1664525u + 1013904223u;
    const std::uint32_t pick = state >> 8;
    codes.push_back(static_cast<std::uint8_t>(pick % 97 == 0 ? 20 + pick % 5 : pick % 20));  // now and then B J Z X *
  }
  return codes;
}

class SwGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    if (!std::filesystem::exists(kMatrixDir + "BLOSUM62")) GTEST_SKIP() << "ncbi-data is not installed";
  }
  // Scores of every query against every target on the GPU equal the reference engine's.
  void expect_reference_scores(const std::vector<std::vector<std::uint8_t>>& queries,
                               const std::vector<std::vector<std::uint8_t>>& targets, const ScoreMatrix& matrix,
                               const GapPenalties& gaps) {
    const SequenceSet set = make_target_set(targets);
    auto gpu = make_gpu_engine(0);
    auto reference = make_reference_engine();
    gpu->load_targets(set);
    reference->load_targets(set);
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const auto expected = reference->scores(queries[q], matrix, gaps);
      const auto got = gpu->scores(queries[q], matrix, gaps);
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t t = 0; t < expected.size(); ++t)
        ASSERT_EQ(got[t], expected[t]) << matrix.name << " " << gaps.open << "/" << gaps.extend << " query " << q
                                       << " (length " << queries[q].size() << ") target " << t << " (length "
                                       << targets[t].size() << ")";
    }
  }
};

// The GPU's best_scores() selects on the device exactly what the base
// version selects from every score on the host: ties at the threshold, fewer
// positive scores than the limit, and scores in the histogram's top bin
// (>= 32767) included.
TEST_F(SwGpu, BestScoresAreTheHostsSelection) {
  const ScoreMatrix blosum62 = read_ncbi_matrix(kMatrixDir + "BLOSUM62");
  std::uint32_t state = 23;
  std::vector<std::vector<std::uint8_t>> targets;
  for (int t = 0; t < 3000; ++t) targets.push_back(random_protein(state, 1 + (t * 53) % 700));
  for (int t = 0; t < 40; ++t) targets.push_back(targets[11]);  // ties
  const std::vector<std::uint8_t> tryptophans(3100, encode_protein("W", "w")[0]);
  targets.push_back(tryptophans);  // 34,100: the top bin
  targets.push_back(tryptophans);
  targets.push_back({});
  const SequenceSet set = make_target_set(targets);
  auto gpu = make_gpu_engine(0);
  auto host = make_cpu_engine(0);  // the base best_scores(), over exact scores (tested against the reference)
  gpu->load_targets(set);
  host->load_targets(set);
  auto sorted = [](std::vector<ScoredTarget> best) {
    std::sort(best.begin(), best.end(), [](const ScoredTarget& a, const ScoredTarget& b) { return a.target < b.target; });
    std::vector<std::pair<std::uint32_t, std::int32_t>> pairs;
    for (const ScoredTarget& b : best) pairs.emplace_back(b.target, b.score);
    return pairs;
  };
  for (const auto& query : {targets[11], random_protein(state, 300), tryptophans, random_protein(state, 2)})
    for (std::size_t limit : {1u, 2u, 5u, 50u, 2999u, 10000u}) {
      const auto expected = sorted(host->best_scores(query, blosum62, {11, 1}, limit));
      const auto got = sorted(gpu->best_scores(query, blosum62, {11, 1}, limit));
      std::vector<std::pair<std::uint32_t, std::int32_t>> only_expected, only_got;
      std::set_difference(expected.begin(), expected.end(), got.begin(), got.end(), std::back_inserter(only_expected));
      std::set_difference(got.begin(), got.end(), expected.begin(), expected.end(), std::back_inserter(only_got));
      ASSERT_TRUE(only_expected.empty() && only_got.empty())
          << "query length " << query.size() << ", limit " << limit << ": " << expected.size() << " expected, "
          << got.size() << " got; " << only_expected.size() << " missing (first " << (only_expected.empty() ? 0u : only_expected[0].first)
          << " score " << (only_expected.empty() ? 0 : only_expected[0].second) << "), " << only_got.size()
          << " extra (first " << (only_got.empty() ? 0u : only_got[0].first) << " score "
          << (only_got.empty() ? 0 : only_got[0].second) << ")";
    }
}

TEST_F(SwGpu, RandomPairsEveryMatrix) {
  std::uint32_t state = 5;
  std::vector<std::vector<std::uint8_t>> targets, queries;
  for (int t = 0; t < 300; ++t) targets.push_back(random_protein(state, (t * 37) % 400 + (t % 7 == 0 ? 0 : 1)));
  for (int length : {1, 2, 15, 16, 17, 100, 333}) queries.push_back(random_protein(state, length));
  const std::pair<const char*, GapPenalties> settings[] = {
      {"BLOSUM62", {12, 1}}, {"BLOSUM62", {11, 1}}, {"BLOSUM45", {15, 2}}, {"BLOSUM50", {13, 2}},
      {"BLOSUM80", {10, 1}}, {"PAM30", {10, 1}},   {"PAM70", {11, 1}},   {"PAM250", {14, 2}}};
  for (const auto& [name, gaps] : settings)
    expect_reference_scores(queries, targets, read_ncbi_matrix(kMatrixDir + name), gaps);
}

TEST_F(SwGpu, EdgeCasesAndScoresBeyondSixteenBits) {
  const ScoreMatrix blosum62 = read_ncbi_matrix(kMatrixDir + "BLOSUM62");
  std::uint32_t state = 17;
  const std::vector<std::uint8_t> long_target = random_protein(state, 6000);
  // A query equal to the long target scores its full diagonal: above 2^15.
  std::vector<std::uint8_t> tryptophans(3100, encode_protein("W", "w")[0]);
  std::vector<std::vector<std::uint8_t>> targets = {{}, {encode_protein("W", "w")[0]}, long_target, tryptophans,
                                                    random_protein(state, 31)};
  expect_reference_scores({long_target, tryptophans, {}, {encode_protein("W", "w")[0]}}, targets, blosum62, {11, 1});
  auto reference = make_reference_engine();
  reference->load_targets(make_target_set(targets));
  EXPECT_GT(reference->scores(tryptophans, blosum62, {11, 1})[3], 32767);  // 3100 x 11
  // A query under 768 residues scores the long targets transposed (targets as
  // rows, in 32-row strips). The last strip's padding rows hold residue 0 (A):
  // they once counted, and a query's A's against them raised a score (22 -> 32).
  std::vector<std::uint8_t> alanines_last = random_protein(state, 584);
  for (int k = 0; k < 40; ++k) alanines_last[500 + k] = encode_protein("A", "a")[0];
  expect_reference_scores({alanines_last, random_protein(state, 700)},
                          {tryptophans, random_protein(state, 3001), random_protein(state, 4000)}, blosum62, {11, 1});
}

TEST_F(SwGpu, LongPairsTakeABlockEach) {
  // Pairs holding a target of 3,000 residues or more (kLongTarget) go, for
  // queries under 768 residues, to the transposed warp kernel (targets as
  // rows, the 12,001-residue one in 12 passes of 1,024: queries 1, 33), else to the block
  // kernel: 4 and 10 passes (as many warps) and 31 passes (16 warps, each
  // taking two passes through the ring of boundary rows); the rest to the
  // lane groups (group sizes 1, 4, and 32 with 2, 5 and 16 passes). Lengths on
  // both sides of the threshold.
  std::uint32_t state = 23;
  std::vector<std::vector<std::uint8_t>> targets;
  for (int length : {2999, 3000, 3001, 4095, 4096, 5000, 7777, 12001, 300, 4500, 1024, 1025, 2000})
    targets.push_back(random_protein(state, length));
  targets.push_back(targets[6]);  // a long target equal to a query below: a score far beyond 16 bits
  std::vector<std::vector<std::uint8_t>> queries = {random_protein(state, 1), random_protein(state, 33),
                                                    random_protein(state, 1024), random_protein(state, 2500)};
  queries.push_back(targets[6]);
  expect_reference_scores(queries, targets, read_ncbi_matrix(kMatrixDir + "BLOSUM62"), {11, 1});
}

// ends() on the GPU equals sw_score(): the score and the first cell (target
// position outer) that reaches it. Ties are the point: repeats give the best
// score in several cells.
void expect_reference_ends(const std::vector<std::vector<std::uint8_t>>& queries,
                           const std::vector<std::vector<std::uint8_t>>& targets, const ScoreMatrix& matrix,
                           const GapPenalties& gaps) {
  std::vector<HitPair> pairs;
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (const auto& target : targets) pairs.push_back({q, target.data(), target.size()});
  const std::vector<LocalScore> got = make_gpu_engine(0)->ends(queries, pairs, matrix, gaps);
  ASSERT_EQ(got.size(), pairs.size());
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const std::vector<std::uint8_t> target(pairs[p].target, pairs[p].target + pairs[p].target_length);
    const LocalScore expected = sw_score(queries[pairs[p].query], target, matrix, gaps);
    ASSERT_EQ(got[p], expected) << matrix.name << " pair " << p << ": query " << pairs[p].query << " (length "
                                << queries[pairs[p].query].size() << "), target length " << target.size()
                                << "; got " << got[p].score << " at (" << got[p].query_end << ", "
                                << got[p].target_end << "), reference " << expected.score << " at ("
                                << expected.query_end << ", " << expected.target_end << ")";
  }
}

std::vector<std::uint8_t> repeat(const std::string& letters, int times) {
  std::string text;
  for (int k = 0; k < times; ++k) text += letters;
  return encode_protein(text, "repeat");
}

TEST_F(SwGpu, EndsOfReportedHitsAreTheReferences) {
  std::uint32_t state = 29;
  std::vector<std::vector<std::uint8_t>> targets = {{}, repeat("W", 1), repeat("WK", 9), repeat("AAAC", 20),
                                                    repeat("P", 50)};
  for (int t = 0; t < 60; ++t) targets.push_back(random_protein(state, 1 + (t * 53) % 700));
  // Repeats against repeats tie in many cells; an empty query and a query
  // scoring 0 everywhere (P against W) end nowhere.
  std::vector<std::vector<std::uint8_t>> queries = {{}, repeat("W", 3), repeat("WK", 2), repeat("AAAC", 7),
                                                    random_protein(state, 1), random_protein(state, 250)};
  queries.push_back(targets[7]);  // a hit equal to its query
  const std::pair<const char*, GapPenalties> settings[] = {{"BLOSUM62", {11, 1}}, {"BLOSUM45", {15, 2}}, {"PAM30", {10, 1}}};
  for (const auto& [name, gaps] : settings) expect_reference_ends(queries, targets, read_ncbi_matrix(kMatrixDir + name), gaps);
}

TEST_F(SwGpu, EndsOfALongQueryComeInBatches) {
  // A 20,000-residue query's DP column is 160 kB: 900 pairs need two batches
  // of the engine's 128 MiB scratch.
  std::uint32_t state = 31;
  const std::vector<std::vector<std::uint8_t>> queries = {random_protein(state, 20000)};
  std::vector<std::vector<std::uint8_t>> targets;
  for (int t = 0; t < 900; ++t) targets.push_back(random_protein(state, 20 + t % 40));
  targets[899] = std::vector<std::uint8_t>(queries[0].begin() + 19950, queries[0].end());  // the last batch's end
  expect_reference_ends(queries, targets, read_ncbi_matrix(kMatrixDir + "BLOSUM62"), {11, 1});
}

// alignments() on the GPU (traceback bits on the device, the walk on the
// host) equals sw_align() from the same ends, field for field.
void expect_reference_alignments(const std::vector<std::vector<std::uint8_t>>& queries,
                                 const std::vector<std::vector<std::uint8_t>>& targets, const ScoreMatrix& matrix,
                                 const GapPenalties& gaps) {
  std::vector<HitPair> pairs;
  std::vector<LocalScore> ends;
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (const auto& target : targets) {
      pairs.push_back({q, target.data(), target.size()});
      ends.push_back(sw_score(queries[q], target, matrix, gaps));
    }
  const std::vector<Alignment> got = make_gpu_engine(0)->alignments(queries, pairs, ends, matrix, gaps);
  ASSERT_EQ(got.size(), pairs.size());
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const std::vector<std::uint8_t> target(pairs[p].target, pairs[p].target + pairs[p].target_length);
    const Alignment want = sw_align(queries[pairs[p].query], target, matrix, gaps, ends[p]);
    const std::string where = matrix.name + " pair " + std::to_string(p) + " (query length " +
                              std::to_string(queries[pairs[p].query].size()) + ", target length " +
                              std::to_string(target.size()) + ")";
    ASSERT_EQ(got[p].score, want.score) << where;
    ASSERT_EQ(got[p].cigar, want.cigar) << where;
    ASSERT_EQ(got[p].query_begin, want.query_begin) << where;
    ASSERT_EQ(got[p].target_begin, want.target_begin) << where;
    ASSERT_EQ(got[p].query_end, want.query_end) << where;
    ASSERT_EQ(got[p].target_end, want.target_end) << where;
    ASSERT_EQ(got[p].identities, want.identities) << where;
    ASSERT_EQ(got[p].length, want.length) << where;
  }
}

TEST_F(SwGpu, AlignmentsAreTheReferences) {
  std::uint32_t state = 37;
  std::vector<std::vector<std::uint8_t>> targets = {{}, repeat("W", 1), repeat("WK", 9), repeat("AAAC", 20),
                                                    repeat("P", 50)};
  for (int t = 0; t < 40; ++t) targets.push_back(random_protein(state, 1 + (t * 97) % 900));
  // Repeats tie in many cells and between sources; related sequences give
  // long alignments with gaps; a 1,500-residue query takes two passes of a warp.
  std::vector<std::vector<std::uint8_t>> queries = {{}, repeat("W", 3), repeat("WK", 2), repeat("AAAC", 7),
                                                    random_protein(state, 33), random_protein(state, 1500)};
  std::vector<std::uint8_t> related = targets[20];
  related.erase(related.begin() + related.size() / 3, related.begin() + related.size() / 3 + 7);  // a deletion
  related.insert(related.begin() + related.size() / 2, 5, encode_protein("G", "g")[0]);          // an insertion
  queries.push_back(related);
  std::vector<std::uint8_t> long_related = queries[5];
  long_related.erase(long_related.begin() + 1100, long_related.begin() + 1112);
  targets.push_back(long_related);
  const std::pair<const char*, GapPenalties> settings[] = {{"BLOSUM62", {11, 1}}, {"BLOSUM45", {15, 2}},
                                                           {"PAM30", {10, 1}}, {"BLOSUM62", {4, 4}}};
  for (const auto& [name, gaps] : settings)
    expect_reference_alignments(queries, targets, read_ncbi_matrix(kMatrixDir + name), gaps);
}

}  // namespace
}  // namespace helix::swsearch
