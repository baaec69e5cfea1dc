// hmm_job.h: an hmmsearch work unit run by the app (docs/hmmsearch.md, "Work
// units and server"): the search of one database chunk, checkpointed between
// blocks of targets. Includes the kind's work-unit headers, so that a file of
// the app, the validator or the assimilator that includes it has the whole
// work unit, and every side writes and reads the same bytes:
//   hmm_params.h            HmmParams, parse_hmm_params(), hmm_params_json()   the WU's "params" JSON
//   hmm_result.h            ProfileOutcome, ScoreRow, HmmJobResult   what a search of one chunk found
//   hmm_target_domains.h    TargetDomains, target_domains()   domain definition of one passed target (job, validator)
//   hmm_reference_checks.h  reference_verdicts(), same_scores(), same_domains()   the CPU reference on chosen targets
//   hmm_outputs.h           query_report_of(), profile_texts(), report_outputs()
//   hmm_result_files.h      scores_tsv(), parse_scores_tsv(), domains_tsv(), parse_domains_tsv()   exact outputs
//   hmm_summary.h           hmm_summary_json()   the "summary" output (last; names the kind)
//
// Contents:
//   run_hmm_job()   the app's job, checkpointed between blocks of targets (hmm_state.h's state)
//
// A WU is one chunk of the database (FASTA, in database order) against one or
// more profiles (HMMER3 text); every WU of a search carries the whole
// database's size, so E-values are the database's (hmmsearch -Z).
#pragma once
#include "core/runtime.h"
#include "hmm_alphabet.h"
#include "hmm_domains.h"
#include "hmm_engine.h"
#include "hmm_outputs.h"
#include "hmm_params.h"
#include "hmm_pipeline.h"
#include "hmm_reference_checks.h"
#include "hmm_report.h"
#include "hmm_result.h"
#include "hmm_result_files.h"
#include "hmm_summary.h"
#include "hmm_target_domains.h"

namespace helix::hmmsearch {

// Reads "profiles" (HMMER3 text) and "database" (FASTA) through the runtime
// and checks them against the params (model count; targets, residues and
// bytes of the chunk); then for each round of whole blocks of block_targets
// targets (as many as engine.round_targets() asks for, at least one) runs
// search_chunk for every profile on `engine`, saving the state between rounds
// when due. Domain definition follows for each block's passed targets (the
// posteriors on `engine`, the rest on the CPU). With self_check (engines
// other than the reference) a few targets of every round are re-run on the
// CPU reference, filters and domain definition: any difference is a GpuError
// (a BOINC temporary exit), never a result. Throws InputError, GpuError,
// StopRequested.
HmmJobResult run_hmm_job(const HmmParams& params, HmmEngine& engine, Runtime& runtime, bool self_check);
// The same with several engines, each on its own host thread, searching
// different profiles of a round at once (the first engine's round_targets()
// sets the rounds). The result is the one engine's, byte for byte.
HmmJobResult run_hmm_job(const HmmParams& params, const std::vector<HmmEngine*>& engines, Runtime& runtime,
                         bool self_check);
// The same with a long engine beside each engine (as many): each round's
// targets of kLongLegResidues or more are searched there, on a host thread
// of their own, while the engine searches the rest (search_and_define in
// hmm_search.h). The result is the one engine's, byte for byte.
HmmJobResult run_hmm_job(const HmmParams& params, const std::vector<HmmEngine*>& engines,
                         const std::vector<HmmEngine*>& long_engines, Runtime& runtime, bool self_check);

}  // namespace helix::hmmsearch
