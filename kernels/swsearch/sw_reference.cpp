// sw_reference.cpp: the swsearch CPU reference (sw.h): Gotoh's affine-gap
// Smith-Waterman, scalar and plain, in 32-bit integers. Recurrences, with
// query position i (rows) and target position j (columns), s the matrix:
//   E(i,j) = max(H(i,j-1) - open, E(i,j-1) - extend)   gap in the query (D)
//   F(i,j) = max(H(i-1,j) - open, F(i-1,j) - extend)   gap in the target (I)
//   H(i,j) = max(0, H(i-1,j-1) + s(q_i, t_j), E(i,j), F(i,j))
#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/errors.h"
#include "sw.h"
#include "sw_engine.h"
#include "sw_traceback.h"

namespace helix::swsearch {
namespace {

constexpr int kMinusInfinity = std::numeric_limits<int>::min() / 2;  // no overflow when a penalty is subtracted

// Runs the recurrences over query[0..rows) x target[0..columns), calling
// visit(i, j, h, source_bits) for every cell, target position outer (the
// order sw_score's tie rule names). Ties between sources go to the diagonal,
// then F, then E; inside a gap, to opening it (from H) over extending it.
template <typename Visit>
void run_dp(const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target, int rows, int columns,
            const ScoreMatrix& matrix, const GapPenalties& gaps, Visit&& visit) {
  // Column by column: h_previous = H(., j-1), e_row = E(., j-1).
  std::vector<int> h_previous(rows + 1, 0), h_current(rows + 1, 0), e_row(rows + 1, kMinusInfinity);
  for (int j = 1; j <= columns; ++j) {
    const auto& scores = matrix.score[target[j - 1]];
    int f = kMinusInfinity;
    h_current[0] = 0;
    for (int i = 1; i <= rows; ++i) {
      std::uint8_t bits = 0;
      const int e_open = h_previous[i] - gaps.open, e_extend = e_row[i] - gaps.extend;
      const int e = std::max(e_open, e_extend);
      if (e_extend > e_open) bits |= kEExtends;
      const int f_open = h_current[i - 1] - gaps.open, f_extend = f - gaps.extend;
      f = std::max(f_open, f_extend);
      if (f_extend > f_open) bits |= kFExtends;
      const int diagonal = h_previous[i - 1] + scores[query[i - 1]];
      int h = 0;
      std::uint8_t source = kHFromZero;
      if (diagonal > h) h = diagonal, source = kHFromDiagonal;
      if (f > h) h = f, source = kHFromF;
      if (e > h) h = e, source = kHFromE;
      e_row[i] = e;
      h_current[i] = h;
      visit(i, j, h, static_cast<std::uint8_t>(bits | source));
    }
    std::swap(h_previous, h_current);
  }
}

}  // namespace

LocalScore sw_score(const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target,
                    const ScoreMatrix& matrix, const GapPenalties& gaps) {
  LocalScore best;
  run_dp(query, target, static_cast<int>(query.size()), static_cast<int>(target.size()), matrix, gaps,
         [&](int i, int j, int h, std::uint8_t) {
           if (h > best.score) best = {h, i - 1, j - 1};
         });
  return best;
}

Alignment sw_align(const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target,
                   const ScoreMatrix& matrix, const GapPenalties& gaps) {
  return sw_align(query, target, matrix, gaps, sw_score(query, target, matrix, gaps));
}

Alignment sw_align(const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target,
                   const ScoreMatrix& matrix, const GapPenalties& gaps, const LocalScore& end) {
  Alignment alignment;
  if (end.score == 0) return alignment;
  if (end.query_end < 0 || end.query_end >= static_cast<int>(query.size()) || end.target_end < 0 ||
      end.target_end >= static_cast<int>(target.size()))
    throw std::invalid_argument("sw_align: end (" + std::to_string(end.query_end) + ", " +
                                std::to_string(end.target_end) + ") lies outside the sequences");
  // Only cells up to the end matter for its traceback.
  const int rows = end.query_end + 1, columns = end.target_end + 1;
  // Column-major, as run_dp() visits the cells (target position outer): its
  // writes go to consecutive bytes instead of one cache line each.
  std::vector<std::uint8_t> sources(static_cast<std::size_t>(rows + 1) * (columns + 1), kHFromZero);
  auto at = [&](int i, int j) { return static_cast<std::size_t>(j) * (rows + 1) + i; };
  run_dp(query, target, rows, columns, matrix, gaps, [&](int i, int j, int h, std::uint8_t bits) {
    sources[at(i, j)] = bits;
    if (i == rows && j == columns) alignment.score = h;
  });
  if (alignment.score == 0) return alignment;  // a wrong end: nothing to trace; the caller sees the score
  return trace_back(query, target, end, alignment.score, [&](int i, int j) { return sources[at(i, j)]; });
}

Alignment trace_back(const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target,
                     const LocalScore& end, int end_score, const std::function<std::uint8_t(int, int)>& bits_at) {
  Alignment alignment;
  alignment.score = end_score;
  if (end_score == 0) return alignment;
  std::vector<TracebackRun> reversed_runs;
  const TracebackWalk walk = walk_traceback(query.data(), target.data(), end.query_end + 1, end.target_end + 1, bits_at,
                                            [&](TracebackRun run) { reversed_runs.push_back(run); });
  if (walk.left_matrix) throw std::invalid_argument("trace_back: the walk left the matrix");
  alignment.query_begin = walk.query_begin, alignment.target_begin = walk.target_begin;
  alignment.query_end = end.query_end, alignment.target_end = end.target_end;
  alignment.identities = walk.identities, alignment.length = walk.length;
  append_cigar_of_reversed_runs(reversed_runs.data(), reversed_runs.size(), alignment.cigar);
  return alignment;
}

int score_of_cigar(const std::vector<std::uint8_t>& query, const std::vector<std::uint8_t>& target, int query_begin,
                   int target_begin, const std::string& cigar, const ScoreMatrix& matrix, const GapPenalties& gaps) {
  if (query_begin < 0 || target_begin < 0) throw InputError("alignment: negative start position");
  long i = query_begin, j = target_begin, score = 0;
  std::size_t pos = 0;
  while (pos < cigar.size()) {
    std::size_t digits = pos;
    while (digits < cigar.size() && cigar[digits] >= '0' && cigar[digits] <= '9') ++digits;
    if (digits == pos || digits == cigar.size() || digits - pos > 9) throw InputError("alignment: malformed CIGAR " + cigar);
    const long count = std::stol(cigar.substr(pos, digits - pos));
    const char op = cigar[digits];
    pos = digits + 1;
    if (count < 1) throw InputError("alignment: a CIGAR run of length 0");
    if (op == 'M') {
      if (i + count > static_cast<long>(query.size()) || j + count > static_cast<long>(target.size()))
        throw InputError("alignment: CIGAR runs off a sequence");
      for (long k = 0; k < count; ++k) score += matrix.score[query[i + k]][target[j + k]];
      i += count, j += count;
    } else if (op == 'I' || op == 'D') {
      long& position = op == 'I' ? i : j;
      if (position + count > static_cast<long>(op == 'I' ? query.size() : target.size()))
        throw InputError("alignment: CIGAR runs off a sequence");
      score -= gaps.open + (count - 1) * gaps.extend;
      position += count;
    } else {
      throw InputError(std::string("alignment: unknown CIGAR op '") + op + "'");
    }
  }
  return static_cast<int>(score);
}

}  // namespace helix::swsearch

