// hmm_sampling.cpp: stochastic tracebacks, null2 by trace and the
// segment-pair ensemble of hmmsearch's multi-domain regions (hmm_sampling.h).
//
// HMMER's SSE code keeps the Forward matrix striped (node k in segment
// q = (k-1) % Q, lane r = (k-1) / Q, with Q = max(2, ceil(M/4))). Per cell
// the values are those of DpMatrix, so only two places need the striped
// order: the E-state choice, which accumulates cells in that order, and the
// null2 sums, which add per lane and then across lanes.
#include "hmm_sampling.h"

#include <algorithm>
#include <numeric>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace helix::hmmsearch {

// ---------------------------------------------------------------------------
// Easel's fast generator

std::uint32_t easel_mix3(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  // Unsigned arithmetic wraps modulo 2^32, as in Easel.
  a -= b, a -= c, a ^= (c >> 13);
  b -= c, b -= a, b ^= (a << 8);
  c -= a, c -= b, c ^= (b >> 13);
  a -= b, a -= c, a ^= (c >> 12);
  b -= c, b -= a, b ^= (a << 16);
  c -= a, c -= b, c ^= (b >> 5);
  a -= b, a -= c, a ^= (c >> 3);
  b -= c, b -= a, b ^= (a << 10);
  c -= a, c -= b, c ^= (b >> 15);
  return c;
}

void EaselFastRandom::init(std::uint32_t seed) {
  if (seed == 0) throw std::invalid_argument("EaselFastRandom: seed 0 (Easel's time-based seed) is not reproducible");
  seed_ = seed;
  stream_.x = easel_mix3(seed, 87654321u, 12345678u);
  if (stream_.x == 0) stream_.x = 42;  // Easel's guard against a zero state
}

namespace {

// HMMER's striped segment count (p7O_NQF).
int striped_segments(int M) { return std::max(2, (M - 1) / 4 + 1); }

}  // namespace

Trace stochastic_trace(EaselFastRandom& rng, const std::uint8_t* codes, int L, const OddsProfile& profile,
                       const DpMatrix& fwd) {
  (void)codes;  // the emissions are already in the Forward cells; HMMER's signature has them too
  auto fail = [](const char* what) { throw std::runtime_error(std::string("stochastic_trace: ") + what); };
  // The predecessor choices of hmm_sampling_rows.h (HMMER's select_* for the
  // SSE matrix layout, one draw each), from the same generator.
  using namespace sampling;
  const StripedOdds striped = profile.striped();
  const ForwardCells f{striped, fwd.cells(), fwd.specials(), L};
  WalkChoices choices(f);
  EaselStream& stream = rng.stream();
  // Built from the end with HMMER's append rules, then reversed (Trace
  // moves each N/C/J residue to its run's proper end, as HMMER does).
  Trace backward;
  int i = L, k = 0;
  backward.append(kTraceT, k, i);
  backward.append(kTraceC, k, i);
  int current = kTraceC;
  while (current != kTraceS) {
    int previous = kTraceBogus;
    switch (current) {
      case kTraceM:
        if (i < 1 || k < 1) fail("match state outside the matrix");
        previous = previous_of_match(stream, choices, i, k), --k, --i;
        break;
      case kTraceD:
        if (k < 1) fail("delete state outside the matrix");
        previous = previous_of_delete(stream, choices, i, k), --k;
        break;
      case kTraceI:
        if (i < 1 || k < 1) fail("insert state outside the matrix");
        previous = previous_of_insert(stream, choices, i, k), --i;
        break;
      case kTraceN: previous = i == 0 ? kTraceS : kTraceN; break;
      case kTraceC:
        if (i < 1) fail("C state before the first residue");
        previous = previous_of_c(stream, choices, i);
        break;
      case kTraceJ:
        if (i < 1) fail("J state before the first residue");
        previous = previous_of_j(stream, choices, i);
        break;
      case kTraceE: previous = previous_of_e(stream, f, i, k); break;
      case kTraceB: previous = previous_of_b(stream, choices, i); break;
      default: fail("bogus state");
    }
    if (previous < 0) fail("a state with no predecessor (not a Forward matrix of these residues)");
    backward.append(static_cast<TraceState>(previous), k, i);
    // Staying in N, C or J emits residue i; moving on does not.
    if ((previous == kTraceN || previous == kTraceC || previous == kTraceJ) && previous == current) --i;
    current = previous;
  }
  backward.reverse();
  return backward;
}

