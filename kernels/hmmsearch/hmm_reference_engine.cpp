#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "hmm_engine.h"
#include "hmm_filters.h"
#include "hmm_float_mode.h"
#include "hmm_sampling.h"

namespace helix::hmmsearch {

SequenceSet make_target_chunk(const std::vector<TargetSequence>& targets) {
  SequenceSet chunk;
  for (const TargetSequence& target : targets) chunk.append(target.codes);
  return chunk;
}

EnvelopeRescore rescore_envelope(const OddsProfile& unihit, const std::uint8_t* target_codes,
                                 const EnvelopeTask& task) {
  const HmmerFloatMode hmmer_mode;
  const int L = task.j - task.i + 1, M = unihit.core.M;
  const std::size_t cells = static_cast<std::size_t>(L + 1) * 12 * forward_segments(M);
  const std::size_t specials = static_cast<std::size_t>(L + 1) * kSpecialCells;
  std::vector<float> fwd_rows(cells), bck_rows(cells), fwd_x(specials), bck_x(specials);
  EnvelopeRescore rescored;
  rescored.steps.resize(envelope_trace_room(L, M));
  const EnvelopeScratch scratch{fwd_rows.data(), fwd_x.data(), bck_rows.data(), bck_x.data(), rescored.steps.data(),
                                static_cast<int>(rescored.steps.size())};
  rescore_envelope_rows(target_codes + task.i - 1, L, unihit.striped(), task.null2, scratch, rescored.scores);
  rescored.steps.resize(rescored.scores.ok ? rescored.scores.steps : 0);
  return rescored;
}

namespace {

class ReferenceEngine : public HmmEngine {
 public:
  std::string description() const override { return "cpu-reference"; }
  void load_targets(const SequenceSet& targets) override { targets_ = &targets; }
  void load_profile(const SearchProfile& profile) override { profile_ = &profile; }

  std::vector<float> msv_scores() override {
    const HmmerFloatMode hmmer_mode;
    const MsvView view{profile_->M, profile_->msv_cost.data(), profile_->msv_bias, profile_->msv_tbm,
                       profile_->msv_tec};
    std::vector<std::uint8_t> row(msv_scratch_bytes(profile_->M));
    std::vector<float> scores(targets_->size());
    for (std::size_t t = 0; t < targets_->size(); ++t) {
      const int L = target_length(t);
      scores[t] = L == 0 ? -std::numeric_limits<float>::infinity()
                         : msv_filter_score(targets_->begin(t), L, view, shared_length_config(L).msv_tjb, row.data());
    }
    return scores;
  }

  std::vector<float> bias_filter_scores(const std::vector<std::uint32_t>& which) override {
    const HmmerFloatMode hmmer_mode;
    std::vector<float> scores;
    for (std::uint32_t t : which) {
      const int L = target_length(t);
      scores.push_back(bias_filter_score(targets_->begin(t), L, profile_->bias_filter, shared_length_config(L)));
    }
    return scores;
  }

  std::vector<float> viterbi_scores(const std::vector<std::uint32_t>& which) override {
    const HmmerFloatMode hmmer_mode;
    const ViterbiView view{profile_->M, profile_->vit_match.data(), profile_->vit_transitions.data(),
                           profile_->vit_e_loop, profile_->vit_e_move, profile_->vit_dd_bound};
    std::vector<std::int16_t> rows(viterbi_scratch_words(profile_->M));
    std::vector<float> scores;
    for (std::uint32_t t : which) {
      const int L = target_length(t);
      const std::int16_t move = shared_length_config(L).vit_move;
      scores.push_back(viterbi_filter_score(targets_->begin(t), L, view, move, rows.data()));
    }
    return scores;
  }

  std::vector<float> forward_scores(const std::vector<std::uint32_t>& which) override {
    const HmmerFloatMode hmmer_mode;
    const ForwardView view{profile_->M, profile_->fwd_match.data(), profile_->fwd_transitions.data(),
                           profile_->fwd_e_loop, profile_->fwd_e_move};
    std::vector<float> scratch(forward_scratch_floats(profile_->M));
    std::vector<float> scores;
    for (std::uint32_t t : which) {
      const LengthConfig config = shared_length_config(target_length(t));
      scores.push_back(forward_score(targets_->begin(t), config.L, view, config.fwd_move, config.fwd_loop,
                                     scratch.data()));
    }
    return scores;
  }

  std::vector<DomainPosteriors> domain_posteriors(const std::vector<std::uint32_t>& which) override {
    const HmmerFloatMode hmmer_mode;
    std::vector<DomainPosteriors> posteriors;
    for (std::uint32_t t : which) posteriors.push_back(whole_target_posteriors(*profile_, targets_->begin(t),
                                                                               target_length(t)));
    return posteriors;
  }

  std::vector<RegionSamples> sample_regions(const std::vector<RegionTask>& tasks, int samples,
                                            std::uint32_t seed) override {
    return for_each_task(tasks, true, [&](const OddsProfile& multihit, const RegionTask& task) {
      return sample_target_region(multihit, targets_->begin(task.target), task.i, task.j, samples, seed);
    });
  }

  std::vector<EnvelopeRescore> rescore_envelopes(const std::vector<EnvelopeTask>& tasks) override {
    return for_each_task(tasks, false, [&](const OddsProfile& unihit, const EnvelopeTask& task) {
      return rescore_envelope(unihit, targets_->begin(task.target), task);
    });
  }

 private:
  // run(odds, task) for every task, in order, with the profile configured
  // multihit or unihit for its target's length (rebuilt when that changes).
  template <typename Task, typename Run>
  auto for_each_task(const std::vector<Task>& tasks, bool multihit, Run run)
      -> std::vector<std::invoke_result_t<Run, const OddsProfile&, const Task&>> {
    const HmmerFloatMode hmmer_mode;
    std::vector<std::invoke_result_t<Run, const OddsProfile&, const Task&>> results;
    results.reserve(tasks.size());
    std::optional<OddsProfile> odds;
    for (const Task& task : tasks) {
      const int L = target_length(task.target);
      if (!odds || odds->length_model != L) odds = odds_profile(*profile_, L, multihit);
      results.push_back(run(*odds, task));
    }
    return results;
  }

  const SequenceSet* targets_ = nullptr;
  // A loaded target's length, as the filters and length models count it (int).
  int target_length(std::uint32_t t) const { return static_cast<int>(targets_->length(t)); }
  const SearchProfile* profile_ = nullptr;
};

}  // namespace

std::unique_ptr<HmmEngine> make_cpu_engine() { return std::make_unique<ReferenceEngine>(); }

}  // namespace helix::hmmsearch
