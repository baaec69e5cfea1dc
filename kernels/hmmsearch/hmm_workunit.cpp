// hmm_workunit.cpp: `helix-wu hmmsearch make`, the hmmsearch kind's work
// generator: profiles (HMMER3 text) and a protein database (FASTA, maybe
// gzipped) split in FASTA order into chunks of about N residues, one WU per
// chunk holding every profile. Every input is read and checked before the
// first file is written, so a refused command leaves nothing behind.
//
// And `helix-wu hmmsearch report`: a search's merged tblout, domtblout and
// human-readable report per profile, from the results database the
// assimilator fills.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "core/example_data.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/size_class.h"
#include "core/names.h"
#include "core/sqlite_support.h"
#include "hmm_file.h"
#include "hmm_profile.h"
#include "hmm_server.h"

namespace helix::hmmsearch {

namespace fs = std::filesystem;

std::string wu_name(const std::string& prefix, std::size_t chunk) { return prefix + "_c" + std::to_string(chunk); }
std::string params_file(const std::string& wu) { return wu + ".params.json"; }
std::string profiles_file(const std::string& prefix) { return prefix + ".profiles.hmm"; }
std::string chunk_file(const std::string& prefix, std::size_t chunk) {
  return prefix + ".chunk_" + std::to_string(chunk) + ".fa";
}

namespace {

}  // namespace

std::optional<WuName> parse_wu_name(const std::string& wu) {
  const auto c = wu.rfind("_c");
  if (c == std::string::npos || c == 0 || !is_small_number(wu.substr(c + 2))) return std::nullopt;
  return WuName{wu.substr(0, c), std::stoul(wu.substr(c + 2))};
}

std::uint64_t max_scores_bytes(const HmmParams& params) {
  return 4096 + static_cast<std::uint64_t>(params.profile_count) *
                    (params.chunk_targets * kMaxScoreLineFixedBytes + params.chunk_bytes);
}

std::uint64_t max_domains_bytes(const HmmParams& params) {
  return 4096 + static_cast<std::uint64_t>(params.profile_count) *
                    (params.chunk_targets * kMaxDomainTargetLineBytes + params.chunk_residues * kMaxDomainBytesPerResidue);
}

namespace {

// Host memory beyond kMemoryBaseBytes (core/work_protocol.h, with the fpops
// and disk factors): per byte of the chunk's FASTA: the text, the digitized targets and a block's copy
// (~3 bytes); per target its name and description (in the FASTA already) and
// vector headers (~100 bytes); per model node the configured profile in its
// four forms (~1 KB with HMMER's 29 codes per node).
constexpr double kMemoryBytesPerChunkByte = 3;
constexpr double kMemoryBytesPerTarget = 100;
constexpr double kMemoryBytesPerNode = 1024;
// Domain definition keeps a few float DP matrices (Forward, Backward,
// posteriors, optimal accuracy; three states a cell) of an envelope, at
// worst the chunk's longest target against the longest model.
constexpr double kMemoryBytesPerDomainCell = 48;
// A tblout line beyond its names, accessions and description; and a header line.
constexpr double kTbloutLineFixedBytes = 200, kTbloutHeaderBytes = 3 * 300;

struct MakeOptions {
  std::string name, profiles, database, out;
  std::uint64_t chunk_residues = kDefaultChunkResidues;
  std::uint32_t block_targets = kDefaultBlockTargets;
  double report_evalue = 10, F1 = 0.02, F2 = 1e-3, F3 = 1e-5;
  double domZ = 0;  // 0: not given (hmmsearch's default, hmm_job.h)
  bool no_bias = false;
  SizeClass size_class = SizeClass::kNone;
};

// A database chunk as planned: targets [first, end) of the database.
struct PlannedChunk {
  std::size_t first = 0, end = 0;
  std::uint64_t residues = 0;
  std::size_t longest_target = 0;  // residues
  std::string fasta;
  HmmParams params;
};

struct Plan {
  std::string profiles_text;
  std::vector<ProfileHmm> profiles;
  std::vector<TargetSequence> database;
  std::vector<PlannedChunk> chunks;
  std::uint64_t residues = 0, total_nodes = 0;
  int longest_profile = 0;  // nodes
  std::size_t longest_name = 0, longest_description = 0, longest_profile_label = 0;
};

std::string read_input(const std::string& path, const std::string& what) {
  if (!fs::is_regular_file(path)) throw InputError(what + " " + path + " does not exist");
  return read_text_maybe_gzipped(path);
}

// The models, each configured once as the app will (a nucleic or corrupt
// model is refused here, not on the volunteer's host).
std::vector<ProfileHmm> read_profiles(const std::string& path, const std::string& text) {
  std::vector<ProfileHmm> profiles = parse_hmm_file(text, "profiles " + path);
  if (profiles.size() > kMaxProfilesPerWu)
    throw InputError("profiles " + path + " holds " + std::to_string(profiles.size()) + " models, more than the " +
                     std::to_string(kMaxProfilesPerWu) + " a WU may carry (split the file into several searches)");
  for (const ProfileHmm& hmm : profiles) configure_profile(hmm);
  return profiles;
}

// FASTA of targets [first, end): the letters as the app digitizes them
// (upper case; codes are case-blind), 60 per line.
std::string fasta_text(const std::vector<TargetSequence>& targets, std::size_t first, std::size_t end) {
  std::string text;
  for (std::size_t k = first; k < end; ++k) {
    text += ">" + targets[k].name + (targets[k].description.empty() ? "" : " " + targets[k].description) + "\n";
    const std::vector<std::uint8_t>& codes = targets[k].codes;
    for (std::size_t at = 0; at < codes.size(); at += 60) {
      for (std::size_t i = at; i < std::min(codes.size(), at + 60); ++i) text += kSymbols[codes[i]];
      text += "\n";
    }
  }
  return text;
}

// Greedy in FASTA order: a target joins the current chunk while it stays
// within `limit` residues; a longer target makes a chunk of its own.
std::vector<PlannedChunk> plan_chunks(const std::vector<TargetSequence>& database, std::uint64_t limit) {
  std::vector<PlannedChunk> chunks;
  for (std::size_t k = 0; k < database.size(); ++k) {
    const std::uint64_t length = database[k].codes.size();
    if (chunks.empty() || (chunks.back().residues > 0 && chunks.back().residues + length > limit))
      chunks.push_back({k, k, 0, 0, {}, {}});
    chunks.back().end = k + 1;
    chunks.back().residues += length;
    chunks.back().longest_target = std::max<std::size_t>(chunks.back().longest_target, length);
  }
  return chunks;
}

// What the summary of a WU of these profiles can take: its fixed part and
// params, and per profile its counts and its name, accession and description
// (a control character becomes a six-byte \u escape in JSON). The summary
// is JSON, so those must be UTF-8.
std::uint64_t summary_bytes_bound(const std::vector<ProfileHmm>& profiles) {
  std::uint64_t bytes = 2048;
  for (const ProfileHmm& hmm : profiles) {
    try {
      nlohmann::json({hmm.name, hmm.accession, hmm.description}).dump();
    } catch (const nlohmann::json::exception&) {
      throw InputError("profile " + hmm.name + ": its name, accession or description is not UTF-8 text");
    }
    bytes += 400 + 6 * (hmm.name.size() + hmm.accession.size() + hmm.description.size());
  }
  return bytes;
}

Plan make_plan(const MakeOptions& options) {
  if (!is_plain_name(options.name, kMaxPlainName))
    throw InputError("--name must be a plain name ([A-Za-z0-9._-], up to 200 characters, not starting with '.')");
  if (options.chunk_residues == 0) throw InputError("--chunk-residues must be positive");
  Plan plan;
  plan.profiles_text = read_input(options.profiles, "profiles");
  plan.profiles = read_profiles(options.profiles, plan.profiles_text);
  if (summary_bytes_bound(plan.profiles) > kMaxSummaryBytes)
    throw InputError("profiles " + options.profiles + ": their names and descriptions would make a result summary " +
                     "over 1 MiB (split the file into several searches)");
  plan.database = parse_targets(read_input(options.database, "database"), "database " + options.database);
  for (const ProfileHmm& hmm : plan.profiles) {
    plan.total_nodes += hmm.length;
    plan.longest_profile = std::max(plan.longest_profile, hmm.length);
    plan.longest_profile_label = std::max(plan.longest_profile_label, hmm.name.size() + hmm.accession.size());
  }
  for (const TargetSequence& target : plan.database) {
    plan.residues += target.codes.size();
    plan.longest_name = std::max(plan.longest_name, target.name.size());
    plan.longest_description = std::max(plan.longest_description, target.description.size());
  }
  plan.chunks = plan_chunks(plan.database, options.chunk_residues);
  for (std::size_t c = 0; c < plan.chunks.size(); ++c) {
    PlannedChunk& chunk = plan.chunks[c];
    chunk.fasta = fasta_text(plan.database, chunk.first, chunk.end);
    HmmParams& p = chunk.params;
    p.search = options.name;
    p.chunk = static_cast<std::uint32_t>(c);
    p.chunks = static_cast<std::uint32_t>(plan.chunks.size());
    p.first_ordinal = chunk.first;
    p.chunk_targets = chunk.end - chunk.first;
    p.chunk_residues = chunk.residues;
    p.chunk_bytes = chunk.fasta.size();
    p.database_sequences = plan.database.size();
    p.database_residues = plan.residues;
    p.profile_count = static_cast<std::uint32_t>(plan.profiles.size());
    p.block_targets = options.block_targets;
    p.report_evalue = options.report_evalue;
    p.F1 = options.F1, p.F2 = options.F2, p.F3 = options.F3;
    p.bias_filter = !options.no_bias;
    p.domZ = options.domZ;
    p = parse_hmm_params(hmm_params_json(p));  // refuses what the app would refuse (-E 0, --F1 2, ...)
  }
  return plan;
}

WorkunitSpec workunit_spec(const Plan& plan, const PlannedChunk& chunk, const std::string& wu,
                           const std::vector<std::string>& inputs) {
  WorkunitSpec spec;
  spec.name = wu;
  spec.inputs = {{"params", inputs[0]}, {"profiles", inputs[1]}, {"database", inputs[2]}};
  spec.shared_inputs = {"profiles"};  // every chunk's WU
  spec.fpops_estimate = static_cast<double>(chunk.residues) * static_cast<double>(plan.total_nodes) * kOpsPerCell;
  const double targets = static_cast<double>(chunk.end - chunk.first);
  spec.kind_memory_bytes = kMemoryBytesPerChunkByte * static_cast<double>(chunk.fasta.size()) +
                           kMemoryBytesPerTarget * targets +
                           kMemoryBytesPerNode * static_cast<double>(plan.total_nodes) +
                           kMemoryBytesPerDomainCell * static_cast<double>(chunk.longest_target) *
                               static_cast<double>(plan.longest_profile);
  // Every target reported for every profile, with the longest names.
  const double line = kTbloutLineFixedBytes + 2.0 * std::max<std::size_t>(plan.longest_name, 20) +
                      static_cast<double>(plan.longest_description) +
                      2.0 * std::max<std::size_t>(plan.longest_profile_label, 20);
  const double profiles = static_cast<double>(plan.profiles.size());
  const double tblout = profiles * (kTbloutHeaderBytes + line + targets * line);
  const double scores = static_cast<double>(max_scores_bytes(chunk.params));
  // A domtblout line is about a domains line's fixed part; the text holds
  // each displayed alignment once more with names and coordinates per block.
  const double domains = static_cast<double>(max_domains_bytes(chunk.params));
  const double domtblout = tblout + domains;
  const double out = tblout + 2 * domains + profiles * 4096;
  spec.output_bytes = tblout + domtblout + out + scores + domains;
  spec.max_output_bytes = std::max({tblout, domtblout, out, scores, domains});
  return spec;
}

void remove_quietly(const std::vector<std::string>& paths) {
  std::error_code ignored;
  for (const auto& path : paths) fs::remove(path, ignored);
}

// Writes `text` to out/name, remembering it for the clean-up of a failed run.
std::string write_input(const std::string& out, const std::string& name, const std::string& text,
                        std::vector<std::string>& written) {
  const std::string path = out + "/" + name;
  written.push_back(path);
  write_file_atomic(path, text);
  return path;
}

void write_all(const MakeOptions& options, const Plan& plan, const std::function<void(const WorkunitSpec&)>& emit,
               std::vector<std::string>& written) {
  const std::string profiles = write_input(options.out, profiles_file(options.name), plan.profiles_text, written);
  for (std::size_t c = 0; c < plan.chunks.size(); ++c) {
    const PlannedChunk& chunk = plan.chunks[c];
    const std::string wu = wu_name(options.name, c);
    const std::string database = write_input(options.out, chunk_file(options.name, c), chunk.fasta, written);
    const std::string params =
        write_input(options.out, params_file(wu), hmm_params_json(chunk.params).dump(1) + "\n", written);
    for (const char* suffix : {".wu_template.xml", ".result_template.xml", ".create_work.sh"})
      written.push_back(options.out + "/" + wu + suffix);  // what emit's writer makes
    emit(workunit_spec(plan, chunk, wu, {params, profiles, database}));
  }
}

void run_make(const MakeOptions& options, const std::function<void(const WorkunitSpec&)>& emit) {
  const Plan plan = make_plan(options);
  fs::create_directories(options.out);
  std::vector<std::string> written;
  try {
    write_all(options, plan, emit, written);
  } catch (...) {
    remove_quietly(written);
    throw;
  }
  std::printf("hmmsearch %s: %zu profiles (%llu nodes) x %zu sequences (%llu residues) in %zu chunks: %zu WUs\n",
              options.name.c_str(), plan.profiles.size(), static_cast<unsigned long long>(plan.total_nodes),
              plan.database.size(), static_cast<unsigned long long>(plan.residues), plan.chunks.size(),
              plan.chunks.size());
}

void add_make_command(CLI::App& hmmsearch, std::function<void(const WorkunitSpec&)> emit) {
  auto options = std::make_shared<MakeOptions>();
  auto* command = hmmsearch.add_subcommand("make", "make hmmsearch work units: one per database chunk, all profiles");
  command->add_option("--name", options->name, "search name: WUs are NAME_c<chunk>")->required();
  command->add_option("--profiles", options->profiles, "profile HMMs, HMMER3 text (hmmbuild's output), protein")
      ->required();
  command->add_option("--database", options->database,
                      "protein database, FASTA, may be gzipped (ordinals: FASTA order from 0)")
      ->required();
  command->add_option("--chunk-residues", options->chunk_residues,
                      "database chunk size in residues, about (default 20,000,000; size class gpu 200,000,000)");
  add_size_class_option(command, &options->size_class);
  command->add_option("--block-targets", options->block_targets,
                      "targets searched between checkpoints (default 16384)");
  command->add_option("-E,--report-evalue", options->report_evalue,
                      "report targets with E-value <= this over the whole database (default 10)");
  command->add_option("--F1", options->F1, "MSV filter P-value threshold (default 0.02)");
  command->add_option("--F2", options->F2, "Viterbi filter P-value threshold (default 1e-3)");
  command->add_option("--F3", options->F3, "Forward filter P-value threshold (default 1e-5)");
  command->add_flag("--nobias", options->no_bias, "turn off the bias filter (hmmsearch --nobias)");
  command->add_option("--domZ", options->domZ,
                      "domain search space (hmmsearch --domZ); default: the number of targets reported, counted "
                      "over the whole database in the merged report");
  command->add_option("--out", options->out, "output directory")->required();
  command->callback([options, emit, command] {
    if (!option_given(command, "--chunk-residues"))
      options->chunk_residues = size_class_default(options->size_class, kDefaultChunkResidues, kGpuChunkResidues);
    run_make(*options, emit_in_size_class(emit, options->size_class));
  });
}

// ---------------------------------------------------------------- report

struct ReportCommandOptions {
  std::string results, search, out;
  bool partial = false;
};

// File stem per profile: its name when plain and unique, else profile_<k>.
std::vector<std::string> profile_stems(const std::vector<ProfileOutcome>& profiles) {
  std::map<std::string, int> uses;
  for (const ProfileOutcome& p : profiles) ++uses[p.name];
  std::vector<std::string> stems;
  for (std::size_t k = 0; k < profiles.size(); ++k)
    stems.push_back(is_plain_name(profiles[k].name, kMaxPlainName) && uses[profiles[k].name] == 1 ? profiles[k].name
                                                                                   : "profile_" + std::to_string(k));
  return stems;
}

// Rows of a tblout: the lines that are not comments.
std::size_t reported_targets(const std::string& tblout) {
  std::size_t rows = 0;
  for (std::size_t at = 0; at < tblout.size();) {
    const std::size_t end = std::min(tblout.find('\n', at), tblout.size());
    rows += tblout[at] != '#';
    at = end + 1;
  }
  return rows;
}

void run_report(const ReportCommandOptions& options) {
  const ReadOnlyDatabase db = open_results_read_only(options.results);
  const std::string search = chosen_search(options.search, hmm_searches(db.get()), options.results, "hmmsearch");
  const SearchReport report = hmm_report(db.get(), search, options.partial);
  fs::create_directories(options.out);
  const std::vector<std::string> stems = profile_stems(report.profiles);
  std::printf("hmmsearch %s: %u of %u chunks, %llu sequences (Z)\n", search.c_str(), report.chunks_stored,
              report.params.chunks, static_cast<unsigned long long>(report.params.database_sequences));
  for (std::uint32_t p = 0; p < report.profiles.size(); ++p) {
    const std::string base = options.out + "/" + search + "." + stems[p];
    const ProfileTexts texts = profile_texts(report.profiles[p], p, report.rows, report.params, true);
    write_file_atomic(base + ".tblout", texts.tblout);
    write_file_atomic(base + ".domtblout", texts.domtblout);
    write_file_atomic(base + ".out", texts.out);
    std::printf("  %-20s %6zu targets reported  %s.tblout, .domtblout, .out\n", report.profiles[p].name.c_str(),
                reported_targets(texts.tblout), base.c_str());
  }
}

void add_report_command(CLI::App& hmmsearch) {
  auto options = std::make_shared<ReportCommandOptions>();
  auto* command = hmmsearch.add_subcommand(
      "report", "a search's merged result: per profile its tblout, domtblout and report text, as one run of "
                "hmmsearch over the whole database would write them");
  command->add_option("--results", options->results, "the results database (helix-assimilate --db)")->required();
  command->add_option("--search", options->search, "the search's name (helix-wu hmmsearch make --name); "
                                                   "may be left out when the database holds one search");
  command->add_option("--out", options->out, "output directory: SEARCH.<profile>.tblout, .domtblout and .out")->required();
  command->add_flag("--partial", options->partial, "report from the chunks stored so far (E-values stay the whole "
                                                   "database's; hits in missing chunks are missing)");
  command->callback([options] { run_report(*options); });
}

}  // namespace

void add_hmm_workunit_command(CLI::App& command, std::function<void(const WorkunitSpec&)> emit) {
  add_make_command(command, std::move(emit));
  add_report_command(command);
}

// hmmer-examples' globins4, fn3 and Pkinase profiles against mmseqs2-examples'
// 20,000 UniProt proteins in blocks of 1,000: 3-6 s on one core.
std::vector<std::vector<std::string>> hmm_example_commands(const std::string& dir) {
  const std::string proteins = uniprot_example_proteins();
  std::vector<std::pair<std::string, std::string>> needed = {{proteins, "mmseqs2-examples"}};
  std::string profiles;
  for (const char* name : {"globins4.hmm", "fn3.hmm", "Pkinase.hmm"}) needed.push_back({hmmer_tutorial_file(name), "hmmer-examples"});
  require_data_files(needed);
  for (std::size_t i = 1; i < needed.size(); ++i) profiles += read_file_text(needed[i].first);
  const std::string input = dir + "/input";
  std::filesystem::create_directories(input);
  write_file_atomic(input + "/profiles.hmm", profiles);
  return {{"hmmsearch", "make", "--name", "example_hmm", "--profiles", input + "/profiles.hmm", "--database", proteins,
           "--block-targets", "1000", "--out", dir}};
}

}  // namespace helix::hmmsearch
