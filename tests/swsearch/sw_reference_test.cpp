// sw_reference_test.cpp: the swsearch reference against values derived by
// hand, on the real NCBI matrices of Debian's ncbi-data package.
#include <cstdlib>
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "sw.h"
#include "sw_statistics.h"

namespace helix::swsearch {
namespace {

// Debian's ncbi-data matrices; $HELIX_NCBI_DATA overrides (the GPU machine has a copy, not the package).
const std::string kMatrixDir = [] {
  const char* override_dir = std::getenv("HELIX_NCBI_DATA");
  return std::string(override_dir ? override_dir : "/usr/share/ncbi/data") + "/";
}();

class SwReference : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kMatrixDir + "BLOSUM62")) GTEST_SKIP() << "ncbi-data is not installed";
    blosum62_ = read_ncbi_matrix(kMatrixDir + "BLOSUM62");
  }
  std::vector<std::uint8_t> p(const std::string& text) { return encode_protein(text, "test"); }
  ScoreMatrix blosum62_;
};

TEST_F(SwReference, Blosum62ReadsAsNcbiPrintsIt) {
  EXPECT_EQ(blosum62_.name, "BLOSUM62");
  auto s = [&](char a, char b) { return blosum62_.score[p(std::string(1, a))[0]][p(std::string(1, b))[0]]; };
  EXPECT_EQ(s('A', 'A'), 4);
  EXPECT_EQ(s('W', 'W'), 11);
  EXPECT_EQ(s('C', 'C'), 9);
  EXPECT_EQ(s('A', 'R'), -1);
  EXPECT_EQ(s('W', 'F'), 1);
  EXPECT_EQ(s('B', 'N'), 4);
  EXPECT_EQ(s('Z', 'E'), 4);
  EXPECT_EQ(s('X', 'A'), -1);
  EXPECT_EQ(s('*', 'A'), -4);
  EXPECT_EQ(s('*', '*'), 1);
  EXPECT_EQ(s('U', 'C'), s('X', 'C'));  // selenocysteine scores as X
  EXPECT_EQ(blosum62_.min_score, -4);
  EXPECT_EQ(blosum62_.max_score, 11);
  for (const char* name : {"BLOSUM45", "BLOSUM50", "BLOSUM80", "PAM30", "PAM70", "PAM250"})
    EXPECT_NO_THROW(read_ncbi_matrix(kMatrixDir + name)) << name;
}

TEST_F(SwReference, ResiduesAndBadLetters) {
  EXPECT_EQ(decode_protein(p("acdXbz*uo")), "ACDXBZ*XX");
  EXPECT_THROW(encode_protein("AC-D", "q"), InputError);
  EXPECT_THROW(encode_protein("AC1", "q"), InputError);
}

TEST_F(SwReference, MatrixFileErrors) {
  EXPECT_THROW(parse_ncbi_matrix("# nothing\n", "empty"), InputError);
  EXPECT_THROW(parse_ncbi_matrix("   A  X\nA  1  0\nX  1 -1\n", "asymmetric"), InputError);
  EXPECT_THROW(parse_ncbi_matrix("   A  X\nA  1  0\nX  0 999\n", "range"), InputError);
  EXPECT_THROW(parse_ncbi_matrix("   A  X\nA  1\nX  0 -1\n", "short"), InputError);
  EXPECT_THROW(read_ncbi_matrix(kMatrixDir + "NO_SUCH_MATRIX"), InputError);
  // A letter the file lacks scores as X.
  const ScoreMatrix tiny = parse_ncbi_matrix("   A  X\nA  5 -2\nX -2 -1\n", "tiny");
  const auto c = p("C")[0], a = p("A")[0];
  EXPECT_EQ(tiny.score[c][a], -2);
  EXPECT_EQ(tiny.score[c][c], -1);
}

TEST_F(SwReference, GapConventions) {
  const GapPenalties blast = gaps_from_blast(11, 1);
  EXPECT_EQ(blast.open, 12);
  EXPECT_EQ(blast.extend, 1);
  EXPECT_THROW(check_gaps({-1, 1}), InputError);
  EXPECT_THROW(check_gaps({5, 0}), InputError);
  EXPECT_THROW(check_gaps({1, 2}), InputError);
  EXPECT_NO_THROW(check_gaps({11, 1}));
}