namespace helix::swsearch {

SequenceSet make_target_set(const std::vector<std::vector<std::uint8_t>>& targets) {
  SequenceSet set;
  for (const auto& target : targets) set.append(target);
  return set;
}

namespace {

class ReferenceEngine final : public SwEngine {
 public:
  std::string description() const override { return "CPU reference (scalar, one thread)"; }
  void load_targets(const SequenceSet& targets) override { targets_ = targets; }
  std::vector<std::int32_t> scores(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix,
                                   const GapPenalties& gaps) override {
    std::vector<std::int32_t> out;
    for (std::size_t t = 0; t < targets_.size(); ++t) {
      const std::vector<std::uint8_t> target(targets_.begin(t), targets_.begin(t) + targets_.length(t));
      out.push_back(sw_score(query, target, matrix, gaps).score);
    }
    return out;
  }

 private:
  SequenceSet targets_;
};

}  // namespace

std::unique_ptr<SwEngine> make_reference_engine() { return std::make_unique<ReferenceEngine>(); }

std::vector<ScoredTarget> SwEngine::best_scores(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix,
                                                const GapPenalties& gaps, std::size_t limit) {
  const std::vector<std::int32_t> all = scores(query, matrix, gaps);
  std::vector<std::int32_t> positive;
  for (std::int32_t score : all)
    if (score > 0) positive.push_back(score);
  std::int32_t threshold = 1;
  if (limit > 0 && positive.size() > limit) {
    std::nth_element(positive.begin(), positive.begin() + (limit - 1), positive.end(), std::greater<>());
    threshold = positive[limit - 1];
  }
  std::vector<ScoredTarget> best;
  for (std::size_t t = 0; t < all.size(); ++t)
    if (all[t] >= threshold) best.push_back({static_cast<std::uint32_t>(t), all[t]});
  return best;
}

std::vector<LocalScore> SwEngine::ends(const std::vector<std::vector<std::uint8_t>>& queries,
                                       const std::vector<HitPair>& pairs, const ScoreMatrix& matrix,
                                       const GapPenalties& gaps) {
  std::vector<LocalScore> out;
  out.reserve(pairs.size());
  for (const HitPair& pair : pairs) {
    const std::vector<std::uint8_t> target(pair.target, pair.target + pair.target_length);
    out.push_back(sw_score(queries.at(pair.query), target, matrix, gaps));
  }
  return out;
}

std::vector<Alignment> SwEngine::alignments(const std::vector<std::vector<std::uint8_t>>& queries,
                                            const std::vector<HitPair>& pairs, const std::vector<LocalScore>& ends,
                                            const ScoreMatrix& matrix, const GapPenalties& gaps) {
  if (ends.size() != pairs.size()) throw std::invalid_argument("alignments: one end per pair");
  std::vector<Alignment> out;
  out.reserve(pairs.size());
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const std::vector<std::uint8_t> target(pairs[p].target, pairs[p].target + pairs[p].target_length);
    out.push_back(sw_align(queries.at(pairs[p].query), target, matrix, gaps, ends[p]));
  }
  return out;
}

}  // namespace helix::swsearch
