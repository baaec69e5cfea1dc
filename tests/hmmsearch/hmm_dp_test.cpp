// hmm_dp_test.cpp: the full Forward/Backward matrices of domain definition
// (hmm_dp.h) on hmmer-examples' profiles against real proteins: Forward
// equals the Forward filter's score bit for bit (every row kept, or only
// two); Backward's score equals Forward's within float rounding; posteriors
// of every residue sum to one; domain posteriors are consistent; the
// optimal-accuracy trace is a valid path that accounts for every residue.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/file_io.h"
#include "hmm_dp.h"
#include "hmm_file.h"
#include "hmm_test_data.h"

namespace helix::hmmsearch {
namespace {

using namespace test_data;  // NOLINT: kTutorial, kProteins, ...


bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_config(const LengthConfig& a, const LengthConfig& b) {
  return a.L == b.L && a.msv_tjb == b.msv_tjb && a.vit_move == b.vit_move && same_bits(a.fwd_move, b.fwd_move) &&
         same_bits(a.fwd_loop, b.fwd_loop) && same_bits(a.null_p1, b.null_p1) &&
         same_bits(a.null_score, b.null_score) && same_bits(a.log_p1, b.log_p1) &&
         same_bits(a.log_1_minus_p1, b.log_1_minus_p1);
}

// The process's shared table is length_config() itself at every length a
// target may have, also when four threads fill its pages at once, each
// asking from another end.
TEST(SharedLengthConfig, IsLengthConfigAtEveryLengthFromFourThreads) {
  const int longest = static_cast<int>(kMaxTargetLength);
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int n = 0; n <= longest; ++n) {
        const int L = t % 2 == 0 ? n : longest - n;
        if (!same_config(shared_length_config(L), length_config(L))) ++mismatches[t];
      }
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
  EXPECT_EQ(shared_length_config(4097).L, 4097);
  EXPECT_EQ(&shared_length_config(300), &shared_length_config(300));  // one table, not a copy
}

TEST(SharedLengthConfig, RefusesLengthsNoTargetHas) {
  EXPECT_THROW(shared_length_config(-1), std::out_of_range);
  EXPECT_THROW(shared_length_config(static_cast<int>(kMaxTargetLength) + 1), std::out_of_range);
}

class HmmDp : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(GetParam()) || !std::filesystem::exists(kProteins))
      GTEST_SKIP() << "hmmer-examples or mmseqs2-examples is not installed";
    profile_ = configure_profile(parse_hmm_file(read_text_maybe_gzipped(GetParam()), GetParam()).front());
    targets_ = parse_targets(read_text_maybe_gzipped(kProteins), "mmseqs2 DB");
    targets_.resize(60);
  }
  SearchProfile profile_;
  std::vector<TargetSequence> targets_;
};

TEST_P(HmmDp, ForwardMatrixScoreIsTheForwardFiltersBitForBit) {
  std::vector<float> scratch(forward_scratch_floats(profile_.M));
  for (const TargetSequence& target : targets_) {
    const int L = static_cast<int>(target.codes.size());
    const LengthConfig config = length_config(L);
    const ForwardView view{profile_.M, profile_.fwd_match.data(), profile_.fwd_transitions.data(),
                           profile_.fwd_e_loop, profile_.fwd_e_move};
    const float filter = forward_score(target.codes.data(), L, view, config.fwd_move, config.fwd_loop, scratch.data());
    const OddsProfile odds = odds_profile(profile_, L, true);
    DpMatrix full, parser;
    const float with_rows = forward_matrix(target.codes.data(), L, odds, full, true);
    const float two_rows = forward_matrix(target.codes.data(), L, odds, parser, false);
    EXPECT_TRUE(same_bits(with_rows, filter)) << target.name << ": " << with_rows << " vs " << filter;
    EXPECT_TRUE(same_bits(two_rows, filter)) << target.name;
    for (int i = 0; i <= L; ++i)
      for (int cell = 0; cell < kSpecialCells; ++cell) ASSERT_TRUE(same_bits(full.x(i, cell), parser.x(i, cell)));
  }
}

