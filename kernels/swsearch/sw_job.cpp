// sw_job.cpp: a swsearch work unit from inputs to result files (sw_job.h).
#include "sw_job.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/byte_codec.h"
#include "core/errors.h"
#include "core/names.h"
#include "core/file_io.h"
#include "sw_statistics.h"

namespace helix::sw {
namespace {

constexpr char kChunkMagic[8] = {'H', 'X', 'S', 'W', 'D', 'B', '0', '1'};
constexpr char kStateMagic[8] = {'H', 'X', 'S', 'W', 'S', 'T', '0', '1'};

// A candidate hit during the scan: ranked by score, then database ordinal.
struct Candidate {
  std::int32_t score;
  std::uint64_t ordinal;
  std::uint32_t index;  // in the chunk
};
bool ranks_before(const Candidate& a, const Candidate& b) {
  return a.score != b.score ? a.score > b.score : a.ordinal < b.ordinal;
}

// Keeps the best `limit` of `current` plus the block's best scores (positive
// only; SwEngine::best_scores: every block target that can rank among them).
void merge_block(std::vector<Candidate>& current, const std::vector<ScoredTarget>& best, std::uint32_t first,
                 const DatabaseChunk& chunk, std::size_t limit) {
  for (const ScoredTarget& b : best)
    current.push_back({b.score, chunk.ordinals[first + b.target], first + b.target});
  const std::size_t keep = std::min(limit, current.size());
  std::partial_sort(current.begin(), current.begin() + keep, current.end(), ranks_before);
  current.resize(keep);
}

struct ScanState {
  std::uint32_t next_block = 0;
  std::vector<std::vector<Candidate>> candidates;  // per query
};

std::string fingerprint(const SwParams& params, std::size_t queries, const DatabaseChunk& chunk) {
  return sw_params_json(params).dump() + " " + std::to_string(queries) + " " + std::to_string(chunk.targets.size()) +
         " " + std::to_string(chunk.targets.residues.size());
}

std::vector<std::uint8_t> encode_state(const ScanState& state, const std::string& print) {
  ByteWriter w;
  w.put_bytes(kStateMagic, 8);
  w.put_string(print);
  w.put<std::uint32_t>(state.next_block);
  w.put<std::uint32_t>(state.candidates.size());
  for (const auto& list : state.candidates) {
    w.put<std::uint32_t>(list.size());
    for (const Candidate& c : list) w.put<std::int32_t>(c.score), w.put<std::uint64_t>(c.ordinal), w.put<std::uint32_t>(c.index);
  }
  return std::move(w.bytes());
}

// False (start afresh) for another WU's state or a damaged one.
bool decode_state(const std::vector<std::uint8_t>& bytes, const std::string& print, std::size_t queries,
                  std::size_t chunk_targets, ScanState& state) {
  try {
    ByteReader r(bytes, "checkpoint");
    if (r.remaining() < 8 || std::memcmp(r.take(8), kStateMagic, 8) != 0) return false;
    if (r.get_string(1 << 20) != print) return false;
    ScanState loaded;
    loaded.next_block = r.get<std::uint32_t>();
    if (r.get<std::uint32_t>() != queries) return false;
    loaded.candidates.resize(queries);
    for (auto& list : loaded.candidates) {
      const auto n = r.get<std::uint32_t>();
      if (n > chunk_targets) return false;
      for (std::uint32_t k = 0; k < n; ++k) {
        Candidate c{r.get<std::int32_t>(), r.get<std::uint64_t>(), r.get<std::uint32_t>()};
        if (c.index >= chunk_targets) return false;
        list.push_back(c);
      }
    }
    if (r.remaining() != 0) return false;
    state = std::move(loaded);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

TargetSet block_targets(const DatabaseChunk& chunk, std::uint32_t first, std::uint32_t count) {
  TargetSet set;
  set.residues.assign(chunk.targets.begin(first), chunk.targets.begin(first) + (chunk.targets.offsets[first + count] - chunk.targets.offsets[first]));
  for (std::uint32_t k = 1; k <= count; ++k) set.offsets.push_back(chunk.targets.offsets[first + k] - chunk.targets.offsets[first]);
  return set;
}

// Where every reported hit ends, all queries at once (the engine's ends():
// on the GPU engine one launch for the WU). A scan score the end search does
// not reproduce is the engine's fault: a temporary exit, never a result.
std::vector<std::vector<LocalScore>> reported_ends(const std::vector<std::vector<std::uint8_t>>& queries,
                                                   const ScanState& state, const DatabaseChunk& chunk,
                                                   const SwParams& params, const ScoreMatrix& matrix,
                                                   SwEngine& engine) {
  std::vector<HitPair> pairs;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    for (const Candidate& c : state.candidates[q])
      pairs.push_back({q, chunk.targets.begin(c.index), chunk.targets.length(c.index)});
  }
  const std::vector<LocalScore> ends = engine.ends(queries, pairs, matrix, params.gaps);
  if (ends.size() != pairs.size()) throw GpuError("the engine found " + std::to_string(ends.size()) + " ends for " + std::to_string(pairs.size()) + " hits");
  std::vector<std::vector<LocalScore>> per_query(queries.size());
  std::size_t k = 0;
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (const Candidate& c : state.candidates[q]) {
      const LocalScore& end = ends[k++];
      if (end.score != c.score)
        throw GpuError("scan score " + std::to_string(c.score) + " differs from the end search's " + std::to_string(end.score));
      per_query[q].push_back(end);
    }
  return per_query;
}

// The reference's traceback from an engine's end; an end whose cell does not
// hold the score is the engine's fault.
// Alignments of every query's first `alignments` hits from their ends, in one
// engine call (the GPU engine computes them on the device): per query, per rank.
std::vector<std::vector<Alignment>> reported_alignments(const std::vector<std::vector<std::uint8_t>>& queries,
                                                        const ScanState& state,
                                                        const std::vector<std::vector<LocalScore>>& ends,
                                                        const DatabaseChunk& chunk, const SwParams& params,
                                                        const ScoreMatrix& matrix, SwEngine& engine) {
  std::vector<HitPair> pairs;
  std::vector<LocalScore> pair_ends;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const std::size_t aligned = std::min<std::size_t>(params.alignments, state.candidates[q].size());
    for (std::size_t rank = 0; rank < aligned; ++rank) {
      const Candidate& c = state.candidates[q][rank];
      pairs.push_back({q, chunk.targets.begin(c.index), chunk.targets.length(c.index)});
      pair_ends.push_back(ends[q][rank]);
    }
  }
  std::vector<Alignment> found;
  try {
    found = engine.alignments(queries, pairs, pair_ends, matrix, params.gaps);
  } catch (const std::invalid_argument& error) {
    throw GpuError(std::string("hit end: ") + error.what());
  }
  if (found.size() != pairs.size()) throw GpuError("the engine aligned " + std::to_string(found.size()) + " of " + std::to_string(pairs.size()) + " hits");
  std::vector<std::vector<Alignment>> per_query(queries.size());
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const LocalScore& end = pair_ends[p];
    if (found[p].score != end.score)
      throw GpuError("hit end (" + std::to_string(end.query_end) + ", " + std::to_string(end.target_end) + ") holds " +
                     std::to_string(found[p].score) + ", not the score " + std::to_string(end.score));
    per_query[pairs[p].query].push_back(std::move(found[p]));
  }
  return per_query;
}

// The reported hits of one query: their ends, and for the first few their
// alignments (the reference's traceback from those ends).
QueryHits report_query(const FastaRecord& query, const std::vector<Candidate>& candidates,
                       const std::vector<LocalScore>& ends, const std::vector<Alignment>& alignments,
                       const DatabaseChunk& chunk, const SwParams& params, const KarlinAltschul& ka) {
  QueryHits report{query.id, static_cast<int>(query.residues.size()), {}};
  for (std::size_t rank = 0; rank < candidates.size(); ++rank) {
    const Candidate& c = candidates[rank];
    const LocalScore& end = ends[rank];
    Hit hit;
    hit.target_id = chunk.ids[c.index];
    hit.target_ordinal = c.ordinal;
    hit.score = c.score;
    hit.bits = bit_score(ka, c.score);
    hit.evalue = evalue(ka, c.score, query.residues.size(), params.database_residues);
    hit.query_end = end.query_end + 1, hit.target_end = end.target_end + 1;
    if (rank < alignments.size()) {
      const Alignment& a = alignments[rank];
      hit.query_start = a.query_begin + 1, hit.target_start = a.target_begin + 1;
      hit.identities = a.identities, hit.length = a.length, hit.cigar = a.cigar;
    }
    report.hits.push_back(std::move(hit));
  }
  return report;
}

}  // namespace

