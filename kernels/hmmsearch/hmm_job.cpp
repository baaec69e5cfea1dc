// hmm_job.cpp: an hmmsearch work unit from inputs to result files (hmm_job.h).
#include "hmm_job.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include <nlohmann/json.hpp>

#include "core/byte_codec.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/names.h"
#include "hmm_file.h"
#include "hmm_profile.h"
#include "hmm_search.h"

namespace helix::hmm {
namespace {

// 02: part 2's state (each passed target's domain definition saved with it).
constexpr char kStateMagic[8] = {'H', 'X', 'H', 'M', 'S', 'T', '0', '2'};
constexpr const char* kScoresHeader =
    "profile\ttarget_ordinal\ttarget_name\tmsv_nats\tfilter_nats\tviterbi_nats\tforward_nats\tnull_nats\tscore_bits"
    "\tln_p\treported\tdescription";
constexpr int kScoresFields = 12;
// The GPU self-check: per block and profile, this many targets that passed
// and this many drawn from the whole block are re-run on the CPU reference
// (a few Forward runs per block: negligible beside the block's MSV).
constexpr std::size_t kSelfCheckPassed = 4, kSelfCheckDrawn = 4;

std::string hex_float(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", value);
  return text;
}

}  // namespace

// ---------------------------------------------------------------- params

PipelineOptions HmmParams::pipeline() const {
  PipelineOptions options;
  options.F1 = F1, options.F2 = F2, options.F3 = F3;
  options.report_evalue = report_evalue;
  options.database_sequences = static_cast<double>(database_sequences);
  options.bias_filter = bias_filter;
  return options;
}

HmmParams parse_hmm_params(const nlohmann::json& json) {
  if (!json.is_object()) throw InputError("hmmsearch params: not a JSON object");
  auto member = [&](const char* key) -> std::string { return std::string("hmmsearch params: \"") + key + "\""; };
  if (!json.contains("kind") || json.at("kind") != "hmmsearch") throw InputError(member("kind") + " is not \"hmmsearch\"");
  auto integer = [&](const char* key, long long low, long long high, std::optional<long long> fallback) -> long long {
    if (!json.contains(key)) {
      if (!fallback) throw InputError(member(key) + " is missing");
      return *fallback;
    }
    const auto& v = json.at(key);
    if (!v.is_number_integer() || v.get<long long>() < low || v.get<long long>() > high)
      throw InputError(member(key) + " must be an integer in " + std::to_string(low) + ".." + std::to_string(high));
    return v.get<long long>();
  };
  // A positive finite real in (0, high].
  auto real = [&](const char* key, double high, double fallback) -> double {
    if (!json.contains(key)) return fallback;
    const auto& v = json.at(key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0 || v.get<double>() > high)
      throw InputError(member(key) + " must be a number in (0, " + (high == 1 ? "1" : "1e300") + "]");
    return v.get<double>();
  };
  HmmParams p;
  if (!json.contains("search") || !json.at("search").is_string() || !is_plain_name(json.at("search").get<std::string>(), kMaxPlainName))
    throw InputError(member("search") + " must be a plain name ([A-Za-z0-9._-], up to 200 characters)");
  p.search = json.at("search").get<std::string>();
  p.chunks = static_cast<std::uint32_t>(integer("chunks", 1, 1 << 24, std::nullopt));
  p.chunk = static_cast<std::uint32_t>(integer("chunk", 0, p.chunks - 1, std::nullopt));
  p.database_sequences = static_cast<std::uint64_t>(integer("database_sequences", 1, 1LL << 40, std::nullopt));
  p.database_residues = static_cast<std::uint64_t>(integer("database_residues", p.database_sequences, 1LL << 50, std::nullopt));
  p.chunk_targets = static_cast<std::uint64_t>(integer("chunk_targets", 1, p.database_sequences, std::nullopt));
  p.chunk_residues = static_cast<std::uint64_t>(integer("chunk_residues", p.chunk_targets, p.database_residues, std::nullopt));
  // A FASTA chunk holds at least its residues and a ">x\n" header and a newline per target.
  p.chunk_bytes = static_cast<std::uint64_t>(
      integer("chunk_bytes", p.chunk_residues + 4 * p.chunk_targets, 1LL << 52, std::nullopt));
  p.first_ordinal = static_cast<std::uint64_t>(
      integer("first_ordinal", 0, p.database_sequences - p.chunk_targets, std::nullopt));
  p.profile_count = static_cast<std::uint32_t>(integer("profile_count", 1, kMaxProfilesPerWu, std::nullopt));
  p.block_targets = static_cast<std::uint32_t>(integer("block_targets", 1, 1 << 24, kDefaultBlockTargets));
  p.report_evalue = real("report_evalue", 1e300, 10.0);
  p.F1 = real("F1", 1, 0.02);
  p.F2 = real("F2", 1, 1e-3);
  p.F3 = real("F3", 1, 1e-5);
  if (json.contains("bias_filter")) {
    if (!json.at("bias_filter").is_boolean()) throw InputError(member("bias_filter") + " must be true or false");
    p.bias_filter = json.at("bias_filter").get<bool>();
  }
  p.domZ = real("domZ", 1e300, 0.0);  // absent: hmmsearch's default (hmm_job.h)
  return p;
}

nlohmann::json hmm_params_json(const HmmParams& p) {
  nlohmann::json json = {{"kind", "hmmsearch"},
                         {"search", p.search},
                         {"chunk", p.chunk},
                         {"chunks", p.chunks},
                         {"first_ordinal", p.first_ordinal},
                         {"chunk_targets", p.chunk_targets},
                         {"chunk_residues", p.chunk_residues},
                         {"chunk_bytes", p.chunk_bytes},
                         {"database_sequences", p.database_sequences},
                         {"database_residues", p.database_residues},
                         {"profile_count", p.profile_count},
                         {"block_targets", p.block_targets},
                         {"report_evalue", p.report_evalue},
                         {"F1", p.F1},
                         {"F2", p.F2},
                         {"F3", p.F3},
                         {"bias_filter", p.bias_filter}};
  // Written only when set, so that part 1's params keep their meaning and bytes.
  if (p.domZ > 0) json["domZ"] = p.domZ;
  return json;
}

// ---------------------------------------------------------------- the reference on chosen targets

std::vector<std::optional<PassedTarget>> reference_verdicts(const SearchProfile& profile,
                                                            const std::vector<TargetSequence>& targets,
                                                            const std::vector<std::uint32_t>& chosen,
                                                            const PipelineOptions& options) {
  std::vector<std::optional<PassedTarget>> verdicts(chosen.size());
  if (chosen.empty()) return verdicts;
  std::vector<TargetSequence> picked;
  for (std::uint32_t t : chosen) picked.push_back(targets.at(t));
  const TargetChunk chunk = make_target_chunk(picked);
  auto engine = make_reference_engine();
  engine->load_targets(chunk);
  engine->load_profile(profile);
  for (PassedTarget passed : search_chunk(profile, chunk, *engine, options).passed) {
    const std::uint32_t k = passed.target;
    passed.target = chosen[k];
    verdicts[k] = passed;
  }
  return verdicts;
}

namespace {

bool same_float(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

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

// ---------------------------------------------------------------- domain definition

TargetDomains target_domains(const SearchProfile& profile, const TargetSequence& target, const PassedTarget& passed,
                             const DomainPosteriors* posteriors) {
  const int L = static_cast<int>(target.codes.size());
  return scored_domains(profile, L, passed, define_domains(profile, target.codes.data(), L, posteriors));
}

TargetDomains scored_domains(const SearchProfile& profile, int L, const PassedTarget& passed,
                             DomainDefinition definition) {
  TargetDomains domains;
  domains.length = L;
  domains.definition = std::move(definition);
  domains.scores = score_target(profile, passed.forward_nats, passed.null_nats, L, domains.definition);
  // Only domain definition and score_target read the per-residue null2
  // scores; dropping them keeps checkpoints and results to what the reports print.
  domains.definition.null2_scores.clear();
  domains.definition.null2_scores.shrink_to_fit();
  return domains;
}

namespace {

// The "domains" file's fields after profile and target_ordinal, in the
// writer's text; one list serves writing, comparing and canonical parsing.
const std::vector<std::string> kTargetFieldNames = {
    "length", "dropped", "score_bits", "pre_score_bits", "sum_score_bits", "ln_p", "best_domain", "nexpected",
    "nregions", "nclustered", "noverlaps", "nenvelopes", "domains"};
const std::vector<std::string> kDomainFieldNames = {
    "domain", "ienv", "jenv", "iali", "jali", "envsc_nats", "domcorrection_nats", "dombias_nats", "oasc", "bitscore",
    "ln_p", "hmmfrom", "hmmto", "M", "sqfrom", "sqto", "L", "rfline", "mmline", "csline", "model", "mline", "aseq",
    "ppline"};

std::vector<std::string> target_fields(const TargetDomains& d) {
  const TargetScores& s = d.scores;
  const DomainDefinition& def = d.definition;
  return {std::to_string(d.length), s.dropped ? "1" : "0", hex_float(s.score_bits), hex_float(s.pre_score_bits),
          hex_float(s.sum_score_bits), hex_float(s.ln_p), std::to_string(s.best_domain), hex_float(def.nexpected),
          std::to_string(def.nregions), std::to_string(def.nclustered), std::to_string(def.noverlaps),
          std::to_string(def.nenvelopes), std::to_string(def.domains.size())};
}

std::vector<std::string> domain_fields(const DomainHit& h, std::size_t index) {
  const AlignmentDisplay& a = h.alignment;
  return {std::to_string(index), std::to_string(h.ienv), std::to_string(h.jenv), std::to_string(h.iali),
          std::to_string(h.jali), hex_float(h.envsc_nats), hex_float(h.domcorrection_nats), hex_float(h.dombias_nats),
          hex_float(h.oasc), hex_float(h.bitscore), hex_float(h.ln_p), std::to_string(a.hmmfrom),
          std::to_string(a.hmmto), std::to_string(a.M), std::to_string(a.sqfrom), std::to_string(a.sqto),
          std::to_string(a.L), a.rfline, a.mmline, a.csline, a.model, a.mline, a.aseq, a.ppline};
}

// "name 'x' vs 'y'" for each field that differs.
void note_differences(const std::vector<std::string>& names, const std::vector<std::string>& a,
                      const std::vector<std::string>& b, const std::string& prefix, std::string& text) {
  for (std::size_t k = 0; k < names.size(); ++k)
    if (a[k] != b[k]) text += (text.empty() ? "" : ", ") + prefix + names[k] + " '" + a[k] + "' vs '" + b[k] + "'";
}

}  // namespace

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

// ---------------------------------------------------------------- the job

namespace {

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

std::string fingerprint(const HmmParams& params) { return hmm_params_json(params).dump(); }

void put_counts(ByteWriter& w, const PipelineCounts& c) {
  for (std::uint64_t v : {c.targets, c.residues, c.past_msv, c.past_bias, c.past_viterbi, c.past_forward})
    w.put<std::uint64_t>(v);
}
PipelineCounts get_counts(ByteReader& r) {
  PipelineCounts c;
  for (std::uint64_t* v : {&c.targets, &c.residues, &c.past_msv, &c.past_bias, &c.past_viterbi, &c.past_forward})
    *v = r.get<std::uint64_t>();
  return c;
}

void put_passed(ByteWriter& w, const PassedTarget& t) {
  w.put<std::uint32_t>(t.target);
  for (float v : {t.msv_nats, t.filter_nats, t.viterbi_nats, t.forward_nats, t.null_nats, t.score_bits}) w.put<float>(v);
  w.put<double>(t.ln_p);
  w.put<std::uint8_t>(t.viterbi_run), w.put<std::uint8_t>(t.reported);
}
PassedTarget get_passed(ByteReader& r) {
  PassedTarget t;
  t.target = r.get<std::uint32_t>();
  for (float* v : {&t.msv_nats, &t.filter_nats, &t.viterbi_nats, &t.forward_nats, &t.null_nats, &t.score_bits})
    *v = r.get<float>();
  t.ln_p = r.get<double>();
  t.viterbi_run = r.get<std::uint8_t>() != 0;
  t.reported = r.get<std::uint8_t>() != 0;
  return t;
}

// A target's domain definition in the checkpoint: the "domains" file's
// fields (exact text), so that one encoding serves both.
void put_domains(ByteWriter& w, const TargetDomains& d) {
  for (const std::string& field : target_fields(d)) w.put_string(field);
  for (std::size_t k = 0; k < d.definition.domains.size(); ++k)
    for (const std::string& field : domain_fields(d.definition.domains[k], k)) w.put_string(field);
}

std::vector<std::string> get_fields(ByteReader& r, std::size_t count) {
  std::vector<std::string> fields;
  for (std::size_t k = 0; k < count; ++k) fields.push_back(r.get_string(1 << 24));
  return fields;
}

TargetDomains target_domains_of(const std::vector<std::string>& fields, const std::string& where);
DomainHit domain_hit_of(const std::vector<std::string>& fields, const std::string& where);

TargetDomains get_domains(ByteReader& r) {
  TargetDomains d = target_domains_of(get_fields(r, kTargetFieldNames.size()), "checkpoint");
  for (DomainHit& hit : d.definition.domains) hit = domain_hit_of(get_fields(r, kDomainFieldNames.size()), "checkpoint");
  return d;
}

std::vector<std::uint8_t> encode_state(const JobState& state, const std::string& print) {
  ByteWriter w;
  w.put_bytes(kStateMagic, 8);
  w.put_string(print);
  w.put<std::uint32_t>(state.next_block);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(state.profiles.size()));
  for (const ProfileState& profile : state.profiles) {
    put_counts(w, profile.counts);
    w.put<std::uint64_t>(profile.passed.size());
    for (std::size_t k = 0; k < profile.passed.size(); ++k) {
      put_passed(w, profile.passed[k]);
      put_domains(w, profile.domains[k]);
    }
  }
  return std::move(w.bytes());
}

// False (start afresh) for another WU's state or a damaged one.
bool decode_state(const std::vector<std::uint8_t>& bytes, const std::string& print, const HmmParams& params,
                  std::uint32_t blocks, JobState& state) {
  try {
    ByteReader r(bytes, "checkpoint");
    if (r.remaining() < 8 || std::memcmp(r.take(8), kStateMagic, 8) != 0) return false;
    if (r.get_string(1 << 20) != print) return false;
    JobState loaded;
    loaded.next_block = r.get<std::uint32_t>();
    if (loaded.next_block > blocks || r.get<std::uint32_t>() != params.profile_count) return false;
    loaded.profiles.resize(params.profile_count);
    for (ProfileState& profile : loaded.profiles) {
      profile.counts = get_counts(r);
      const auto n = r.get<std::uint64_t>();
      if (n > params.chunk_targets) return false;
      for (std::uint64_t k = 0; k < n; ++k) {
        profile.passed.push_back(get_passed(r));
        if (profile.passed.back().target >= params.chunk_targets) return false;
        profile.domains.push_back(get_domains(r));
      }
    }
    if (r.remaining() != 0) return false;
    state = std::move(loaded);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

TargetChunk block_chunk(const std::vector<TargetSequence>& targets, std::size_t first, std::size_t count) {
  TargetChunk chunk;
  for (std::size_t t = first; t < first + count; ++t) {
    chunk.codes.insert(chunk.codes.end(), targets[t].codes.begin(), targets[t].codes.end());
    chunk.offsets.push_back(chunk.codes.size());
  }
  return chunk;
}

// Re-runs a few targets of the block on the CPU reference: evenly spaced
// passed ones and some drawn from the whole block (deterministically, so a
// rerun checks the same ones). Any difference in fate or score is the GPU's.
void self_check_block(const SearchProfile& profile, const std::vector<TargetSequence>& targets, std::size_t first,
                      std::size_t count, const ChunkSearch& search, const PipelineOptions& options,
                      std::uint32_t block) {
  std::vector<std::uint32_t> chosen;
  const std::size_t passed = search.passed.size();
  for (std::size_t k = 0; k < std::min(passed, kSelfCheckPassed); ++k)
    chosen.push_back(static_cast<std::uint32_t>(first + search.passed[k * passed / std::min(passed, kSelfCheckPassed)].target));
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

// Domain definition of the block's passed targets (define_passed_domains:
// the whole-target posteriors and the envelopes' rescoring on the engine,
// which holds the block and the profile; regions and sampling on the host).
std::vector<TargetDomains> define_block_domains(const SearchProfile& profile, const std::vector<TargetSequence>& targets,
                                                std::size_t first, const ChunkSearch& search, HmmEngine& engine) {
  std::vector<std::uint32_t> passed;
  for (const PassedTarget& target : search.passed) passed.push_back(target.target);
  std::vector<DomainDefinition> definitions = define_passed_domains(profile, targets, first, passed, engine);
  std::vector<TargetDomains> domains;
  domains.reserve(search.passed.size());
  for (std::size_t k = 0; k < search.passed.size(); ++k)
    domains.push_back(scored_domains(profile, static_cast<int>(targets[first + passed[k]].codes.size()),
                                     search.passed[k], std::move(definitions[k])));
  return domains;
}

// The engine's domain definition, checked: the self-checked passed targets' domain
// definitions redone wholly on the CPU must be the same, bit for bit.
void self_check_domains(const SearchProfile& profile, const std::vector<TargetSequence>& targets, std::size_t first,
                        const ChunkSearch& search, const std::vector<TargetDomains>& domains) {
  const std::size_t passed = search.passed.size();
  for (std::size_t k = 0; k < std::min(passed, kSelfCheckPassed); ++k) {
    const std::size_t index = k * passed / std::min(passed, kSelfCheckPassed);
    const TargetSequence& target = targets[first + search.passed[index].target];
    const TargetDomains reference = target_domains(profile, target, search.passed[index]);
    if (!same_domains(domains[index], reference))
      throw GpuError("profile " + profile.name + ", target " + target.name +
                     ": the engine's domain definition differs from the CPU reference's: " +
                     domains_difference(domains[index], reference));
  }
}

}  // namespace

HmmJobResult run_hmm_job(const HmmParams& params, HmmEngine& engine, Runtime& runtime, bool self_check) {
  const std::vector<ProfileHmm> hmms = parse_hmm_file(read_file_text(runtime.resolve("profiles")), "profiles");
  if (hmms.size() != params.profile_count)
    throw InputError("profiles: " + std::to_string(hmms.size()) + " models where the WU's params say " +
                     std::to_string(params.profile_count));
  const std::string database_text = read_file_text(runtime.resolve("database"));
  if (database_text.size() != params.chunk_bytes)
    throw InputError("database: " + std::to_string(database_text.size()) + " bytes where the WU's params say " +
                     std::to_string(params.chunk_bytes) + " (a truncated or replaced file)");
  const std::vector<TargetSequence> targets = parse_targets(database_text, "database");
  std::uint64_t residues = 0;
  for (const TargetSequence& t : targets) residues += t.codes.size();
  if (targets.size() != params.chunk_targets || residues != params.chunk_residues)
    throw InputError("database: " + std::to_string(targets.size()) + " sequences of " + std::to_string(residues) +
                     " residues where the WU's params say " + std::to_string(params.chunk_targets) + " of " +
                     std::to_string(params.chunk_residues));
  std::vector<SearchProfile> profiles;
  for (const ProfileHmm& hmm : hmms) profiles.push_back(configure_profile(hmm));

  const PipelineOptions options = params.pipeline();
  const std::size_t target_count = targets.size();
  const auto blocks = static_cast<std::uint32_t>((target_count + params.block_targets - 1) / params.block_targets);
  const std::string print = fingerprint(params);
  JobState state;
  state.profiles.resize(profiles.size());
  if (auto saved = runtime.restore_state()) decode_state(*saved, print, params, blocks, state);
  for (std::uint32_t block = state.next_block; block < blocks; ++block) {
    const std::size_t first = static_cast<std::size_t>(block) * params.block_targets;
    const std::size_t count = std::min<std::size_t>(params.block_targets, target_count - first);
    const TargetChunk chunk = block_chunk(targets, first, count);
    engine.load_targets(chunk);
    for (std::size_t p = 0; p < profiles.size(); ++p) {
      engine.load_profile(profiles[p]);
      const ChunkSearch search = search_chunk(profiles[p], chunk, engine, options);
      if (self_check) self_check_block(profiles[p], targets, first, count, search, options, block);
      std::vector<TargetDomains> domains = define_block_domains(profiles[p], targets, first, search, engine);
      if (self_check) self_check_domains(profiles[p], targets, first, search, domains);
      ProfileState& found = state.profiles[p];
      found.counts += search.counts;
      for (TargetDomains& target : domains) found.domains.push_back(std::move(target));
      for (PassedTarget passed : search.passed) {
        passed.target += static_cast<std::uint32_t>(first);
        found.passed.push_back(passed);
      }
    }
    state.next_block = block + 1;
    runtime.report_progress(0.99 * state.next_block / blocks);
    const bool stop = runtime.should_stop();
    if (stop || runtime.checkpoint_due()) runtime.save_state(encode_state(state, print));
    if (stop) throw StopRequested();
  }

  HmmJobResult result{params, engine.description(), {}, {}};
  for (std::size_t p = 0; p < profiles.size(); ++p) {
    ProfileState& found = state.profiles[p];
    result.profiles.push_back({hmms[p].name, hmms[p].accession, hmms[p].description, hmms[p].length, found.counts});
    for (std::size_t k = 0; k < found.passed.size(); ++k) {
      const PassedTarget& passed = found.passed[k];
      const TargetSequence& target = targets[passed.target];
      result.rows.push_back({static_cast<std::uint32_t>(p), params.first_ordinal + passed.target, target.name,
                             target.description, passed, std::move(found.domains[k])});
    }
  }
  runtime.report_progress(1.0);
  return result;
}

// ---------------------------------------------------------------- outputs

QueryReport query_report_of(const ProfileOutcome& profile, std::uint32_t index, const std::vector<ScoreRow>& rows,
                            const HmmParams& params) {
  QueryReport report;
  report.name = profile.name, report.accession = profile.accession, report.description = profile.description;
  report.M = profile.M;
  report.options.E = params.report_evalue;
  report.options.Z = static_cast<double>(params.database_sequences);
  report.options.Z_from_option = true;  // every WU reports over the whole database (-Z)
  report.options.domZ = params.domZ;
  for (const ScoreRow& row : rows) {
    if (row.profile != index) continue;
    const TargetDomains& found = row.domains;
    // hmmsearch keeps in its hit list what survived domain definition with
    // an E-value within -E (p7_Pipeline, with -Z given).
    if (found.scores.dropped || hmmer_evalue(found.scores.ln_p, report.options.Z) > report.options.E) continue;
    DomainDefinition definition = found.definition;
    report.targets.push_back(
        report_target(row.name, "", row.description, found.length, found.scores, std::move(definition)));
  }
  sort_report_targets(report.targets);
  apply_thresholds(report);
  return report;
}

ProfileTexts profile_texts(const ProfileOutcome& profile, std::uint32_t index, const std::vector<ScoreRow>& rows,
                           const HmmParams& params, bool header) {
  const QueryReport report = query_report_of(profile, index, rows, params);
  ProfileTexts texts;
  texts.tblout = tblout_report_text(report, header);
  texts.domtblout = domtblout_report_text(report, header);
  texts.out = query_report_text(report, report_statistics_text(report, profile.counts, params.pipeline()));
  return texts;
}

namespace {

// Every profile's texts in file order, the table headers with the first.
std::string joined_output(const HmmJobResult& result, std::string ProfileTexts::*part) {
  std::string text;
  for (std::uint32_t p = 0; p < result.profiles.size(); ++p)
    text += profile_texts(result.profiles[p], p, result.rows, result.params, p == 0).*part;
  return text;
}

}  // namespace

std::string tblout_output(const HmmJobResult& result) { return joined_output(result, &ProfileTexts::tblout); }
std::string domtblout_output(const HmmJobResult& result) { return joined_output(result, &ProfileTexts::domtblout); }
std::string out_output(const HmmJobResult& result) { return joined_output(result, &ProfileTexts::out); }

std::string scores_tsv(const std::vector<ScoreRow>& rows) {
  std::string text = std::string(kScoresHeader) + "\n";
  for (const ScoreRow& row : rows) {
    const PassedTarget& s = row.scores;
    text += std::to_string(row.profile) + "\t" + std::to_string(row.ordinal) + "\t" + row.name + "\t" +
            hex_float(s.msv_nats) + "\t" + hex_float(s.filter_nats) + "\t" +
            (s.viterbi_run ? hex_float(s.viterbi_nats) : std::string("-")) + "\t" + hex_float(s.forward_nats) + "\t" +
            hex_float(s.null_nats) + "\t" + hex_float(s.score_bits) + "\t" + hex_float(s.ln_p) + "\t" +
            (s.reported ? "1" : "0") + "\t" + row.description + "\n";
  }
  return text;
}

namespace {

// A decimal integer written as std::to_string writes it.
std::uint64_t canonical_integer(const std::string& text, std::uint64_t high, const std::string& what) {
  const bool digits = !text.empty() && text.size() <= 19 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || (text.size() > 1 && text[0] == '0')) throw InputError(what + " '" + text + "' is not an integer");
  const std::uint64_t value = std::stoull(text);
  if (value > high) throw InputError(what + " " + text + " is out of range");
  return value;
}

// A number written as hex_float writes it (so equal values are equal text).
double canonical_double(const std::string& text, const std::string& what) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || std::isnan(value) || hex_float(value) != text)
    throw InputError(what + " '" + text + "' is not a number written as %a");
  return value;
}
float canonical_float(const std::string& text, const std::string& what) {
  const double value = canonical_double(text, what);
  if (static_cast<double>(static_cast<float>(value)) != value) throw InputError(what + " '" + text + "' is not a float");
  return static_cast<float>(value);
}

}  // namespace

std::vector<ScoreRow> parse_scores_tsv(const std::string& text, std::uint64_t first_ordinal) {
  std::vector<ScoreRow> rows;
  std::size_t at = text.find('\n');
  if (at == std::string::npos || text.compare(0, at, kScoresHeader) != 0)
    throw InputError("scores: missing or wrong header line");
  ++at;
  for (int number = 2; at < text.size(); ++number) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string::npos) throw InputError("scores line " + std::to_string(number) + ": no final newline");
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    std::vector<std::string> f;
    std::size_t start = 0;
    for (int k = 0; k + 1 < kScoresFields; ++k) {
      const std::size_t tab = line.find('\t', start);
      if (tab == std::string::npos)
        throw InputError("scores line " + std::to_string(number) + ": fewer than " + std::to_string(kScoresFields) +
                         " fields");
      f.push_back(line.substr(start, tab - start));
      start = tab + 1;
    }
    f.push_back(line.substr(start));  // the description: the rest of the line
    const std::string where = "scores line " + std::to_string(number) + ": ";
    ScoreRow row;
    row.profile = static_cast<std::uint32_t>(canonical_integer(f[0], kMaxProfilesPerWu - 1, where + "profile"));
    row.ordinal = canonical_integer(f[1], (1ULL << 40) - 1, where + "target_ordinal");
    if (row.ordinal < first_ordinal || row.ordinal - first_ordinal > 0xffffffffULL)
      throw InputError(where + "target_ordinal " + f[1] + " is outside the chunk");
    row.name = f[2];
    if (row.name.empty() || std::any_of(row.name.begin(), row.name.end(), [](char c) { return c == ' ' || c == '\r'; }))
      throw InputError(where + "target_name is empty or holds a blank");
    PassedTarget& s = row.scores;
    s.target = static_cast<std::uint32_t>(row.ordinal - first_ordinal);
    s.msv_nats = canonical_float(f[3], where + "msv_nats");
    s.filter_nats = canonical_float(f[4], where + "filter_nats");
    s.viterbi_run = f[5] != "-";
    s.viterbi_nats = s.viterbi_run ? canonical_float(f[5], where + "viterbi_nats") : 0.0f;
    s.forward_nats = canonical_float(f[6], where + "forward_nats");
    s.null_nats = canonical_float(f[7], where + "null_nats");
    s.score_bits = canonical_float(f[8], where + "score_bits");
    s.ln_p = canonical_double(f[9], where + "ln_p");
    if (f[10] != "0" && f[10] != "1") throw InputError(where + "reported is not 0 or 1");
    s.reported = f[10] == "1";
    row.description = f[11];
    rows.push_back(std::move(row));
  }
  return rows;
}

