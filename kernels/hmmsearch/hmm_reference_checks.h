// hmm_reference_checks.h: the CPU reference re-run on chosen targets and the
// exact comparisons that check an engine against it: the job's GPU self-check
// and the validator's re-run of sampled targets.
//
// Contents:
//   reference_verdicts()                  the reference pipeline on chosen targets
//   same_scores(), score_difference()     filter-stage scores equal bit for bit, or what differs
//   same_domains(), domains_difference()  domain definitions equal bit for bit, or what differs
//   self_check_block(), self_check_domains()  the job's self-check of one block and profile
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hmm_alphabet.h"
#include "hmm_pipeline.h"
#include "hmm_profile.h"
#include "hmm_search.h"
#include "hmm_target_domains.h"

namespace helix::hmmsearch {

// The reference pipeline's verdict on chosen targets (indices into `targets`,
// ascending): search_chunk on a SequenceSet of those targets alone (a
// target's filter decisions and scores do not depend on the other targets).
// Entry k is the PassedTarget of chosen[k] (its .target = chosen[k]), or
// nullopt when it does not pass the Forward filter.
std::vector<std::optional<PassedTarget>> reference_verdicts(const SearchProfile& profile,
                                                            const std::vector<TargetSequence>& targets,
                                                            const std::vector<std::uint32_t>& chosen,
                                                            const PipelineOptions& options);
// Every score, flag and P-value equal bit for bit (the target index aside).
bool same_scores(const PassedTarget& a, const PassedTarget& b);
// "msv 0x1.2p+3 vs 0x1.3p+3, ..." for the first fields that differ.
std::string score_difference(const PassedTarget& a, const PassedTarget& b);

// Every number, count and display string equal (floats bit for bit).
bool same_domains(const TargetDomains& a, const TargetDomains& b);
// "score_bits 0x1.2p+3 vs ..., domain 2 ienv 10 vs 11" for the first differences.
std::string domains_difference(const TargetDomains& a, const TargetDomains& b);

// The job's self-check of one block (targets [first, first + count)) and one
// profile: a few targets re-run on the CPU reference, evenly spaced passed
// ones and some drawn from the whole block (seeded by `block`, so a rerun
// checks the same ones). Throws GpuError, naming profile and target, when the
// engine's fate or scores of one differ from the reference's.
void self_check_block(const SearchProfile& profile, const std::vector<TargetSequence>& targets, std::size_t first,
                      std::size_t count, const ChunkSearch& search, const PipelineOptions& options,
                      std::uint32_t block);
// The engine's domain definition of the block's passed targets (`domains`,
// parallel to search.passed), checked: the definition of the shortest passed
// target whose regions the engine sampled (else of the shortest passed one)
// redone wholly on the CPU must be the same, bit for bit; else GpuError.
void self_check_domains(const SearchProfile& profile, const std::vector<TargetSequence>& targets, std::size_t first,
                        const ChunkSearch& search, const std::vector<TargetDomains>& domains);

}  // namespace helix::hmmsearch