DatabaseChunk make_chunk(std::vector<FastaRecord> records, const std::vector<std::uint64_t>& ordinals) {
  if (ordinals.size() != records.size()) throw InputError("database chunk: one ordinal per record expected");
  for (const FastaRecord& record : records)
    if (record.id.size() > kMaxIdLength)
      throw InputError("database chunk: id '" + record.id.substr(0, 40) + "...' is longer than " +
                       std::to_string(kMaxIdLength) + " characters");
  std::vector<std::size_t> order(records.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto la = records[a].residues.size(), lb = records[b].residues.size();
    return la != lb ? la < lb : ordinals[a] < ordinals[b];
  });
  DatabaseChunk chunk;
  for (std::size_t k : order) {
    chunk.ids.push_back(records[k].id);
    chunk.ordinals.push_back(ordinals[k]);
    chunk.targets.residues.insert(chunk.targets.residues.end(), records[k].residues.begin(), records[k].residues.end());
    chunk.targets.offsets.push_back(chunk.targets.residues.size());
  }
  return chunk;
}

std::vector<std::uint8_t> encode_chunk(const DatabaseChunk& chunk) {
  ByteWriter payload;
  payload.put<std::uint64_t>(chunk.ids.size());
  for (std::size_t t = 0; t < chunk.ids.size(); ++t) {
    payload.put_string(chunk.ids[t]);
    payload.put<std::uint64_t>(chunk.ordinals[t]);
    payload.put<std::uint32_t>(static_cast<std::uint32_t>(chunk.targets.length(t)));
  }
  payload.put_bytes(chunk.targets.residues.data(), chunk.targets.residues.size());
  ByteWriter file;
  file.put_bytes(kChunkMagic, 8);
  file.put<std::uint64_t>(payload.bytes().size());
  const auto frame = zstd_compress(payload.bytes().data(), payload.bytes().size());
  file.put_bytes(frame.data(), frame.size());
  return std::move(file.bytes());
}

