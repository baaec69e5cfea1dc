// sw_bench.cpp: the swsearch kind's database search speed in GCUPS (billions
// of Smith-Waterman cells per second: query length x total target residues /
// time), one query against a whole real protein database, BLOSUM62 with
// BLAST's default gaps (11/1, here open 12 extend 1) unless told otherwise.
//
//   sw_bench [--db FILE] [--matrix FILE] [--cpu-threads N] [--gap-open N --gap-extend N]
//            [--top-out FILE] [google-benchmark flags]
//
//   --db FILE        FASTA, plain or gzipped. Default: mmseqs2-examples'
//                    /usr/share/doc/mmseqs2/example-data/DB.fasta.gz (20,000
//                    UniProt sequences, 9.1 M residues). A bigger one from
//                    metastudent-data's BLAST database: scripts/make_bench_db.sh.
//   --matrix FILE    NCBI matrix; default $HELIX_NCBI_DATA/BLOSUM62, else
//                    /usr/share/ncbi/data/BLOSUM62.
//   --cpu-threads N  threads of the CPU engine; default 0 = one per hardware thread.
//   --gap-open N, --gap-extend N
//                    a k-gap costs open + (k - 1) extend (sw.h); default 12 and 1.
//                    CUDASW++4.0's default is open 11 extend 1 (BLAST's 10/1).
//   --top-out FILE   after each BM_SwGpu query, append its 10 best targets to
//                    FILE: query length, query id, rank, score, target id
//                    (tab-separated; ties by database order), for
//                    bench/compare_top_scores.py against another tool's list.
//
// Queries: for each length 100, 500, 1000, 2000, 5000 (the benchmark's
// argument), the database's first sequence of the length closest to it. One
// iteration scores that query against every target; loading the targets (the
// GPU's upload) happens once, outside the timing. Counters: gcups,
// target_residues, targets, query_length, host_cpu_cores (process CPU time /
// wall time), score_sum (the engines must agree on it).
//
// BM_SwGpu: make_gpu_engine(0), skipped without a CUDA device. BM_SwCpu: the
// parasail CPU engine (make_cpu_engine), the peer.
//
// On the GPU machine, which has neither parasail, Debian's libbenchmark.so.1debian,
// ncbi-data nor the example data: carry one folder (33 MB) holding the binary,
// those two libraries, the matrix and the FASTA:
//   scripts/make_bench_db.sh build/swdev/bench_db.fasta.gz 80000
//   cp build/bench/sw_bench /usr/share/ncbi/data/BLOSUM62 /usr/lib/x86_64-linux-gnu/libparasail.so.8
//      /lib/x86_64-linux-gnu/libbenchmark.so.1debian build/swdev/                      (one line)
//   there: cd build/swdev && LD_LIBRARY_PATH=. ./sw_bench --db bench_db.fasta.gz --matrix BLOSUM62
//      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true               (one line)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <numeric>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_util.h"
#include "core/gpu_devices.h"
#include "core/file_io.h"

#include "sw.h"
#include "sw_engine.h"