// ---------------------------------------------------------------------------
// Null2 by trace

std::array<float, kCodes> null2_by_trace(const OddsProfile& profile, const Trace& trace, int tfrom, int tto) {
  const int M = profile.core.M, Q = striped_segments(M);
  std::vector<float> usage(M + 1, 0.0f);  // per node: emissions by its M or I
  std::vector<int> used;                  // the nodes with usage, in node order once sorted
  float n_use = 0.0f, c_use = 0.0f, j_use = 0.0f;
  int emitted = 0;
  for (int z = tfrom; z <= tto; ++z) {
    if (trace.i[z] == 0) continue;
    ++emitted;
    if (trace.k[z] > 0) {
      if (usage[trace.k[z]] == 0.0f) used.push_back(trace.k[z]);
      usage[trace.k[z]] += 1.0f;  // HMMER counts inserts in the match cell too
    }
    else if (trace.state[z] == kTraceN)
      n_use += 1.0f;
    else if (trace.state[z] == kTraceC)
      c_use += 1.0f;
    else if (trace.state[z] == kTraceJ)
      j_use += 1.0f;
  }
  const float norm = static_cast<float>(1.0 / static_cast<float>(emitted));
  // Only the nodes the domain used: the others would add 0 x (finite odds) =
  // +0 to a lane, which leaves it as it is, so skipping them changes no bit
  // and makes this O(domain) instead of O(M) per code.
  std::sort(used.begin(), used.end());
  for (int node : used) usage[node] *= norm;
  n_use *= norm, c_use *= norm, j_use *= norm;
  const float outside = n_use + c_use + j_use;

  std::array<float, kCodes> null2{};
  for (int x = 0; x < kResidues; ++x) {
    // Per lane (node k in lane (k-1) / Q) in node order, then HMMER's
    // horizontal sum (0+1)+(2+3). Insert odds are 1 but HMMER's insert usage
    // here is always 0.
    const float* odds = profile.core.match + static_cast<std::size_t>(x) * M;
    float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int node : used) lane[(node - 1) / Q] = lane[(node - 1) / Q] + usage[node] * odds[node - 1];
    null2[x] = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + outside;
  }
  // Degenerate codes: the mean of their residues' odds (esl_abc_FAvgScVec).
  for (int code = kFirstDegenerate; code <= kLastDegenerate; ++code) {
    float total = 0.0f;
    int members = 0;
    for (int x = 0; x < kResidues; ++x)
      if (code_includes(code, x)) total += null2[x], ++members;
    null2[code] = total / static_cast<float>(members);
  }
  null2[kGapCode] = null2[kNonresidueCode] = null2[kMissingCode] = 1.0f;
  return null2;
}

// ---------------------------------------------------------------------------
// Segment-pair ensemble

ClusterParameters cluster_parameters(const DomainDefinitionOptions& options) {
  return {options.min_overlap, options.of_smaller, options.max_diagdiff, options.min_posterior,
          options.min_endpointp};
}

void SegmentPairEnsemble::add(int sample, int i, int j, int k, int m) {
  if (sample > samples_) throw std::invalid_argument("SegmentPairEnsemble::add: sample number out of order");
  if (sample == samples_) ++samples_;
  pairs_.push_back({sample, i, j, k, m});
}

bool segment_pairs_linked(const SegmentPair& a, const SegmentPair& b, const ClusterParameters& params) {
  auto length_for_fraction = [&](int length_a, int length_b) {
    return params.of_smaller ? std::min(length_a, length_b) : std::max(length_a, length_b);
  };
  const int seq_overlap = std::min(a.j, b.j) - std::max(a.i, b.i) + 1;
  // Disjoint segments, the common case between domains: the fraction below
  // is <= 0, under any positive min_overlap, without a division.
  if (seq_overlap <= 0 && params.min_overlap > 0.0f) return false;
  const int seq_length = length_for_fraction(a.j - a.i + 1, b.j - b.i + 1);
  if (static_cast<float>(seq_overlap) / static_cast<float>(seq_length) < params.min_overlap) return false;
  // HMMER counts the model overlap one short (no +1); kept for identical links.
  const int hmm_overlap = std::min(a.m, b.m) - std::max(a.k, b.k);
  const int hmm_length = length_for_fraction(a.m - a.k + 1, b.m - b.k + 1);
  if (static_cast<float>(hmm_overlap) / static_cast<float>(hmm_length) < params.min_overlap) return false;
  if (std::abs((a.i - a.k) - (b.i - b.k)) <= params.max_diagdiff) return true;
  return std::abs((a.j - a.m) - (b.j - b.m)) <= params.max_diagdiff;
}