// ---------------------------------------------------------------- the domains file

namespace {

std::string header_line(const char* record, const std::vector<std::string>& names) {
  std::string line = std::string("#") + record + "\tprofile\ttarget_ordinal";
  for (const std::string& name : names) line += "\t" + name;
  return line + "\n";
}

std::string record_line(const char* record, const ScoreRow& row, const std::vector<std::string>& fields) {
  std::string line = std::string(record) + "\t" + std::to_string(row.profile) + "\t" + std::to_string(row.ordinal);
  for (const std::string& field : fields) line += "\t" + field;
  return line + "\n";
}

// A display line: printable ASCII (spaces included, tabs and newlines not).
std::string display_line(const std::string& text, const std::string& what) {
  for (char c : text)
    if (c < ' ' || c > '~') throw InputError(what + " holds a character that is not printable ASCII");
  return text;
}

int small_integer(const std::string& text, const std::string& what) {
  return static_cast<int>(canonical_integer(text, 1 << 30, what));
}

// Fields of a target line (after profile and target_ordinal); domains sized
// by its count, to be filled by domain_hit_of. Canonical text only.
TargetDomains target_domains_of(const std::vector<std::string>& f, const std::string& where) {
  if (f.size() != kTargetFieldNames.size()) throw InputError(where + ": not a target record");
  TargetDomains d;
  d.length = static_cast<long>(canonical_integer(f[0], 100000, where + " length"));
  if (f[1] != "0" && f[1] != "1") throw InputError(where + ": dropped is not 0 or 1");
  d.scores.dropped = f[1] == "1";
  d.scores.score_bits = canonical_float(f[2], where + " score_bits");
  d.scores.pre_score_bits = canonical_float(f[3], where + " pre_score_bits");
  d.scores.sum_score_bits = canonical_float(f[4], where + " sum_score_bits");
  d.scores.ln_p = canonical_double(f[5], where + " ln_p");
  d.scores.best_domain = small_integer(f[6], where + " best_domain");
  d.definition.nexpected = canonical_float(f[7], where + " nexpected");
  d.definition.nregions = small_integer(f[8], where + " nregions");
  d.definition.nclustered = small_integer(f[9], where + " nclustered");
  d.definition.noverlaps = small_integer(f[10], where + " noverlaps");
  d.definition.nenvelopes = small_integer(f[11], where + " nenvelopes");
  // No more domains than residues: each envelope holds at least one.
  d.definition.domains.resize(canonical_integer(f[12], static_cast<std::uint64_t>(d.length), where + " domains"));
  return d;
}

DomainHit domain_hit_of(const std::vector<std::string>& f, const std::string& where) {
  if (f.size() != kDomainFieldNames.size()) throw InputError(where + ": not a domain record");
  DomainHit h;
  h.ienv = small_integer(f[1], where + " ienv"), h.jenv = small_integer(f[2], where + " jenv");
  h.iali = small_integer(f[3], where + " iali"), h.jali = small_integer(f[4], where + " jali");
  h.envsc_nats = canonical_float(f[5], where + " envsc_nats");
  h.domcorrection_nats = canonical_float(f[6], where + " domcorrection_nats");
  h.dombias_nats = canonical_float(f[7], where + " dombias_nats");
  h.oasc = canonical_float(f[8], where + " oasc");
  h.bitscore = canonical_float(f[9], where + " bitscore");
  h.ln_p = canonical_double(f[10], where + " ln_p");
  AlignmentDisplay& a = h.alignment;
  a.hmmfrom = small_integer(f[11], where + " hmmfrom"), a.hmmto = small_integer(f[12], where + " hmmto");
  a.M = small_integer(f[13], where + " M");
  a.sqfrom = small_integer(f[14], where + " sqfrom"), a.sqto = small_integer(f[15], where + " sqto");
  a.L = small_integer(f[16], where + " L");
  std::string* lines[] = {&a.rfline, &a.mmline, &a.csline, &a.model, &a.mline, &a.aseq, &a.ppline};
  for (std::size_t k = 0; k < 7; ++k) *lines[k] = display_line(f[17 + k], where + " " + kDomainFieldNames[17 + k]);
  return h;
}

std::vector<std::string> tab_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
    fields.push_back(line.substr(start, tab - start));
  fields.push_back(line.substr(start));
  return fields;
}

