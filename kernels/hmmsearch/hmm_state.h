// hmm_state.h: the checkpoint of the hmmsearch job (run_hmm_job, hmm_job.h):
// what every profile has found in the blocks done so far. Internal to the job.
//
// Contents:
//   ProfileState, JobState          the blocks done; per profile its counts, passed targets and their domains
//   state_fingerprint()             what a state belongs to: the WU's params
//   encode_state(), decode_state()  the state in core/checkpoint.h's envelope, and back
//
// Payload (after the envelope, magic "HXHMST02"), little-endian: u32
// next_block | u32 profiles | per profile: u64 targets, residues, past_msv,
// past_bias, past_viterbi, past_forward | u64 passed targets | per passed
// target: u32 chunk index, f32 msv, filter, viterbi, forward and null nats and
// score bits, f64 ln_p, u8 viterbi_run, u8 reported, then its domain
// definition as the "domains" file's fields (hmm_field_text.h), each a u64
// length and its text: the target's, then each domain's.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hmm_params.h"
#include "hmm_pipeline.h"
#include "hmm_target_domains.h"

namespace helix::hmmsearch {

// What one profile has found so far; passed and domains are parallel.
struct ProfileState {
  PipelineCounts counts;
  std::vector<PassedTarget> passed;   // .target = chunk index
  std::vector<TargetDomains> domains;
};
struct JobState {
  std::uint32_t next_block = 0;
  std::vector<ProfileState> profiles;
};

std::string state_fingerprint(const HmmParams& params);
std::vector<std::uint8_t> encode_state(const JobState& state, const std::string& print);
// False (start afresh), `state` untouched, for another WU's state or a
// damaged one (more blocks than `blocks`, another profile count, a target
// outside the chunk, trailing bytes).
bool decode_state(const std::vector<std::uint8_t>& bytes, const std::string& print, const HmmParams& params,
                  std::uint32_t blocks, JobState& state);

}  // namespace helix::hmmsearch