TEST_F(SwReference, ScoresByHand) {
  const GapPenalties gaps{10, 1};
  // Identical: sum of the diagonal, W 11 + C 9 + A 4 = 24.
  EXPECT_EQ(sw_score(p("WCA"), p("WCA"), blosum62_, gaps), (LocalScore{24, 2, 2}));
  // Local: the best part of GGWCAGG in TTWCATT is WCA (G/T = -2).
  EXPECT_EQ(sw_score(p("GGWCAGG"), p("TTWCATT"), blosum62_, gaps), (LocalScore{24, 4, 4}));
  // Nothing positive: score 0, no end.
  EXPECT_EQ(sw_score(p("W"), p("P"), blosum62_, gaps), (LocalScore{0, -1, -1}));
  EXPECT_EQ(sw_score(p(""), p("ACD"), blosum62_, gaps), (LocalScore{0, -1, -1}));
  EXPECT_EQ(sw_score(p("W"), p("W"), blosum62_, gaps), (LocalScore{11, 0, 0}));
  // Ties: W matches twice in the target; the first end (target-major) wins.
  EXPECT_EQ(sw_score(p("W"), p("AWAW"), blosum62_, gaps), (LocalScore{11, 0, 1}));
  // A gap: WWWWW vs WWPPWWW? Gapless best is WWW (33)... with a 2-gap (cost
  // 10 + 1 = 11) WWWWW aligns to WW--WWW: 5 x 11 - 11 = 44.
  EXPECT_EQ(sw_score(p("WWWWW"), p("WWPPWWW"), blosum62_, gaps).score, 44);
  EXPECT_EQ(sw_score(p("WWWWW"), p("WWPPWWW"), blosum62_, {30, 1}).score, 33);  // dearer gap: WWW alone
}

TEST_F(SwReference, AlignmentsTraceBackAndRescore) {
  const GapPenalties gaps{10, 1};
  Alignment a = sw_align(p("WWWWW"), p("WWPPWWW"), blosum62_, gaps);
  EXPECT_EQ(a.score, 44);
  EXPECT_EQ(a.cigar, "2M2D3M");
  EXPECT_EQ(a.query_begin, 0);
  EXPECT_EQ(a.target_begin, 0);
  EXPECT_EQ(a.query_end, 4);
  EXPECT_EQ(a.target_end, 6);
  EXPECT_EQ(a.identities, 5);
  EXPECT_EQ(a.length, 7);
  EXPECT_EQ(score_of_cigar(p("WWWWW"), p("WWPPWWW"), 0, 0, a.cigar, blosum62_, gaps), 44);
  a = sw_align(p("GGWCAGG"), p("TTWCATT"), blosum62_, gaps);
  EXPECT_EQ(a.cigar, "3M");
  EXPECT_EQ(a.query_begin, 2);
  EXPECT_EQ(a.target_begin, 2);
  a = sw_align(p("W"), p("P"), blosum62_, gaps);
  EXPECT_EQ(a.score, 0);
  EXPECT_EQ(a.cigar, "");
  EXPECT_THROW(score_of_cigar(p("WW"), p("WW"), 0, 0, "3M", blosum62_, gaps), InputError);
  EXPECT_THROW(score_of_cigar(p("WW"), p("WW"), 0, 0, "2Q", blosum62_, gaps), InputError);
  EXPECT_THROW(score_of_cigar(p("WW"), p("WW"), 0, 0, "M", blosum62_, gaps), InputError);
}

// sw_align from an end found elsewhere (an engine's): the score is the
// recurrences' value in that cell, so a wrong end shows; a cell outside the
// sequences is refused.
TEST_F(SwReference, AlignmentsFromAGivenEnd) {
  const GapPenalties gaps{10, 1};
  const LocalScore end = sw_score(p("WWWWW"), p("WWPPWWW"), blosum62_, gaps);
  EXPECT_EQ(end, (LocalScore{44, 4, 6}));
  const Alignment a = sw_align(p("WWWWW"), p("WWPPWWW"), blosum62_, gaps, end);
  EXPECT_EQ(a.score, 44);
  EXPECT_EQ(a.cigar, "2M2D3M");
  // The cell (4, 5) holds 33 (W-W after two Ws and a gap of 2, then WW): not 44.
  const Alignment wrong = sw_align(p("WWWWW"), p("WWPPWWW"), blosum62_, gaps, LocalScore{44, 4, 5});
  EXPECT_NE(wrong.score, 44);
  EXPECT_EQ(sw_align(p("W"), p("P"), blosum62_, gaps, LocalScore{}).score, 0);
  EXPECT_THROW(sw_align(p("WW"), p("WW"), blosum62_, gaps, LocalScore{22, 2, 1}), std::invalid_argument);
  EXPECT_THROW(sw_align(p("WW"), p("WW"), blosum62_, gaps, LocalScore{22, 1, -1}), std::invalid_argument);
}

