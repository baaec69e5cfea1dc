// hmm_pipeline.h: hmmsearch's per-sequence pipeline for one profile against
// one chunk of targets: MSV filter (P <= F1), bias filter (P <= F1 against
// the composition-aware null), Viterbi filter (P <= F2; skipped when the MSV
// P-value already passes F2), Forward (P <= F3), then the full-sequence score
// (Forward minus the null model, in bits) and its E-value over the whole
// database (Z sequences, as hmmsearch -Z). The filters run on an HmmEngine;
// every decision is made here, in HMMER's float/double arithmetic.
//
// The pipeline stops at the Forward score. Each target that passes then gets
// hmmsearch's domain definition (define_domains() in hmm_domains.h), which can
// still drop a sequence with no domain or change its score (null2, the sum of
// its domains); the job (hmm_job.h) runs both. See docs/hmmsearch.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hmm_engine.h"

namespace helix::hmmsearch {

struct PipelineOptions {
  double F1 = 0.02, F2 = 1e-3, F3 = 1e-5;  // hmmsearch's defaults
  double report_evalue = 10.0;             // -E
  double database_sequences = 0;           // Z; 0 means the chunk's own count
  bool bias_filter = true;
};

struct PipelineCounts {
  std::uint64_t targets = 0, residues = 0, past_msv = 0, past_bias = 0, past_viterbi = 0, past_forward = 0;
  PipelineCounts& operator+=(const PipelineCounts& other);
};

// A target that passed Forward: its filter scores (nats) and its bits.
struct PassedTarget {
  std::uint32_t target = 0;
  float msv_nats = 0, filter_nats = 0, viterbi_nats = 0, forward_nats = 0, null_nats = 0;
  bool viterbi_run = false;  // false when the MSV P-value already passed F2
  float score_bits = 0;      // (forward - null) / ln 2, hmmsearch's full-sequence score
  double ln_p = 0;           // log P-value of the score
  bool reported = false;     // E-value <= report_evalue
};

struct ChunkSearch {
  PipelineCounts counts;
  std::vector<PassedTarget> passed;  // in target order
};

// P-values as Easel computes them.
double gumbel_survival(double x, double mu, double lambda);
double exponential_log_survival(double x, double mu, double lambda);
// An E-value as hmmsearch computes and prints it: exp(ln_p) times the search
// space (Z, or domZ for a domain's conditional E-value), in HMMER's float mode
// (hmm_float_mode.h). A strong hit's exp(ln_p) below the smallest normal double
// (scores above about 1,020 bits) is then 0, as hmmsearch prints it, not a
// subnormal such as 5.9e-319. Every report number and every threshold decision
// on an E-value goes through here, in the app, the validator and the server's
// merged report alike.
double hmmer_evalue(double ln_p, double search_space);

// Runs the pipeline; the engine must hold `targets` and `profile`.
ChunkSearch search_chunk(const SearchProfile& profile, const SequenceSet& targets, HmmEngine& engine,
                         const PipelineOptions& options);

// hmmsearch's "Internal pipeline statistics summary" lines for the counts.
std::string pipeline_statistics_text(const SearchProfile& profile, const PipelineCounts& counts,
                                     const PipelineOptions& options);

}  // namespace helix::hmmsearch
