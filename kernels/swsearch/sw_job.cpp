// sw_job.cpp: a swsearch work unit from inputs to result (sw_job.h): the
// scan of the database chunk round by round (one or more whole blocks, as
// many as the engine takes in one load) and query by query, checkpointed
// after any query (core/checkpoint.h's envelope around the candidates so far),
// then the reported hits' ends and alignments.
#include "sw_job.h"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/byte_codec.h"
#include "core/checkpoint.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/phase_clock.h"
#include "sw_statistics.h"

namespace helix::swsearch {
namespace {

// 03: the state records the round under way (02: one block a round; 01:
// blocks only). An older state starts the WU afresh.
constexpr char kStateMagic[8] = {'H', 'X', 'S', 'W', 'S', 'T', '0', '3'};

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

// The scan goes round by round and, inside a round, query by query. A round
// is blocks [next_block, round_end): a restart with next_query > 0 finishes
// that round from query next_query, whatever round the engine it resumes on
// would take (its first queries have seen all of the round's blocks).
struct ScanState {
  std::uint32_t next_block = 0;
  std::uint32_t next_query = 0;
  std::uint32_t round_end = 0;  // meaningful while next_query > 0
  std::vector<std::vector<Candidate>> candidates;  // per query
};

// The end of the round that starts at `block`: as many whole blocks as hold
// `round_residues` residues together, at least one (0: one block).
std::uint32_t round_end_of(const SequenceSet& targets, std::uint32_t block_targets, std::uint32_t block,
                           std::uint32_t blocks, std::uint64_t round_residues) {
  const auto block_start = [&](std::uint32_t b) {
    return targets.offsets[std::min<std::size_t>(std::size_t{b} * block_targets, targets.size())];
  };
  std::uint32_t end = block + 1;
  while (end < blocks && block_start(end + 1) - block_start(block) <= round_residues) ++end;
  return end;
}

std::string fingerprint(const SwParams& params, std::size_t queries, const DatabaseChunk& chunk) {
  return sw_params_json(params).dump() + " " + std::to_string(queries) + " " + std::to_string(chunk.targets.size()) +
         " " + std::to_string(chunk.targets.residues.size());
}

std::vector<std::uint8_t> encode_state(const ScanState& state, const std::string& print) {
  ByteWriter w = begin_checkpoint(kStateMagic, print);
  w.put<std::uint32_t>(state.next_block);
  w.put<std::uint32_t>(state.next_query);
  w.put<std::uint32_t>(state.round_end);
  w.put<std::uint32_t>(state.candidates.size());
  for (const auto& list : state.candidates) {
    w.put<std::uint32_t>(list.size());
    for (const Candidate& c : list) w.put<std::int32_t>(c.score), w.put<std::uint64_t>(c.ordinal), w.put<std::uint32_t>(c.index);
  }
  return std::move(w.bytes());
}

// False (start afresh, `state` untouched) for another WU's state or a damaged one.
bool decode_state(const std::vector<std::uint8_t>& bytes, const std::string& print, std::size_t queries,
                  std::size_t chunk_targets, std::uint32_t blocks, ScanState& state) {
  return read_checkpoint(bytes, kStateMagic, print, [&](ByteReader& r) {
    ScanState loaded;
    loaded.next_block = r.get<std::uint32_t>();
    loaded.next_query = r.get<std::uint32_t>();
    loaded.round_end = r.get<std::uint32_t>();
    if (loaded.next_query >= std::max<std::size_t>(queries, 1)) return false;
    if (loaded.next_block > blocks) return false;
    if (loaded.next_query > 0 && (loaded.round_end <= loaded.next_block || loaded.round_end > blocks)) return false;
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
  });
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

SearchResult run_sw_job(const SwParams& params, SwEngine& engine, Runtime& runtime) {
  SearchPhases phases;
  PhaseClock clock;
  const ScoreMatrix matrix = parse_ncbi_matrix(read_file_text(runtime.resolve("matrix")), params.matrix_name);
  const KarlinAltschul ka = karlin_altschul(params.matrix_name, params.gaps);
  const std::vector<FastaRecord> queries = parse_fasta(read_file_text(runtime.resolve("queries")), "queries");
  const DatabaseChunk chunk = decode_chunk(read_file_bytes(runtime.resolve("database")), params.database_residues);
  const std::uint32_t target_count = static_cast<std::uint32_t>(chunk.targets.size());
  const std::uint32_t blocks = (target_count + params.block_targets - 1) / params.block_targets;
  const std::string print = fingerprint(params, queries.size(), chunk);
  ScanState state;
  state.candidates.resize(queries.size());
  phases.read = clock.lap();
  if (auto saved = runtime.restore_state()) decode_state(*saved, print, queries.size(), target_count, blocks, state);
  phases.read += clock.lap();
  for (std::uint32_t block = state.next_block; block < blocks;) {
    const std::uint32_t round_end =
        state.next_query > 0 ? state.round_end : round_end_of(chunk.targets, params.block_targets, block, blocks,
                                                              engine.round_residues());
    const std::uint32_t first = block * params.block_targets;
    const auto count = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(std::uint64_t{round_end} * params.block_targets, target_count) - first);
    engine.load_targets(chunk.targets.slice(first, count));
    phases.load += clock.lap();
    // Progress, checkpoints and stops query by query: a CPU-class WU's chunk
    // is one block of minutes, a GPU's one round.
    for (std::size_t q = state.next_query; q < queries.size(); ++q) {
      merge_block(state.candidates[q], engine.best_scores(queries[q].residues, matrix, params.gaps, params.top_hits),
                  first, chunk, params.top_hits);
      runtime.report_progress(
          0.95 * (block + (round_end - block) * static_cast<double>(q + 1) / queries.size()) / blocks);
      const bool round_done = q + 1 == queries.size();
      state.next_block = round_done ? round_end : block;
      state.next_query = round_done ? 0 : static_cast<std::uint32_t>(q + 1);
      state.round_end = round_done ? 0 : round_end;
      checkpoint_block_boundary(runtime, [&] { return encode_state(state, print); });
    }
    phases.scan += clock.lap();
    block = round_end;
  }
  SearchResult result{params, {}, target_count, chunk.targets.residues.size(), engine.description(), {}};
  std::vector<std::vector<std::uint8_t>> query_residues;  // the engine's calls take the residues alone
  for (const FastaRecord& query : queries) query_residues.push_back(query.residues);
  const auto ends = reported_ends(query_residues, state, chunk, params, matrix, engine);
  phases.ends = clock.lap();
  const auto alignments = reported_alignments(query_residues, state, ends, chunk, params, matrix, engine);
  for (std::size_t q = 0; q < queries.size(); ++q)
    result.queries.push_back(report_query(queries[q], state.candidates[q], ends[q], alignments[q], chunk, params, ka));
  phases.align = clock.lap();
  result.phases = phases;
  runtime.report_progress(1.0);
  return result;
}

}  // namespace helix::swsearch