// Reads the text's lines in order; each must end with a newline.
class LineReader {
 public:
  explicit LineReader(const std::string& text) : text_(text) {}
  bool done() const { return at_ == text_.size(); }
  int number() const { return number_; }
  std::string next() {
    ++number_;
    const std::size_t end = text_.find('\n', at_);
    if (end == std::string::npos)
      throw InputError("domains line " + std::to_string(number_) + ": missing (or no final newline)");
    std::string line = text_.substr(at_, end - at_);
    at_ = end + 1;
    return line;
  }

 private:
  const std::string& text_;
  std::size_t at_ = 0;
  int number_ = 0;
};

// The fields of a record line of `row` after its kind, profile and ordinal.
std::vector<std::string> record_fields(LineReader& lines, const char* record, const ScoreRow& row,
                                       std::string& where) {
  std::vector<std::string> f = tab_fields(lines.next());
  where = "domains line " + std::to_string(lines.number());
  if (f.size() < 3 || f[0] != record || f[1] != std::to_string(row.profile) || f[2] != std::to_string(row.ordinal))
    throw InputError(where + ": not the " + (record[0] == 'T' ? "target" : "domain") + " record of profile " +
                     std::to_string(row.profile) + " target " + std::to_string(row.ordinal) + " (the scores' order)");
  f.erase(f.begin(), f.begin() + 3);
  return f;
}

}  // namespace

