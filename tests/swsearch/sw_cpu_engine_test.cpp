// sw_cpu_engine_test.cpp: the parasail CPU engine (make_cpu_engine) scores
// every pair exactly as the reference engine does: real proteins (mmseqs2's
// example database and queries, HMMER's 45 globins), the NCBI matrices BLAST
// uses with their BLAST gap costs, random and mutated sequences from length 1
// to 6000 (scores across the 8-bit and 16-bit limits), gap costs the 8-bit
// kernels cannot hold, linear gaps, and the edge cases (no targets, an empty query, empty
// targets, U and O). Each comparison runs with 1 and with 3 threads.

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "core/file_io.h"

#include "core/errors.h"
#include "sw.h"
#include "sw_engine.h"

namespace helix::swsearch {
namespace {

// Debian's ncbi-data matrices; $HELIX_NCBI_DATA overrides (as the other swsearch tests).
const std::string kMatrixDir = [] {
  const char* override_dir = std::getenv("HELIX_NCBI_DATA");
  return std::string(override_dir ? override_dir : "/usr/share/ncbi/data") + "/";
}();
const std::string kMmseqsExamples = "/usr/share/doc/mmseqs2/example-data/";        // mmseqs2-examples
const std::string kGlobins = "/usr/share/doc/hmmer/examples/tutorial/globins45.fa";  // hmmer-examples

std::vector<std::vector<std::uint8_t>> read_sequences(const std::string& path, std::size_t at_most) {
  std::vector<std::vector<std::uint8_t>> sequences;
  for (auto& record : parse_fasta(read_text_maybe_gzipped(path), path)) {
    if (sequences.size() == at_most) break;
    sequences.push_back(std::move(record.residues));
  }
  return sequences;
}

// Linear congruential generator: the same sequences on every machine.
struct Random {
  std::uint32_t state;
  std::uint32_t next() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  }
};

// The 20 amino acids, and now and then B, J, Z, X or *.
std::vector<std::uint8_t> random_protein(Random& random, int length) {
  std::vector<std::uint8_t> codes;
  for (int k = 0; k < length; ++k) {
    const std::uint32_t pick = random.next();
    codes.push_back(static_cast<std::uint8_t>(pick % 50 == 0 ? 20 + pick / 50 % 5 : pick % 20));
  }
  return codes;
}

// A relative of `sequence`: per residue, 1 in `rate` substituted, deleted, or followed by 1-4 inserted residues.
std::vector<std::uint8_t> mutate(Random& random, const std::vector<std::uint8_t>& sequence, int rate) {
  std::vector<std::uint8_t> out;
  for (std::uint8_t residue : sequence) {
    const std::uint32_t pick = random.next() % (3 * rate);
    if (pick == 0) continue;  // deleted
    out.push_back(pick == 1 ? static_cast<std::uint8_t>(random.next() % 20) : residue);
    if (pick == 2)
      for (std::uint32_t k = 0, n = 1 + random.next() % 4; k < n; ++k) out.push_back(random.next() % 20);
  }
  return out;
}

class SwCpuEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kMatrixDir + "BLOSUM62")) GTEST_SKIP() << "ncbi-data is not installed";
    blosum62_ = read_ncbi_matrix(kMatrixDir + "BLOSUM62");
  }

  // The matrices with BLAST's default gap costs for each, in our convention.
  std::vector<std::pair<ScoreMatrix, GapPenalties>> blast_settings() const {
    return {{blosum62_, gaps_from_blast(11, 1)},                            // 12/1
            {read_ncbi_matrix(kMatrixDir + "BLOSUM45"), gaps_from_blast(15, 2)},  // 17/2
            {read_ncbi_matrix(kMatrixDir + "PAM30"), gaps_from_blast(9, 1)},      // 10/1
            {read_ncbi_matrix(kMatrixDir + "BLOSUM80"), gaps_from_blast(10, 1)}};  // 11/1
  }

  // The CPU engine with 1 and with 3 threads against the reference engine, every
  // query against every target; returns the reference's scores.
  std::vector<std::vector<std::int32_t>> expect_same_scores(const std::vector<std::vector<std::uint8_t>>& queries,
                                                            const std::vector<std::vector<std::uint8_t>>& targets,
                                                            const ScoreMatrix& matrix, const GapPenalties& gaps) {
    const SequenceSet set = make_target_set(targets);
    auto reference = make_reference_engine();
    reference->load_targets(set);
    auto one = make_cpu_engine(1), three = make_cpu_engine(3);
    one->load_targets(set);
    three->load_targets(set);
    std::vector<std::vector<std::int32_t>> all;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const auto expected = reference->scores(queries[q], matrix, gaps);
      EXPECT_EQ(expected.size(), targets.size());
      const auto got_one = one->scores(queries[q], matrix, gaps), got_three = three->scores(queries[q], matrix, gaps);
      for (std::size_t t = 0; t < targets.size(); ++t) {
        EXPECT_EQ(got_one.at(t), expected[t]) << matrix.name << " query " << q << " target " << t << ", 1 thread";
        EXPECT_EQ(got_three.at(t), expected[t]) << matrix.name << " query " << q << " target " << t << ", 3 threads";
      }
      EXPECT_EQ(got_one.size(), expected.size());
      EXPECT_EQ(got_three.size(), expected.size());
      all.push_back(expected);
    }
    return all;
  }

  std::vector<std::uint8_t> p(const std::string& text) { return encode_protein(text, "test"); }
  ScoreMatrix blosum62_;
};

