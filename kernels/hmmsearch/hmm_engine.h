// hmm_engine.h: where the filters run. An engine holds one chunk of targets
// and one configured profile and returns filter scores (nats, before the null
// model): MSV for every target; the bias filter's null, Viterbi and Forward
// for the few the pipeline asks about. The decisions (thresholds, bias filter, E-values) stay in
// hmm_pipeline, on the host, the same for every engine.
//
// Contents: make_target_chunk() (the targets as a SequenceSet,
// core/sequence_set.h), RegionTask / RegionSamples,
// EnvelopeTask / EnvelopeRescore /
// rescore_envelope(), HmmEngine, make_cpu_engine(),
// make_gpu_engine() (gpu_device_count(): core/gpu_devices.h).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/sequence_set.h"
#include "hmm_alphabet.h"
#include "hmm_dp.h"
#include "hmm_profile.h"
#include "hmm_sampling_rows.h"

namespace helix::hmmsearch {

// The targets' digital codes back to back, in the given order: loaded
// target t (the engines' index) is targets[t].
SequenceSet make_target_chunk(const std::vector<TargetSequence>& targets);

// A region of domain definition that looks like several domains, to sample
// (hmm_sampling.h): residues i..j (1-based) of loaded target `target`.
struct RegionTask {
  std::uint32_t target = 0;
  int i = 0, j = 0;
};
// Its sampling (hmm_sampling_rows.h): the sampled traces' segment pairs
// (region coordinates, in sample order) and each residue's null2 odds
// summed over the traces.
struct RegionSamples {
  std::vector<SampledPair> pairs;
  std::vector<float> sums;
};

// One envelope of domain definition to rescore (hmm_domains.h): residues
// i..j (1-based) of loaded target `target`; `null2` asks for its null2 odds
// (an envelope of a sampled region has its null2 from the sampling).
struct EnvelopeTask {
  std::uint32_t target = 0;
  int i = 0, j = 0;
  bool null2 = false;
};
// Its rescoring (hmm_envelope_rows.h): the scores and the OA traceback's steps.
struct EnvelopeRescore {
  EnvelopeScores scores;
  std::vector<TraceStep> steps;
};
// The CPU reference's rescoring of one envelope of a target of length L,
// with `unihit` = odds_profile(profile, L, false).
EnvelopeRescore rescore_envelope(const OddsProfile& unihit, const std::uint8_t* target_codes,
                                 const EnvelopeTask& task);

class HmmEngine {
 public:
  virtual ~HmmEngine() = default;
  virtual std::string description() const = 0;
  // Targets the engine would search at once between two checkpoints (the job
  // rounds it to whole blocks of the WU; 0: one block). The GPU engine asks
  // for many: each of its domain-definition batches waits for its longest
  // target, and a block's few passed targets leave most of the device idle.
  virtual std::size_t round_targets() const { return 0; }
  // Readies the calling thread to drive the engine (the GPU engine makes its
  // device current there): the job runs several engines on threads of its own.
  virtual void use_on_this_thread() {}
  virtual void load_targets(const SequenceSet& targets) = 0;
  // Takes the targets that `other` loaded last, without a copy of its own,
  // when the two can share them (GPU engines of one device: one upload and
  // one sort a round instead of one per engine); false, having done nothing,
  // when they cannot. This engine keeps that copy when `other` loads others.
  virtual bool share_targets(const HmmEngine& other) {
    (void)other;
    return false;
  }
  virtual void load_profile(const SearchProfile& profile) = 0;
  // msv_filter_score of every loaded target (length 0 targets: -infinity).
  virtual std::vector<float> msv_scores() = 0;
  // bias_filter_score / viterbi_filter_score / forward_score of the listed
  // targets, in that order.
  virtual std::vector<float> bias_filter_scores(const std::vector<std::uint32_t>& targets) = 0;
  virtual std::vector<float> viterbi_scores(const std::vector<std::uint32_t>& targets) = 0;
  virtual std::vector<float> forward_scores(const std::vector<std::uint32_t>& targets) = 0;
  // The first step of domain definition for the listed targets (those that
  // passed Forward): the multihit Forward and Backward parser passes over the
  // whole target and their domain decoding (hmm_dp.h), in that order.
  virtual std::vector<DomainPosteriors> domain_posteriors(const std::vector<std::uint32_t>& targets) = 0;
  // Domain definition's sampling of multi-domain regions: `samples` traces
  // each, from Easel's generator seeded with `seed` and reseeded per region.
  virtual std::vector<RegionSamples> sample_regions(const std::vector<RegionTask>& tasks, int samples,
                                                    std::uint32_t seed) = 0;
  // Domain definition's envelope rescoring, for envelopes of any of the
  // loaded targets, in the order of `tasks`.
  virtual std::vector<EnvelopeRescore> rescore_envelopes(const std::vector<EnvelopeTask>& tasks) = 0;
};

// The filters of hmm_filters.h, one target after another on this thread.
std::unique_ptr<HmmEngine> make_cpu_engine();
// The CUDA engine on `device`. Throws GpuError without a usable GPU.
// warp_msv = false runs MSV one thread per target, as it does for models too
// long for the warp kernels (over 4096 nodes); tests use it to check that path.
// engines_on_device: how many engines the caller runs on the device at once
// (each takes that share of the memory its batches may fill).
std::unique_ptr<HmmEngine> make_gpu_engine(int device = 0, bool warp_msv = true, int engines_on_device = 1);

}  // namespace helix::hmmsearch