namespace {

using namespace helix::swsearch;

std::string g_db = "/usr/share/doc/mmseqs2/example-data/DB.fasta.gz";
std::string g_matrix = [] {
  const char* dir = std::getenv("HELIX_NCBI_DATA");
  return std::string(dir ? dir : "/usr/share/ncbi/data") + "/BLOSUM62";
}();
int g_cpu_threads = 0;
GapPenalties g_gaps = gaps_from_blast(11, 1);
std::string g_top_out;
constexpr std::size_t kTopTargets = 10;

struct Database {
  std::vector<FastaRecord> records;
  helix::SequenceSet targets;
  ScoreMatrix matrix;
};

const Database& database() {
  static const Database db = [] {
    Database made;
    made.records = parse_fasta(helix::read_text_maybe_gzipped(g_db), g_db);
    if (made.records.empty()) throw std::runtime_error("sw_bench: " + g_db + " holds no sequences");
    std::vector<std::vector<std::uint8_t>> sequences;
    for (const auto& record : made.records) sequences.push_back(record.residues);
    made.targets = make_target_set(sequences);
    made.matrix = read_ncbi_matrix(g_matrix);
    return made;
  }();
  return db;
}

// The database's first sequence whose length is closest to `length`.
const FastaRecord& query_near(std::size_t length) {
  const auto& records = database().records;
  const FastaRecord* best = &records.front();
  auto distance = [&](const FastaRecord& r) {
    return r.residues.size() > length ? r.residues.size() - length : length - r.residues.size();
  };
  for (const auto& record : records)
    if (distance(record) < distance(*best)) best = &record;
  return *best;
}

using helix::bench::process_cpu_seconds;

// The query's kTopTargets best targets, appended to --top-out.
void write_top_targets(const FastaRecord& query, const std::vector<std::int32_t>& scores) {
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  const std::size_t kept = std::min(kTopTargets, order.size());
  std::partial_sort(order.begin(), order.begin() + kept, order.end(), [&](std::size_t x, std::size_t y) {
    return scores[x] != scores[y] ? scores[x] > scores[y] : x < y;
  });
  std::ofstream out(g_top_out, std::ios::app);
  for (std::size_t rank = 0; rank < kept; ++rank)
    out << query.residues.size() << '\t' << query.id << '\t' << rank << '\t' << scores[order[rank]] << '\t'
        << database().records[order[rank]].id << '\n';
  if (!out) throw std::runtime_error("sw_bench: cannot write " + g_top_out);
}

void search(benchmark::State& state, SwEngine& engine, bool keep_top = false) {
  const Database& db = database();
  std::vector<std::int32_t> top_scores;
  const FastaRecord& query = query_near(static_cast<std::size_t>(state.range(0)));
  double wall = 0, cpu = 0;
  std::int64_t score_sum = 0;
  for (auto _ : state) {
    const double cpu_before = process_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    const std::vector<std::int32_t> scores = engine.scores(query.residues, db.matrix, g_gaps);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    wall += elapsed.count();
    cpu += process_cpu_seconds() - cpu_before;
    state.SetIterationTime(elapsed.count());
    score_sum = 0;
    for (std::int32_t score : scores) score_sum += score;
    if (keep_top) top_scores = scores;
  }
  benchmark::DoNotOptimize(score_sum);
  if (!top_scores.empty()) write_top_targets(query, top_scores);
  const double residues = static_cast<double>(db.targets.residues.size());
  const double cells = static_cast<double>(query.residues.size()) * residues * static_cast<double>(state.iterations());
  state.counters["gcups"] = cells / wall / 1e9;
  state.counters["target_residues"] = residues;
  state.counters["targets"] = static_cast<double>(db.targets.size());
  state.counters["query_length"] = static_cast<double>(query.residues.size());
  state.counters["host_cpu_cores"] = cpu / wall;
  state.counters["score_sum"] = static_cast<double>(score_sum);
  state.SetLabel(engine.description() + ", query " + query.id);
}

// One engine of each kind for the whole run: the targets are loaded once.
SwEngine& loaded(std::unique_ptr<SwEngine>& engine, std::unique_ptr<SwEngine> (*make)()) {
  if (!engine) {
    engine = make();
    engine->load_targets(database().targets);
  }
  return *engine;
}

void BM_SwGpu(benchmark::State& state) {
  if (helix::gpu_device_count() == 0) {
    state.SkipWithError("no CUDA device");
    return;
  }
  static std::unique_ptr<SwEngine> engine;
  search(state, loaded(engine, [] { return make_gpu_engine(0); }), !g_top_out.empty());
}

void BM_SwCpu(benchmark::State& state) {
  static std::unique_ptr<SwEngine> engine;
  search(state, loaded(engine, [] { return make_cpu_engine(g_cpu_threads); }));
}

void query_lengths(benchmark::internal::Benchmark* b) {
  for (int length : {100, 500, 1000, 2000, 5000}) b->Arg(length);
  b->ArgName("query")->UseManualTime()->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_SwGpu)->Apply(query_lengths);
BENCHMARK(BM_SwCpu)->Apply(query_lengths);

}  // namespace

int main(int argc, char** argv) {
  helix::bench::take_string_flags(argc, argv, {{"--db", &g_db}, {"--matrix", &g_matrix}, {"--top-out", &g_top_out}});
  helix::bench::take_int_flags(argc, argv, {{"--cpu-threads", &g_cpu_threads},
                                            {"--gap-open", &g_gaps.open},
                                            {"--gap-extend", &g_gaps.extend}});
  benchmark::Initialize(&argc, argv);
  try {
    check_gaps(g_gaps);
    const Database& db = database();  // read before any timing; a bad file stops here with one line
    std::cerr << "sw_bench: " << g_db << ": " << db.targets.size() << " targets, " << db.targets.residues.size()
              << " residues\n";
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
