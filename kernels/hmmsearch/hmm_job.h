// hmm_job.h: an hmmsearch work unit and its result, as files
// (docs/hmmsearch.md, "Work units and server"). Shared by the app, the
// validator and the assimilator, so that every side writes and reads the
// same bytes.
//
// Contents:
//   HmmParams, parse_hmm_params(), hmm_params_json()   the WU's "params" JSON
//   TargetDomains, ProfileOutcome, ScoreRow, HmmJobResult   what a search of one chunk found
//   run_hmm_job()                                      the app's job, checkpointed between blocks of targets
//   reference_verdicts(), same_scores()                the CPU reference on chosen targets (self-check, validator)
//   target_domains(), same_domains()                   domain definition of one passed target (job, validator)
//   query_report_of(), profile_texts()                 a profile's hmmsearch report from the rows
//   tblout_output(), domtblout_output(), out_output()  the "tblout", "domtblout" and "out" outputs
//   scores_tsv(), parse_scores_tsv()                   the "scores" output (every target past Forward, exact)
//   domains_tsv(), parse_domains_tsv()                 the "domains" output (their domain definition, exact)
//   hmm_summary_json()                                 the "summary" output (last; names the kind)
//
// A WU is one chunk of the database (FASTA, in database order) against one or
// more profiles (HMMER3 text); every WU of a search carries the whole
// database's size, so E-values are the database's (hmmsearch -Z).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/runtime.h"
#include "hmm_alphabet.h"
#include "hmm_domains.h"
#include "hmm_engine.h"
#include "hmm_pipeline.h"
#include "hmm_report.h"

