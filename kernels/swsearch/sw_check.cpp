// sw_check.cpp: the validator's checks of a swsearch result. A volunteer host
// may return garbage or a forgery; every file is size-capped before it is read.
// Structural checks first: the hits table's rows, per query in the summary's
// order, ranked by score then ordinal, at most top_hits, ends within the
// sequences, bits and E-values as the server computes them. With the WU's
// inputs at hand, a random sample of reported pairs is re-scored with the
// reference (scores and ends exact: the engines are exact), every CIGAR is
// re-scored, and a sample of unreported pairs must not beat the query's last
// reported hit.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "core/check_support.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/names.h"
#include "sw_server.h"
#include "sw_statistics.h"

namespace helix::swsearch {
namespace {

// What printing costs: bits as %.1f (half a unit of 0.1) and E-values as %.3e
// (half a unit of the 4th significant digit), on top of the 1e-6 relative
// difference two hosts' libm may make (sw_statistics.h).
constexpr double kStatisticsRelativeTolerance = 1e-6;
constexpr double kBitsPrintedHalfUnit = 0.05;
constexpr double kEvaluePrintedRelativeHalfUnit = 5e-4;
constexpr double kCompareRelativeTolerance = 1e-9;

struct SummaryQuery {
  std::string id;
  int length = 0;
  std::size_t hits = 0;
  int best_score = 0;
};
struct Summary {
  nlohmann::json json;
  SwParams params;
  std::vector<SummaryQuery> queries;
  std::uint64_t chunk_targets = 0, chunk_residues = 0;
};

Summary read_summary(const std::string& path) {
  const auto bytes = read_bounded(path, kMaxSummaryBytes, "summary");
  Summary summary;
  summary.json = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (summary.json.is_discarded() || !summary.json.is_object()) reject("summary is not a JSON object");
  require(summary.json.value("kind", nlohmann::json()) == "swsearch", "summary kind is not \"swsearch\"");
  summary.params = parse_sw_params(summary.json.at("params"));
  summary.chunk_residues = integer_field(summary.json, "chunk_residues", 1, summary.params.database_residues);
  summary.chunk_targets = integer_field(summary.json, "chunk_targets", 1, summary.chunk_residues);
  const auto& queries = summary.json.at("queries");
  require(queries.is_array() && !queries.empty(), "summary queries is not a non-empty array");
  for (const auto& query : queries) {
    SummaryQuery q;
    require(query.at("id").is_string(), "summary query id is not a string");
    q.id = query.at("id").get<std::string>();
    q.length = static_cast<int>(integer_field(query, "length", 1, 1 << 24));
    q.hits = static_cast<std::size_t>(integer_field(query, "hits", 0, summary.params.top_hits));
    q.best_score = static_cast<int>(integer_field(query, "best_score", 0, 1 << 30));
    summary.queries.push_back(q);
  }
  return summary;
}

// ---------------------------------------------------------------- the hits table

long long parse_integer(const std::string& text, long long low, long long high, const std::string& what) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    reject(what + " '" + text + "' is not an integer");
  }
  require(used == text.size() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-'),
          what + " '" + text + "' is not an integer");
  require(value >= low && value <= high, what + " " + text + " is out of range");
  return value;
}

// strtod, not stod: a strong hit's E-value can be subnormal (below 2.2e-308),
// which sets ERANGE and makes stod throw although the value reads back exactly.
double parse_real(const std::string& text, const std::string& what) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  require(!text.empty() && !std::isspace(static_cast<unsigned char>(text[0])) && end == text.c_str() + text.size(),
          what + " '" + text + "' is not a number");
  require(std::isfinite(value), what + " '" + text + "' is not a finite number");
  return value;
}

struct Row {
  std::string query_id;
  Hit hit;
};

Row parse_row(const std::vector<std::string>& f, std::size_t line) {
  const std::string at = "hits line " + std::to_string(line + 2) + ": ";
  Row row;
  row.query_id = f[0];
  Hit& h = row.hit;
  h.target_id = f[1];
  h.score = static_cast<int>(parse_integer(f[2], 1, 1 << 30, at + "score"));
  h.bits = parse_real(f[3], at + "bits");
  h.evalue = parse_real(f[4], at + "evalue");
  h.query_start = static_cast<int>(parse_integer(f[5], 0, 1 << 30, at + "query_start"));
  h.query_end = static_cast<int>(parse_integer(f[6], 1, 1 << 30, at + "query_end"));
  h.target_start = static_cast<int>(parse_integer(f[7], 0, 1 << 30, at + "target_start"));
  h.target_end = static_cast<int>(parse_integer(f[8], 1, 1 << 30, at + "target_end"));
  h.identities = static_cast<int>(parse_integer(f[9], 0, 1 << 30, at + "identities"));
  h.length = static_cast<int>(parse_integer(f[10], 0, 1 << 30, at + "length"));
  h.cigar = f[11] == "-" ? "" : f[11];
  h.target_ordinal = static_cast<std::uint64_t>(parse_integer(f[12], 0, 1LL << 50, at + "target_ordinal"));
  return row;
}

