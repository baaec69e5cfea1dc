// hmm_bench.cpp: the hmmsearch kind's speed in cells per second (target
// residues x model length / time), per filter stage and end to end, against
// HMMER 3.3.2's own hmmsearch on the same machine in the same run.
//
//   hmm_bench [--db FILE] [--hmms A.hmm,B.hmm,...] [--hmmsearch PATH] [--cpu N]
//             [google-benchmark flags]
//
//   --db FILE        protein FASTA, plain or gzipped. Default: mmseqs2-examples'
//                    DB.fasta.gz (20,000 UniProt proteins). The real benchmark:
//                    metastudent-data's whole UniProt set (scripts/make_bench_db.sh).
//   --hmms LIST      profiles, comma separated; default hmmer-examples' globins4,
//                    Pkinase and SMC_N ($HELIX_HMMER_EXAMPLES is the tutorial folder).
//   --hmmsearch PATH the peer; default /usr/bin/hmmsearch. Run with its defaults
//                    (null2, domains, alignments) as `hmmsearch --cpu N -Z <targets>
//                    --domZ <targets> --tblout F --domtblout F -o F` on an
//                    uncompressed copy of the database (its read time counts: it is
//                    part of what hmmsearch does end to end).
//   --cpu N          hmmsearch's worker threads; default 16.
//
// Benchmarks, one per profile (the argument is the profile's index):
//   BM_GpuMsv       MSV filter, every target (the warp kernels).
//   BM_GpuViterbi   Viterbi filter, the targets the pipeline sends to it.
//   BM_GpuForward   Forward, the targets that pass Viterbi.
//   BM_CpuForward   the same targets through the CPU reference's Forward, one
//                   host thread.
//   BM_GpuPipeline  search_chunk on the GPU engine: the filters only (MSV, the
//                   host's decisions, bias, Viterbi, Forward, E-values).
//   BM_GpuDomains   domain definition's parser passes (Forward and Backward
//                   over each target that passed Forward) on the GPU, and the
//                   host's decoding of their posteriors.
//   BM_GpuReport    everything hmmsearch does, end to end, as the app runs
//                   a WU of one profile (search_and_define: the chunk's long
//                   targets on a second engine, on a thread of its own,
//                   beside the rest):
//                   the filters, domain definition (posteriors, region
//                   sampling and envelope rescoring on the GPU; regions,
//                   clustering and alignments on the host: 1 thread, as the
//                   volunteer app runs, or 16), and the tblout, domtblout and
//                   human-readable texts. Arguments: profile, host threads.
//   BM_ReportTexts  those three texts alone (host), from a report the CPU
//                   engine makes once (untimed, and slow: give a smaller --db).
//   BM_Hmmsearch    the hmmsearch binary, end to end (process start, reading
//                   the profile and the database, all filters, domains, output).
// Loading the targets into the GPU happens once, outside the timing.
// Counters: cells_per_s (stage residues x M / time), residues, M, targets,
// host_cpu_cores (process CPU time / wall time; hmmsearch's is its own), and
// the pipeline's pass counts (past_msv, past_bias, past_vit, past_fwd).
#include <sys/resource.h>
#include <sys/wait.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_util.h"
#include "core/gpu_devices.h"
#include "core/file_io.h"
#include "hmm_file.h"
#include "hmm_filters.h"
#include "hmm_pipeline.h"
#include "hmm_report.h"
#include "hmm_search.h"

