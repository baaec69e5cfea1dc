// sw_job_test.cpp: the swsearch work unit end to end on the CPU (and GPU when
// present), on hmmer-examples' real globins: the chunk format, the ranked hits
// against the reference, restarts between blocks giving the same bytes, and
// bad input.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/gpu_devices.h"
#include "core/directory_runtime.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/kind.h"
#include "sw_job.h"

namespace helix {
const KindSpec& swsearch_kind_spec();
}

namespace helix::swsearch {
namespace {

namespace fs = std::filesystem;

std::string data_path(const char* variable, const char* fallback, const char* file) {
  const char* dir = std::getenv(variable);
  return std::string(dir ? dir : fallback) + "/" + file;
}
const std::string kBlosum62 = data_path("HELIX_NCBI_DATA", "/usr/share/ncbi/data", "BLOSUM62");
const std::string kGlobins = data_path("HELIX_HMMER_EXAMPLES", "/usr/share/doc/hmmer/examples/tutorial", "globins45.fa");

class SwJob : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kBlosum62) || !fs::exists(kGlobins)) GTEST_SKIP() << "ncbi-data or hmmer-examples not installed";
    dir_ = fs::temp_directory_path() / ("sw_job_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    globins_ = parse_fasta(read_file_text(kGlobins), "globins45.fa");
    // The database: all 45 globins (ordinals = FASTA order); the queries: three of them.
    std::vector<std::uint64_t> ordinals(globins_.size());
    for (std::size_t k = 0; k < ordinals.size(); ++k) ordinals[k] = k;
    write_file_atomic((dir_ / "database").string(), encode_chunk(make_chunk(globins_, ordinals)));
    std::string queries;
    for (int k : {0, 7, 30}) queries += ">" + globins_[k].id + "\n" + decode_protein(globins_[k].residues) + "\n";
    write_file_atomic((dir_ / "queries").string(), queries);
    fs::copy_file(kBlosum62, dir_ / "matrix");
    residues_ = 0;
    for (const auto& g : globins_) residues_ += g.residues.size();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  nlohmann::json params_json(int block_targets) const {
    return {{"kind", "swsearch"},      {"matrix_name", "BLOSUM62"},  {"gap_open", 12},
            {"gap_extend", 1},         {"top_hits", 20},             {"alignments", 5},
            {"database_residues", residues_}, {"database_sequences", globins_.size()}, {"block_targets", block_targets}};
  }
  fs::path dir_;
  std::vector<FastaRecord> globins_;
  std::uint64_t residues_ = 0;
};

TEST_F(SwJob, ChunkIsSortedByLengthAndReadsBack) {
  const DatabaseChunk chunk = decode_chunk(read_file_bytes((dir_ / "database").string()), residues_);
  ASSERT_EQ(chunk.targets.size(), 45u);
  for (std::size_t t = 1; t < chunk.targets.size(); ++t) EXPECT_LE(chunk.targets.length(t - 1), chunk.targets.length(t));
  for (std::size_t t = 0; t < chunk.targets.size(); ++t) {
    const FastaRecord& original = globins_[chunk.ordinals[t]];
    EXPECT_EQ(chunk.ids[t], original.id);
    EXPECT_EQ(std::vector<std::uint8_t>(chunk.targets.begin(t), chunk.targets.begin(t) + chunk.targets.length(t)),
              original.residues);
  }
  EXPECT_THROW(decode_chunk(read_file_bytes((dir_ / "database").string()), residues_ - 1), InputError);
  std::vector<std::uint8_t> damaged = read_file_bytes((dir_ / "database").string());
  damaged.resize(damaged.size() / 2);
  EXPECT_THROW(decode_chunk(damaged, residues_), InputError);
}