namespace {

// The pairs sorted by one key (a diagonal), skipping pairs already
// clustered: `next` is path-compressed, so ranges of clustered pairs cost
// nothing on later visits. A region's diagonals span at most its length
// plus the model's, so the pairs are counting-sorted (stable: equal keys in
// pair order) and the count table gives where each key's run begins, in
// place of a sort and a binary search per visit (they were half of the
// clustering's time).
class PairsByKey {
 public:
  template <typename Key>
  PairsByKey(int n, Key key) : order_(n), rank_(n), next_(n + 1) {
    std::vector<int> keys(n);
    for (int u = 0; u < n; ++u) keys[u] = key(u);
    low_ = n > 0 ? *std::min_element(keys.begin(), keys.end()) : 0;
    const int high = n > 0 ? *std::max_element(keys.begin(), keys.end()) : -1;
    run_start_.assign(static_cast<std::size_t>(high - low_) + 2, 0);  // keys low_ .. high + 1
    for (int u = 0; u < n; ++u) ++run_start_[keys[u] - low_ + 1];
    for (std::size_t k = 1; k < run_start_.size(); ++k) run_start_[k] += run_start_[k - 1];
    std::vector<int> place(run_start_.begin(), run_start_.end() - 1);
    for (int u = 0; u < n; ++u) order_[place[keys[u] - low_]++] = u;
    for (int r = 0; r < n; ++r) rank_[order_[r]] = r;
    std::iota(next_.begin(), next_.end(), 0);
  }
  void remove(int u) { next_[rank_[u]] = rank_[u] + 1; }
  // Calls visit(u) for each pair still unclustered whose key is in [low, high].
  template <typename Visit>
  void each_in(int low, int high, Visit visit) {
    const int end = first_rank_at_least(high + 1);
    for (int r = unclustered_from(first_rank_at_least(low)); r < end; r = unclustered_from(r + 1)) visit(order_[r]);
  }

 private:
  int first_rank_at_least(int key) const {
    const long k = std::clamp<long>(static_cast<long>(key) - low_, 0, static_cast<long>(run_start_.size()) - 1);
    return run_start_[static_cast<std::size_t>(k)];
  }
  int unclustered_from(int r) {
    int root = r;
    while (next_[root] != root) root = next_[root];
    while (next_[r] != root) {
      const int up = next_[r];
      next_[r] = root, r = up;
    }
    return root;
  }
  std::vector<int> order_, rank_, next_;
  int low_ = 0;                 // the smallest key
  std::vector<int> run_start_;  // [k]: the rank of the first pair whose key is at least low_ + k
};

}  // namespace

std::vector<int> SegmentPairEnsemble::link_clusters(const ClusterParameters& params, int& nclusters) const {
  // Easel's single linkage: a stack of unclustered pairs (pair 0 on top), a
  // stack of pairs to extend; extending v scans the unclustered stack from
  // its top, and each pair linked to v goes onto the extend stack and out of
  // the unclustered one, the top moved into its hole. The partition is the
  // same whatever the order; the cluster numbers (and so the order of
  // clusters with equal starts) follow this one, which is kept exactly:
  // - a pair moved into a hole comes from above the scan, so the pairs
  //   linked to v leave in order of their positions when the scan began;
  // - two pairs link only if their start diagonals (i - k) or their end
  //   diagonals (j - m) are at most max_diagdiff apart, so only those pairs
  //   are looked at, not every unclustered one: a long region's thousands of
  //   pairs cost O(n) each to extend before.
  const int n = static_cast<int>(pairs_.size());
  std::vector<int> available(n), position(n), to_extend, assignment(n, -1), seen(n, -1);
  for (int v = 0; v < n; ++v) available[v] = n - v - 1, position[n - v - 1] = v;
  int navailable = n;
  PairsByKey by_start(n, [&](int u) { return pairs_[u].i - pairs_[u].k; });
  PairsByKey by_end(n, [&](int u) { return pairs_[u].j - pairs_[u].m; });
  const int near = std::max(0, params.max_diagdiff);
  auto cluster_it = [&](int u) { by_start.remove(u), by_end.remove(u), position[u] = -1; };
  std::vector<int> linked;
  nclusters = 0;
  while (navailable > 0) {
    const int start = available[--navailable];
    cluster_it(start);
    to_extend.push_back(start);
    while (!to_extend.empty()) {
      const int v = to_extend.back();
      to_extend.pop_back();
      assignment[v] = nclusters;
      const SegmentPair& pv = pairs_[v];
      linked.clear();
      auto consider = [&](int u) {
        if (seen[u] == v) return;  // near on both diagonals
        seen[u] = v;
        if (segment_pairs_linked(pv, pairs_[u], params)) linked.push_back(u);
      };
      by_start.each_in(pv.i - pv.k - near, pv.i - pv.k + near, consider);
      by_end.each_in(pv.j - pv.m - near, pv.j - pv.m + near, consider);
      std::sort(linked.begin(), linked.end(), [&](int x, int y) { return position[x] > position[y]; });
      for (int u : linked) {  // u leaves the unclustered stack; the top fills its hole
        const int hole = position[u], top = available[--navailable];
        available[hole] = top, position[top] = hole;
        cluster_it(u);
        to_extend.push_back(u);
      }
    }
    ++nclusters;
  }
  return assignment;
}