// trace_back() over hand-made bits (the walk sw_traceback.h shares with the
// GPU engine): consecutive gap columns make one CIGAR run, the start is where
// H came from zero, and bits that lead off the matrix are refused.
TEST_F(SwReference, TraceBackWalksTheBitsItIsGiven) {
  // (3, 2): H from F, F extends -> I; (2, 2): F opened -> I, back to H;
  // (1, 2): diagonal -> M; (0, 1): row 0, H = 0: the alignment starts at (0, 1).
  const auto gapped = [](int i, int j) -> std::uint8_t {
    return i == 3 && j == 2 ? kHFromF | kFExtends : kHFromDiagonal;
  };
  const Alignment a = trace_back(p("WAW"), p("PW"), LocalScore{7, 2, 1}, 7, gapped);
  EXPECT_EQ(a.cigar, "1M2I");
  EXPECT_EQ(a.query_begin, 0);
  EXPECT_EQ(a.target_begin, 1);
  EXPECT_EQ(a.query_end, 2);
  EXPECT_EQ(a.target_end, 1);
  EXPECT_EQ(a.identities, 1);  // the M column: query residue 1 (W) against target residue 2 (W)
  EXPECT_EQ(a.length, 3);
  // Every cell says "F, extending": the I run walks up past row 0.
  const auto upward = [](int, int) -> std::uint8_t { return kHFromF | kFExtends; };
  EXPECT_THROW(trace_back(p("WW"), p("WW"), LocalScore{5, 1, 1}, 5, upward), std::invalid_argument);
  // A zero score walks nothing.
  EXPECT_EQ(trace_back(p("WW"), p("WW"), LocalScore{}, 0, upward).cigar, "");
}

TEST_F(SwReference, RandomPairsRescoreFromTheirCigar) {
  std::uint32_t state = 99;
  auto random_protein = [&](int length) {
    std::string text;
    for (int k = 0; k < length; ++k) {
      state = state * 1664525u + 1013904223u;
      text += kAlphabet[(state >> 24) % 20];
    }
    return p(text);
  };
  for (int trial = 0; trial < 200; ++trial) {
    const auto query = random_protein(1 + trial % 60), target = random_protein(1 + (trial * 7) % 90);
    const GapPenalties gaps{1 + trial % 12, 1};
    const Alignment a = sw_align(query, target, blosum62_, gaps);
    const LocalScore s = sw_score(query, target, blosum62_, gaps);
    ASSERT_EQ(a.score, s.score);
    if (s.score == 0) continue;
    ASSERT_EQ(a.query_end, s.query_end);
    ASSERT_EQ(a.target_end, s.target_end);
    ASSERT_EQ(score_of_cigar(query, target, a.query_begin, a.target_begin, a.cigar, blosum62_, gaps), s.score)
        << "trial " << trial << " " << a.cigar;
  }
}

TEST_F(SwReference, KarlinAltschulStatisticsAsBlastPublishesThem) {
  // BLAST's default protein setting, BLOSUM62 existence 11 extension 1 = our open 12, extend 1:
  // lambda 0.267, K 0.041; a raw score of 100 is (26.7 - ln 0.041) / ln 2 = 43.13 bits.
  const KarlinAltschul ka = karlin_altschul("BLOSUM62", gaps_from_blast(11, 1));
  EXPECT_DOUBLE_EQ(ka.lambda, 0.267);
  EXPECT_DOUBLE_EQ(ka.k, 0.041);
  EXPECT_NEAR(bit_score(ka, 100), 43.13, 0.005);
  // E = K m n e^(-lambda S): 0.041 x 300 x 1e8 x e^-26.7.
  EXPECT_NEAR(evalue(ka, 100, 300, 100000000), 0.041 * 300 * 1e8 * std::exp(-26.7), 1e-12);
  EXPECT_DOUBLE_EQ(karlin_altschul("PAM30", gaps_from_blast(9, 1)).lambda, 0.294);
  EXPECT_DOUBLE_EQ(karlin_altschul("BLOSUM45", gaps_from_blast(15, 2)).k, 0.041);
  EXPECT_THROW(karlin_altschul("BLOSUM62", {5, 5}), InputError);
  EXPECT_THROW(karlin_altschul("MYMATRIX", gaps_from_blast(11, 1)), InputError);
}

TEST_F(SwReference, FastaRecordsAndBadFasta) {
  const auto records = parse_fasta(">sp|P1 first protein\nACDE\nFGH\n\n>P2\r\nwy*\n", "db.fa");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].id, "sp|P1");
  EXPECT_EQ(records[0].description, "first protein");
  EXPECT_EQ(decode_protein(records[0].residues), "ACDEFGH");
  EXPECT_EQ(decode_protein(records[1].residues), "WY*");
  for (const char* bad : {"ACDE\n>x\nAC\n", ">x\n\n>y\nAC\n", ">x\nAC\n>y\n", ">x\nAC-GT\n", ">\nAC\n", ""})
    EXPECT_THROW(parse_fasta(bad, "bad.fa"), InputError) << bad;
  EXPECT_THROW(parse_fasta(std::string(">x\nA\0C\n", 8), "nul.fa"), InputError);
}

}  // namespace
}  // namespace helix::swsearch