// Real UniProt ids run to thousands of characters (metastudent-data's longest
// is 4,021: accession|GO terms, no blank); the work generator's chunk must read
// back in the app, and an id beyond the chunk format's bound is refused when
// the chunk is made, not when a volunteer's app reads it.
TEST(SwChunk, LongRealIdsReadBackAndAbsurdOnesAreRefusedWhenMade) {
  FastaRecord record{"Q8WZ42|" + std::string(4014, 'G'), "", std::vector<std::uint8_t>(30, 1)};
  const DatabaseChunk decoded = decode_chunk(encode_chunk(make_chunk({record}, {0})), 30);
  ASSERT_EQ(decoded.ids.size(), 1u);
  EXPECT_EQ(decoded.ids[0], record.id);
  record.id.resize(65537, 'G');
  EXPECT_THROW(make_chunk({record}, {0}), InputError);
}

TEST_F(SwJob, HitsAreTheReferencesRankedScores) {
  const SwParams params = parse_sw_params(params_json(16));
  DirectoryRuntime runtime(dir_.string());
  auto engine = make_reference_engine();
  const SearchResult result = run_sw_job(params, *engine, runtime);
  ASSERT_EQ(result.queries.size(), 3u);
  const ScoreMatrix blosum62 = read_ncbi_matrix(kBlosum62);
  for (std::size_t q = 0; q < 3; ++q) {
    const FastaRecord& query = globins_[std::vector<int>{0, 7, 30}[q]];
    const QueryHits& hits = result.queries[q];
    ASSERT_EQ(hits.hits.size(), 20u);
    // Every score against the whole database, ranked by score then FASTA order.
    std::vector<std::pair<int, std::uint64_t>> all;
    for (std::size_t t = 0; t < globins_.size(); ++t)
      all.push_back({-sw_score(query.residues, globins_[t].residues, blosum62, params.gaps).score, t});
    std::sort(all.begin(), all.end());
    for (std::size_t k = 0; k < 20; ++k) {
      EXPECT_EQ(hits.hits[k].score, -all[k].first) << "query " << q << " rank " << k;
      EXPECT_EQ(hits.hits[k].target_ordinal, all[k].second);
    }
    // The best hit is the query itself: its whole length, identical residues.
    const Hit& self = hits.hits[0];
    EXPECT_EQ(self.target_id, query.id);
    EXPECT_EQ(self.cigar, std::to_string(query.residues.size()) + "M");
    EXPECT_EQ(self.identities, static_cast<int>(query.residues.size()));
    EXPECT_EQ(self.query_start, 1);
    EXPECT_EQ(self.query_end, static_cast<int>(query.residues.size()));
    // Alignments rescore from their CIGARs; the rest carry ends but no alignment.
    for (std::size_t k = 0; k < 20; ++k) {
      const Hit& h = hits.hits[k];
      const auto& target = globins_[h.target_ordinal].residues;
      EXPECT_EQ(h.query_end, sw_score(query.residues, target, blosum62, params.gaps).query_end + 1);
      if (k < 5) {
        EXPECT_EQ(score_of_cigar(query.residues, target, h.query_start - 1, h.target_start - 1, h.cigar, blosum62,
                                 params.gaps),
                  h.score);
      } else {
        EXPECT_EQ(h.cigar, "");
      }
      if (k > 0) {
        EXPECT_GE(h.evalue, hits.hits[k - 1].evalue);
      }
    }
  }
  const auto rows = parse_hits_tsv(hits_tsv(result));
  ASSERT_EQ(rows.size(), 60u);
  EXPECT_EQ(rows[0][0], globins_[0].id);
  EXPECT_EQ(rows[5][11], "-");
}

// Runs the app kind until it finishes, stopping after every checkpoint when
// asked; returns the hits table and summary.
std::vector<std::string> run_app(const fs::path& dir, const nlohmann::json& params, bool cpu, bool stop_each,
                                 int* restarts) {
  *restarts = restart_until_finished(dir.string(), stop_each ? 1 : -1, [&](DirectoryRuntime& runtime, int) {
    run_kind(swsearch_kind_spec(), params, RunOptions{cpu, 0}, runtime);
  });
  return {read_file_text((dir / "hits").string()), read_file_text((dir / "summary").string())};
}

