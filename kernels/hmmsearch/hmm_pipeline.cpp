#include "hmm_pipeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/text_format.h"
#include "hmm_filters.h"
#include "hmm_float_mode.h"

namespace helix::hmmsearch {

PipelineCounts& PipelineCounts::operator+=(const PipelineCounts& other) {
  targets += other.targets, residues += other.residues, past_msv += other.past_msv;
  past_bias += other.past_bias, past_viterbi += other.past_viterbi, past_forward += other.past_forward;
  return *this;
}

double gumbel_survival(double x, double mu, double lambda) {
  const double y = lambda * (x - mu);
  const double ey = -std::exp(-y);
  return std::fabs(ey) < 5e-9 ? -ey : 1 - std::exp(ey);  // 1 - e^ey ~ -ey when small
}

double exponential_log_survival(double x, double mu, double lambda) { return x < mu ? 0.0 : -lambda * (x - mu); }

double hmmer_evalue(double ln_p, double search_space) {
  const HmmerFloatMode hmmer_mode;
  return std::exp(ln_p) * search_space;
}

namespace {

float bits_over(float nats, float null_nats) { return static_cast<float>((nats - null_nats) / kLn2); }

// The lowest MSV score that passes F1 at each length of a chunk, computed
// once a search. The MSV score takes one of 256 values (one per final J
// byte) and its P-value falls as it rises, so "score >= that lowest passing
// score" is the F1 test itself, without an exp() per target.
class MsvPassingScores {
 public:
  MsvPassingScores(const SearchProfile& profile, double F1) : profile_(profile), F1_(F1) {}

  float lowest_passing_msv_score(int L) {
    if (static_cast<std::size_t>(L) >= lowest_passing_.size()) lowest_passing_.resize(L + 1, kNotYet);
    if (lowest_passing_[L] == kNotYet) lowest_passing_[L] = lowest_passing_msv(shared_length_config(L));
    return lowest_passing_[L];
  }

 private:
  static constexpr float kNotYet = -std::numeric_limits<float>::infinity();  // never a threshold
  float lowest_passing_msv(const LengthConfig& config) const {
    auto passes = [&](int xj) {
      const float score = msv_score_of_xj(xj, config.msv_tjb);
      return gumbel_survival(bits_over(score, config.null_score), profile_.msv_mu, profile_.msv_lambda) <= F1_;
    };
    if (!passes(255)) return std::numeric_limits<float>::infinity();  // only an overflow passes
    int low = 0, high = 255;  // find the least passing byte
    while (low < high) {
      const int middle = (low + high) / 2;
      if (passes(middle)) high = middle;
      else low = middle + 1;
    }
    return msv_score_of_xj(low, config.msv_tjb);
  }

  const SearchProfile& profile_;
  double F1_;
  std::vector<float> lowest_passing_;
};

// Targets that pass the MSV filter (P <= F1 against the plain null).
std::vector<PassedTarget> past_msv(const SequenceSet& targets, const std::vector<float>& msv,
                                   MsvPassingScores& passing) {
  std::vector<PassedTarget> survivors;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const int L = static_cast<int>(targets.length(t));
    if (L == 0) continue;
    if (!(msv[t] >= passing.lowest_passing_msv_score(L))) continue;
    const LengthConfig& config = shared_length_config(L);
    PassedTarget target;
    target.target = static_cast<std::uint32_t>(t);
    target.msv_nats = msv[t];
    target.null_nats = target.filter_nats = config.null_score;
    survivors.push_back(target);
  }
  return survivors;
}

// Of those, the ones that still pass against the bias filter's null; their P-values.
std::vector<PassedTarget> past_bias(const SearchProfile& profile, std::vector<PassedTarget> candidates,
                                    HmmEngine& engine, const PipelineOptions& options,
                                    std::vector<double>& p_after_bias) {
  std::vector<std::uint32_t> which;
  for (const PassedTarget& target : candidates) which.push_back(target.target);
  const std::vector<float> filter = options.bias_filter ? engine.bias_filter_scores(which) : std::vector<float>();
  std::vector<PassedTarget> survivors;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    PassedTarget& target = candidates[c];
    if (options.bias_filter) target.filter_nats = filter[c];
    const double P =
        gumbel_survival(bits_over(target.msv_nats, target.filter_nats), profile.msv_mu, profile.msv_lambda);
    if (options.bias_filter && P > options.F1) continue;
    survivors.push_back(target);
    p_after_bias.push_back(P);
  }
  return survivors;
}

}  // namespace