TEST_F(SwCpuEngine, DescribesItself) {
  EXPECT_NE(make_cpu_engine(1)->description().find("parasail"), std::string::npos);
  EXPECT_NE(make_cpu_engine(3)->description().find("3 threads"), std::string::npos);
  EXPECT_EQ(make_cpu_engine(0)->description().find("0 threads"), std::string::npos);  // 0 = one per hardware thread
}

// HMMER's globins all against all: related sequences whose scores pass 255,
// so the 8-bit pass saturates and the 16-bit one decides.
TEST_F(SwCpuEngine, GlobinsAllAgainstAllEveryMatrix) {
  if (!std::filesystem::exists(kGlobins)) GTEST_SKIP() << "hmmer-examples is not installed";
  const auto globins = read_sequences(kGlobins, 1000);
  ASSERT_EQ(globins.size(), 45u);
  for (const auto& [matrix, gaps] : blast_settings()) {
    const auto scores = expect_same_scores(globins, globins, matrix, gaps);
    int best = 0;
    for (const auto& row : scores)
      for (int score : row) best = std::max(best, score);
    EXPECT_GT(best, 255) << matrix.name;  // the 16-bit path was taken
  }
}

// mmseqs2's example queries against the start of its example database plus the
// queries themselves (each finds itself).
TEST_F(SwCpuEngine, MmseqsExampleQueriesAgainstItsDatabase) {
  if (!std::filesystem::exists(kMmseqsExamples + "DB.fasta.gz")) GTEST_SKIP() << "mmseqs2-examples is not installed";
  const auto queries = read_sequences(kMmseqsExamples + "QUERY.fasta.gz", 6);
  auto targets = read_sequences(kMmseqsExamples + "DB.fasta.gz", 250);
  ASSERT_EQ(queries.size(), 6u);
  ASSERT_EQ(targets.size(), 250u);
  targets.insert(targets.begin() + 100, queries.begin(), queries.end());
  for (const auto& [matrix, gaps] : blast_settings()) {
    if (matrix.name != "BLOSUM62" && matrix.name != "PAM30") continue;  // the other two: globins and random
    const auto scores = expect_same_scores(queries, targets, matrix, gaps);
    for (std::size_t q = 0; q < queries.size(); ++q) EXPECT_GT(scores[q][100 + q], 0);
  }
}

