// hmm_gpu_test.cpp: the CUDA engine's filter scores equal the CPU
// reference's bit for bit (MSV for every target, in the warp kernels and in
// the one-thread-per-target path; Viterbi and Forward for samples and for
// every target that reaches them), on hmmer-examples' profiles against real
// proteins, planted consensus repeats that overflow the filters' integer
// ranges, edge lengths and a titin-length target of real proteins end to end; the whole pipeline gives the same counts
// and scores on either engine; and domain definition's parser passes give
// the same domain posteriors. Skipped without a GPU.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>

#include "core/gpu_devices.h"
#include "core/file_io.h"
#include "hmm_file.h"
#include "hmm_pipeline.h"
#include "hmm_domains.h"
#include "hmm_test_data.h"

namespace helix::hmmsearch {
namespace {

using namespace test_data;  // NOLINT: kTutorial, kProteins, ...


ProfileHmm read_profile(const std::string& path) {
  return parse_hmm_file(read_text_maybe_gzipped(path), path).front();
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::vector<TargetSequence> real_targets(std::size_t count) {
  std::vector<TargetSequence> targets = parse_targets(read_text_maybe_gzipped(kProteins), "mmseqs2 DB");
  targets.resize(std::min(count, targets.size()));
  return targets;
}

// Targets that stress the edges: lengths around the warp's 32-residue
// blocks, every code, and the model's consensus repeated (scores beyond the
// filters' integer ranges).
std::vector<TargetSequence> edge_targets(const ProfileHmm& hmm) {
  std::vector<TargetSequence> targets;
  std::uint32_t state = 11;
  auto random_codes = [&](int length) {
    std::vector<std::uint8_t> codes;
    for (int i = 0; i < length; ++i) {
      state = state * 1664525u + 1013904223u;
      const std::uint32_t pick = state >> 8;
      codes.push_back(static_cast<std::uint8_t>(pick % 53 == 0 ? kFirstDegenerate + pick % 7 : pick % kResidues));
    }
    return codes;
  };
  for (int length : {1, 2, 3, 31, 32, 33, 64, 65, 1000, 5000, 100000})
    targets.push_back({"random" + std::to_string(length), "", random_codes(length)});
  // Real proteins end to end, as long as titin: rows of real composition far
  // from any domain, where the D->D passes' tiny addends are skipped.
  std::vector<std::uint8_t> joined;
  for (const TargetSequence& protein : real_targets(400)) {
    joined.insert(joined.end(), protein.codes.begin(), protein.codes.end());
    if (joined.size() >= 34000) break;
  }
  targets.push_back({"joined_proteins", "", joined});
  std::string consensus;
  for (std::size_t k = 1; k < hmm.consensus.size(); ++k) consensus += static_cast<char>(std::toupper(hmm.consensus[k]));
  for (int copies : {1, 2, 5, 40}) {
    std::string repeated;
    for (int c = 0; c < copies; ++c) repeated += consensus;
    if (repeated.size() > kMaxTargetLength) repeated.resize(kMaxTargetLength);
    targets.push_back({"consensus" + std::to_string(copies), "", digitize(repeated, "consensus")});
  }
  return targets;
}

class HmmGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    if (!std::filesystem::exists(kTutorial + "globins4.hmm") || !std::filesystem::exists(kProteins))
      GTEST_SKIP() << "hmmer-examples or mmseqs2-examples is not installed";
  }