std::string domains_tsv(const std::vector<ScoreRow>& rows) {
  std::string text = header_line("T", kTargetFieldNames) + header_line("D", kDomainFieldNames);
  for (const ScoreRow& row : rows) {
    text += record_line("T", row, target_fields(row.domains));
    const std::vector<DomainHit>& domains = row.domains.definition.domains;
    for (std::size_t k = 0; k < domains.size(); ++k) text += record_line("D", row, domain_fields(domains[k], k));
  }
  return text;
}

void parse_domains_tsv(const std::string& text, std::vector<ScoreRow>& rows) {
  LineReader lines(text);
  if (lines.next() + "\n" != header_line("T", kTargetFieldNames) ||
      lines.next() + "\n" != header_line("D", kDomainFieldNames))
    throw InputError("domains: missing or wrong header lines");
  std::string where;
  for (ScoreRow& row : rows) {
    std::vector<std::string> fields = record_fields(lines, "T", row, where);
    TargetDomains found = target_domains_of(fields, where);
    if (target_fields(found) != fields) throw InputError(where + ": a number not written as the app writes it");
    std::vector<DomainHit>& domains = found.definition.domains;
    for (std::size_t k = 0; k < domains.size(); ++k) {
      fields = record_fields(lines, "D", row, where);
      domains[k] = domain_hit_of(fields, where);
      if (domain_fields(domains[k], k) != fields)
        throw InputError(where + ": a number not written as the app writes it, or domains out of order");
    }
    row.domains = std::move(found);
  }
  if (!lines.done()) throw InputError("domains line " + std::to_string(lines.number() + 1) + ": a record of no row");
}

std::string hmm_summary_json(const HmmJobResult& result) {
  nlohmann::json profiles = nlohmann::json::array();
  for (const ProfileOutcome& p : result.profiles)
    profiles.push_back({{"name", p.name},
                        {"accession", p.accession},
                        {"description", p.description},
                        {"M", p.M},
                        {"targets", p.counts.targets},
                        {"residues", p.counts.residues},
                        {"past_msv", p.counts.past_msv},
                        {"past_bias", p.counts.past_bias},
                        {"past_viterbi", p.counts.past_viterbi},
                        {"past_forward", p.counts.past_forward}});
  const nlohmann::json summary = {
      {"kind", "hmmsearch"}, {"engine", result.engine}, {"params", hmm_params_json(result.params)}, {"profiles", profiles}};
  return summary.dump(1) + "\n";
}

}  // namespace helix::hmm