// Random queries and relatives of them, lengths 1 to ~3000: stripe boundaries
// (32 bytes of 8-bit lanes, 16 of 16-bit ones), self scores in the thousands.
TEST_F(SwCpuEngine, RandomAndMutatedSequencesEveryMatrix) {
  Random random{2024};
  std::vector<std::vector<std::uint8_t>> queries, targets;
  for (int length : {1, 2, 15, 16, 17, 31, 32, 33, 64, 65, 200, 1000, 2999})
    queries.push_back(random_protein(random, length));
  for (int length : {1, 1, 3, 16, 32, 33, 47, 128, 300, 777, 3001}) targets.push_back(random_protein(random, length));
  for (std::size_t q = 0; q < queries.size(); ++q) {
    targets.push_back(queries[q]);                     // itself
    targets.push_back(mutate(random, queries[q], 10));  // a close relative with gaps
    targets.push_back(mutate(random, queries[q], 3));   // a distant one
  }
  for (const auto& [matrix, gaps] : blast_settings()) expect_same_scores(queries, targets, matrix, gaps);
}

// Self scores from below to above the 8-bit kernels' range, one by one.
TEST_F(SwCpuEngine, ScoresAcrossTheEightBitLimit) {
  Random random{7};
  const auto base = random_protein(random, 120);
  std::vector<std::vector<std::uint8_t>> queries, targets;
  for (int length = 30; length <= 120; length += 3) {
    queries.emplace_back(base.begin(), base.begin() + length);
    targets.push_back(queries.back());
  }
  const auto scores = expect_same_scores(queries, targets, blosum62_, gaps_from_blast(11, 1));
  EXPECT_LT(scores.front().front(), 200);
  EXPECT_GT(scores.back().back(), 300);
}

// 6000 tryptophans: 66,000, beyond the 16-bit kernels too.
TEST_F(SwCpuEngine, ScoresBeyondSixteenBits) {
  const std::vector<std::uint8_t> tryptophans = p(std::string(6000, 'W'));
  Random random{99};
  const auto scores = expect_same_scores({tryptophans}, {tryptophans, mutate(random, tryptophans, 20), p("W")},
                                         blosum62_, {12, 1});
  EXPECT_EQ(scores[0][0], 6000 * 11);
  EXPECT_EQ(scores[0][2], 11);
}

// Gap costs over 127 do not fit the 8-bit kernels' byte lanes; open 128 to 255
// with long sequences would overflow 16-bit sums of a stripe's gap penalties.
TEST_F(SwCpuEngine, LargeGapCosts) {
  Random random{31};
  std::vector<std::vector<std::uint8_t>> queries, targets;
  for (int length : {1, 40, 300, 2500}) queries.push_back(random_protein(random, length));
  for (const auto& query : queries) {
    targets.push_back(query);
    targets.push_back(mutate(random, query, 5));
    targets.push_back(random_protein(random, 250));
  }
  for (const GapPenalties gaps : {GapPenalties{127, 1}, GapPenalties{128, 1}, GapPenalties{200, 150},
                                  GapPenalties{255, 254}, GapPenalties{255, 1}})
    expect_same_scores(queries, targets, blosum62_, gaps);
}

// Linear gaps (open == extend), where parasail's striped kernels score too low:
// the engine takes them through its 32-bit scan instead. Cheap gaps (1/1, 2/2)
// make gapped alignments win everywhere.
TEST_F(SwCpuEngine, LinearGaps) {
  Random random{41};
  std::vector<std::vector<std::uint8_t>> queries, targets;
  for (int length : {1, 17, 90, 300, 3000}) queries.push_back(random_protein(random, length));
  for (const auto& query : queries) {
    targets.push_back(query);
    targets.push_back(mutate(random, query, 3));
    targets.push_back(mutate(random, query, 8));
    targets.push_back(random_protein(random, 200));
  }
  for (const int cost : {1, 2, 3, 5, 11, 30, 127, 128, 255})
    expect_same_scores(queries, targets, cost < 10 ? read_ncbi_matrix(kMatrixDir + "PAM30") : blosum62_, {cost, cost});
}