ChunkSearch search_chunk(const SearchProfile& profile, const SequenceSet& targets, HmmEngine& engine,
                         const PipelineOptions& options) {
  ChunkSearch search;
  search.counts.targets = targets.size();
  search.counts.residues = targets.residues.size();
  MsvPassingScores passing(profile, options.F1);
  std::vector<PassedTarget> msv_survivors = past_msv(targets, engine.msv_scores(), passing);
  search.counts.past_msv = msv_survivors.size();
  std::vector<double> p_after_bias;
  std::vector<PassedTarget> candidates = past_bias(profile, std::move(msv_survivors), engine, options, p_after_bias);
  search.counts.past_bias = candidates.size();

  std::vector<std::uint32_t> need_viterbi;
  for (std::size_t c = 0; c < candidates.size(); ++c)
    if (p_after_bias[c] > options.F2) need_viterbi.push_back(candidates[c].target);
  const std::vector<float> viterbi = engine.viterbi_scores(need_viterbi);
  std::vector<PassedTarget> past_viterbi;
  for (std::size_t c = 0, v = 0; c < candidates.size(); ++c) {
    PassedTarget& target = candidates[c];
    if (p_after_bias[c] > options.F2) {
      target.viterbi_run = true;
      target.viterbi_nats = viterbi[v++];
      const double P =
          gumbel_survival(bits_over(target.viterbi_nats, target.filter_nats), profile.viterbi_mu, profile.viterbi_lambda);
      if (P > options.F2) continue;
    }
    past_viterbi.push_back(target);
  }
  search.counts.past_viterbi = past_viterbi.size();

  std::vector<std::uint32_t> need_forward;
  for (const PassedTarget& target : past_viterbi) need_forward.push_back(target.target);
  const std::vector<float> forward = engine.forward_scores(need_forward);
  const double Z = options.database_sequences > 0 ? options.database_sequences : static_cast<double>(targets.size());
  for (std::size_t f = 0; f < past_viterbi.size(); ++f) {
    PassedTarget target = past_viterbi[f];
    target.forward_nats = forward[f];
    const float filtered = bits_over(target.forward_nats, target.filter_nats);
    if (std::exp(exponential_log_survival(filtered, profile.forward_tau, profile.forward_lambda)) > options.F3) continue;
    target.score_bits = bits_over(target.forward_nats, target.null_nats);
    target.ln_p = exponential_log_survival(target.score_bits, profile.forward_tau, profile.forward_lambda);
    target.reported = hmmer_evalue(target.ln_p, Z) <= options.report_evalue;
    search.passed.push_back(target);
  }
  search.counts.past_forward = search.passed.size();
  return search;
}

std::string pipeline_statistics_text(const SearchProfile& profile, const PipelineCounts& counts,
                                     const PipelineOptions& options) {
  const double n = static_cast<double>(counts.targets);
  const double Z = options.database_sequences > 0 ? options.database_sequences : n;
  std::string text = "Internal pipeline statistics summary:\n-------------------------------------\n";
  text += printf_text("Query model(s):              %15d  (%d nodes)\n", 1, profile.M);
  text += printf_text("Target sequences:            %15llu  (%llu residues searched)\n",
                 static_cast<unsigned long long>(counts.targets), static_cast<unsigned long long>(counts.residues));
  const std::pair<const char*, std::uint64_t> stages[] = {{"Passed MSV filter:   ", counts.past_msv},
                                                          {"Passed bias filter:  ", counts.past_bias},
                                                          {"Passed Vit filter:   ", counts.past_viterbi},
                                                          {"Passed Fwd filter:   ", counts.past_forward}};
  const double expected[] = {options.F1, options.F1, options.F2, options.F3};
  for (int s = 0; s < 4; ++s)
    text += printf_text("%s        %15llu  (%.6g); expected %.1f (%.6g)\n", stages[s].first,
                   static_cast<unsigned long long>(stages[s].second), static_cast<double>(stages[s].second) / n,
                   expected[s] * n, expected[s]);
  text += printf_text("Initial search space (Z):    %15.0f  %s\n", Z,
                 options.database_sequences > 0 ? "[as set by --Z on cmdline]" : "[actual number of targets]");
  return text;
}

}  // namespace helix::hmmsearch