DatabaseChunk decode_chunk(const std::vector<std::uint8_t>& bytes, std::uint64_t max_residues) {
  ByteReader file(bytes, "database chunk");
  if (file.remaining() < 16 || std::memcmp(file.take(8), kChunkMagic, 8) != 0)
    throw InputError("database chunk: not a helix swsearch database chunk");
  const auto raw_size = file.get<std::uint64_t>();
  if (raw_size > 64 * max_residues + 4096) throw InputError("database chunk: declares more data than allowed");
  const std::size_t frame = file.remaining();
  const auto raw = zstd_decompress(file.take(frame), frame, raw_size, "database chunk");
  ByteReader r(raw, "database chunk");
  const auto count = r.get<std::uint64_t>();
  if (count > max_residues) throw InputError("database chunk: more targets than residues allowed");
  DatabaseChunk chunk;
  std::vector<std::uint32_t> lengths;
  std::uint64_t total = 0;
  for (std::uint64_t t = 0; t < count; ++t) {
    chunk.ids.push_back(r.get_string(kMaxIdLength));
    chunk.ordinals.push_back(r.get<std::uint64_t>());
    lengths.push_back(r.get<std::uint32_t>());
    if (lengths.back() == 0) throw InputError("database chunk: an empty target");
    if (t > 0 && (lengths[t] < lengths[t - 1] || (lengths[t] == lengths[t - 1] && chunk.ordinals[t] <= chunk.ordinals[t - 1])))
      throw InputError("database chunk: targets not sorted by length, then ordinal");
    total += lengths.back();
    if (total > max_residues) throw InputError("database chunk: more residues than allowed");
  }
  const std::uint8_t* residues = r.take(total);
  if (r.remaining() != 0) throw InputError("database chunk: trailing bytes");
  chunk.targets.residues.assign(residues, residues + total);
  for (std::uint8_t code : chunk.targets.residues)
    if (code >= kAlphabetSize) throw InputError("database chunk: a residue code out of range");
  for (std::uint32_t length : lengths) chunk.targets.offsets.push_back(chunk.targets.offsets.back() + length);
  return chunk;
}