namespace helix::hmm {

// Limits every reader enforces (the params parser, the validator).
constexpr std::uint32_t kMaxProfilesPerWu = 1000;
constexpr std::uint32_t kDefaultBlockTargets = 16384;
// Search and profile stems in file names: plain names of at most this many characters.
constexpr std::size_t kMaxPlainName = 200;

struct HmmParams {
  std::string search;                       // the search's name (helix-wu --name), the same in all its WUs
  std::uint32_t chunk = 0, chunks = 1;      // this WU's chunk of the database, of how many
  std::uint64_t first_ordinal = 0;          // database ordinal (FASTA order, from 0) of the chunk's first target
  std::uint64_t chunk_targets = 0, chunk_residues = 0, chunk_bytes = 0;  // the "database" file's
  std::uint64_t database_sequences = 0;     // of the WHOLE database: Z
  std::uint64_t database_residues = 0;
  std::uint32_t profile_count = 0;          // models in the "profiles" file
  std::uint32_t block_targets = kDefaultBlockTargets;  // targets searched between checkpoints
  double report_evalue = 10.0;              // hmmsearch -E
  // hmmsearch --domZ: the domain search space, set for the whole search.
  // 0 (absent from the JSON): hmmsearch's own default, the number of targets
  // reported; a WU's files count its chunk's, the merged report the whole
  // database's (domain E-values are printed from stored P-values, so the
  // choice changes no computed number, only what is printed and reported).
  double domZ = 0;
  double F1 = 0.02, F2 = 1e-3, F3 = 1e-5;   // hmmsearch --F1/--F2/--F3
  bool bias_filter = true;                  // false: hmmsearch --nobias
  PipelineOptions pipeline() const;         // the options search_chunk takes (Z = database_sequences)
};
// {"kind": "hmmsearch", "search", "chunk", "chunks", "first_ordinal",
//  "chunk_targets", "chunk_residues", "chunk_bytes", "database_sequences",
//  "database_residues", "profile_count", "block_targets"?, "report_evalue"?,
//  "F1"?, "F2"?, "F3"?, "bias_filter"?, "domZ"? (written only when set)}. Throws InputError, one line naming
// the member, on anything missing, mistyped or absurd (a P-value threshold
// outside (0, 1], a chunk larger than the database, ...).
HmmParams parse_hmm_params(const nlohmann::json& json);
nlohmann::json hmm_params_json(const HmmParams& params);

// One profile's outcome on the chunk.
struct ProfileOutcome {
  std::string name, accession, description;  // the model's NAME, ACC, DESC ("" when absent)
  int M = 0;
  PipelineCounts counts;
};
// Domain definition of one target past Forward (hmm_domains.h): what
// hmmsearch's reports print of it. definition.null2_scores is not kept (the
// reports never print it; the scores and domains derived from it are kept).
struct TargetDomains {
  long length = 0;              // L, residues
  TargetScores scores;          // scores.dropped: no domain, not in any report
  DomainDefinition definition;  // counts and domains (each with its alignment display)
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
struct HmmJobResult {
  HmmParams params;
  std::string engine;
  std::vector<ProfileOutcome> profiles;
  std::vector<ScoreRow> rows;  // by profile, then ordinal
};

// Reads "profiles" (HMMER3 text) and "database" (FASTA) through the runtime
// and checks them against the params (model count; targets, residues and
// bytes of the chunk); then for each block of block_targets targets runs
// search_chunk for every profile on `engine`, saving the state between blocks
// when due. Domain definition follows for each block's passed targets (the
// posteriors on `engine`, the rest on the CPU). With self_check (engines
// other than the reference) a few targets of every block are re-run on the
// CPU reference, filters and domain definition: any difference is a GpuError
// (a BOINC temporary exit), never a result. Throws InputError, GpuError,
// StopRequested.
HmmJobResult run_hmm_job(const HmmParams& params, HmmEngine& engine, Runtime& runtime, bool self_check);

// The reference pipeline's verdict on chosen targets (indices into `targets`,
// ascending): search_chunk on a TargetChunk of those targets alone (a
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

// Domain definition and hmmsearch's per-target scores for one target that
// passed the Forward filter (define_domains then score_target). `posteriors`:
// the target's whole-target posteriors when an engine computed them
// (HmmEngine::domain_posteriors), else the CPU computes them here. The one
// place the job and the validator run it.
TargetDomains target_domains(const SearchProfile& profile, const TargetSequence& target, const PassedTarget& passed,
                             const DomainPosteriors* posteriors = nullptr);
// The scores of a target whose domains are defined (score_target), its null2
// scores dropped.
TargetDomains scored_domains(const SearchProfile& profile, int L, const PassedTarget& passed,
                             DomainDefinition definition);
// Every number, count and display string equal (floats bit for bit).
bool same_domains(const TargetDomains& a, const TargetDomains& b);
// "score_bits 0x1.2p+3 vs ..., domain 2 ienv 10 vs 11" for the first differences.
std::string domains_difference(const TargetDomains& a, const TargetDomains& b);

// hmmsearch's report model for profile `index` from the rows (`rows` may hold
// other profiles' too): the targets hmmsearch keeps (not dropped, E-value
// over Z = database_sequences within report_evalue), sorted, thresholds
// applied with the params' domZ (0: the number of targets reported).
QueryReport query_report_of(const ProfileOutcome& profile, std::uint32_t index, const std::vector<ScoreRow>& rows,
                            const HmmParams& params);
// A profile's three texts: --tblout and --domtblout rows (with their header
// lines when `header`), and the human-readable query block (query_report_text
// with report_statistics_text, no timing lines), "Query:" to "//".
struct ProfileTexts {
  std::string tblout, domtblout, out;
};
ProfileTexts profile_texts(const ProfileOutcome& profile, std::uint32_t index, const std::vector<ScoreRow>& rows,
                           const HmmParams& params, bool header);
// The WU's "tblout", "domtblout" and "out": every profile's in file order, as
// one hmmsearch run over the chunk's targets writes them (the table headers
// once, before the first profile's rows; no banner, no '#' tail, no timing).
std::string tblout_output(const HmmJobResult& result);
std::string domtblout_output(const HmmJobResult& result);
std::string out_output(const HmmJobResult& result);

// "scores": a header line, then one tab-separated line per row: profile,
// target_ordinal, target_name, msv_nats, filter_nats, viterbi_nats ("-" when
// Viterbi was skipped), forward_nats, null_nats, score_bits, ln_p, reported
// (0/1), description (the rest of the line, may be empty). Scores are C99
// hexadecimal floats ("%a"): exact, so results compare bit for bit.
std::string scores_tsv(const std::vector<ScoreRow>& rows);
// Rows back; InputError naming the line for anything malformed or not
// written exactly as scores_tsv writes it (canonical numbers only).
std::vector<ScoreRow> parse_scores_tsv(const std::string& text, std::uint64_t first_ordinal);
// The bytes one scores line may take beyond its name and description.
constexpr std::uint64_t kMaxScoreLineFixedBytes = 320;

// "domains": two header lines ("#T\t..." and "#D\t...": the field names),
// then for every row, in the rows' order, a target line and one line per
// domain, tab-separated:
//   T profile target_ordinal length dropped score_bits pre_score_bits
//     sum_score_bits ln_p best_domain nexpected nregions nclustered noverlaps
//     nenvelopes domains
//   D profile target_ordinal domain ienv jenv iali jali envsc_nats
//     domcorrection_nats dombias_nats oasc bitscore ln_p hmmfrom hmmto M
//     sqfrom sqto L rfline mmline csline model mline aseq ppline
// Floats and doubles as %a (exact); the display lines as they are (empty
// when the model has no such annotation). Reported / included flags are not
// written: apply_thresholds derives them.
std::string domains_tsv(const std::vector<ScoreRow>& rows);
// Fills rows[k].domains from the text; InputError naming the line for
// anything malformed, not canonical, or not in the rows' order.
void parse_domains_tsv(const std::string& text, std::vector<ScoreRow>& rows);
// Bytes of a domains target line, and of a domain line beyond its display.
constexpr std::uint64_t kMaxDomainTargetLineBytes = 400, kMaxDomainLineFixedBytes = 400;

// {"kind": "hmmsearch", "engine", "params", "profiles": [{"name",
// "accession", "description", "M", "targets", "residues", "past_msv", "past_bias",
// "past_viterbi", "past_forward"}]}.
std::string hmm_summary_json(const HmmJobResult& result);

}  // namespace helix::hmm
