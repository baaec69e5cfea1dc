// sw_engine.h: the fast paths of the swsearch kind. An engine holds a set of
// target (database) sequences and scores a query against all of them: the
// best local alignment score of each pair, exactly sw_score(...).score. For
// the few pairs a report shows it also says where each score ends, exactly as
// sw_score() does, and how they align, exactly as sw_align() does.
//
// Contents:
//   make_target_set()               encoded targets as a SequenceSet (core/sequence_set.h)
//   HitPair                         a reported hit whose end is wanted
//   SwEngine                        load targets, score a query against them, find reported hits' ends and alignments
//   make_cpu_engine(), make_gpu_engine() (gpu_device_count(): core/gpu_devices.h)
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/sequence_set.h"
#include "sw.h"

namespace helix::swsearch {

// The targets back to back, in the given order: target t is sequence t.
SequenceSet make_target_set(const std::vector<std::vector<std::uint8_t>>& targets);

// queries[query] (of the list given with it) against the target residues
// [target, target + target_length): the caller's (a chunk's), not copied,
// valid during the call.
struct HitPair {
  std::size_t query = 0;
  const std::uint8_t* target = nullptr;
  std::size_t target_length = 0;
};

// A loaded target (its index in the loaded set) and its score.
struct ScoredTarget {
  std::uint32_t target;
  std::int32_t score;
};

class SwEngine {
 public:
  virtual ~SwEngine() = default;
  virtual std::string description() const = 0;
  virtual void load_targets(const SequenceSet& targets) = 0;
  // How many residues the engine takes in one load: the job loads as many
  // whole blocks of the WU as fit (at least one) and scans them query by
  // query, so a GPU waits once per query per load, not per block. 0 (the CPU
  // engines): one block a load, a block being their checkpoints' grain.
  virtual std::uint64_t round_residues() const { return 0; }
  // scores[t] = sw_score(query, target t, matrix, gaps).score for every loaded target.
  virtual std::vector<std::int32_t> scores(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix,
                                           const GapPenalties& gaps) = 0;
  // The loaded targets that can be among the query's `limit` best: every t
  // with scores[t] > 0 and scores[t] >= the limit-th largest positive score
  // (all of that score's ties included, so that the caller can rank ties by
  // its own key), in any order; every positive one when fewer than `limit`.
  // A target left out has at least `limit` targets with a higher score. This
  // base version selects from scores() on the host; the GPU engine selects on
  // the device and copies back only these (about `limit`, not every score).
  virtual std::vector<ScoredTarget> best_scores(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix,
                                                const GapPenalties& gaps, std::size_t limit);
  // ends[p] = sw_score(queries[pairs[p].query], pairs[p].target, matrix, gaps):
  // the score and the first cell (target position outer) that reaches it.
  // This base version runs the reference on the calling thread; the GPU
  // engine runs it on the device so that the host stays idle.
  virtual std::vector<LocalScore> ends(const std::vector<std::vector<std::uint8_t>>& queries,
                                       const std::vector<HitPair>& pairs, const ScoreMatrix& matrix,
                                       const GapPenalties& gaps);
  // alignments[p] = sw_align(queries[pairs[p].query], pairs[p].target, matrix,
  // gaps, ends[p]): its score is what the recurrences hold at the end's cell,
  // which the caller compares with the end's. Throws std::invalid_argument for
  // an end outside its sequences. This base version runs the reference on the
  // calling thread; the GPU engine computes the cells' traceback bits and
  // walks them on the device (the reference's walk_traceback(), sw_traceback.h).
  virtual std::vector<Alignment> alignments(const std::vector<std::vector<std::uint8_t>>& queries,
                                            const std::vector<HitPair>& pairs, const std::vector<LocalScore>& ends,
                                            const ScoreMatrix& matrix, const GapPenalties& gaps);
};

// The reference's recurrences, plain and single-threaded (for tests and as
// the last resort).
std::unique_ptr<SwEngine> make_reference_engine();
// The engine for volunteers without a GPU: parasail's SIMD kernels with a
// query profile (striped, 8-bit lanes redone in 16 and then 32 bits when a
// score saturates; linear gaps, open == extend, by 32-bit prefix scan), exact.
// `threads` workers share the targets in chunks (<= 0: one per hardware
// thread). scores() throws InputError when the gaps fail check_gaps().
std::unique_ptr<SwEngine> make_cpu_engine(int threads);
// Throws GpuError when the device cannot be used.
std::unique_ptr<SwEngine> make_gpu_engine(int device);

}  // namespace helix::swsearch
