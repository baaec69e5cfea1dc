// hmm_sampling.h: the stochastic-traceback ensemble that hmmsearch (HMMER
// 3.3.2) uses to split a multi-domain region into domain envelopes
// (region_trace_ensemble in p7_domaindef.c), reproduced draw for draw so that
// the same envelopes and null2 scores come out.
//
// Contents:
//   EaselFastRandom         Easel's "fast" generator (Knuth's 32-bit LCG),
//                           esl_random() and esl_rnd_FChoose() on it.
//   stochastic_trace()      one path sampled from a Forward matrix, with the
//                           SSE implementation's arithmetic and draw order.
//   null2_by_trace()        the null2 odds of one sampled domain.
//   SegmentPairEnsemble     sampled (i..j, k..m) segment pairs, single-linkage
//                           clustered into significant clusters (p7_spensemble).
//   RegionSamples / sample_region() / region_envelopes()
//                           the ensemble step for one region in two halves:
//                           the sampling (hmm_sampling_rows.h, which an engine
//                           may run for many regions at once) and the
//                           clustering into envelopes.
//   sample_region_envelopes both halves for one region.
//
// Exactness matters here: a choice compares a uniform deviate with normalized
// cumulative sums, so each candidate probability is computed with the same
// float operations, in the same order, as HMMER; and every trace makes the
// same number of draws, so later samples stay in step with HMMER's.
#pragma once
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "hmm_alphabet.h"
#include "hmm_domains.h"
#include "hmm_dp.h"
#include "hmm_sampling_rows.h"

namespace helix::hmmsearch {

// Easel's ESL_RANDOMNESS of type eslRND_FAST: x <- 69069 x + 1 (mod 2^32),
// its state first set by Bob Jenkins' mix of (seed, 87654321, 12345678).
// hmmsearch creates it with seed 42 and resets it to that seed before every
// clustered region.
class EaselFastRandom {
 public:
  // Seed 0 means "arbitrary" to Easel (time and pid): not reproducible, so
  // refused here (std::invalid_argument).
  explicit EaselFastRandom(std::uint32_t seed = 42) { init(seed); }

  void init(std::uint32_t seed);    // esl_randomness_Init
  void reseed() { init(seed_); }    // esl_randomness_Init(r, esl_randomness_GetSeed(r))
  std::uint32_t seed() const { return seed_; }
  std::uint32_t state() const { return stream_.x; }

  std::uint32_t next_uint32() { stream_.uniform(); return stream_.x; }  // esl_random_uint32
  double uniform() { return stream_.uniform(); }                       // esl_random: [0, 1)
  // esl_rnd_FChoose: index 0..N-1 drawn with probability p[i] / sum(p), one
  // draw. The p need not be normalized; sums are taken in double.
  template <int N>
  int choose(const float (&p)[N]) {
    const int c = sampling::fchoose(stream_, p);
    if (c < 0) throw std::runtime_error("EaselFastRandom::choose: no choice (probabilities are zero or NaN)");
    return c;
  }
  // The generator as hmm_sampling_rows.h's walk draws from it.
  sampling::EaselStream& stream() { return stream_; }

 private:
  std::uint32_t seed_ = 42;
  sampling::EaselStream stream_{0};
};

// Easel's esl_rnd_mix3 (Bob Jenkins' mix): exposed for tests.
std::uint32_t easel_mix3(std::uint32_t a, std::uint32_t b, std::uint32_t c);

// Samples one state path for codes[0..L-1] from `fwd`, the Forward matrix of
// those residues under `profile` (HMMER's p7_StochasticTrace, SSE version).
// The path runs S N.. B (M/D/I).. E (J.. B ..E).. C.. T with HMMER's
// conventions for k and i (N, C, J carry the residue they emit; the first of
// each run carries none); pp is 0. Domains are not indexed.
// Throws std::runtime_error if a choice has no possible predecessor (a
// matrix that is not a Forward matrix of these residues).
Trace stochastic_trace(EaselFastRandom& rng, const std::uint8_t* codes, int L, const OddsProfile& profile,
                       const DpMatrix& fwd);

// Null2 emission odds of trace positions tfrom..tto (one domain, B..E), as
// HMMER's SSE p7_Null2_ByTrace computes them: the usage frequency of each
// node's emitting states (an insert counts toward its node's match, as in
// HMMER) weighting that node's match odds, plus the N/C/J share; degenerate
// codes get the mean of their residues' odds, gap, '*' and '~' get 1.
std::array<float, kCodes> null2_by_trace(const OddsProfile& profile, const Trace& trace, int tfrom, int tto);

// One sampled domain: sequence i..j, model k..m, from trace number `sample`.
struct SegmentPair {
  int sample = 0;
  int i = 0, j = 0, k = 0, m = 0;
};

// A significant cluster's consensus coordinates (p7_spensemble's sigc):
// `cluster` is its single-linkage cluster number, `posterior` the fraction
// of sampled traces with at least one segment pair in it.
struct EnsembleCluster {
  int i = 0, j = 0, k = 0, m = 0;
  int cluster = 0;
  float posterior = 0;
};

struct ClusterParameters {
  float min_overlap = 0.8f;   // overlap fraction required in sequence and model
  bool of_smaller = true;     // fraction of the smaller segment (else the larger)
  int max_diagdiff = 4;       // start or end diagonals at most this far apart
  float min_posterior = 0.25f;
  float min_endpointp = 0.02f;
};
ClusterParameters cluster_parameters(const DomainDefinitionOptions& options);

class SegmentPairEnsemble {
 public:
  // Segment pairs must arrive by sample number, 0, 1, 2, ... (a sample may
  // add none); throws std::invalid_argument when one skips ahead.
  void add(int sample, int i, int j, int k, int m);
  void clear() { pairs_.clear(), samples_ = 0; }
  int samples() const { return samples_; }  // highest sample number seen + 1
  const std::vector<SegmentPair>& pairs() const { return pairs_; }