bool ranks_before(const Hit& a, const Hit& b) {
  return a.score != b.score ? a.score > b.score : a.target_ordinal < b.target_ordinal;
}

void check_statistics(const Hit& hit, int query_length, const SwParams& params, const KarlinAltschul& ka,
                      const std::string& at) {
  const double bits = bit_score(ka, hit.score);
  const double e = evalue(ka, hit.score, query_length, params.database_residues);
  require(std::fabs(hit.bits - bits) <= kStatisticsRelativeTolerance * std::fabs(bits) + kBitsPrintedHalfUnit,
          at + "bits differ from the server's " + std::to_string(bits));
  require(std::fabs(hit.evalue - e) <= (kStatisticsRelativeTolerance + kEvaluePrintedRelativeHalfUnit) * e,
          at + "evalue differs from the server's " + std::to_string(e));
}

// Starts, identities, length and CIGAR: present exactly on the first `alignments` hits.
void check_alignment_fields(const Hit& h, std::size_t rank, int alignments, const std::string& at) {
  if (static_cast<int>(rank) < alignments) {
    require(h.query_start >= 1 && h.query_start <= h.query_end && h.target_start >= 1 &&
                h.target_start <= h.target_end && !h.cigar.empty() && h.length >= 1 && h.identities <= h.length,
            at + "alignment fields missing or inconsistent");
  } else {
    require(h.query_start == 0 && h.target_start == 0 && h.identities == 0 && h.length == 0 && h.cigar.empty(),
            at + "alignment fields on a hit past the WU's alignments");
  }
}

// The hits of each summary query, in the summary's order, checked against the summary.
std::vector<std::vector<Hit>> read_hits(const std::string& path, const Summary& summary) {
  std::vector<int> lengths;
  for (const SummaryQuery& q : summary.queries) lengths.push_back(q.length);
  const auto bytes = read_bounded(path, max_hits_bytes(summary.params, lengths, summary.chunk_residues, kMaxIdLength), "hits table");
  const auto rows = parse_hits_tsv(std::string(bytes.begin(), bytes.end()));
  const KarlinAltschul ka = karlin_altschul(summary.params.matrix_name, summary.params.gaps);
  std::vector<std::vector<Hit>> hits(summary.queries.size());
  std::size_t line = 0;
  for (std::size_t q = 0; q < summary.queries.size(); ++q) {
    const SummaryQuery& query = summary.queries[q];
    for (std::size_t rank = 0; rank < query.hits; ++rank, ++line) {
      require(line < rows.size(), "hits table has fewer rows than the summary counts");
      const std::string at = "hits line " + std::to_string(line + 2) + ": ";
      Row row = parse_row(rows[line], line);
      require(row.query_id == query.id, at + "query '" + row.query_id + "' where '" + query.id + "' was due");
      const Hit& h = row.hit;
      require(h.query_end <= query.length, at + "query_end beyond the query");
      require(static_cast<std::uint64_t>(h.target_end) <= summary.chunk_residues, at + "target_end beyond the chunk");
      require(rank > 0 || h.score == query.best_score, at + "score differs from the summary's best_score");
      require(rank == 0 || ranks_before(hits[q].back(), h), at + "not ranked by score desc, then ordinal asc");
      check_alignment_fields(h, rank, summary.params.alignments, at);
      check_statistics(h, query.length, summary.params, ka, at);
      hits[q].push_back(row.hit);
    }
    require(query.hits > 0 || query.best_score == 0, "summary: best_score of a query without hits is not 0");
  }
  require(line == rows.size(), "hits table has more rows than the summary counts");
  return hits;
}

// ---------------------------------------------------------------- the WU's inputs

struct WuInputs {
  ScoreMatrix matrix;
  std::vector<FastaRecord> queries;
  DatabaseChunk chunk;
  std::map<std::uint64_t, std::size_t> index_of_ordinal;
};

