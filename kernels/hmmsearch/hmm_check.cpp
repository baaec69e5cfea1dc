// hmm_check.cpp: the validator's checks of an hmmsearch result. A volunteer
// host may return garbage or a forgery; every file is size-capped before it
// is read. Structure first: the summary's params and per-profile counts
// (targets and residues the chunk's, each filter passing at most what the
// one before passed), the scores file's rows (canonical numbers, in order,
// inside the chunk, one per target past Forward, reported iff its E-value
// over the whole database is within -E), the domains file's records (one per
// row, coordinates inside the target and the model, displays of one width),
// then the tblout, domtblout and out files byte for byte as the server
// writes them from those. With the WU's inputs at hand: the params,
// profiles and database are the WU's, every row names its target, and a
// random sample of targets is re-run on the CPU reference: the same fate
// (past Forward or not), the same scores and, for those that pass, the same
// domain definition, bit for bit.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "core/check_support.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/names.h"
#include "hmm_file.h"
#include "hmm_profile.h"
#include "hmm_server.h"

namespace helix::hmmsearch {
namespace {

constexpr int kMaxModelLength = 100000;
constexpr std::size_t kMaxProfileTextBytes = 100000;  // a profile's name, accession or description in the summary

struct Result {
  nlohmann::json summary;
  HmmJobResult job;  // params, engine, profiles and rows as returned
};

std::string text_field(const nlohmann::json& object, const char* key, bool may_be_empty) {
  const auto& value = object.at(key);
  require(value.is_string(), std::string("summary field '") + key + "' is not a string");
  const std::string text = value.get<std::string>();
  require((may_be_empty || !text.empty()) && text.size() <= kMaxProfileTextBytes,
          std::string("summary field '") + key + "' is empty or too long");
  return text;
}

void read_summary(const std::string& path, Result& result) {
  const auto bytes = read_bounded(path, kMaxSummaryBytes, "summary");
  result.summary = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  const nlohmann::json& s = result.summary;
  if (s.is_discarded() || !s.is_object()) reject("summary is not a JSON object");
  require(s.value("kind", nlohmann::json()) == "hmmsearch", "summary kind is not \"hmmsearch\"");
  result.job.params = parse_hmm_params(s.at("params"));
  result.job.engine = text_field(s, "engine", true);
  const HmmParams& params = result.job.params;
  const auto& profiles = s.at("profiles");
  require(profiles.is_array() && profiles.size() == params.profile_count,
          "summary profiles is not an array of the params' profile_count");
  for (const auto& entry : profiles) {
    ProfileOutcome p;
    p.name = text_field(entry, "name", false);
    require(p.name.find_first_of(" \t\n\r") == std::string::npos, "summary profile name holds a blank");
    p.accession = text_field(entry, "accession", true);
    p.description = text_field(entry, "description", true);
    p.M = static_cast<int>(integer_field(entry, "M", 1, kMaxModelLength));
    PipelineCounts& c = p.counts;
    c.targets = integer_field(entry, "targets", params.chunk_targets, params.chunk_targets);
    c.residues = integer_field(entry, "residues", params.chunk_residues, params.chunk_residues);
    c.past_msv = integer_field(entry, "past_msv", 0, c.targets);
    c.past_bias = integer_field(entry, "past_bias", 0, c.past_msv);
    c.past_viterbi = integer_field(entry, "past_viterbi", 0, c.past_bias);
    c.past_forward = integer_field(entry, "past_forward", 0, c.past_viterbi);
    require(params.bias_filter || c.past_bias == c.past_msv, "summary: the bias filter dropped targets with --nobias");
    result.job.profiles.push_back(std::move(p));
  }
}

// The rows: in (profile, ordinal) order, inside the chunk, as many per
// profile as passed Forward, one name per target, the numbers possible, the
// reported flag hmmsearch's -E rule.
void read_scores(const std::string& path, Result& result) {
  const HmmParams& params = result.job.params;
  const auto bytes = read_bounded(path, max_scores_bytes(params), "scores");
  result.job.rows = parse_scores_tsv(std::string(bytes.begin(), bytes.end()), params.first_ordinal);
  const PipelineOptions options = params.pipeline();
  std::vector<std::uint64_t> per_profile(params.profile_count, 0);
  std::map<std::uint64_t, const ScoreRow*> first_row_of_target;
  const ScoreRow* previous = nullptr;
  for (const ScoreRow& row : result.job.rows) {
    const std::string at = "scores: profile " + std::to_string(row.profile) + " target " + std::to_string(row.ordinal) + ": ";
    require(row.profile < params.profile_count, at + "no such profile");
    require(row.ordinal - params.first_ordinal < params.chunk_targets, at + "outside the chunk");
    require(!previous || previous->profile < row.profile ||
                (previous->profile == row.profile && previous->ordinal < row.ordinal),
            at + "not in (profile, ordinal) order");
    previous = &row;
    ++per_profile[row.profile];
    const auto [known, fresh] = first_row_of_target.emplace(row.ordinal, &row);
    require(fresh || (known->second->name == row.name && known->second->description == row.description),
            at + "named differently for another profile");
    const PassedTarget& s = row.scores;
    require(!std::isinf(s.msv_nats) || s.msv_nats > 0, at + "msv_nats is -inf");
    require(std::isfinite(s.filter_nats) && std::isfinite(s.forward_nats) && std::isfinite(s.null_nats) &&
                std::isfinite(s.score_bits) && std::isfinite(s.ln_p) && s.ln_p <= 0,
            at + "a score or ln_p out of range");
    require(!s.viterbi_run || !std::isinf(s.viterbi_nats) || s.viterbi_nats > 0, at + "viterbi_nats is -inf");
    require(s.reported == (hmmer_evalue(s.ln_p, options.database_sequences) <= options.report_evalue),
            at + "reported disagrees with its E-value and -E");
  }
  for (std::uint32_t p = 0; p < params.profile_count; ++p)
    require(per_profile[p] == result.job.profiles[p].counts.past_forward,
            "scores: profile " + std::to_string(p) + " has " + std::to_string(per_profile[p]) +
                " rows where the summary counts " + std::to_string(result.job.profiles[p].counts.past_forward) +
                " past Forward");
}

// One display line: empty (optional lines only) or `width` characters.
void require_display_line(const std::string& line, std::size_t width, bool optional, const std::string& what) {
  require((optional && line.empty()) || line.size() == width, what + " is not as wide as the alignment");
}

// A domain: envelope inside the target, alignment inside the envelope and
// the model, its display as wide as the trace can be, finite numbers.
void check_domain(const DomainHit& d, const TargetDomains& target, int M, const std::string& at) {
  const AlignmentDisplay& a = d.alignment;
  require(1 <= d.ienv && d.ienv <= d.iali && d.iali <= d.jali && d.jali <= d.jenv && d.jenv <= target.length,
          at + "envelope or alignment outside the target");
  require(a.sqfrom == d.iali && a.sqto == d.jali && a.L == target.length && a.M == M,
          at + "the alignment's ends or lengths are not the domain's");
  require(1 <= a.hmmfrom && a.hmmfrom <= a.hmmto && a.hmmto <= M, at + "model coordinates outside the model");
  for (float v : {d.envsc_nats, d.domcorrection_nats, d.dombias_nats, d.oasc, d.bitscore})
    require(std::isfinite(v), at + "a score is not finite");
  require(!std::isnan(d.ln_p) && d.ln_p <= 0, at + "ln_p out of range");
  // A column is an aligned residue or a deletion inside the model range.
  const std::size_t width = a.model.size();
  require(width >= 1 && width <= static_cast<std::size_t>((a.sqto - a.sqfrom + 1) + (a.hmmto - a.hmmfrom + 1)),
          at + "the alignment display's width is impossible");
  for (const std::string* line : {&a.mline, &a.aseq, &a.ppline}) require_display_line(*line, width, false, at + "a display line");
  for (const std::string* line : {&a.rfline, &a.mmline, &a.csline}) require_display_line(*line, width, true, at + "an annotation line");
}

// A row's domain definition: dropped ones have no domains and no scores;
// kept ones at least one domain, counts that fit, the best domain the first
// of the highest bitscore.
void check_target_domains(const ScoreRow& row, int M) {
  const std::string at = "domains: profile " + std::to_string(row.profile) + " target " + std::to_string(row.ordinal) + ": ";
  const TargetDomains& t = row.domains;
  const DomainDefinition& def = t.definition;
  const TargetScores& s = t.scores;
  require(t.length >= 1, at + "length 0");
  require(std::isfinite(def.nexpected) && def.nexpected >= 0 && def.nclustered <= def.nregions &&
              def.noverlaps <= def.nenvelopes && def.domains.size() <= static_cast<std::size_t>(def.nenvelopes),
          at + "domain counts that cannot be");
  if (s.dropped) {
    require(def.domains.empty() && s.score_bits == 0 && s.pre_score_bits == 0 && s.sum_score_bits == 0 &&
                s.ln_p == 0 && s.best_domain == 0,
            at + "dropped, yet it has domains or scores");
    return;
  }
  require(!def.domains.empty() && def.nregions >= 1, at + "kept without a domain");
  require(std::isfinite(s.score_bits) && std::isfinite(s.pre_score_bits) && std::isfinite(s.sum_score_bits) &&
              !std::isnan(s.ln_p) && s.ln_p <= 0,
          at + "a score or ln_p out of range");
  for (std::size_t d = 0; d < def.domains.size(); ++d) check_domain(def.domains[d], t, M, at + "domain " + std::to_string(d + 1) + ": ");
  std::size_t best = 0;
  for (std::size_t d = 1; d < def.domains.size(); ++d)
    if (def.domains[d].bitscore > def.domains[best].bitscore) best = d;
  require(static_cast<std::size_t>(s.best_domain) == best, at + "best_domain is not the best-scoring domain");
}

void read_domains(const std::string& path, Result& result) {
  const auto bytes = read_bounded(path, max_domains_bytes(result.job.params), "domains");
  parse_domains_tsv(std::string(bytes.begin(), bytes.end()), result.job.rows);
  for (const ScoreRow& row : result.job.rows) check_target_domains(row, result.job.profiles[row.profile].M);
}

// A text output must be exactly what the server writes from the summary and rows.
void require_text(const std::string& path, const std::string& expected, const std::string& what) {
  const std::uint64_t size = returned_file_size(path, what);
  require(size == expected.size(), what + " is " + std::to_string(size) + " bytes, not the " +
                                       std::to_string(expected.size()) + " its rows and summary make");
  require(read_file_text(path) == expected, what + " differs from what its rows and summary make");
}

Result read_result(const std::vector<std::string>& files) {
  require(files.size() == kResultFiles,
          "an hmmsearch result has 6 files (tblout, domtblout, out, scores, domains, summary), not " +
              std::to_string(files.size()));
  Result result;
  read_summary(files[kSummaryFile], result);
  read_scores(files[kScoresFile], result);
  read_domains(files[kDomainsFile], result);
  const ProfileTexts reports = report_outputs(result.job);
  require_text(files[kTbloutFile], reports.tblout, "tblout");
  require_text(files[kDomtbloutFile], reports.domtblout, "domtblout");
  require_text(files[kOutFile], reports.out, "out");
  return result;
}

// ---------------------------------------------------------------- the WU's inputs

struct WuInputs {
  std::vector<SearchProfile> profiles;
  std::vector<TargetSequence> targets;
};

// The WU is named by the result's file names (hmm_server.h, "WU file names");
// its params must be the summary's exactly, or the result answers another question.
WuInputs read_wu_inputs(const std::string& dir, const std::vector<std::string>& files, const Result& result) {
  // This kind's summary claims no WU name, so only BOINC's file names bind it.
  const std::string wu = bound_wu(files, "");
  const auto name = parse_wu_name(wu);
  if (!name) server_trouble("cannot tell the WU from result file " + files[0] + " (want <prefix>_c<j>_<n>[_r<r>]_<k>)");
  const HmmParams params = server_read("WU params", [&] {
    const auto json = nlohmann::json::parse(read_file_text(dir + "/" + params_file(wu)), nullptr, false);
    if (json.is_discarded()) throw InputError(params_file(wu) + " is not JSON");
    return parse_hmm_params(json);
  });
  require(hmm_params_json(params) == hmm_params_json(result.job.params),
          "the summary's params differ from WU " + wu + "'s");
  const auto hmms = server_read("WU profiles", [&] {
    return parse_hmm_file(read_file_text(dir + "/" + profiles_file(name->prefix)), profiles_file(name->prefix));
  });
  if (hmms.size() != params.profile_count) server_trouble("WU profiles unavailable: the file's model count is not the params'");
  WuInputs inputs;
  for (std::size_t p = 0; p < hmms.size(); ++p) {
    const ProfileOutcome& got = result.job.profiles[p];
    require(got.name == hmms[p].name && got.accession == hmms[p].accession &&
                got.description == hmms[p].description && got.M == hmms[p].length,
            "summary profile " + std::to_string(p) + " is not WU " + wu + "'s model " + hmms[p].name);
    inputs.profiles.push_back(configure_profile(hmms[p]));
  }
  inputs.targets = server_read("WU database chunk", [&] {
    return parse_targets(read_file_text(dir + "/" + chunk_file(name->prefix, name->chunk)), chunk_file(name->prefix, name->chunk));
  });
  if (inputs.targets.size() != params.chunk_targets)
    server_trouble("WU database chunk unavailable: its target count is not the params'");
  for (const ScoreRow& row : result.job.rows) {
    const TargetSequence& target = inputs.targets[row.scores.target];
    require(row.name == target.name && row.description == target.description,
            "scores: target " + std::to_string(row.ordinal) + " is " + target.name + " in WU " + wu + ", not " + row.name);
    require(row.domains.length == static_cast<long>(target.codes.size()),
            "domains: target " + std::to_string(row.ordinal) + " is not " + std::to_string(row.domains.length) +
                " residues long in WU " + wu);
  }
  return inputs;
}

// Per profile, a few passed targets and a few drawn from the chunk, re-run
// on the reference: same fate, same scores.
void sample_check(const Result& result, const WuInputs& wu, const SampleCheck& sample) {
  std::mt19937_64 random(sample.seed != 0 ? sample.seed : std::random_device{}());
  const std::size_t profiles = wu.profiles.size(), targets = wu.targets.size();
  const std::size_t passed_each = std::max<std::size_t>(1, sample.passed / profiles);
  const std::size_t drawn_each = std::max<std::size_t>(1, sample.drawn / profiles);
  const PipelineOptions options = result.job.params.pipeline();
  for (std::uint32_t p = 0; p < profiles; ++p) {
    std::map<std::uint32_t, const ScoreRow*> returned;  // chunk index -> row
    for (const ScoreRow& row : result.job.rows)
      if (row.profile == p) returned[row.scores.target] = &row;
    std::vector<std::uint32_t> chosen;
    std::vector<std::uint32_t> passed;
    for (const auto& entry : returned) passed.push_back(entry.first);
    std::shuffle(passed.begin(), passed.end(), random);
    passed.resize(std::min(passed.size(), passed_each));
    chosen = passed;
    if (targets <= drawn_each) {
      for (std::uint32_t t = 0; t < targets; ++t) chosen.push_back(t);
    } else {
      for (std::size_t k = 0; k < drawn_each; ++k)
        chosen.push_back(static_cast<std::uint32_t>(std::uniform_int_distribution<std::size_t>(0, targets - 1)(random)));
    }
    std::sort(chosen.begin(), chosen.end());
    chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
    const auto verdicts = reference_verdicts(wu.profiles[p], wu.targets, chosen, options);
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      const auto found = returned.find(chosen[k]);
      const std::string at =
          "profile " + wu.profiles[p].name + ", target " + wu.targets[chosen[k]].name + ": ";
      require(verdicts[k].has_value() == (found != returned.end()),
              at + (verdicts[k] ? "passes the filters on the CPU reference but is missing from scores"
                                : "is in scores but does not pass the filters on the CPU reference"));
      if (!verdicts[k]) continue;
      require(same_scores(found->second->scores, *verdicts[k]),
              at + "scores differ from the CPU reference's: " + score_difference(found->second->scores, *verdicts[k]));
      const TargetDomains domains = target_domains(wu.profiles[p], wu.targets[chosen[k]], *verdicts[k]);
      require(same_domains(found->second->domains, domains),
              at + "domains differ from the CPU reference's: " + domains_difference(found->second->domains, domains));
    }
  }
}

}  // namespace