  // Every filter score the GPU gives equals the reference's, and so does the pipeline.
  void expect_reference_scores(const ProfileHmm& hmm, const std::vector<TargetSequence>& targets, bool warp_msv) {
    const SearchProfile profile = configure_profile(hmm);
    const SequenceSet chunk = make_target_chunk(targets);
    auto gpu = make_gpu_engine(0, warp_msv);
    auto reference = make_cpu_engine();
    for (HmmEngine* engine : {gpu.get(), reference.get()}) engine->load_targets(chunk), engine->load_profile(profile);

    const std::vector<float> msv = reference->msv_scores(), gpu_msv = gpu->msv_scores();
    ASSERT_EQ(gpu_msv.size(), msv.size());
    int overflows = 0;
    for (std::size_t t = 0; t < msv.size(); ++t) {
      ASSERT_TRUE(same_bits(gpu_msv[t], msv[t])) << hmm.name << " MSV, target " << targets[t].name << " (length "
                                                 << targets[t].codes.size() << "): " << gpu_msv[t] << " vs " << msv[t];
      overflows += std::isinf(msv[t]) && msv[t] > 0;
    }
    std::vector<std::uint32_t> sample;  // every 17th target plus the edge cases at the end
    for (std::uint32_t t = 0; t < chunk.size(); ++t)
      if (t % 17 == 0 || t + 20 >= chunk.size()) sample.push_back(t);
    expect_same(hmm.name + " bias filter", sample, reference->bias_filter_scores(sample), gpu->bias_filter_scores(sample),
                targets);
    expect_same(hmm.name + " Viterbi", sample, reference->viterbi_scores(sample), gpu->viterbi_scores(sample), targets);
    expect_same(hmm.name + " Forward", sample, reference->forward_scores(sample), gpu->forward_scores(sample), targets);

    const ChunkSearch expected = search_chunk(profile, chunk, *reference, {});
    const ChunkSearch got = search_chunk(profile, chunk, *gpu, {});
    EXPECT_EQ(got.counts.past_msv, expected.counts.past_msv);
    EXPECT_EQ(got.counts.past_bias, expected.counts.past_bias);
    EXPECT_EQ(got.counts.past_viterbi, expected.counts.past_viterbi);
    ASSERT_EQ(got.passed.size(), expected.passed.size());
    for (std::size_t p = 0; p < got.passed.size(); ++p) {
      EXPECT_EQ(got.passed[p].target, expected.passed[p].target);
      EXPECT_TRUE(same_bits(got.passed[p].score_bits, expected.passed[p].score_bits));
    }
    // Domain definition's parser passes: the passed targets alone (Forward's
    // rows as the filter kept them, then Backward), then the sample and every
    // passed target (some never met the Forward filter: both passes here).
    std::vector<std::uint32_t> passed;
    for (const PassedTarget& target : got.passed) passed.push_back(target.target);
    expect_same_posteriors(hmm.name + " (the filter's Forward rows)", passed, reference->domain_posteriors(passed),
                           gpu->domain_posteriors(passed), targets);
    std::vector<std::uint32_t> decoded = sample;
    for (const PassedTarget& passed : expected.passed) decoded.push_back(passed.target);
    expect_same_posteriors(hmm.name, decoded, reference->domain_posteriors(decoded), gpu->domain_posteriors(decoded),
                           targets);
    expect_same_samples(hmm.name, targets, expected, *reference, *gpu);
    expect_same_envelopes(hmm.name, profile, targets, expected, *reference, *gpu);
    RecordProperty(hmm.name + "_msv_overflows", overflows);
    RecordProperty(hmm.name + "_passed_forward", static_cast<int>(expected.passed.size()));
  }

  // Region sampling: every multi-domain region of the passed targets, and
  // each sampled target up to 5,000 residues whole, equal bit for bit.
  static void expect_same_samples(const std::string& what, const std::vector<TargetSequence>& targets,
                                  const ChunkSearch& search, HmmEngine& reference, HmmEngine& gpu) {
    std::vector<std::uint32_t> passed;
    for (const PassedTarget& target : search.passed) passed.push_back(target.target);
    const std::vector<DomainPosteriors> posteriors = reference.domain_posteriors(passed);
    std::vector<RegionTask> tasks;
    for (std::size_t p = 0; p < passed.size(); ++p)
      for (const FoundRegion& r : find_regions(posteriors[p], static_cast<int>(targets[passed[p]].codes.size())))
        if (r.multidomain) tasks.push_back({passed[p], r.i, r.j});
    const std::size_t multidomain = tasks.size();
    for (std::uint32_t t = 0; t < targets.size(); t += 211)
      if (!targets[t].codes.empty() && targets[t].codes.size() <= 5000)
        tasks.push_back({t, 1, static_cast<int>(targets[t].codes.size())});
    const std::vector<RegionSamples> expected = reference.sample_regions(tasks, 200, 42);
    const std::vector<RegionSamples> got = gpu.sample_regions(tasks, 200, 42);
    ASSERT_EQ(got.size(), expected.size()) << what;
    for (std::size_t n = 0; n < tasks.size(); ++n) {
      const std::string where = what + " region " + std::to_string(tasks[n].i) + ".." + std::to_string(tasks[n].j) +
                                " of " + targets[tasks[n].target].name;
      ASSERT_EQ(got[n].pairs.size(), expected[n].pairs.size()) << where;
      for (std::size_t z = 0; z < got[n].pairs.size(); ++z) {
        const SampledPair &a = got[n].pairs[z], &b = expected[n].pairs[z];
        ASSERT_TRUE(a.sample == b.sample && a.i == b.i && a.j == b.j && a.k == b.k && a.m == b.m) << where << " pair " << z;
      }
      ASSERT_EQ(got[n].sums.size(), expected[n].sums.size()) << where;
      for (std::size_t z = 0; z < got[n].sums.size(); ++z)
        ASSERT_TRUE(same_bits(got[n].sums[z], expected[n].sums[z])) << where << " null2 sum of residue " << z + 1;
    }
    RecordProperty(what + "_multidomain_regions", static_cast<int>(multidomain));
  }