namespace {

using namespace helix::hmmsearch;

std::string g_db = "/usr/share/doc/mmseqs2/example-data/DB.fasta.gz";
std::string g_hmms;
std::string g_hmmsearch = "/usr/bin/hmmsearch";
int g_cpu = 16;

std::string tutorial_dir() {
  const char* dir = std::getenv("HELIX_HMMER_EXAMPLES");
  return std::string(dir ? dir : "/usr/share/doc/hmmer/examples/tutorial") + "/";
}

struct Workload {
  std::vector<TargetSequence> targets;
  helix::SequenceSet chunk;
  std::string plain_fasta;  // uncompressed copy for hmmsearch
  std::vector<std::string> hmm_paths;
  std::vector<SearchProfile> profiles;
};

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

Workload& workload() {
  static Workload load = [] {
    Workload made;
    const std::string text = helix::read_text_maybe_gzipped(g_db);
    made.targets = parse_targets(text, g_db);
    made.chunk = make_target_chunk(made.targets);
    made.plain_fasta = "/tmp/hmm_bench_db." + std::to_string(getpid()) + ".fa";
    helix::write_file_atomic(made.plain_fasta, text);
    const std::string tutorial = tutorial_dir();
    made.hmm_paths = g_hmms.empty() ? std::vector<std::string>{tutorial + "globins4.hmm", tutorial + "Pkinase.hmm",
                                                                 tutorial + "../testsuite/SMC_N.hmm.gz"}
                                    : split_commas(g_hmms);
    for (std::string& path : made.hmm_paths) {
      const std::vector<ProfileHmm> hmms = parse_hmm_file(helix::read_text_maybe_gzipped(path), path);
      made.profiles.push_back(configure_profile(hmms.front()));
      if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {  // hmmsearch wants it plain
        const std::string plain = "/tmp/hmm_bench_" + std::to_string(made.profiles.size()) + ".hmm";
        helix::write_file_atomic(plain, helix::read_text_maybe_gzipped(path));
        path = plain;
      }
    }
    return made;
  }();
  return load;
}

HmmEngine& gpu_engine() {
  static std::unique_ptr<HmmEngine> engine = [] {
    auto made = make_gpu_engine(0);
    made->load_targets(workload().chunk);
    return made;
  }();
  return *engine;
}

// The two GPU engines the app gives a WU of one profile (hmm_search.h's
// search_and_define): the chunk's long targets on one, the rest on the
// other, each loaded once.
struct LegEngines {
  ChunkLegs legs;
  std::unique_ptr<HmmEngine> rest, longest;
};
LegEngines& gpu_leg_engines() {
  static LegEngines engines = [] {
    LegEngines made;
    made.legs = split_chunk(workload().targets, 0, workload().targets.size(), true);
    made.rest = make_gpu_engine(0, true, 2);
    made.rest->load_targets(made.legs.rest_targets);
    made.longest = make_gpu_engine(0, true, 2);
    if (!made.legs.longest.empty()) made.longest->load_targets(made.legs.long_targets);
    return made;
  }();
  return engines;
}

// The targets each stage sees, from one reference-free GPU pipeline run.
struct StageTargets {
  std::vector<std::uint32_t> viterbi, forward;
  PipelineCounts counts;
};
StageTargets stage_targets(const SearchProfile& profile) {
  HmmEngine& engine = gpu_engine();
  engine.load_profile(profile);
  const ChunkSearch search = search_chunk(profile, workload().chunk, engine, {});
  // Re-derive the Viterbi set the way search_chunk does: MSV and bias survivors
  // whose P-value is above F2.
  StageTargets stages;
  stages.counts = search.counts;
  const std::vector<float> msv = engine.msv_scores();
  PipelineOptions options;
  for (std::uint32_t t = 0; t < workload().chunk.size(); ++t) {
    const int L = static_cast<int>(workload().chunk.length(t));
    const LengthConfig config = length_config(L);
    double P = gumbel_survival(static_cast<float>((msv[t] - config.null_score) / kLn2), profile.msv_mu,
                               profile.msv_lambda);
    if (P > options.F1) continue;
    const float filter = bias_filter_score(workload().chunk.begin(t), L, profile.bias_filter, config);  // host copy of the GPU filter
    P = gumbel_survival(static_cast<float>((msv[t] - filter) / kLn2), profile.msv_mu, profile.msv_lambda);
    if (P > options.F1) continue;
    if (P > options.F2) stages.viterbi.push_back(t);
  }
  for (const PassedTarget& passed : search.passed) stages.forward.push_back(passed.target);
  return stages;
}

double residues_of(const std::vector<std::uint32_t>& targets) {
  double total = 0;
  for (std::uint32_t t : targets) total += workload().chunk.length(t);
  return total;
}

template <typename Work>
void timed(benchmark::State& state, double residues, const SearchProfile& profile, Work work) {
  double wall = 0, cpu = 0;
  for (auto _ : state) {
    const double cpu_before = helix::bench::process_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    work();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    wall += elapsed.count();
    cpu += helix::bench::process_cpu_seconds() - cpu_before;
    state.SetIterationTime(elapsed.count());
  }
  state.counters["cells_per_s"] = residues * profile.M * static_cast<double>(state.iterations()) / wall;
  state.counters["residues"] = residues;
  state.counters["M"] = profile.M;
  state.counters["host_cpu_cores"] = cpu / wall;
  state.SetLabel(profile.name);
}

bool have_gpu(benchmark::State& state) {
  if (helix::gpu_device_count() > 0) return true;
  state.SkipWithError("no CUDA device");
  return false;
}

void BM_GpuMsv(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const SearchProfile& profile = workload().profiles[state.range(0)];
  HmmEngine& engine = gpu_engine();
  engine.load_profile(profile);
  timed(state, static_cast<double>(workload().chunk.residues.size()), profile,
        [&] { benchmark::DoNotOptimize(engine.msv_scores()); });
}

void BM_GpuViterbi(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const SearchProfile& profile = workload().profiles[state.range(0)];
  const StageTargets stages = stage_targets(profile);
  HmmEngine& engine = gpu_engine();
  timed(state, residues_of(stages.viterbi), profile, [&] { benchmark::DoNotOptimize(engine.viterbi_scores(stages.viterbi)); });
  state.counters["targets"] = static_cast<double>(stages.viterbi.size());
}

void BM_GpuForward(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const SearchProfile& profile = workload().profiles[state.range(0)];
  const StageTargets stages = stage_targets(profile);
  HmmEngine& engine = gpu_engine();
  timed(state, residues_of(stages.forward), profile, [&] { benchmark::DoNotOptimize(engine.forward_scores(stages.forward)); });
  state.counters["targets"] = static_cast<double>(stages.forward.size());
}

// The CPU reference's Forward (one host thread) over the same targets: what a
// host thread would take for the targets the GPU's one-warp rows are slowest on.
void BM_CpuForward(benchmark::State& state) {
  if (!have_gpu(state)) return;  // the target set comes from the GPU pipeline
  const SearchProfile& profile = workload().profiles[state.range(0)];
  const StageTargets stages = stage_targets(profile);
  std::unique_ptr<HmmEngine> reference = make_cpu_engine();
  reference->load_targets(workload().chunk);
  reference->load_profile(profile);
  timed(state, residues_of(stages.forward), profile,
        [&] { benchmark::DoNotOptimize(reference->forward_scores(stages.forward)); });
  state.counters["targets"] = static_cast<double>(stages.forward.size());
}

void BM_GpuPipeline(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const SearchProfile& profile = workload().profiles[state.range(0)];
  HmmEngine& engine = gpu_engine();
  PipelineCounts counts;
  timed(state, static_cast<double>(workload().chunk.residues.size()), profile, [&] {
    engine.load_profile(profile);
    counts = search_chunk(profile, workload().chunk, engine, {}).counts;
  });
  state.counters["targets"] = static_cast<double>(counts.targets);
  state.counters["past_msv"] = static_cast<double>(counts.past_msv);
  state.counters["past_bias"] = static_cast<double>(counts.past_bias);
  state.counters["past_vit"] = static_cast<double>(counts.past_viterbi);
  state.counters["past_fwd"] = static_cast<double>(counts.past_forward);
}

void BM_GpuDomains(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const SearchProfile& profile = workload().profiles[state.range(0)];
  const StageTargets stages = stage_targets(profile);
  HmmEngine& engine = gpu_engine();
  timed(state, residues_of(stages.forward), profile,
        [&] { benchmark::DoNotOptimize(engine.domain_posteriors(stages.forward)); });
  state.counters["targets"] = static_cast<double>(stages.forward.size());
}

// hmmsearch's defaults, the workload's chunk being the whole database (Z).
PipelineOptions workload_options() {
  PipelineOptions options;
  options.database_sequences = static_cast<double>(workload().chunk.size());
  return options;
}

// One profile's report over the workload as the app searches a chunk
// (search_and_define: `engine` holds legs.rest_targets, `long_engine`, if
// any, legs.long_targets): its targets with their domains, sorted and
// thresholded, as hmmsearch reports.
QueryReport profile_report(const SearchProfile& profile, const ChunkLegs& legs, HmmEngine& engine,
                           HmmEngine* long_engine, int host_threads, PipelineCounts& counts) {
  const Workload& load = workload();
  const PipelineOptions options = workload_options();
  ProfileSearch found = search_and_define(profile, load.targets, legs, engine, long_engine, options, host_threads);
  counts = found.search.counts;
  QueryReport report;
  report.name = profile.name, report.accession = profile.accession, report.description = profile.description;
  report.M = profile.M;
  report.options.Z = report.options.domZ = options.database_sequences;
  report.targets = report_hits(profile, load.targets, 0, found.search, std::move(found.definitions), options,
                               load.targets.size(), host_threads);
  sort_report_targets(report.targets);
  apply_thresholds(report);
  return report;
}

// What hmmsearch writes for a report: tblout, domtblout and the text.
std::string report_texts(const QueryReport& report, const PipelineCounts& counts) {
  return tblout_report_text(report) + domtblout_report_text(report) +
         query_report_text(report, report_statistics_text(report, counts, workload_options()));
}

// What hmmsearch writes for one profile, from the app's GPU engines.
std::string gpu_report_texts(const SearchProfile& profile, int host_threads, PipelineCounts& counts) {
  LegEngines& engines = gpu_leg_engines();
  const QueryReport report =
      profile_report(profile, engines.legs, *engines.rest, engines.longest.get(), host_threads, counts);
  return report_texts(report, counts);
}

void BM_GpuReport(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const SearchProfile& profile = workload().profiles[state.range(0)];
  PipelineCounts counts;
  timed(state, static_cast<double>(workload().chunk.residues.size()), profile,
        [&] { benchmark::DoNotOptimize(gpu_report_texts(profile, static_cast<int>(state.range(1)), counts)); });
  state.counters["past_fwd"] = static_cast<double>(counts.past_forward);
}

// The report texts alone (host work after the engine's): a report made once
// by the CPU engine (slow: meant for a smaller --db), then only its texts
// timed. No GPU needed.
void BM_ReportTexts(benchmark::State& state) {
  struct MadeReport {
    QueryReport report;
    PipelineCounts counts;
  };
  const SearchProfile& profile = workload().profiles[state.range(0)];
  static std::vector<std::optional<MadeReport>> made(workload().profiles.size());
  std::optional<MadeReport>& slot = made[state.range(0)];
  if (!slot) {
    std::unique_ptr<HmmEngine> engine = make_cpu_engine();
    const ChunkLegs legs = split_chunk(workload().targets, 0, workload().targets.size(), false);
    engine->load_targets(legs.rest_targets);
    slot.emplace();
    slot->report = profile_report(profile, legs, *engine, nullptr, 1, slot->counts);
  }
  std::size_t bytes = 0;
  timed(state, static_cast<double>(workload().chunk.residues.size()), profile,
        [&] { bytes = report_texts(slot->report, slot->counts).size(); });
  state.counters["targets"] = static_cast<double>(slot->report.targets.size());
  state.counters["bytes"] = static_cast<double>(bytes);
}

double children_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

void BM_Hmmsearch(benchmark::State& state) {
  Workload& load = workload();
  const SearchProfile& profile = load.profiles[state.range(0)];
  const std::string out = "/tmp/hmm_bench_out." + std::to_string(getpid());
  const std::string Z = std::to_string(load.chunk.size());
  const std::string command = g_hmmsearch + " --cpu " + std::to_string(g_cpu) + " -Z " + Z + " --domZ " + Z +
                              " --tblout " + out + ".tbl --domtblout " + out + ".dom -o " + out + ".txt " +
                              load.hmm_paths[state.range(0)] + " " + load.plain_fasta;
  double wall = 0, cpu = 0;
  for (auto _ : state) {
    const double cpu_before = children_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    const int status = std::system(command.c_str());
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    if (status != 0) {
      state.SkipWithError(("hmmsearch failed: " + command).c_str());
      return;
    }
    wall += elapsed.count();
    cpu += children_cpu_seconds() - cpu_before;
    state.SetIterationTime(elapsed.count());
  }
  state.counters["cells_per_s"] = static_cast<double>(load.chunk.residues.size()) * profile.M *
                                  static_cast<double>(state.iterations()) / wall;
  state.counters["M"] = profile.M;
  state.counters["host_cpu_cores"] = cpu / wall;
  // Its pass counts, for comparison with BM_GpuPipeline's.
  std::ifstream text(out + ".txt");
  const char* names[] = {"Passed MSV filter:", "Passed bias filter:", "Passed Vit filter:", "Passed Fwd filter:"};
  const char* counters[] = {"past_msv", "past_bias", "past_vit", "past_fwd"};
  for (std::string line; std::getline(text, line);)
    for (int s = 0; s < 4; ++s)
      if (line.rfind(names[s], 0) == 0) state.counters[counters[s]] = std::atof(line.c_str() + std::strlen(names[s]));
  state.SetLabel(profile.name + " (hmmsearch --cpu " + std::to_string(g_cpu) + ")");
}

void profiles(benchmark::internal::Benchmark* b) {
  b->ArgName("profile")->UseManualTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  helix::bench::take_string_flags(argc, argv, {{"--db", &g_db}, {"--hmms", &g_hmms}, {"--hmmsearch", &g_hmmsearch}});
  helix::bench::take_int_flags(argc, argv, {{"--cpu", &g_cpu}});
  benchmark::Initialize(&argc, argv);
  try {
    const Workload& load = workload();  // read before any timing; a bad file stops here with one line
    std::cerr << "hmm_bench: " << g_db << ": " << load.chunk.size() << " targets, " << load.chunk.residues.size()
              << " residues; " << load.profiles.size() << " profiles\n";
    for (auto* bench : {benchmark::RegisterBenchmark("BM_GpuMsv", BM_GpuMsv),
                        benchmark::RegisterBenchmark("BM_GpuViterbi", BM_GpuViterbi),
                        benchmark::RegisterBenchmark("BM_GpuForward", BM_GpuForward),
                        benchmark::RegisterBenchmark("BM_CpuForward", BM_CpuForward),
                        benchmark::RegisterBenchmark("BM_GpuPipeline", BM_GpuPipeline),
                        benchmark::RegisterBenchmark("BM_GpuDomains", BM_GpuDomains),
                        benchmark::RegisterBenchmark("BM_ReportTexts", BM_ReportTexts),
                        benchmark::RegisterBenchmark("BM_Hmmsearch", BM_Hmmsearch)}) {
      profiles(bench);
      bench->DenseRange(0, static_cast<int>(load.profiles.size()) - 1);
    }
    auto* report = benchmark::RegisterBenchmark("BM_GpuReport", BM_GpuReport);
    report->UseManualTime()->Unit(benchmark::kMillisecond)->ArgNames({"profile", "host_threads"});
    for (int p = 0; p < static_cast<int>(load.profiles.size()); ++p)
      for (int threads : {1, 16}) report->Args({p, threads});
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::remove(workload().plain_fasta.c_str());
  return 0;
}