SwParams parse_sw_params(const nlohmann::json& json) {
  if (!json.is_object()) throw InputError("swsearch params: not a JSON object");
  auto integer = [&](const char* key, long long low, long long high, bool required, long long fallback) -> long long {
    if (!json.contains(key)) {
      if (required) throw InputError(std::string("swsearch params: \"") + key + "\" is missing");
      return fallback;
    }
    const auto& v = json.at(key);
    if (!v.is_number_integer() || v.get<long long>() < low || v.get<long long>() > high)
      throw InputError(std::string("swsearch params: \"") + key + "\" must be an integer in " + std::to_string(low) +
                       ".." + std::to_string(high));
    return v.get<long long>();
  };
  SwParams p;
  if (json.contains("search")) {
    const auto& search = json.at("search");
    if (!search.is_string() || !is_plain_name(search.get<std::string>()))
      throw InputError("swsearch params: \"search\" must be a plain name ([A-Za-z0-9._-], not starting with '.')");
    p.search = search.get<std::string>();
  }
  if (!json.contains("matrix_name") || !json.at("matrix_name").is_string())
    throw InputError("swsearch params: \"matrix_name\" (e.g. \"BLOSUM62\") is missing");
  p.matrix_name = json.at("matrix_name").get<std::string>();
  p.gaps.open = static_cast<int>(integer("gap_open", -1000000, 1000000, true, 0));
  p.gaps.extend = static_cast<int>(integer("gap_extend", -1000000, 1000000, true, 0));
  check_gaps(p.gaps);
  karlin_altschul(p.matrix_name, p.gaps);  // refuses settings with no statistics
  p.top_hits = static_cast<int>(integer("top_hits", 1, 10000, false, 50));
  p.alignments = static_cast<int>(integer("alignments", 0, p.top_hits, false, std::min(10, p.top_hits)));
  p.database_residues = static_cast<std::uint64_t>(integer("database_residues", 1, 1LL << 50, true, 0));
  p.database_sequences = static_cast<std::uint64_t>(integer("database_sequences", 1, 1LL << 40, true, 0));
  p.block_targets = static_cast<std::uint32_t>(integer("block_targets", 1, 1 << 24, false, 65536));
  return p;
}

nlohmann::json sw_params_json(const SwParams& p) {
  nlohmann::json json = {{"kind", "swsearch"},        {"matrix_name", p.matrix_name},
                         {"gap_open", p.gaps.open},   {"gap_extend", p.gaps.extend},
                         {"top_hits", p.top_hits},    {"alignments", p.alignments},
                         {"database_residues", p.database_residues}, {"database_sequences", p.database_sequences},
                         {"block_targets", p.block_targets}};
  if (!p.search.empty()) json["search"] = p.search;
  return json;
}

namespace {
double seconds_since(std::chrono::steady_clock::time_point& start) {
  const auto now = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(now - start).count();
  start = now;
  return seconds;
}
}  // namespace