TEST_F(SwCpuEngine, EdgeCases) {
  const GapPenalties gaps{12, 1};
  // No targets: no scores.
  auto engine = make_cpu_engine(3);
  engine->load_targets(make_target_set({}));
  EXPECT_TRUE(engine->scores(p("WCA"), blosum62_, gaps).empty());
  // An empty query scores 0 against everything; so does an empty target.
  engine->load_targets(make_target_set({p("WCA"), {}, p("W")}));
  EXPECT_EQ(engine->scores({}, blosum62_, gaps), (std::vector<std::int32_t>{0, 0, 0}));
  EXPECT_EQ(engine->scores(p("WCA"), blosum62_, gaps), (std::vector<std::int32_t>{24, 0, 11}));
  // Loading again replaces the targets.
  engine->load_targets(make_target_set({p("GGWCAGG")}));
  EXPECT_EQ(engine->scores(p("TTWCATT"), blosum62_, gaps), (std::vector<std::int32_t>{24}));
  // U and O (coded as X), * and the ambiguity codes, as the reference scores them.
  expect_same_scores({p("MUOUCAW*BJZX"), p("U")}, {p("UUOO"), p("MCAW*BJZXU"), p("X"), p("O")}, blosum62_, gaps);
  // Gaps the kind refuses.
  EXPECT_THROW(engine->scores(p("WCA"), blosum62_, {1, 2}), InputError);
  EXPECT_THROW(engine->scores(p("WCA"), blosum62_, {5, 0}), InputError);
}

// best_scores(): exactly the targets that can rank among the `limit` best:
// every positive score at or above the limit-th largest, all its ties
// included, and every positive one when there are fewer.
TEST_F(SwCpuEngine, BestScoresKeepEveryTargetThatCanRankAmongTheBest) {
  Random random{9};
  const auto query = random_protein(random, 80);
  std::vector<std::vector<std::uint8_t>> targets;
  for (int t = 0; t < 200; ++t) targets.push_back(random_protein(random, 1 + random.next() % 100));
  for (int t = 0; t < 6; ++t) targets.push_back(targets[3]);  // ties
  targets.push_back({});                                       // score 0: never a candidate
  auto engine = make_cpu_engine(1);
  engine->load_targets(make_target_set(targets));
  const auto gaps = gaps_from_blast(11, 1);
  const std::vector<std::int32_t> scores = engine->scores(query, blosum62_, gaps);
  for (std::size_t limit : {1u, 3u, 7u, 50u, 1000u}) {
    std::vector<std::int32_t> positive;
    for (std::int32_t s : scores)
      if (s > 0) positive.push_back(s);
    std::sort(positive.rbegin(), positive.rend());
    const std::int32_t threshold = positive.size() > limit ? positive[limit - 1] : 1;
    std::vector<std::uint32_t> expected, got;
    for (std::uint32_t t = 0; t < scores.size(); ++t)
      if (scores[t] > 0 && scores[t] >= threshold) expected.push_back(t);
    for (const ScoredTarget& b : engine->best_scores(query, blosum62_, gaps, limit)) {
      got.push_back(b.target);
      EXPECT_EQ(b.score, scores[b.target]);
    }
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, expected) << "limit " << limit;
    EXPECT_GE(got.size(), std::min(limit, positive.size()));
  }
}

// Many short targets (chunks of 16 shared by the threads): order kept.
TEST_F(SwCpuEngine, ManyTargetsKeepTheirOrder) {
  Random random{5};
  const auto query = random_protein(random, 90);
  std::vector<std::vector<std::uint8_t>> targets;
  for (int t = 0; t < 1000; ++t)
    targets.push_back(t % 7 == 0 ? mutate(random, query, 4) : random_protein(random, 1 + random.next() % 120));
  expect_same_scores({query}, targets, blosum62_, gaps_from_blast(11, 1));
}

}  // namespace
}  // namespace helix::swsearch