  // Single-linkage cluster numbers of the pairs (Easel's
  // esl_cluster_SingleLinkage, whose numbering this follows), and their count.
  std::vector<int> link_clusters(const ClusterParameters& params, int& nclusters) const;
  // p7_spensemble_Cluster: the significant clusters with their consensus
  // endpoints, ordered by i (ties keep cluster order, as glibc's stable
  // qsort does).
  std::vector<EnsembleCluster> cluster(const ClusterParameters& params) const;

 private:
  std::vector<SegmentPair> pairs_;
  int samples_ = 0;
};

// HMMER's linkage rule for two segment pairs (exposed for tests).
bool segment_pairs_linked(const SegmentPair& a, const SegmentPair& b, const ClusterParameters& params);

// One envelope of a sampled region: residues i..j of the whole target.
struct RegionEnvelope {
  int i = 0, j = 0;      // sequence, 1..L of the whole target
  int k = 0, m = 0;      // model nodes (unused by hmmsearch beyond here)
  float posterior = 0;   // the cluster's posterior probability
};

// The sampling half of the ensemble step for one region gives a
// RegionSamples (hmm_engine.h).
// Which residues each code stands for, for sample_region_rows().
const CodeMembers& code_members();
// The CPU's sampling of region codes[0..Lr-1] from its multihit Forward
// matrix, starting from generator state `rng_state` (the region's reseeded
// state). Throws std::runtime_error when a state has no predecessor.
RegionSamples sample_region(const OddsProfile& multihit, const std::uint8_t* region_codes, int Lr,
                            const DpMatrix& region_forward, int samples, std::uint32_t rng_state);
// The same for residues i..j of a target: the region's Forward matrix, then
// sample_region from the region's reseeded state of `seed`.
RegionSamples sample_target_region(const OddsProfile& multihit, const std::uint8_t* target_codes, int i, int j,
                                   int samples, std::uint32_t seed);
// The clustering half for region ireg..: the envelopes (as
// sample_region_envelopes returns them), and the region's null2 scores
// (log of the mean odds) into region_null2[0..Lr-1].
std::vector<RegionEnvelope> region_envelopes(const RegionSamples& samples, int ireg,
                                             const DomainDefinitionOptions& options, float* region_null2);

// What region_trace_ensemble does for region ireg..jreg of a target:
// reseeds `rng`, samples options.samples traces from `region_forward` (the
// multihit Forward matrix of codes[ireg-1 .. jreg-1]), clusters their
// domains, and sets null2_scores[ireg..jreg] (nats per residue, from the
// traces' null2 odds; the vector must hold at least jreg + 1 entries).
// Returns the envelopes in order of i, after dropping each one that overlaps
// another by 80% of the shorter and has the lower (or equal, for the
// earlier one) posterior.
std::vector<RegionEnvelope> sample_region_envelopes(const OddsProfile& multihit, const std::uint8_t* codes, int ireg,
                                                    int jreg, const DpMatrix& region_forward,
                                                    const DomainDefinitionOptions& options, EaselFastRandom& rng,
                                                    std::vector<float>& null2_scores);

}  // namespace helix::hmmsearch