SearchResult run_sw_job(const SwParams& params, SwEngine& engine, Runtime& runtime) {
  SearchPhases phases;
  auto clock = std::chrono::steady_clock::now();
  const ScoreMatrix matrix = parse_ncbi_matrix(read_file_text(runtime.resolve("matrix")), params.matrix_name);
  const KarlinAltschul ka = karlin_altschul(params.matrix_name, params.gaps);
  const std::vector<FastaRecord> queries = parse_fasta(read_file_text(runtime.resolve("queries")), "queries");
  const DatabaseChunk chunk = decode_chunk(read_file_bytes(runtime.resolve("database")), params.database_residues);
  const std::uint32_t target_count = static_cast<std::uint32_t>(chunk.targets.size());
  const std::uint32_t blocks = (target_count + params.block_targets - 1) / params.block_targets;
  const std::string print = fingerprint(params, queries.size(), chunk);
  ScanState state;
  state.candidates.resize(queries.size());
  phases.read = seconds_since(clock);
  if (auto saved = runtime.restore_state()) decode_state(*saved, print, queries.size(), target_count, state);
  phases.read += seconds_since(clock);
  for (std::uint32_t block = state.next_block; block < blocks; ++block) {
    const std::uint32_t first = block * params.block_targets;
    const std::uint32_t count = std::min(params.block_targets, target_count - first);
    engine.load_targets(block_targets(chunk, first, count));
    phases.load += seconds_since(clock);
    for (std::size_t q = 0; q < queries.size(); ++q)
      merge_block(state.candidates[q], engine.best_scores(queries[q].residues, matrix, params.gaps, params.top_hits),
                  first, chunk, params.top_hits);
    state.next_block = block + 1;
    runtime.report_progress(0.95 * state.next_block / blocks);
    const bool stop = runtime.should_stop();
    if (stop || runtime.checkpoint_due()) runtime.save_state(encode_state(state, print));
    if (stop) throw StopRequested();
    phases.scan += seconds_since(clock);
  }
  SearchResult result{params, {}, target_count, chunk.targets.residues.size(), engine.description(), {}};
  std::vector<std::vector<std::uint8_t>> query_residues;  // the engine's calls take the residues alone
  for (const FastaRecord& query : queries) query_residues.push_back(query.residues);
  const auto ends = reported_ends(query_residues, state, chunk, params, matrix, engine);
  phases.ends = seconds_since(clock);
  const auto alignments = reported_alignments(query_residues, state, ends, chunk, params, matrix, engine);
  for (std::size_t q = 0; q < queries.size(); ++q)
    result.queries.push_back(report_query(queries[q], state.candidates[q], ends[q], alignments[q], chunk, params, ka));
  phases.align = seconds_since(clock);
  result.phases = phases;
  runtime.report_progress(1.0);
  return result;
}

std::string hits_tsv(const SearchResult& result) {
  std::string text =
      "query_id\ttarget_id\tscore\tbits\tevalue\tquery_start\tquery_end\ttarget_start\ttarget_end\tidentities\tlength"
      "\tcigar\ttarget_ordinal\n";
  char numbers[256];
  for (const QueryHits& q : result.queries) {
    for (const Hit& h : q.hits) {
      std::snprintf(numbers, sizeof numbers, "\t%d\t%.1f\t%.3e\t%d\t%d\t%d\t%d\t%d\t%d\t", h.score, h.bits, h.evalue,
                    h.query_start, h.query_end, h.target_start, h.target_end, h.identities, h.length);
      text += q.query_id + "\t" + h.target_id + numbers + (h.cigar.empty() ? "-" : h.cigar) + "\t" +
              std::to_string(h.target_ordinal) + "\n";
    }
  }
  return text;
}

std::vector<std::vector<std::string>> parse_hits_tsv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.rfind("query_id\ttarget_id\tscore\t", 0) != 0)
    throw InputError("hits table: missing or wrong header");
  std::vector<std::vector<std::string>> rows;
  for (int number = 2; std::getline(in, line); ++number) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
      fields.push_back(line.substr(start, tab - start));
    fields.push_back(line.substr(start));
    if (fields.size() != 13) throw InputError("hits table: line " + std::to_string(number) + " does not have 13 fields");
    rows.push_back(std::move(fields));
  }
  return rows;
}

std::string sw_summary_json(const SearchResult& result) {
  nlohmann::json queries = nlohmann::json::array();
  for (const QueryHits& q : result.queries)
    queries.push_back({{"id", q.query_id}, {"length", q.query_length}, {"hits", q.hits.size()},
                       {"best_score", q.hits.empty() ? 0 : q.hits.front().score}});
  const nlohmann::json summary = {{"kind", "swsearch"},
                                  {"engine", result.engine},
                                  {"params", sw_params_json(result.params)},
                                  {"chunk_targets", result.chunk_targets},
                                  {"chunk_residues", result.chunk_residues},
                                  {"queries", queries}};
  return summary.dump(1) + "\n";
}

}  // namespace helix::sw
