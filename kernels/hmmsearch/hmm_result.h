// hmm_result.h: what an hmmsearch work unit's search of one chunk found
// (hmm_job.h runs it; hmm_result_files.h, hmm_outputs.h and hmm_summary.h
// write it).
//
// Contents:
//   ProfileOutcome   one profile's name, length and pipeline counts on the chunk
//   ScoreRow         one target past Forward for one profile: scores and domains
//   HmmPhases        where the run's time went (stderr only)
//   HmmJobResult     the params, the engine, every profile's outcome and rows
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/phase_clock.h"
#include "hmm_params.h"
#include "hmm_pipeline.h"
#include "hmm_target_domains.h"

namespace helix::hmmsearch {

// One profile's outcome on the chunk.
struct ProfileOutcome {
  std::string name, accession, description;  // the model's NAME, ACC, DESC ("" when absent)
  int M = 0;
  PipelineCounts counts;
};

// One target that passed the Forward filter for one profile: a line of
// "scores" and its record in "domains".
struct ScoreRow {
  std::uint32_t profile = 0;        // index in the profiles file
  std::uint64_t ordinal = 0;        // database ordinal; the chunk index is ordinal - first_ordinal
  std::string name, description;    // the target's FASTA id and the rest of its header
  PassedTarget scores;              // scores.target = the chunk index; the filter stage's (pre-domain) scores
  TargetDomains domains;
};
// Where this run's time went (after a restart: the run since it): reading
// and parsing the inputs, the rounds, the checkpoints (the process's CPU);
// within the rounds, added over the engines' threads (each thread's own CPU),
// the filters (profile loads and search_chunk), domain definition and the
// self-checks on the CPU reference.
struct HmmPhases {
  PhaseTime inputs, rounds, checkpoints;
  PhaseTime filters, domains, self_check;
};
struct HmmJobResult {
  HmmParams params;
  std::string engine;
  std::vector<ProfileOutcome> profiles;
  std::vector<ScoreRow> rows;  // by profile, then ordinal
  HmmPhases phases;            // not part of the result's bytes
};

}  // namespace helix::hmmsearch
