// hmm_reference_checks.cpp: the CPU reference on chosen targets, the exact
// comparisons against it, and the job's self-check (hmm_reference_checks.h).
#include "hmm_reference_checks.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "core/errors.h"
#include "hmm_engine.h"
#include "hmm_field_text.h"

namespace helix::hmmsearch {
namespace {

// The GPU self-check: per block and profile, this many targets that passed
// and this many drawn from the whole block are re-run on the CPU reference,
// and the domain definition of one passed target redone on the CPU (see
// self_check_domains: the cheapest one that still covers the sampling).
// Drawn targets rarely pass MSV, so the passed ones' scalar Forward is the
// check's cost: with 4 a block it was 8 % of the app's host CPU on the
// H100's 56.8 M-residue, 9-profile WU.
constexpr std::size_t kSelfCheckPassed = 2, kSelfCheckDrawn = 4;

// The index into a block's passed targets of the k-th of `checked` evenly
// spaced ones (k < checked <= passed).
std::size_t evenly_spaced(std::size_t k, std::size_t checked, std::size_t passed) { return k * passed / checked; }

bool same_float(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// "name 'x' vs 'y'" for each field that differs.
void note_differences(const std::vector<std::string>& names, const std::vector<std::string>& a,
                      const std::vector<std::string>& b, const std::string& prefix, std::string& text) {
  for (std::size_t k = 0; k < names.size(); ++k)
    if (a[k] != b[k]) text += (text.empty() ? "" : ", ") + prefix + names[k] + " '" + a[k] + "' vs '" + b[k] + "'";
}

}  // namespace

std::vector<std::optional<PassedTarget>> reference_verdicts(const SearchProfile& profile,
                                                            const std::vector<TargetSequence>& targets,
                                                            const std::vector<std::uint32_t>& chosen,
                                                            const PipelineOptions& options) {
  std::vector<std::optional<PassedTarget>> verdicts(chosen.size());
  if (chosen.empty()) return verdicts;
  std::vector<TargetSequence> picked;
  for (std::uint32_t t : chosen) picked.push_back(targets.at(t));
  const SequenceSet chunk = make_target_chunk(picked);
  auto engine = make_cpu_engine();
  engine->load_targets(chunk);
  engine->load_profile(profile);
  for (PassedTarget passed : search_chunk(profile, chunk, *engine, options).passed) {
    const std::uint32_t k = passed.target;
    passed.target = chosen[k];
    verdicts[k] = passed;
  }
  return verdicts;
}

bool same_scores(const PassedTarget& a, const PassedTarget& b) {
  return same_float(a.msv_nats, b.msv_nats) && same_float(a.filter_nats, b.filter_nats) &&
         same_float(a.viterbi_nats, b.viterbi_nats) && same_float(a.forward_nats, b.forward_nats) &&
         same_float(a.null_nats, b.null_nats) && a.viterbi_run == b.viterbi_run &&
         same_float(a.score_bits, b.score_bits) && same_double(a.ln_p, b.ln_p) && a.reported == b.reported;
}

std::string score_difference(const PassedTarget& a, const PassedTarget& b) {
  std::string text;
  auto note = [&](const char* what, bool same, double x, double y) {
    if (!same) text += (text.empty() ? "" : ", ") + std::string(what) + " " + hex_float(x) + " vs " + hex_float(y);
  };
  note("msv_nats", same_float(a.msv_nats, b.msv_nats), a.msv_nats, b.msv_nats);
  note("filter_nats", same_float(a.filter_nats, b.filter_nats), a.filter_nats, b.filter_nats);
  note("viterbi_nats", same_float(a.viterbi_nats, b.viterbi_nats) && a.viterbi_run == b.viterbi_run, a.viterbi_nats,
       b.viterbi_nats);
  note("forward_nats", same_float(a.forward_nats, b.forward_nats), a.forward_nats, b.forward_nats);
  note("null_nats", same_float(a.null_nats, b.null_nats), a.null_nats, b.null_nats);
  note("score_bits", same_float(a.score_bits, b.score_bits), a.score_bits, b.score_bits);
  note("ln_p", same_double(a.ln_p, b.ln_p), a.ln_p, b.ln_p);
  note("reported", a.reported == b.reported, a.reported, b.reported);
  return text;
}

bool same_domains(const TargetDomains& a, const TargetDomains& b) { return domains_difference(a, b).empty(); }

// The texts are %a for floats (one text per bit pattern but NaN's), decimal
// for integers and the strings themselves: equal texts are equal values.
std::string domains_difference(const TargetDomains& a, const TargetDomains& b) {
  std::string text;
  note_differences(kTargetFieldNames, target_fields(a), target_fields(b), "", text);
  const auto& x = a.definition.domains;
  const auto& y = b.definition.domains;
  for (std::size_t d = 0; d < std::min(x.size(), y.size()); ++d)
    note_differences(kDomainFieldNames, domain_fields(x[d], d), domain_fields(y[d], d),
                     "domain " + std::to_string(d + 1) + " ", text);
  return text;
}

// Re-runs a few targets of the block on the CPU reference: evenly spaced
// passed ones and some drawn from the whole block (deterministically, so a
// rerun checks the same ones). Any difference in fate or score is the GPU's.
void self_check_block(const SearchProfile& profile, const std::vector<TargetSequence>& targets, std::size_t first,
                      std::size_t count, const ChunkSearch& search, const PipelineOptions& options,
                      std::uint32_t block) {
  std::vector<std::uint32_t> chosen;
  const std::size_t passed = search.passed.size();
  const std::size_t checked = std::min(passed, kSelfCheckPassed);
  for (std::size_t k = 0; k < checked; ++k)
    chosen.push_back(static_cast<std::uint32_t>(first + search.passed[evenly_spaced(k, checked, passed)].target));
  std::mt19937 random(block);
  for (std::size_t k = 0; k < kSelfCheckDrawn; ++k)
    chosen.push_back(static_cast<std::uint32_t>(first + std::uniform_int_distribution<std::size_t>(0, count - 1)(random)));
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  const auto verdicts = reference_verdicts(profile, targets, chosen, options);
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    const auto found = std::find_if(search.passed.begin(), search.passed.end(),
                                    [&](const PassedTarget& t) { return first + t.target == chosen[k]; });
    const std::string at = "profile " + profile.name + ", target " + targets[chosen[k]].name + ": ";
    if ((found == search.passed.end()) != !verdicts[k].has_value())
      throw GpuError(at + "the engine and the CPU reference disagree on whether it passes the filters");
    if (verdicts[k] && !same_scores(*found, *verdicts[k]))
      throw GpuError(at + "the engine's scores differ from the CPU reference's: " + score_difference(*found, *verdicts[k]));
  }
}

// The passed target (an index into search.passed) with the fewest residues,
// the first on ties, among those `eligible` says; passed.size() if none is.
template <typename Eligible>
std::size_t shortest_passed(const std::vector<TargetSequence>& targets, std::size_t first, const ChunkSearch& search,
                            Eligible eligible) {
  std::size_t best = search.passed.size();
  for (std::size_t k = 0; k < search.passed.size(); ++k) {
    if (!eligible(k)) continue;
    const std::size_t length = targets[first + search.passed[k].target].codes.size();
    if (best == search.passed.size() || length < targets[first + search.passed[best].target].codes.size()) best = k;
  }
  return best;
}

// The engine's domain definition, checked: one passed target's definition
// redone wholly on the CPU must be the same, bit for bit. It is the
// shortest one whose regions the engine sampled, so that the stochastic
// clustering (run only for multi-domain regions) is checked whenever the
// block has one, else the shortest passed target: a definition's cost grows
// with the target's length. On 15,000 metastudent proteins in blocks of
// 4,096 and 9 profiles (one core) it costs 0.16 s, where the first and the
// middle passed target (which often checked no sampling) cost 0.19 s.
void self_check_domains(const SearchProfile& profile, const std::vector<TargetSequence>& targets, std::size_t first,
                        const ChunkSearch& search, const std::vector<TargetDomains>& domains) {
  const std::size_t none = search.passed.size();
  const std::size_t shortest = shortest_passed(targets, first, search, [](std::size_t) { return true; });
  const std::size_t shortest_sampled = shortest_passed(
      targets, first, search, [&](std::size_t k) { return domains[k].definition.nclustered > 0; });
  const std::size_t index = shortest_sampled != none ? shortest_sampled : shortest;
  if (index == none) return;
  const TargetSequence& target = targets[first + search.passed[index].target];
  const TargetDomains reference = target_domains(profile, target, search.passed[index]);
  if (!same_domains(domains[index], reference))
    throw GpuError("profile " + profile.name + ", target " + target.name +
                   ": the engine's domain definition differs from the CPU reference's: " +
                   domains_difference(domains[index], reference));
}

}  // namespace helix::hmmsearch