namespace {

// Endpoint choice within one cluster: the outermost coordinate held by at
// least `threshold` pairs, scanning from the low end (starts) or the high
// end (ends); if none is, the most frequent one (the lowest on ties).
int consensus_endpoint(const std::vector<int>& values, int threshold, bool from_low_end) {
  const int low = *std::min_element(values.begin(), values.end());
  const int high = *std::max_element(values.begin(), values.end());
  std::vector<int> count(high - low + 1, 0);
  for (int v : values) ++count[v - low];
  if (from_low_end) {
    for (int v = low; v <= high; ++v)
      if (count[v - low] >= threshold) return v;
  } else {
    for (int v = high; v >= low; --v)
      if (count[v - low] >= threshold) return v;
  }
  int best = 0;
  for (int c = 1; c < static_cast<int>(count.size()); ++c)
    if (count[c] > count[best]) best = c;
  return low + best;
}

}  // namespace

std::vector<EnsembleCluster> SegmentPairEnsemble::cluster(const ClusterParameters& params) const {
  int nclusters = 0;
  const std::vector<int> assignment = link_clusters(params, nclusters);
  std::vector<EnsembleCluster> significant;
  std::vector<std::vector<int>> members(nclusters);  // each cluster's pairs, in pair order
  for (std::size_t h = 0; h < pairs_.size(); ++h) members[assignment[h]].push_back(static_cast<int>(h));
  for (int c = 0; c < nclusters; ++c) {
    // Traces with a pair in the cluster: pairs arrive by sample, so a new
    // sample number in the scan is a new trace.
    int traces = 0, last_sample = -1;
    std::vector<int> is, js, ks, ms;
    for (int h : members[c]) {
      const SegmentPair& p = pairs_[h];
      if (p.sample != last_sample) ++traces;
      last_sample = p.sample;
      is.push_back(p.i), js.push_back(p.j), ks.push_back(p.k), ms.push_back(p.m);
    }
    const float posterior = static_cast<float>(traces) / static_cast<float>(samples_);
    if (posterior < params.min_posterior) continue;
    const int threshold = static_cast<int>(std::ceil(static_cast<float>(traces) * params.min_endpointp));
    EnsembleCluster sig;
    sig.i = consensus_endpoint(is, threshold, true);
    sig.k = consensus_endpoint(ks, threshold, true);
    sig.j = consensus_endpoint(js, threshold, false);
    sig.m = consensus_endpoint(ms, threshold, false);
    if (sig.i > sig.j || sig.k > sig.m) continue;  // no consistent domain (e.g. biased composition)
    sig.cluster = c;
    sig.posterior = posterior;
    significant.push_back(sig);
  }
  std::stable_sort(significant.begin(), significant.end(),
                   [](const EnsembleCluster& a, const EnsembleCluster& b) { return a.i < b.i; });
  return significant;
}

// ---------------------------------------------------------------------------
// The region's ensemble