// Progress rises query by query inside a block (a CPU-class WU's chunk is one
// block of minutes), reaching the block's share at its end and 1 at the job's.
TEST_F(SwJob, ProgressRisesWithEveryQuery) {
  struct RecordingRuntime : DirectoryRuntime {
    using DirectoryRuntime::DirectoryRuntime;
    void report_progress(double fraction_done) override { reported.push_back(fraction_done); }
    std::vector<double> reported;
  } runtime(dir_.string());
  auto engine = make_reference_engine();
  run_sw_job(parse_sw_params(params_json(30)), *engine, runtime);  // 45 targets: blocks of 30 and 15
  const std::vector<double> expected = {0.95 * (1.0 / 3) / 2, 0.95 * (2.0 / 3) / 2, 0.95 / 2,
                                        0.95 * (1 + 1.0 / 3) / 2, 0.95 * (1 + 2.0 / 3) / 2, 0.95, 1.0};
  ASSERT_EQ(runtime.reported.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_DOUBLE_EQ(runtime.reported[k], expected[k]) << k;
}

TEST_F(SwJob, RestartsBetweenBlocksGiveTheSameBytes) {
  int restarts = 0;
  const auto straight = run_app(dir_, params_json(8), true, false, &restarts);
  EXPECT_EQ(restarts, 0);
  fs::remove(dir_ / "hits"), fs::remove(dir_ / "checkpoint.state");
  const auto interrupted = run_app(dir_, params_json(8), true, true, &restarts);
  EXPECT_EQ(restarts, 9);  // 3 queries x 6 blocks of 8 targets; each run saves after one query and stops after the next
  EXPECT_EQ(interrupted, straight);
}

// The reference engine, taking `round_residues` a load (as the GPU engine
// does), and noting how many targets each load held.
class RoundEngine final : public SwEngine {
 public:
  explicit RoundEngine(std::uint64_t round_residues) : round_residues_(round_residues) {}
  std::string description() const override { return inner_->description(); }
  std::uint64_t round_residues() const override { return round_residues_; }
  void load_targets(const SequenceSet& targets) override {
    loads.push_back(targets.size());
    inner_->load_targets(targets);
  }
  std::vector<std::int32_t> scores(const std::vector<std::uint8_t>& query, const ScoreMatrix& matrix,
                                   const GapPenalties& gaps) override {
    return inner_->scores(query, matrix, gaps);
  }
  std::vector<std::size_t> loads;

 private:
  std::uint64_t round_residues_;
  std::unique_ptr<SwEngine> inner_ = make_reference_engine();
};

// Runs the job to its end on engine_for(run), stopping after every
// checkpoint when asked; returns the hits table and the runs it took.
template <typename EngineFor>
std::pair<std::string, int> run_job_restarting(const fs::path& dir, const SwParams& params, bool stop_each,
                                               EngineFor engine_for) {
  std::string hits;
  const int stop_after = stop_each ? 1 : -1;
  const int restarts = restart_until_finished(dir.string(), stop_after, [&](DirectoryRuntime& runtime, int run) {
    hits = hits_tsv(run_sw_job(params, *engine_for(run), runtime));
  });
  return {hits, restarts + 1};
}

// A load takes as many whole blocks as the engine's round holds (at least
// one), and the hits do not depend on it.
TEST_F(SwJob, RoundsOfSeveralBlocksGiveTheSameHits) {
  const SwParams params = parse_sw_params(params_json(8));  // 45 targets: 6 blocks
  auto blockwise = std::make_unique<RoundEngine>(0);
  const std::string expected = run_job_restarting(dir_, params, false, [&](int) { return blockwise.get(); }).first;
  EXPECT_EQ(blockwise->loads, (std::vector<std::size_t>{8, 8, 8, 8, 8, 5}));
  fs::remove(dir_ / "checkpoint.state");

  auto whole = std::make_unique<RoundEngine>(residues_);
  EXPECT_EQ(run_job_restarting(dir_, params, false, [&](int) { return whole.get(); }).first, expected);
  EXPECT_EQ(whole->loads, (std::vector<std::size_t>{45}));
  fs::remove(dir_ / "checkpoint.state");

  // The first two blocks' residues: the first round is those two blocks.
  std::uint64_t two_blocks = 0;
  for (int t = 0; t < 16; ++t) two_blocks += globins_[t].residues.size();
  auto pairs = std::make_unique<RoundEngine>(two_blocks);
  EXPECT_EQ(run_job_restarting(dir_, params, false, [&](int) { return pairs.get(); }).first, expected);
  ASSERT_GE(pairs->loads.size(), 3u);
  EXPECT_EQ(pairs->loads.front(), 16u);
  EXPECT_EQ(std::accumulate(pairs->loads.begin(), pairs->loads.end(), std::size_t{0}), 45u);
}

// A checkpoint made inside a round resumes on an engine that takes other
// rounds (a GPU task resumed on the CPU, and back): the interrupted round is
// finished as it was begun, and the hits are the same.
TEST_F(SwJob, RestartsInsideRoundsResumeOnAnyEngine) {
  const SwParams params = parse_sw_params(params_json(8));  // 45 targets: 6 blocks
  std::uint64_t two_blocks = 0;
  for (int t = 0; t < 16; ++t) two_blocks += globins_[t].residues.size();
  RoundEngine blockwise(0), pairs(two_blocks);
  const std::string expected = run_job_restarting(dir_, params, false, [&](int) { return &blockwise; }).first;
  fs::remove(dir_ / "checkpoint.state");
  blockwise.loads.clear();
  // Each run saves after one query and stops after the next; the engines take turns.
  const auto [hits, runs] =
      run_job_restarting(dir_, params, true, [&](int run) -> SwEngine* { return run % 2 ? &blockwise : &pairs; });
  EXPECT_EQ(hits, expected);
  EXPECT_GE(runs, 5);
  // Run 1 (block-wise) finished run 0's round of two blocks before taking one block a round.
  ASSERT_GE(blockwise.loads.size(), 2u);
  EXPECT_EQ(blockwise.loads[0], 16u);
  EXPECT_EQ(blockwise.loads[1], 8u);
}

TEST_F(SwJob, GpuWritesTheCpuBytes) {
  if (gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  int restarts = 0;
  const auto cpu = run_app(dir_, params_json(16), true, false, &restarts);
  fs::remove(dir_ / "hits"), fs::remove(dir_ / "summary"), fs::remove(dir_ / "checkpoint.state");
  const auto gpu = run_app(dir_, params_json(16), false, true, &restarts);
  EXPECT_EQ(gpu[0], cpu[0]);
}

TEST_F(SwJob, BadInputGivesOneErrorAndNoResult) {
  const KindSpec& kind = swsearch_kind_spec();
  auto expect_refused = [&](const nlohmann::json& params, const std::string& words) {
    DirectoryRuntime runtime(dir_.string());
    try {
      run_kind(kind, params, RunOptions{true, 0}, runtime);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(dir_ / "hits"));
  };
  nlohmann::json params = params_json(16);
  params["gap_open"] = -3;
  expect_refused(params, "gap penalties");
  params = params_json(16);
  params["matrix_name"] = "BLOSUM99";
  expect_refused(params, "no Karlin-Altschul parameters");
  params = params_json(16);
  write_file_atomic((dir_ / "queries").string(), std::string(">q1\nACDEF\n>q2\n"));
  expect_refused(params, "empty");
  write_file_atomic((dir_ / "queries").string(), std::string(">q1\nAC1DEF\n"));
  expect_refused(params, "not a protein residue");
  write_file_atomic((dir_ / "queries").string(), std::string(">q1\nACDEF\n"));
  write_file_atomic((dir_ / "matrix").string(), std::string("   A  R\nA 4\n"));
  expect_refused(params, "matrix");
}

}  // namespace
}  // namespace helix::swsearch