CheckOutcome check_hmm_result(const std::vector<std::string>& files, const ServerOptions& options,
                              const SampleCheck& sample) {
  return outcome_of([&] {
    const Result result = read_result(files);
    if (options.inputs_dir.empty()) return;
    const WuInputs wu = read_wu_inputs(options.inputs_dir, files, result);
    sample_check(result, wu, sample);
  });
}

CheckOutcome check_hmm_result(const std::vector<std::string>& files, const ServerOptions& options) {
  return check_hmm_result(files, options, SampleCheck{});
}

CheckOutcome compare_hmm_results(const std::vector<std::string>& files_a, const std::vector<std::string>& files_b) {
  return outcome_of([&] {
    Result a = read_result(files_a), b = read_result(files_b);
    a.summary.erase("engine"), b.summary.erase("engine");
    require(a.summary == b.summary, "the summaries differ (counts, profiles or params)");
    // The text outputs were just checked to be what their summary and rows
    // make, and the rows' numbers are exact: equal rows mean equal results.
    const auto &x = a.job.rows, &y = b.job.rows;
    require(x.size() == y.size(), "the scores have different numbers of rows");
    for (std::size_t k = 0; k < x.size(); ++k) {
      const std::string at = "scores line " + std::to_string(k + 2) + ": ";
      require(x[k].profile == y[k].profile && x[k].ordinal == y[k].ordinal && x[k].name == y[k].name &&
                  x[k].description == y[k].description,
              at + "different targets");
      require(same_scores(x[k].scores, y[k].scores),
              at + "target " + x[k].name + ": " + score_difference(x[k].scores, y[k].scores));
      require(same_domains(x[k].domains, y[k].domains),
              at + "target " + x[k].name + " domains: " + domains_difference(x[k].domains, y[k].domains));
    }
  });
}

}  // namespace helix::hmmsearch
