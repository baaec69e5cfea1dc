// sw_workunit.cpp: `helix-wu swsearch make`, the swsearch kind's work
// generator: a protein database (FASTA) split into chunks of about N residues
// in FASTA order, queries in batches, one WU per (batch, chunk). Every input
// is read and checked before the first file is written, so a refused command
// leaves nothing behind. `helix-wu swsearch report`: a search's merged result
// from the results database (sw_report.cpp).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "core/example_data.h"
#include "core/errors.h"
#include "core/fasta.h"
#include "core/file_io.h"
#include "core/size_class.h"
#include "core/names.h"
#include "core/sqlite_support.h"
#include "core/work_protocol.h"
#include "sw_server.h"
#include "sw_summary.h"

namespace helix::swsearch {

namespace fs = std::filesystem;

std::string wu_name(const std::string& prefix, std::size_t batch, std::size_t chunk) {
  return prefix + "_b" + std::to_string(batch) + "_c" + std::to_string(chunk);
}
std::string params_file(const std::string& wu) { return wu + ".params.json"; }
std::string queries_file(const std::string& wu) { return wu + ".queries.fa"; }
std::string chunk_file(const std::string& prefix, std::size_t chunk) {
  return prefix + ".chunk_" + std::to_string(chunk) + ".hxsw";
}
std::string matrix_file(const std::string& prefix, const std::string& matrix_name) {
  return prefix + "." + matrix_name;
}

namespace {

}  // namespace

std::optional<WuName> parse_wu_name(const std::string& wu) {
  const auto c = wu.rfind("_c");
  if (c == std::string::npos || !is_small_number(wu.substr(c + 2))) return std::nullopt;
  const auto b = wu.rfind("_b", c == 0 ? 0 : c - 1);
  if (b == std::string::npos || b == 0 || !is_small_number(wu.substr(b + 2, c - b - 2))) return std::nullopt;
  return WuName{wu.substr(0, b), std::stoul(wu.substr(b + 2, c - b - 2)), std::stoul(wu.substr(c + 2))};
}

std::uint64_t max_hits_bytes(const SwParams& params, const std::vector<int>& query_lengths,
                             std::uint64_t longest_target, std::uint64_t longest_id) {
  constexpr std::uint64_t kNumbersBytes = 200;  // the line's numeric columns and tabs, generously
  std::uint64_t bytes = 256;  // the header
  for (int length : query_lengths)
    bytes += params.top_hits * (2 * longest_id + kNumbersBytes) +
             params.alignments * 2 * (static_cast<std::uint64_t>(length) + longest_target);
  return bytes;
}

namespace {

// Host memory beyond kMemoryBaseBytes (core/work_protocol.h, with the fpops
// and disk factors): per chunk residue the decoded chunk, its copy as a block
// on the engine and the compressed file while decoding (~4 bytes); per target
// its id (up to 1000 bytes, ~64 typical) and offsets.
constexpr double kMemoryBytesPerResidue = 4;
constexpr double kMemoryBytesPerTarget = 1100;
constexpr const char* kNcbiMatrixDir = "/usr/share/ncbi/data/";

struct MakeOptions {
  std::string db, queries, matrix = "BLOSUM62", matrix_file, name, out;
  int gap_open = 12, gap_extend = 1, top_hits = 50, alignments = 10;
  std::uint32_t block_targets = SwParams{}.block_targets;
  std::uint64_t chunk_residues = kDefaultChunkResidues;
  std::size_t queries_per_wu = kDefaultQueriesPerWu;
  SizeClass size_class = SizeClass::kNone;
};

// A database chunk as planned: FASTA records [first, end) of the database.
struct PlannedChunk {
  std::size_t first = 0, end = 0;
  std::uint64_t residues = 0, longest = 0, longest_id = 0;
};

struct Plan {
  SwParams params;
  std::string matrix_text;
  std::vector<FastaRecord> database, queries;
  std::vector<PlannedChunk> chunks;
  std::vector<std::pair<std::size_t, std::size_t>> batches;  // query ranges [first, end)
};

// The matrix by name from NCBI's data directory, or from --matrix-file; the
// name stays the statistics' key either way.
std::string read_matrix_text(const MakeOptions& options) {
  const std::string path = options.matrix_file.empty() ? kNcbiMatrixDir + options.matrix : options.matrix_file;
  if (!is_plain_name(options.matrix)) throw InputError("--matrix must be a plain name such as BLOSUM62");
  if (!fs::is_regular_file(path)) throw InputError("unknown matrix " + options.matrix + ": " + path + " does not exist");
  const std::string text = read_file_text(path);
  parse_ncbi_matrix(text, options.matrix);  // refuses a malformed file now, not on the volunteer's host
  return text;
}

// The WU params shared by every WU, validated as the app will validate them
// (negative gaps, gap settings without Karlin-Altschul statistics, ...).
SwParams checked_params(const MakeOptions& options, const std::vector<FastaRecord>& database) {
  SwParams params;
  params.search = options.name;
  params.matrix_name = options.matrix;
  params.gaps = {options.gap_open, options.gap_extend};
  params.top_hits = options.top_hits;
  params.alignments = options.alignments;
  params.block_targets = options.block_targets;
  params.database_sequences = database.size();
  for (const FastaRecord& record : database) params.database_residues += record.residues.size();
  nlohmann::json json = sw_params_json(params);
  return parse_sw_params(json);
}

// Greedy in FASTA order: a record joins the current chunk while it stays
// within `limit` residues; a longer record makes a chunk of its own.
std::vector<PlannedChunk> plan_chunks(const std::vector<FastaRecord>& database, std::uint64_t limit) {
  std::vector<PlannedChunk> chunks;
  for (std::size_t k = 0; k < database.size(); ++k) {
    const std::uint64_t length = database[k].residues.size();
    if (chunks.empty() || (chunks.back().residues > 0 && chunks.back().residues + length > limit))
      chunks.push_back({k, k, 0, 0});
    chunks.back().end = k + 1;
    chunks.back().residues += length;
    chunks.back().longest = std::max(chunks.back().longest, length);
    chunks.back().longest_id = std::max<std::uint64_t>(chunks.back().longest_id, database[k].id.size());
  }
  return chunks;
}

std::vector<FastaRecord> read_fasta_file(const std::string& path, const std::string& what) {
  if (!fs::is_regular_file(path)) throw InputError(what + " " + path + " does not exist");
  std::vector<FastaRecord> records = parse_fasta(read_file_text(path), what + " " + path);
  if (records.empty()) throw InputError(what + " " + path + " holds no sequence");
  return records;
}

// A batch's result summary must fit the summary's limit (the output template's
// max_nbytes): a client's larger file would be refused, its work lost.
void check_summary_fits(const Plan& plan, const std::pair<std::size_t, std::size_t>& batch) {
  std::vector<std::string> ids;
  for (std::size_t q = batch.first; q < batch.second; ++q) ids.push_back(plan.queries[q].id);
  const std::size_t bound = summary_bytes_bound(plan.params, ids);
  if (bound > kMaxSummaryBytes)
    throw InputError("queries " + std::to_string(batch.first + 1) + "-" + std::to_string(batch.second) +
                     ": a WU's result summary could reach " + std::to_string(bound) + " bytes, over its limit of " +
                     std::to_string(kMaxSummaryBytes) + "; give fewer --queries-per-wu (or shorter query ids)");
}

Plan make_plan(const MakeOptions& options) {
  if (!is_plain_name(options.name)) throw InputError("--name must be a plain name ([A-Za-z0-9._-], not starting with '.')");
  if (options.chunk_residues == 0) throw InputError("--chunk-residues must be positive");
  if (options.queries_per_wu == 0) throw InputError("--queries-per-wu must be positive");
  Plan plan;
  plan.matrix_text = read_matrix_text(options);
  plan.database = read_fasta_file(options.db, "database");
  plan.queries = read_fasta_file(options.queries, "queries");
  plan.params = checked_params(options, plan.database);
  plan.chunks = plan_chunks(plan.database, options.chunk_residues);
  for (std::size_t first = 0; first < plan.queries.size(); first += options.queries_per_wu) {
    plan.batches.push_back({first, std::min(plan.queries.size(), first + options.queries_per_wu)});
    check_summary_fits(plan, plan.batches.back());
  }
  return plan;
}

std::string fasta_text(const std::vector<FastaRecord>& records, std::size_t first, std::size_t end) {
  std::string text;
  for (std::size_t k = first; k < end; ++k) {
    text += ">" + records[k].id + (records[k].description.empty() ? "" : " " + records[k].description) + "\n";
    const std::string residues = decode_protein(records[k].residues);
    for (std::size_t at = 0; at < residues.size(); at += 60) text += residues.substr(at, 60) + "\n";
  }
  return text;
}

std::vector<std::uint8_t> chunk_bytes(const Plan& plan, const PlannedChunk& planned) {
  std::vector<FastaRecord> records(plan.database.begin() + planned.first, plan.database.begin() + planned.end);
  std::vector<std::uint64_t> ordinals;
  for (std::size_t k = planned.first; k < planned.end; ++k) ordinals.push_back(k);
  return encode_chunk(make_chunk(std::move(records), ordinals));
}

WorkunitSpec workunit_spec(const Plan& plan, const std::string& wu, std::size_t batch, const PlannedChunk& chunk,
                           const std::vector<std::string>& inputs) {
  WorkunitSpec spec;
  spec.name = wu;
  spec.inputs = {{"params", inputs[0]}, {"matrix", inputs[1]}, {"queries", inputs[2]}, {"database", inputs[3]}};
  spec.shared_inputs = {"matrix", "database"};  // every WU of the run / of the chunk
  std::uint64_t query_residues = 0, longest_id = chunk.longest_id;
  std::vector<int> query_lengths;
  for (std::size_t q = plan.batches[batch].first; q < plan.batches[batch].second; ++q) {
    query_residues += plan.queries[q].residues.size();
    query_lengths.push_back(static_cast<int>(plan.queries[q].residues.size()));
    longest_id = std::max<std::uint64_t>(longest_id, plan.queries[q].id.size());
  }
  spec.fpops_estimate = static_cast<double>(query_residues) * static_cast<double>(chunk.residues) * kOpsPerCell;
  spec.kind_memory_bytes = kMemoryBytesPerResidue * static_cast<double>(chunk.residues) +
                           kMemoryBytesPerTarget * static_cast<double>(chunk.end - chunk.first);
  const double hits = static_cast<double>(max_hits_bytes(plan.params, query_lengths, chunk.longest, longest_id));
  spec.output_bytes = hits;
  spec.max_output_bytes = hits;
  return spec;
}

void remove_quietly(const std::vector<std::string>& paths) {
  std::error_code ignored;
  for (const auto& path : paths) fs::remove(path, ignored);
}

// Writes `bytes` to out/name, remembering it for the clean-up of a failed run.
template <typename Bytes>
std::string write_input(const std::string& out, const std::string& name, const Bytes& bytes,
                        std::vector<std::string>& written) {
  const std::string path = out + "/" + name;
  written.push_back(path);
  write_file_atomic(path, bytes);
  return path;
}

void write_all(const MakeOptions& options, const Plan& plan, const std::function<void(const WorkunitSpec&)>& emit,
               std::vector<std::string>& written) {
  const std::string matrix =
      write_input(options.out, matrix_file(options.name, options.matrix), plan.matrix_text, written);
  std::vector<std::string> chunks;
  for (std::size_t c = 0; c < plan.chunks.size(); ++c)
    chunks.push_back(write_input(options.out, chunk_file(options.name, c), chunk_bytes(plan, plan.chunks[c]), written));
  for (std::size_t b = 0; b < plan.batches.size(); ++b) {
    const std::string queries = fasta_text(plan.queries, plan.batches[b].first, plan.batches[b].second);
    for (std::size_t c = 0; c < plan.chunks.size(); ++c) {
      const std::string wu = wu_name(options.name, b, c);
      const std::string params = write_input(options.out, params_file(wu), sw_params_json(plan.params).dump(1) + "\n", written);
      const std::string fasta = write_input(options.out, queries_file(wu), queries, written);
      for (const char* suffix : {".wu_template.xml", ".result_template.xml", ".create_work.sh"})
        written.push_back(options.out + "/" + wu + suffix);  // what emit's writer makes
      emit(workunit_spec(plan, wu, b, plan.chunks[c], {params, matrix, fasta, chunks[c]}));
    }
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
  std::printf("swsearch %s: %zu queries in %zu batches x %zu database chunks (%llu sequences, %llu residues): %zu WUs\n",
              options.name.c_str(), plan.queries.size(), plan.batches.size(), plan.chunks.size(),
              static_cast<unsigned long long>(plan.params.database_sequences),
              static_cast<unsigned long long>(plan.params.database_residues), plan.batches.size() * plan.chunks.size());
}

void add_make_command(CLI::App& swsearch, std::function<void(const WorkunitSpec&)> emit) {
  auto options = std::make_shared<MakeOptions>();
  auto* command = swsearch.add_subcommand("make", "make swsearch work units: query batches x database chunks");
  command->add_option("--db", options->db, "protein database, FASTA (ordinals: FASTA order from 0)")->required();
  command->add_option("--queries", options->queries, "query proteins, FASTA")->required();
  command->add_option("--matrix", options->matrix,
                      "matrix NAME (default BLOSUM62), also the key of its statistics (BLOSUM45/50/62/80, PAM30/70/250)");
  command->add_option("--matrix-file", options->matrix_file,
                      "the matrix in NCBI text format (default: /usr/share/ncbi/data/NAME)");
  command->add_option("--gap-open", options->gap_open,
                      "cost of a 1-residue gap (default 12); a k-gap costs open + (k-1) x extend, "
                      "so this is NOT BLAST's gap existence: BLAST's 11/1 is open 12, extend 1");
  command->add_option("--gap-extend", options->gap_extend, "cost of each further residue of a gap (default 1)");
  command->add_option("--top-hits", options->top_hits, "hits reported per query, 1..10000 (default 50)");
  command->add_option("--alignments", options->alignments, "of them, with a full alignment, 0..top-hits (default 10)");
  command->add_option("--chunk-residues", options->chunk_residues,
                      "database chunk size in residues, about (default 20,000,000; size class gpu 200,000,000)");
  command->add_option("--queries-per-wu", options->queries_per_wu, "queries per WU (default 96; size class gpu 4096)");
  add_size_class_option(command, &options->size_class);
  command->add_option("--block-targets", options->block_targets,
                      "targets a CPU loads at once (a GPU loads as many blocks as its memory holds), 1..16777216 (default 65536)");
  command->add_option("--name", options->name, "search name: WUs are NAME_b<batch>_c<chunk>")->required();
  command->add_option("--out", options->out, "output directory")->required();
  command->callback([options, emit, command] {
    if (!option_given(command, "--chunk-residues"))
      options->chunk_residues = size_class_default(options->size_class, kDefaultChunkResidues, kGpuChunkResidues);
    if (!option_given(command, "--queries-per-wu"))
      options->queries_per_wu = size_class_default(options->size_class, kDefaultQueriesPerWu, kGpuQueriesPerWu);
    run_make(*options, emit_in_size_class(emit, options->size_class));
  });
}

struct ReportOptions {
  std::string results, search, inputs, out;
};

void run_report(const ReportOptions& options) {
  const ReadOnlyDatabase db = open_results_read_only(options.results);
  const std::string search = chosen_search(options.search, sw_searches(db.get()), options.results, "swsearch");
  const SwParams params = sw_search_params(db.get(), search);
  const std::vector<QueryHits> merged = sw_report(db.get(), params.top_hits, params.alignments, search);
  const ReportTexts texts = sw_report_texts(merged, params, read_report_inputs(options.inputs, params, merged));
  fs::create_directories(options.out);
  const std::string base = options.out + "/" + search;
  write_file_atomic(base + ".blast6.tsv", texts.tabular);
  write_file_atomic(base + ".blast7.tsv", texts.commented);
  write_file_atomic(base + ".alignments.txt", texts.alignments);
  std::printf("swsearch %s: %zu queries with hits; %s.blast6.tsv, .blast7.tsv, .alignments.txt\n", search.c_str(),
              merged.size(), base.c_str());
}

void add_report_command(CLI::App& swsearch) {
  auto options = std::make_shared<ReportOptions>();
  auto* command = swsearch.add_subcommand(
      "report", "a search's merged hits over all its chunks, as one whole-database run reports them: BLAST tabular "
                "(-outfmt 6 and 7) and pairwise alignments");
  command->add_option("--results", options->results, "the results database (helix-assimilate --db)")->required();
  command->add_option("--search", options->search, "the search's name (helix-wu swsearch make --name); "
                                                   "may be left out when the database holds one search");
  command->add_option("--inputs", options->inputs,
                      "the directory helix-wu swsearch make --out wrote (queries, chunks, matrix)")->required();
  command->add_option("--out", options->out,
                      "output directory: SEARCH.blast6.tsv, SEARCH.blast7.tsv, SEARCH.alignments.txt")->required();
  command->callback([options] { run_report(*options); });
}

}  // namespace

void add_sw_workunit_command(CLI::App& command, std::function<void(const WorkunitSpec&)> emit) {
  add_make_command(command, std::move(emit));
  add_report_command(command);
}

// The first 30 of hmmer-examples' 45 globins against mmseqs2-examples' 20,000
// UniProt proteins, BLOSUM62 from ncbi-data, in ten blocks (the task
// checkpoints before it ends): 3-6 s on one core.
std::vector<std::vector<std::string>> sw_example_commands(const std::string& dir) {
  const std::string globins = hmmer_tutorial_file("globins45.fa"), proteins = uniprot_example_proteins(),
                    blosum62 = ncbi_data_file("BLOSUM62");
  require_data_files({{globins, "hmmer-examples"}, {proteins, "mmseqs2-examples"}, {blosum62, "ncbi-data"}});
  const std::string input = dir + "/input";
  std::filesystem::create_directories(input);
  write_file_atomic(input + "/queries.fa", first_fasta_records(read_file_text(globins), 30));
  write_file_atomic(input + "/proteins.fa", read_text_maybe_gzipped(proteins));
  return {{"swsearch", "make", "--db", input + "/proteins.fa", "--queries", input + "/queries.fa", "--matrix-file",
           blosum62, "--queries-per-wu", "30", "--top-hits", "20", "--alignments", "3", "--block-targets", "2000", "--name", "example_sw",
           "--out", dir}};
}

}  // namespace helix::swsearch