  // Envelope rescoring: every envelope domain definition plans for the
  // passed targets, and each sampled target up to 5,000 residues whole (long
  // envelopes, random and repeated sequence), equal bit for bit, traces too.
  static void expect_same_envelopes(const std::string& what, const SearchProfile& profile,
                                    const std::vector<TargetSequence>& targets, const ChunkSearch& search,
                                    HmmEngine& reference, HmmEngine& gpu) {
    std::vector<std::uint32_t> passed;
    for (const PassedTarget& target : search.passed) passed.push_back(target.target);
    const std::vector<DomainPosteriors> posteriors = reference.domain_posteriors(passed);
    std::vector<EnvelopeTask> tasks;
    for (std::size_t p = 0; p < passed.size(); ++p) {
      const TargetSequence& target = targets[passed[p]];
      const DomainPlan plan = plan_domains(profile, target.codes.data(), static_cast<int>(target.codes.size()),
                                           posteriors[p]);
      for (const PlannedEnvelope& e : plan.envelopes) tasks.push_back({passed[p], e.i, e.j, !e.sampled});
    }
    for (std::uint32_t t = 0; t < targets.size(); t += 97)
      if (!targets[t].codes.empty() && targets[t].codes.size() <= 5000)
        tasks.push_back({t, 1, static_cast<int>(targets[t].codes.size()), true});
    for (std::uint32_t t = targets.size() > 20 ? static_cast<std::uint32_t>(targets.size()) - 20 : 0; t < targets.size(); ++t)
      if (!targets[t].codes.empty() && targets[t].codes.size() <= 5000)
        tasks.push_back({t, 1, static_cast<int>(targets[t].codes.size()), t % 2 == 0});
    const std::vector<EnvelopeRescore> expected = reference.rescore_envelopes(tasks);
    const std::vector<EnvelopeRescore> got = gpu.rescore_envelopes(tasks);
    ASSERT_EQ(got.size(), expected.size()) << what;
    int kept = 0;
    for (std::size_t n = 0; n < tasks.size(); ++n) {
      const std::string where = what + " envelope " + std::to_string(tasks[n].i) + ".." + std::to_string(tasks[n].j) +
                                " of " + targets[tasks[n].target].name;
      const EnvelopeScores& e = expected[n].scores;
      const EnvelopeScores& g = got[n].scores;
      ASSERT_EQ(g.ok, e.ok) << where;
      if (!e.ok) continue;
      ++kept;
      ASSERT_TRUE(same_bits(g.envsc, e.envsc)) << where << " envsc " << g.envsc << " vs " << e.envsc;
      ASSERT_TRUE(same_bits(g.oasc, e.oasc)) << where << " oasc " << g.oasc << " vs " << e.oasc;
      for (int x = 0; tasks[n].null2 && x < kResidues; ++x)
        ASSERT_TRUE(same_bits(g.null2_residues[x], e.null2_residues[x])) << where << " null2 of residue " << x;
      ASSERT_EQ(got[n].steps.size(), expected[n].steps.size()) << where;
      for (std::size_t z = 0; z < got[n].steps.size(); ++z) {
        const TraceStep& a = got[n].steps[z];
        const TraceStep& b = expected[n].steps[z];
        ASSERT_TRUE(a.state == b.state && a.k == b.k && a.i == b.i && same_bits(a.pp, b.pp)) << where << " step " << z;
      }
    }
    EXPECT_GT(kept, 0) << what;
    RecordProperty(what + "_envelopes", kept);
  }

  static void expect_same_posteriors(const std::string& what, const std::vector<std::uint32_t>& which,
                                     const std::vector<DomainPosteriors>& expected,
                                     const std::vector<DomainPosteriors>& got,
                                     const std::vector<TargetSequence>& targets) {
    ASSERT_EQ(got.size(), expected.size()) << what;
    for (std::size_t w = 0; w < which.size(); ++w) {
      const std::string where = what + " domain posteriors, target " + targets[which[w]].name;
      ASSERT_EQ(got[w].mocc.size(), expected[w].mocc.size()) << where;
      for (std::size_t i = 0; i < got[w].mocc.size(); ++i) {
        ASSERT_TRUE(same_bits(got[w].mocc[i], expected[w].mocc[i])) << where << " mocc row " << i;
        ASSERT_TRUE(same_bits(got[w].btot[i], expected[w].btot[i])) << where << " btot row " << i;
        ASSERT_TRUE(same_bits(got[w].etot[i], expected[w].etot[i])) << where << " etot row " << i;
      }
    }
  }