TEST_P(HmmDp, BackwardAgreesAndPosteriorsSumToOne) {
  for (const TargetSequence& target : targets_) {
    const int L = static_cast<int>(target.codes.size());
    for (bool multihit : {true, false}) {
      const OddsProfile odds = odds_profile(profile_, L, multihit);
      DpMatrix fwd, bck, pp;
      const float forward = forward_matrix(target.codes.data(), L, odds, fwd);
      const float backward = backward_matrix(target.codes.data(), L, odds, fwd, bck);
      EXPECT_NEAR(backward, forward, 1e-4 * std::max(1.0f, std::fabs(forward))) << target.name;
      ASSERT_TRUE(posterior_decoding(odds, fwd, bck, pp));
      for (int i = 1; i <= L; ++i) {
        double total = pp.x(i, kXN) + pp.x(i, kXJ) + pp.x(i, kXC);
        for (int k = 1; k <= profile_.M; ++k) total += pp.m(i, k) + pp.ins(i, k);
        ASSERT_NEAR(total, 1.0, 2e-3) << target.name << " row " << i;
      }
      const DomainPosteriors post = domain_decoding(odds.special, fwd, bck);
      EXPECT_NEAR(post.btot[L], post.etot[L], 1e-3) << target.name;
      if (!multihit) {
        EXPECT_NEAR(post.btot[L], 1.0, 1e-3) << target.name;  // unihit: exactly one domain
      }
      for (int i = 1; i <= L; ++i) ASSERT_GE(post.mocc[i], -1e-3f) << target.name;
    }
  }
}

// The trace starts S N B, ends E C T, steps through nodes in order within a
// domain, and emits each residue 1..L exactly once; its score is the sum of
// the posteriors of the states that emit each residue.
TEST_P(HmmDp, OptimalAccuracyTraceIsAValidPathWithItsScore) {
  for (const TargetSequence& target : targets_) {
    const int L = static_cast<int>(target.codes.size());
    const OddsProfile odds = odds_profile(profile_, L, false);
    DpMatrix fwd, bck, pp, oa;
    forward_matrix(target.codes.data(), L, odds, fwd);
    backward_matrix(target.codes.data(), L, odds, fwd, bck);
    ASSERT_TRUE(posterior_decoding(odds, fwd, bck, pp));
    const float accuracy = optimal_accuracy(odds, pp, oa);
    Trace trace = optimal_accuracy_trace(odds, pp, oa);
    ASSERT_GE(trace.size(), 5);
    EXPECT_EQ(trace.state.front(), kTraceS);
    EXPECT_EQ(trace.state[1], kTraceN);
    EXPECT_EQ(trace.state.back(), kTraceT);
    int next_residue = 1;
    double aligned = 0;
    for (int z = 0; z < trace.size(); ++z) {
      if (trace.i[z] > 0) {
        EXPECT_EQ(trace.i[z], next_residue++) << target.name << " at " << z;
      }
      aligned += trace.pp[z];  // N, C, J residues count too
      if (trace.state[z] == kTraceM && z > 0 && trace.state[z - 1] == kTraceM) {
        EXPECT_EQ(trace.k[z], trace.k[z - 1] + 1);
      }
    }
    EXPECT_EQ(next_residue, L + 1) << target.name;
    trace.index_domains();
    ASSERT_EQ(trace.domains.size(), 1u) << target.name;  // unihit
    const TraceDomain& d = trace.domains[0];
    EXPECT_LE(d.sqfrom, d.sqto);
    EXPECT_LE(d.hmmfrom, d.hmmto);
    EXPECT_NEAR(aligned, accuracy, 1e-3 * std::max(1.0f, accuracy)) << target.name;
  }
}

TEST(HmmerFlogsum, FollowsHmmersTable) {
  EXPECT_FLOAT_EQ(hmmer_flogsum(0.0f, 0.0f), static_cast<float>(std::log(2.0)));
  EXPECT_EQ(hmmer_flogsum(0.0f, -20.0f), 0.0f);  // beyond 15.7 nats: the larger
  EXPECT_EQ(hmmer_flogsum(-INFINITY, 3.0f), 3.0f);
  // Steps of 0.001 nats, truncated: 0.0015 apart reads the 0.001 entry.
  EXPECT_FLOAT_EQ(hmmer_flogsum(1.0015f, 1.0f), 1.0015f + static_cast<float>(std::log(1 + std::exp(-0.001))));
}

INSTANTIATE_TEST_SUITE_P(Profiles, HmmDp,
                         ::testing::Values(kTutorial + "globins4.hmm", kTutorial + "fn3.hmm", kTutorial + "Pkinase.hmm",
                                           kTestsuite + "SMC_N.hmm.gz", kTestsuite + "20aa.hmm.gz"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = std::filesystem::path(info.param).stem().string();
                           for (char& c : name) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace helix::hmmsearch