// The WU is named by the result's file names (sw_server.h, "WU file names");
// its params must be the summary's exactly, or the result answers another question.
WuInputs read_wu_inputs(const std::string& dir, const std::vector<std::string>& files, const Summary& summary) {
  // This kind's summary claims no WU name, so only BOINC's file names bind it.
  const std::string wu = bound_wu(files, "");
  const auto name = parse_wu_name(wu);
  if (!name) server_trouble("cannot tell the WU from result file " + files[0] + " (want <prefix>_b<i>_c<j>_<n>[_r<r>]_<k>)");
  const SwParams params = server_read("WU params", [&] {
    const auto json = nlohmann::json::parse(read_file_text(dir + "/" + params_file(wu)), nullptr, false);
    if (json.is_discarded()) throw InputError(params_file(wu) + " is not JSON");
    return parse_sw_params(json);
  });
  require(sw_params_json(params) == sw_params_json(summary.params), "the summary's params differ from WU " + wu + "'s");
  WuInputs inputs;
  inputs.matrix = server_read("WU matrix", [&] {
    return parse_ncbi_matrix(read_file_text(dir + "/" + matrix_file(name->prefix, params.matrix_name)), params.matrix_name);
  });
  inputs.queries = server_read("WU queries", [&] { return parse_fasta(read_file_text(dir + "/" + queries_file(wu)), wu); });
  inputs.chunk = server_read("WU database chunk", [&] {
    return decode_chunk(read_file_bytes(dir + "/" + chunk_file(name->prefix, name->chunk)), params.database_residues);
  });
  require(inputs.queries.size() == summary.queries.size(), "the summary's query count differs from WU " + wu + "'s");
  for (std::size_t q = 0; q < inputs.queries.size(); ++q)
    require(inputs.queries[q].id == summary.queries[q].id &&
                static_cast<int>(inputs.queries[q].residues.size()) == summary.queries[q].length,
            "summary query " + std::to_string(q) + " differs from WU " + wu + "'s");
  require(summary.chunk_targets == inputs.chunk.targets.size() &&
              summary.chunk_residues == inputs.chunk.targets.residues.size(),
          "the summary's chunk size differs from WU " + wu + "'s database chunk");
  for (std::size_t t = 0; t < inputs.chunk.ordinals.size(); ++t) inputs.index_of_ordinal[inputs.chunk.ordinals[t]] = t;
  return inputs;
}

std::vector<std::uint8_t> target_of(const DatabaseChunk& chunk, std::size_t index) {
  return {chunk.targets.begin(index), chunk.targets.begin(index) + chunk.targets.length(index)};
}

// Every hit names a target of the chunk, by ordinal and id, within its length.
void check_targets(const std::vector<std::vector<Hit>>& hits, const WuInputs& wu) {
  for (const auto& query_hits : hits)
    for (const Hit& h : query_hits) {
      const auto found = wu.index_of_ordinal.find(h.target_ordinal);
      require(found != wu.index_of_ordinal.end(), "hit target ordinal " + std::to_string(h.target_ordinal) + " is not in the chunk");
      require(wu.chunk.ids[found->second] == h.target_id, "hit target " + h.target_id + " does not have its ordinal's id");
      require(static_cast<std::size_t>(h.target_end) <= wu.chunk.targets.length(found->second),
              "hit on " + h.target_id + " ends beyond the target");
    }
}

// The CIGAR's score and extent must be the reported score and span.
void check_cigar(const Hit& h, const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target,
                 const ScoreMatrix& matrix, const GapPenalties& gaps) {
  const int score = score_of_cigar(query, target, h.query_start - 1, h.target_start - 1, h.cigar, matrix, gaps);
  require(score == h.score, "hit on " + h.target_id + ": its CIGAR scores " + std::to_string(score) + ", not " +
                                std::to_string(h.score));
  int query_span = 0, target_span = 0, columns = 0, identities = 0, run = 0;
  for (char c : h.cigar) {
    if (std::isdigit(static_cast<unsigned char>(c))) { run = run * 10 + (c - '0'); continue; }
    for (int k = 0; k < run; ++k) {
      if (c == 'M') identities += query[h.query_start - 1 + query_span] == target[h.target_start - 1 + target_span];
      if (c != 'D') ++query_span;
      if (c != 'I') ++target_span;
    }
    columns += run, run = 0;
  }
  require(h.query_start - 1 + query_span == h.query_end && h.target_start - 1 + target_span == h.target_end,
          "hit on " + h.target_id + ": its CIGAR does not span start..end");
  require(columns == h.length && identities == h.identities, "hit on " + h.target_id + ": length or identities wrong");
}

void check_reported_pair(const Hit& h, const std::vector<std::uint8_t>& query, const WuInputs& wu,
                         const GapPenalties& gaps) {
  const auto target = target_of(wu.chunk, wu.index_of_ordinal.at(h.target_ordinal));
  const LocalScore s = sw_score(query, target, wu.matrix, gaps);
  require(s.score == h.score && s.query_end + 1 == h.query_end && s.target_end + 1 == h.target_end,
          "hit on " + h.target_id + ": the reference scores " + std::to_string(s.score) + " ending at " +
              std::to_string(s.query_end + 1) + "/" + std::to_string(s.target_end + 1));
}