  static void expect_same(const std::string& what, const std::vector<std::uint32_t>& sample,
                          const std::vector<float>& expected, const std::vector<float>& got,
                          const std::vector<TargetSequence>& targets) {
    ASSERT_EQ(got.size(), expected.size()) << what;
    for (std::size_t s = 0; s < sample.size(); ++s)
      ASSERT_TRUE(same_bits(got[s], expected[s])) << what << ", target " << targets[sample[s]].name << " (length "
                                                  << targets[sample[s]].codes.size() << "): " << got[s] << " vs "
                                                  << expected[s];
  }
};

TEST_F(HmmGpu, TutorialProfilesOnRealProteins) {
  std::vector<TargetSequence> targets = real_targets(3000);
  for (const char* name : {"globins4.hmm", "fn3.hmm", "Pkinase.hmm"}) {
    const ProfileHmm hmm = read_profile(kTutorial + name);
    std::vector<TargetSequence> with_edges = targets;
    for (TargetSequence& edge : edge_targets(hmm)) with_edges.push_back(std::move(edge));
    expect_reference_scores(hmm, with_edges, true);
  }
}

TEST_F(HmmGpu, TestsuiteProfilesSmallAndLarge) {
  const std::vector<TargetSequence> targets = real_targets(800);
  for (const char* name : {"20aa.hmm.gz", "XYPPX.hmm", "SMC_N.hmm.gz", "Patched.hmm.gz", "LuxC.hmm.gz"}) {
    if (!std::filesystem::exists(kTestsuite + name)) continue;
    const ProfileHmm hmm = read_profile(kTestsuite + name);
    std::vector<TargetSequence> with_edges = targets;
    for (TargetSequence& edge : edge_targets(hmm)) with_edges.push_back(std::move(edge));
    expect_reference_scores(hmm, with_edges, true);
  }
}

// Engines of one device share one upload of a round's targets (the app's
// four engines): the sharing engine searches as if it had loaded them, also
// after the engine it took them from has loaded others; a CPU engine and an
// engine with nothing loaded have nothing to share.
TEST_F(HmmGpu, EnginesSharingTargetsSearchAsTheirOwn) {
  const std::vector<TargetSequence> targets = real_targets(600);
  const std::vector<TargetSequence> others(targets.begin() + 100, targets.begin() + 350);
  const SequenceSet chunk = make_target_chunk(targets), other_chunk = make_target_chunk(others);
  const SearchProfile profile = configure_profile(read_profile(kTutorial + "Pkinase.hmm"));
  auto reference = make_cpu_engine();
  auto expected = [&](const SequenceSet& set) {
    reference->load_targets(set), reference->load_profile(profile);
    return search_chunk(profile, set, *reference, {});
  };
  const ChunkSearch expected_all = expected(chunk), expected_others = expected(other_chunk);
  auto first = make_gpu_engine(0, true, 2), second = make_gpu_engine(0, true, 2);
  EXPECT_FALSE(second->share_targets(*first));
  first->load_targets(chunk);
  EXPECT_FALSE(second->share_targets(*reference));
  ASSERT_TRUE(second->share_targets(*first));
  first->load_targets(other_chunk);
  first->load_profile(profile), second->load_profile(profile);
  auto expect_same_search = [&](const ChunkSearch& got, const ChunkSearch& want, const char* what) {
    EXPECT_EQ(got.counts.past_msv, want.counts.past_msv) << what;
    EXPECT_EQ(got.counts.past_viterbi, want.counts.past_viterbi) << what;
    ASSERT_EQ(got.passed.size(), want.passed.size()) << what;
    ASSERT_GE(want.passed.size(), 5u) << what;  // 14 and 8 of Pkinase's pass
    for (std::size_t p = 0; p < got.passed.size(); ++p) {
      EXPECT_EQ(got.passed[p].target, want.passed[p].target) << what;
      EXPECT_TRUE(same_bits(got.passed[p].score_bits, want.passed[p].score_bits)) << what;
    }
  };
  expect_same_search(search_chunk(profile, chunk, *second, {}), expected_all, "the shared targets");
  expect_same_search(search_chunk(profile, other_chunk, *first, {}), expected_others, "the loader's new targets");
}

TEST_F(HmmGpu, ThreadPerTargetMsvPath) {
  const ProfileHmm hmm = read_profile(kTutorial + "Pkinase.hmm");
  std::vector<TargetSequence> targets = real_targets(600);
  for (TargetSequence& edge : edge_targets(hmm)) targets.push_back(std::move(edge));
  expect_reference_scores(hmm, targets, false);
}

}  // namespace
}  // namespace helix::hmmsearch