namespace {

// Drops clusters dominated by an overlapping one of higher posterior.
// Clusters are in order of i; each is compared with those after it until one
// overlaps by exactly zero residues (HMMER's early stop; a negative overlap
// does not stop it). On equal posteriors the earlier cluster is dropped.
std::vector<RegionEnvelope> undominated(const std::vector<EnsembleCluster>& clusters) {
  const int n = static_cast<int>(clusters.size());
  std::vector<bool> dominated(n, false);
  for (int d = 0; d < n; ++d)
    for (int d2 = d + 1; d2 < n; ++d2) {
      const EnsembleCluster &a = clusters[d], &b = clusters[d2];
      const int overlap = std::min(a.j, b.j) - std::max(a.i, b.i) + 1;
      if (overlap == 0) break;
      const int shorter = std::min(a.j - a.i + 1, b.j - b.i + 1);
      if (static_cast<float>(overlap) / static_cast<float>(shorter) >= 0.8f) {
        if (a.posterior > b.posterior)
          dominated[d2] = true;
        else
          dominated[d] = true;
      }
    }
  std::vector<RegionEnvelope> envelopes;
  for (int d = 0; d < n; ++d)
    if (!dominated[d]) envelopes.push_back({clusters[d].i, clusters[d].j, clusters[d].k, clusters[d].m,
                                            clusters[d].posterior});
  return envelopes;
}

}  // namespace

const CodeMembers& code_members() {
  static const CodeMembers members = [] {
    CodeMembers m{};
    for (int code = 0; code < kCodes; ++code)
      for (int y = 0; y < kResidues; ++y)
        if (code_includes(code, y)) m.mask[code] |= 1u << y;
    return m;
  }();
  return members;
}

RegionSamples sample_region(const OddsProfile& multihit, const std::uint8_t* region_codes, int Lr,
                            const DpMatrix& region_forward, int samples, std::uint32_t rng_state) {
  const int M = multihit.core.M;
  std::vector<float> usage(M + 1, 0.0f);
  std::vector<int> used(M);
  RegionSamples result;
  // Room for 4 domains a trace, then more if a region holds more.
  for (std::size_t room = 4 * static_cast<std::size_t>(samples) + 16;; room *= 4) {
    result.pairs.resize(room);
    result.sums.assign(Lr, 0.0f);
    const SamplingScratch scratch{usage.data(), used.data(), result.pairs.data(), static_cast<int>(room),
                                  result.sums.data()};
    int count = 0;
    const int status = sample_region_rows(multihit.striped(), code_members(), region_codes, Lr,
                                          region_forward.cells(), region_forward.specials(), samples, rng_state,
                                          scratch, count);
    if (status == kSampleNoPredecessor)
      throw std::runtime_error("stochastic_trace: a sampled state has no predecessor (not a Forward matrix of the region)");
    if (status == kSampled) {
      result.pairs.resize(count);
      return result;
    }
    std::fill(usage.begin(), usage.end(), 0.0f);  // the walk stopped mid-domain
  }
}

RegionSamples sample_target_region(const OddsProfile& multihit, const std::uint8_t* target_codes, int i, int j,
                                   int samples, std::uint32_t seed) {
  DpMatrix region_forward;
  forward_matrix(target_codes + i - 1, j - i + 1, multihit, region_forward);
  return sample_region(multihit, target_codes + i - 1, j - i + 1, region_forward, samples,
                       EaselFastRandom(seed).state());
}

std::vector<RegionEnvelope> region_envelopes(const RegionSamples& samples, int ireg,
                                             const DomainDefinitionOptions& options, float* region_null2) {
  SegmentPairEnsemble ensemble;
  for (const SampledPair& pair : samples.pairs)
    ensemble.add(pair.sample, pair.i + ireg - 1, pair.j + ireg - 1, pair.k, pair.m);
  // Mean odds over the samples, as log odds per residue.
  for (std::size_t pos = 0; pos < samples.sums.size(); ++pos)
    region_null2[pos] = std::log(samples.sums[pos] / static_cast<float>(options.samples));
  return undominated(ensemble.cluster(cluster_parameters(options)));
}

std::vector<RegionEnvelope> sample_region_envelopes(const OddsProfile& multihit, const std::uint8_t* codes, int ireg,
                                                    int jreg, const DpMatrix& region_forward,
                                                    const DomainDefinitionOptions& options, EaselFastRandom& rng,
                                                    std::vector<float>& null2_scores) {
  const int Lr = jreg - ireg + 1;
  if (ireg < 1 || Lr < 1 || static_cast<int>(null2_scores.size()) <= jreg)
    throw std::invalid_argument("sample_region_envelopes: bad region or null2_scores too short");
  rng.reseed();  // HMMER's default: every region sampled from the same start
  const RegionSamples samples = sample_region(multihit, codes + ireg - 1, Lr, region_forward, options.samples,
                                              rng.state());
  return region_envelopes(samples, ireg, options, null2_scores.data() + ireg);
}

}  // namespace helix::hmmsearch