// An unreported pair must rank after the query's last hit (or score 0 when
// the query reported fewer than top_hits: every positive pair is reported).
void check_unreported_pair(const std::vector<Hit>& hits, std::size_t target_index, const std::vector<std::uint8_t>& query,
                           const WuInputs& wu, const SwParams& params) {
  const std::uint64_t ordinal = wu.chunk.ordinals[target_index];
  for (const Hit& h : hits)
    if (h.target_ordinal == ordinal) return;
  const int score = sw_score(query, target_of(wu.chunk, target_index), wu.matrix, params.gaps).score;
  const bool full = static_cast<int>(hits.size()) == params.top_hits;
  Hit unreported;
  unreported.target_ordinal = ordinal, unreported.score = score;
  const bool beats = full ? ranks_before(unreported, hits.back()) : score > 0;
  require(!beats, "unreported target " + wu.chunk.ids[target_index] + " scores " + std::to_string(score) +
                      ", which belongs in the reported hits");
}

void spot_check(const std::vector<std::vector<Hit>>& hits, const WuInputs& wu, const SwParams& params,
                const SpotCheck& spot) {
  std::mt19937_64 random(spot.seed != 0 ? spot.seed : std::random_device{}());
  std::vector<std::pair<std::size_t, std::size_t>> reported;  // (query, rank)
  for (std::size_t q = 0; q < hits.size(); ++q)
    for (std::size_t r = 0; r < hits[q].size(); ++r) {
      reported.push_back({q, r});
      if (!hits[q][r].cigar.empty()) check_cigar(hits[q][r], wu.queries[q].residues,
                                                 target_of(wu.chunk, wu.index_of_ordinal.at(hits[q][r].target_ordinal)),
                                                 wu.matrix, params.gaps);
    }
  if (reported.size() > spot.reported) std::shuffle(reported.begin(), reported.end(), random), reported.resize(spot.reported);
  for (const auto& [q, r] : reported) check_reported_pair(hits[q][r], wu.queries[q].residues, wu, params.gaps);
  const std::size_t targets = wu.chunk.targets.size(), pairs = hits.size() * targets;
  if (pairs <= spot.unreported) {
    for (std::size_t p = 0; p < pairs; ++p)
      check_unreported_pair(hits[p / targets], p % targets, wu.queries[p / targets].residues, wu, params);
    return;
  }
  for (std::size_t k = 0; k < spot.unreported; ++k) {
    const std::size_t p = std::uniform_int_distribution<std::size_t>(0, pairs - 1)(random);
    check_unreported_pair(hits[p / targets], p % targets, wu.queries[p / targets].residues, wu, params);
  }
}

bool near(double a, double b, double relative) { return std::fabs(a - b) <= relative * std::max(std::fabs(a), std::fabs(b)); }

}  // namespace

CheckOutcome check_sw_result(const std::vector<std::string>& files, const ServerOptions& options, const SpotCheck& spot) {
  return outcome_of([&] {
    require(files.size() == 2, "a swsearch result has 2 files (hits, summary), not " + std::to_string(files.size()));
    const Summary summary = read_summary(files[1]);
    const auto hits = read_hits(files[0], summary);
    if (options.inputs_dir.empty()) return;
    const WuInputs wu = read_wu_inputs(options.inputs_dir, files, summary);
    check_targets(hits, wu);
    spot_check(hits, wu, summary.params, spot);
  });
}

CheckOutcome check_sw_result(const std::vector<std::string>& files, const ServerOptions& options) {
  return check_sw_result(files, options, SpotCheck{});
}

CheckOutcome compare_sw_results(const std::vector<std::string>& files_a, const std::vector<std::string>& files_b) {
  return outcome_of([&] {
    require(files_a.size() == 2 && files_b.size() == 2, "a swsearch result has 2 files (hits, summary)");
    Summary a = read_summary(files_a[1]), b = read_summary(files_b[1]);
    const auto hits_a = read_hits(files_a[0], a), hits_b = read_hits(files_b[0], b);
    a.json.erase("engine"), b.json.erase("engine");
    require(a.json == b.json, "the summaries differ");
    for (std::size_t q = 0; q < hits_a.size(); ++q)
      for (std::size_t r = 0; r < hits_a[q].size(); ++r) {
        const Hit &x = hits_a[q][r], &y = hits_b[q][r];
        const std::string at = "query " + a.queries[q].id + " hit " + std::to_string(r + 1) + ": ";
        require(x.target_id == y.target_id && x.target_ordinal == y.target_ordinal && x.score == y.score &&
                    x.query_start == y.query_start && x.query_end == y.query_end && x.target_start == y.target_start &&
                    x.target_end == y.target_end && x.identities == y.identities && x.length == y.length &&
                    x.cigar == y.cigar,
                at + "differs");
        require(near(x.bits, y.bits, kCompareRelativeTolerance) && near(x.evalue, y.evalue, kCompareRelativeTolerance),
                at + "bits or evalue differ");
      }
  });
}

}  // namespace helix::swsearch
