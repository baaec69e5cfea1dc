// hmm_job_test.cpp: the hmmsearch work unit end to end on the CPU (and the
// GPU when present), on hmmer-examples' real profiles (globins4, fn3) and
// globins45.fa: params parsed and refused, blocks giving the chunk's whole
// search and every passed target's domain definition, the scores and domains
// files exact both ways, restarts after every block giving
// the same bytes, an engine that disagrees with the reference stopped by the
// self-check, and bad input refused with one error line and no result.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/gpu_devices.h"
#include "core/directory_runtime.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/kind.h"
#include "hmm_file.h"
#include "hmm_job.h"
#include "hmm_search.h"

namespace helix {
const KindSpec& hmmsearch_kind_spec();
}

namespace helix::hmmsearch {
namespace {

namespace fs = std::filesystem;

std::string tutorial(const char* file) {
  const char* dir = std::getenv("HELIX_HMMER_EXAMPLES");
  return std::string(dir ? dir : "/usr/share/doc/hmmer/examples/tutorial") + "/" + file;
}
const std::string kGlobins4 = tutorial("globins4.hmm"), kFn3 = tutorial("fn3.hmm"), kMade1 = tutorial("MADE1.hmm");
const std::string kGlobins45 = tutorial("globins45.fa");
const std::vector<std::string> kOutputs = {"tblout", "domtblout", "out", "scores", "domains", "summary"};

class HmmJob : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const std::string& path : {kGlobins4, kFn3, kMade1, kGlobins45})
      if (!fs::exists(path)) GTEST_SKIP() << "hmmer-examples is not installed (" << path << ")";
    dir_ = fs::temp_directory_path() / ("hmm_job_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    profiles_text_ = read_file_text(kGlobins4) + read_file_text(kFn3);
    database_text_ = read_file_text(kGlobins45);
    targets_ = parse_targets(database_text_, "globins45");
    write_inputs();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  void write_inputs() {
    write_file_atomic((dir_ / "profiles").string(), profiles_text_);
    write_file_atomic((dir_ / "database").string(), database_text_);
  }
  // The whole of globins45 as chunk 0 of 1, Z = 45 (as hmmsearch without -Z).
  HmmParams params(std::uint32_t block_targets) const {
    HmmParams p;
    p.search = "gl";
    p.chunk = 0, p.chunks = 1, p.first_ordinal = 0;
    p.chunk_targets = targets_.size();
    for (const TargetSequence& t : targets_) p.chunk_residues += t.codes.size();
    p.chunk_bytes = database_text_.size();
    p.database_sequences = p.chunk_targets, p.database_residues = p.chunk_residues;
    p.profile_count = 2;
    p.block_targets = block_targets;
    return p;
  }
  std::string output(const std::string& name) const { return read_file_text((dir_ / name).string()); }

  fs::path dir_;
  std::string profiles_text_, database_text_;
  std::vector<TargetSequence> targets_;
};

TEST_F(HmmJob, ParamsRoundTripAndAbsurdOnesAreRefused) {
  const HmmParams p = params(10);
  EXPECT_EQ(hmm_params_json(parse_hmm_params(hmm_params_json(p))), hmm_params_json(p));
  nlohmann::json minimal = hmm_params_json(p);
  for (const char* optional : {"block_targets", "report_evalue", "F1", "F2", "F3", "bias_filter"}) minimal.erase(optional);
  const HmmParams defaults = parse_hmm_params(minimal);
  EXPECT_EQ(defaults.block_targets, kDefaultBlockTargets);
  EXPECT_EQ(defaults.report_evalue, 10.0);
  EXPECT_EQ(defaults.F1, 0.02);
  EXPECT_EQ(defaults.F3, 1e-5);
  EXPECT_TRUE(defaults.bias_filter);
  EXPECT_EQ(defaults.domZ, 0.0);  // hmmsearch's default: the number of targets reported
  EXPECT_FALSE(hmm_params_json(p).contains("domZ"));
  HmmParams with_domZ = p;
  with_domZ.domZ = 1e6;
  EXPECT_EQ(parse_hmm_params(hmm_params_json(with_domZ)).domZ, 1e6);
  auto refused = [&](const char* key, const nlohmann::json& value, const std::string& words) {
    nlohmann::json json = hmm_params_json(p);
    if (value.is_null()) json.erase(key);
    else json[key] = value;
    try {
      parse_hmm_params(json);
      ADD_FAILURE() << key << " = " << value << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  };
  refused("kind", "swsearch", "\"kind\"");
  refused("search", "../x", "\"search\"");
  refused("F1", 0, "\"F1\"");
  refused("F2", 1.5, "\"F2\"");
  refused("F3", "1e-5", "\"F3\"");
  refused("report_evalue", -1, "\"report_evalue\"");
  refused("block_targets", 0, "\"block_targets\"");
  refused("database_sequences", nullptr, "\"database_sequences\" is missing");
  refused("chunk_targets", 46, "\"chunk_targets\"");  // more than the database
  refused("first_ordinal", 1, "\"first_ordinal\"");   // the chunk would run past the database
  refused("chunk", 1, "\"chunk\"");                   // chunk 1 of 1
  refused("profile_count", 0, "\"profile_count\"");
  refused("bias_filter", 1, "\"bias_filter\"");
  refused("domZ", 0, "\"domZ\"");
  refused("domZ", "many", "\"domZ\"");
}

TEST_F(HmmJob, BlocksGiveTheWholeChunksSearch) {
  // The pipeline over the whole chunk at once, with the reference engine.
  const auto hmms = parse_hmm_file(profiles_text_, "profiles");
  const SequenceSet chunk = make_target_chunk(targets_);
  auto reference = make_cpu_engine();
  reference->load_targets(chunk);
  DirectoryRuntime runtime(dir_.string());
  runtime.set_checkpoint_every_call(false);
  auto engine = make_cpu_engine();
  const HmmJobResult result = run_hmm_job(params(7), *engine, runtime, false);  // 7 blocks, the last of 3
  ASSERT_EQ(result.profiles.size(), 2u);
  EXPECT_EQ(result.engine, "cpu-reference");
  std::size_t row = 0;
  for (std::uint32_t p = 0; p < 2; ++p) {
    const SearchProfile profile = configure_profile(hmms[p]);
    reference->load_profile(profile);
    const ChunkSearch whole = search_chunk(profile, chunk, *reference, params(7).pipeline());
    const PipelineCounts& c = result.profiles[p].counts;
    EXPECT_EQ(result.profiles[p].name, hmms[p].name);
    EXPECT_EQ(result.profiles[p].M, hmms[p].length);
    EXPECT_EQ(c.targets, 45u);
    EXPECT_EQ(c.residues, whole.counts.residues);
    EXPECT_EQ(c.past_msv, whole.counts.past_msv);
    EXPECT_EQ(c.past_bias, whole.counts.past_bias);
    EXPECT_EQ(c.past_viterbi, whole.counts.past_viterbi);
    EXPECT_EQ(c.past_forward, whole.counts.past_forward);
    for (const PassedTarget& passed : whole.passed) {
      ASSERT_LT(row, result.rows.size());
      const ScoreRow& got = result.rows[row++];
      EXPECT_EQ(got.profile, p);
      EXPECT_EQ(got.ordinal, passed.target);
      EXPECT_EQ(got.name, targets_[passed.target].name);
      EXPECT_TRUE(same_scores(got.scores, passed)) << got.name << ": " << score_difference(got.scores, passed);
      const TargetDomains domains = target_domains(profile, targets_[passed.target], passed);
      EXPECT_TRUE(same_domains(got.domains, domains)) << got.name << ": " << domains_difference(got.domains, domains);
    }
  }
  EXPECT_EQ(row, result.rows.size());
  EXPECT_GE(result.profiles[0].counts.past_forward, 40u);  // globins4 finds the globins
  // tblout: the reported globins, best first, under globins4's header.
  const ProfileTexts reports = report_outputs(result);
  const std::string& tblout = reports.tblout;
  EXPECT_NE(tblout.find("globins4"), std::string::npos);
  EXPECT_NE(tblout.find("\nMYG_HORSE "), std::string::npos);
  EXPECT_EQ(tblout.rfind("#", 0), 0u);  // the header, once
  EXPECT_EQ(tblout.find("# target name", 10), tblout.rfind("# target name"));
  const std::string& domtblout = reports.domtblout;
  EXPECT_NE(domtblout.find("\nMYG_HORSE "), std::string::npos);
  // out: hmmsearch's text per query, statistics with it, no banner.
  const std::string& out = reports.out;
  EXPECT_EQ(out.rfind("Query:       globins4  [M=149]\n", 0), 0u) << out;
  EXPECT_NE(out.find("Accession:   PF00041.13\nDescription: Fibronectin type III domain\n"), std::string::npos);
  EXPECT_NE(out.find("Target sequences:                         45  (6519 residues searched)"), std::string::npos)
      << out;
  EXPECT_NE(out.find("  == domain 1  score: "), std::string::npos);
  EXPECT_NE(out.find("[number of targets reported over threshold]"), std::string::npos);
  EXPECT_EQ(out.find("CPU time"), std::string::npos);
}

TEST_F(HmmJob, ScoresAreExactBothWaysAndOnlyCanonicalTextIsRead) {
  DirectoryRuntime runtime(dir_.string());
  runtime.set_checkpoint_every_call(false);
  auto engine = make_cpu_engine();
  HmmJobResult result = run_hmm_job(params(16), *engine, runtime, false);
  ASSERT_FALSE(result.rows.empty());
  // Extremes a row may hold: MSV beyond the byte range (+inf), no Viterbi run.
  result.rows[0].scores.msv_nats = INFINITY;
  result.rows[0].scores.viterbi_run = false;
  result.rows[0].scores.viterbi_nats = 0;
  result.rows[1].description = "";
  const std::string text = scores_tsv(result.rows);
  const std::vector<ScoreRow> back = parse_scores_tsv(text, 0);
  ASSERT_EQ(back.size(), result.rows.size());
  for (std::size_t k = 0; k < back.size(); ++k) {
    EXPECT_EQ(back[k].profile, result.rows[k].profile);
    EXPECT_EQ(back[k].ordinal, result.rows[k].ordinal);
    EXPECT_EQ(back[k].name, result.rows[k].name);
    EXPECT_EQ(back[k].description, result.rows[k].description);
    EXPECT_TRUE(same_scores(back[k].scores, result.rows[k].scores)) << k;
  }
  EXPECT_EQ(scores_tsv(back), text);
  auto line_with = [&](const std::string& from, const std::string& to) {
    std::string changed = text;
    const auto at = changed.find(from, changed.find('\n'));
    EXPECT_NE(at, std::string::npos) << from;
    changed.replace(at, from.size(), to);
    return changed;
  };
  const std::string msv_field = "\tinf\t";
  EXPECT_THROW(parse_scores_tsv(line_with(msv_field, "\t1e400\t"), 0), InputError);
  EXPECT_THROW(parse_scores_tsv(line_with(msv_field, "\t0x1.0p+1\t"), 0), InputError);  // not as %a writes 2
  EXPECT_THROW(parse_scores_tsv(line_with(msv_field, "\tnan\t"), 0), InputError);
  EXPECT_THROW(parse_scores_tsv(line_with("\t1\t", "\t2\t"), 0), InputError);  // reported
  EXPECT_THROW(parse_scores_tsv(text, 1), InputError);  // ordinal 0 outside a chunk starting at 1
  EXPECT_THROW(parse_scores_tsv(text.substr(0, text.size() - 1), 0), InputError);  // no final newline
  EXPECT_THROW(parse_scores_tsv("profile\ttarget\n", 0), InputError);
}

TEST_F(HmmJob, DomainsAreExactBothWaysAndOnlyCanonicalTextIsRead) {
  DirectoryRuntime runtime(dir_.string());
  runtime.set_checkpoint_every_call(false);
  auto engine = make_cpu_engine();
  const HmmJobResult result = run_hmm_job(params(16), *engine, runtime, false);
  const std::string text = domains_tsv(result.rows);
  std::vector<ScoreRow> back = result.rows;
  for (ScoreRow& row : back) row.domains = TargetDomains{};
  parse_domains_tsv(text, back);
  std::size_t domains = 0;
  for (std::size_t k = 0; k < back.size(); ++k) {
    EXPECT_TRUE(same_domains(back[k].domains, result.rows[k].domains)) << domains_difference(back[k].domains, result.rows[k].domains);
    domains += back[k].domains.definition.domains.size();
  }
  EXPECT_GT(domains, back.size() / 2);
  EXPECT_EQ(domains_tsv(back), text);
  // What is not as the app writes it is refused.
  auto refused = [&](const std::string& changed) {
    std::vector<ScoreRow> rows = result.rows;
    EXPECT_THROW(parse_domains_tsv(changed, rows), InputError);
  };
  const std::size_t first_domain = text.find("\nD\t") + 1;
  const std::size_t first_domain_end = text.find('\n', first_domain) + 1;
  refused(text.substr(0, first_domain) + text.substr(first_domain_end));          // a domain line missing
  refused(text.substr(0, text.size() - 1));                                        // no final newline
  refused(text + text.substr(first_domain, first_domain_end - first_domain));      // a line of no row
  std::string changed = text;
  changed.insert(changed.find("\t0x", first_domain), "\t0x0p+0");  // one field too many
  refused(changed);
  changed = text;
  const std::size_t hex = changed.find("\t0x1.", first_domain) + 1;
  changed.insert(changed.find('p', hex), "0");  // the same float, not written as %a writes it
  refused(changed);
  std::vector<ScoreRow> fewer(result.rows.begin(), result.rows.end() - 1);
  EXPECT_THROW(parse_domains_tsv(text, fewer), InputError);  // records of no row
}

// Runs the app kind until it finishes, stopping after every checkpoint when
// asked; returns the four outputs.
std::vector<std::string> run_app(const fs::path& dir, const HmmParams& params, bool cpu, bool stop_each,
                                 int* restarts) {
  *restarts = restart_until_finished(dir.string(), stop_each ? 1 : -1, [&](DirectoryRuntime& runtime, int) {
    run_kind(hmmsearch_kind_spec(), hmm_params_json(params), RunOptions{cpu, 0}, runtime);
  });
  std::vector<std::string> outputs;
  for (const std::string& name : kOutputs) outputs.push_back(read_file_text((dir / name).string()));
  return outputs;
}

void remove_outputs(const fs::path& dir) {
  for (const std::string& name : kOutputs) fs::remove(dir / name);
  fs::remove(dir / "checkpoint.state");
}

TEST_F(HmmJob, RestartsAfterEveryBlockGiveTheSameBytes) {
  int restarts = 0;
  const auto straight = run_app(dir_, params(10), true, false, &restarts);
  EXPECT_EQ(restarts, 0);
  remove_outputs(dir_);
  const auto interrupted = run_app(dir_, params(10), true, true, &restarts);
  EXPECT_EQ(restarts, 2);  // 5 blocks of up to 10 targets; each run saves after one block and stops after the next
  EXPECT_EQ(interrupted, straight);
  // A checkpoint of another WU (other params) is ignored, not trusted.
  remove_outputs(dir_);
  DirectoryRuntime runtime(dir_.string());
  runtime.stop_after_checkpoints(1);
  HmmParams other = params(10);
  other.report_evalue = 1e-3;
  EXPECT_THROW(run_kind(hmmsearch_kind_spec(), hmm_params_json(other), RunOptions{true, 0}, runtime), StopRequested);
  EXPECT_EQ(run_app(dir_, params(10), true, false, &restarts), straight);
}

// The outputs of two engines: equal but for the summary's engine.
void expect_same_but_engine(const std::vector<std::string>& gpu, const std::vector<std::string>& cpu) {
  for (std::size_t k = 0; k + 1 < kOutputs.size(); ++k) EXPECT_EQ(gpu[k], cpu[k]) << kOutputs[k];
  nlohmann::json gpu_summary = nlohmann::json::parse(gpu.back()), cpu_summary = nlohmann::json::parse(cpu.back());
  EXPECT_NE(gpu_summary["engine"], cpu_summary["engine"]);
  gpu_summary.erase("engine"), cpu_summary.erase("engine");
  EXPECT_EQ(gpu_summary, cpu_summary);
}

TEST_F(HmmJob, GpuWritesTheCpuBytes) {
  if (gpu_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  int restarts = 0;
  const auto cpu = run_app(dir_, params(16), true, false, &restarts);
  remove_outputs(dir_);
  const auto gpu = run_app(dir_, params(16), false, true, &restarts);
  EXPECT_EQ(restarts, 0);  // the GPU engine's round takes the 3 blocks at once
  expect_same_but_engine(gpu, cpu);
  // The GPU engine resumes the CPU's checkpoint after block 1: one round of
  // the 2 blocks left.
  remove_outputs(dir_);
  DirectoryRuntime runtime(dir_.string());
  runtime.stop_after_checkpoints(1);
  EXPECT_THROW(run_kind(hmmsearch_kind_spec(), hmm_params_json(params(16)), RunOptions{true, 0}, runtime),
               StopRequested);
  expect_same_but_engine(run_app(dir_, params(16), false, true, &restarts), cpu);
  EXPECT_EQ(restarts, 0);
}

// The reference with one of its results wrong: a faulty GPU.
enum class Fault {
  kNone,        // the reference as it is
  kForward,     // every Forward score one float step off
  kPosteriors,  // Forward right, the domain posteriors halved (a decoding
                // bug; a float step alone rarely moves a region's edge)
  kEnvelopes,   // every envelope's Forward score one float step off
  kSampling,    // every sampled domain one residue shorter
  kFails,       // Forward fails as a faulty device does: a GpuError
};
class FaultyEngine : public HmmEngine {
 public:
  // round_targets: the targets the job is asked to search at once.
  explicit FaultyEngine(Fault fault, std::size_t round_targets = 0) : fault_(fault), round_targets_(round_targets) {}
  std::string description() const override { return "faulty"; }
  std::size_t round_targets() const override { return round_targets_; }
  void load_targets(const SequenceSet& targets) override { inner_->load_targets(targets); }
  void load_profile(const SearchProfile& profile) override { inner_->load_profile(profile); }
  std::vector<float> msv_scores() override { return inner_->msv_scores(); }
  std::vector<float> bias_filter_scores(const std::vector<std::uint32_t>& targets) override {
    return inner_->bias_filter_scores(targets);
  }
  std::vector<float> viterbi_scores(const std::vector<std::uint32_t>& targets) override {
    return inner_->viterbi_scores(targets);
  }
  std::vector<float> forward_scores(const std::vector<std::uint32_t>& targets) override {
    if (fault_ == Fault::kFails) throw GpuError("faulty engine: Forward failed");
    std::vector<float> scores = inner_->forward_scores(targets);
    if (fault_ == Fault::kForward)
      for (float& score : scores) score = std::nextafter(score, INFINITY);
    return scores;
  }
  std::vector<DomainPosteriors> domain_posteriors(const std::vector<std::uint32_t>& targets) override {
    std::vector<DomainPosteriors> posteriors = inner_->domain_posteriors(targets);
    if (fault_ == Fault::kPosteriors)
      for (DomainPosteriors& target : posteriors)
        for (float& p : target.mocc) p *= 0.5f;
    return posteriors;
  }
  std::vector<RegionSamples> sample_regions(const std::vector<RegionTask>& tasks, int samples,
                                            std::uint32_t seed) override {
    std::vector<RegionSamples> sampled = inner_->sample_regions(tasks, samples, seed);
    if (fault_ == Fault::kSampling)
      for (RegionSamples& region : sampled)
        for (SampledPair& pair : region.pairs) pair.j -= 1;
    return sampled;
  }
  std::vector<EnvelopeRescore> rescore_envelopes(const std::vector<EnvelopeTask>& tasks) override {
    std::vector<EnvelopeRescore> rescored = inner_->rescore_envelopes(tasks);
    if (fault_ == Fault::kEnvelopes)
      for (EnvelopeRescore& envelope : rescored) envelope.scores.envsc = std::nextafter(envelope.scores.envsc, INFINITY);
    return rescored;
  }

 private:
  Fault fault_;
  std::size_t round_targets_;
  std::unique_ptr<HmmEngine> inner_ = make_cpu_engine();
};

// Rounds of several blocks (as the GPU engine asks for) give the bytes of
// one block at a time, also when a run resumes a checkpoint inside a round,
// and the last round is cut at the chunk's end; so do several engines.
TEST_F(HmmJob, RoundsAndSeveralEnginesGiveTheSameBytes) {
  auto outputs = [](const HmmJobResult& r) {  // the summary names the engine
    ProfileTexts reports = report_outputs(r);
    return std::vector<std::string>{std::move(reports.tblout), std::move(reports.domtblout), std::move(reports.out),
                                    scores_tsv(r.rows), domains_tsv(r.rows)};
  };
  DirectoryRuntime runtime(dir_.string());
  auto reference = make_cpu_engine();
  const auto block_by_block = outputs(run_hmm_job(params(4), *reference, runtime, false));  // 12 blocks
  fs::remove(dir_ / "checkpoint.state");
  FaultyEngine rounds_of_five(Fault::kNone, 20);  // rounds of blocks 0-4, 5-9, 10-11
  EXPECT_EQ(outputs(run_hmm_job(params(4), rounds_of_five, runtime, true)), block_by_block);
  // Stopped after block 1 by the reference, resumed in rounds 2-6, 7-11.
  fs::remove(dir_ / "checkpoint.state");
  DirectoryRuntime stopped(dir_.string());
  stopped.stop_after_checkpoints(1);
  EXPECT_THROW(run_hmm_job(params(4), *reference, stopped, false), StopRequested);
  DirectoryRuntime resumed(dir_.string());
  EXPECT_EQ(outputs(run_hmm_job(params(4), rounds_of_five, resumed, true)), block_by_block);
  // Profiles shared among engines on threads of their own (as the GPU app
  // runs them): the same bytes; three engines for two profiles, one idle.
  fs::remove(dir_ / "checkpoint.state");
  FaultyEngine second(Fault::kNone, 20), third(Fault::kNone, 20);
  EXPECT_EQ(outputs(run_hmm_job(params(4), {&rounds_of_five, &second, &third}, runtime, true)), block_by_block);
  // A GpuError on any engine's thread reaches the caller.
  fs::remove(dir_ / "checkpoint.state");
  // Engines take the longest models first, engine e the e-th: globins4
  // twice, so that the wrong engine's first profile is one whose Forward
  // scores the self-check sees.
  profiles_text_ = read_file_text(kGlobins4) + read_file_text(kGlobins4);
  write_inputs();
  FaultyEngine wrong(Fault::kForward, 20);
  EXPECT_THROW(run_hmm_job(params(4), {&rounds_of_five, &wrong}, runtime, true), GpuError);
  fs::remove(dir_ / "checkpoint.state");
  EXPECT_NO_THROW(run_hmm_job(params(4), {&rounds_of_five, &second}, runtime, true));
}

// A round's long targets (kLongLegResidues residues or more) searched on
// long engines beside the engines, each leg on a thread of its own (as the
// GPU app runs a WU of one profile): the bytes of one engine searching all. The database
// gains two long targets: all 45 globins end to end (a hit of many domains)
// and a long stretch of its first globin's reversed sequences (none).
TEST_F(HmmJob, LongTargetsOnLongEnginesGiveTheSameBytes) {
  std::string joined, reversed;
  for (const TargetSequence& target : targets_) {
    for (std::uint8_t code : target.codes) joined += kSymbols[code];
    for (auto code = target.codes.rbegin(); code != target.codes.rend(); ++code) reversed += kSymbols[*code];
  }
  ASSERT_GE(joined.size(), kLongLegResidues);
  database_text_ += ">all_globins joined\n" + joined + "\n>reversed_globins\n" + reversed + "\n";
  targets_ = parse_targets(database_text_, "globins45 and two long targets");
  write_inputs();
  auto outputs = [](const HmmJobResult& r) {
    ProfileTexts reports = report_outputs(r);
    return std::vector<std::string>{std::move(reports.tblout), std::move(reports.domtblout), std::move(reports.out),
                                    scores_tsv(r.rows), domains_tsv(r.rows)};
  };
  DirectoryRuntime runtime(dir_.string());
  auto reference = make_cpu_engine();
  const auto one_engine = outputs(run_hmm_job(params(4), *reference, runtime, false));
  EXPECT_NE(one_engine[0].find("all_globins"), std::string::npos);  // the long hit is reported
  // A split chunk's long targets are in no other leg: searching it without
  // a long engine is refused, not done without them.
  const ChunkLegs legs = split_chunk(targets_, 0, targets_.size(), true);
  ASSERT_EQ(legs.longest.size(), 2u);
  const SearchProfile profile = configure_profile(parse_hmm_file(profiles_text_, "profiles").front());
  EXPECT_THROW(search_and_define(profile, targets_, legs, *reference, nullptr, PipelineOptions{}),
               std::invalid_argument);
  // Rounds of 20 targets: the long ones share the last round with three others.
  FaultyEngine first(Fault::kNone, 20), second(Fault::kNone, 20), long_first(Fault::kNone), long_second(Fault::kNone);
  fs::remove(dir_ / "checkpoint.state");
  EXPECT_EQ(outputs(run_hmm_job(params(4), {&first, &second}, {&long_first, &long_second}, runtime, true)), one_engine);
  // A long engine's fault on its thread reaches the caller.
  fs::remove(dir_ / "checkpoint.state");
  FaultyEngine failing(Fault::kFails);
  EXPECT_THROW(run_hmm_job(params(4), {&first, &second}, {&failing, &long_second}, runtime, true), GpuError);
  // The app on the GPU writes the CPU's bytes; a WU of one profile has a
  // long engine beside its engine.
  if (gpu_device_count() == 0) return;
  fs::remove(dir_ / "checkpoint.state");
  profiles_text_ = read_file_text(kGlobins4);
  write_inputs();
  HmmParams one_profile = params(16);
  one_profile.profile_count = 1;
  int restarts = 0;
  const auto cpu = run_app(dir_, one_profile, true, false, &restarts);
  remove_outputs(dir_);
  expect_same_but_engine(run_app(dir_, one_profile, false, false, &restarts), cpu);
}

TEST_F(HmmJob, SelfCheckTurnsAWrongEngineIntoAGpuError) {
  DirectoryRuntime runtime(dir_.string());
  FaultyEngine faulty(Fault::kForward);
  try {
    run_hmm_job(params(16), faulty, runtime, true);
    ADD_FAILURE() << "a wrong Forward score went unnoticed";
  } catch (const GpuError& e) {
    EXPECT_NE(std::string(e.what()).find("forward_nats"), std::string::npos) << e.what();
  }
  // Posteriors or envelopes wrong: the filters agree, domain definition does not.
  // globins45 holds no multi-domain region: a target of fn3 domains from
  // 7LESS_DROME (its regions are sampled), last and longer than any globin,
  // gives the sampling something to get wrong; the self-check redoes the
  // shortest sampled target wherever it is.
  const std::string sevenless = read_file_text(fs::path(kFn3).parent_path() / "7LESS_DROME");
  std::string residues;  // the lines after the SQ line, up to "//"
  for (std::size_t c = sevenless.find('\n', sevenless.find("\nSQ ") + 1), end = sevenless.find("\n//"); c < end; ++c)
    if (std::isupper(static_cast<unsigned char>(sevenless[c]))) residues += sevenless[c];
  ASSERT_EQ(residues.size(), 2554u);
  database_text_ += ">fn3_repeats 7LESS_DROME 826-914, 826-900, 1809-1891\n" + residues.substr(825, 89) +
                    residues.substr(825, 75) + residues.substr(1808, 83) + "\n";
  targets_ = parse_targets(database_text_, "fn3 repeats + globins45");
  write_inputs();
  for (Fault fault : {Fault::kPosteriors, Fault::kEnvelopes, Fault::kSampling}) {
    fs::remove(dir_ / "checkpoint.state");
    FaultyEngine wrong_domains(fault);
    try {
      run_hmm_job(params(16), wrong_domains, runtime, true);
      ADD_FAILURE() << "wrong domain definition went unnoticed";
    } catch (const GpuError& e) {
      EXPECT_NE(std::string(e.what()).find("domain definition differs"), std::string::npos) << e.what();
    }
  }
  // Without the self-check (the reference itself needs none) it would have been a result.
  fs::remove(dir_ / "checkpoint.state");
  EXPECT_NO_THROW(run_hmm_job(params(16), faulty, runtime, false));
}

TEST_F(HmmJob, BadInputGivesOneErrorAndNoResult) {
  const KindSpec& kind = hmmsearch_kind_spec();
  auto expect_refused = [&](const HmmParams& params, const std::string& words) {
    DirectoryRuntime runtime(dir_.string());
    try {
      run_kind(kind, hmm_params_json(params), RunOptions{true, 0}, runtime);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
    for (const std::string& name : kOutputs) EXPECT_FALSE(fs::exists(dir_ / name)) << name << " after: " << words;
    write_inputs();
  };
  // The database: truncated inside a record, truncated at a record boundary,
  // a bad residue, missing.
  const std::string whole = database_text_;
  database_text_ = whole.substr(0, whole.rfind('>') + 10);  // the last header cut, no sequence
  write_inputs();
  HmmParams truncated = params(16);
  truncated.chunk_bytes = database_text_.size();
  expect_refused(truncated, "empty");
  database_text_ = whole.substr(0, whole.rfind('>'));
  write_inputs();
  truncated.chunk_bytes = database_text_.size();
  expect_refused(truncated, "44 sequences");
  database_text_ = whole;
  write_inputs();
  {
    std::string bad = whole;
    bad[bad.find('\n', bad.find('>')) + 3] = '1';
    database_text_ = bad;
    write_inputs();
    expect_refused(params(16), "'1'");
    database_text_ = whole;
    write_inputs();
  }
  write_file_atomic((dir_ / "database").string(), whole.substr(0, whole.size() - 1));
  expect_refused(params(16), "bytes where the WU's params say");
  fs::remove(dir_ / "database");
  expect_refused(params(16), "database");
  // The profiles: truncated, a nucleic model, fewer models than the params say.
  profiles_text_ = read_file_text(kGlobins4) + read_file_text(kFn3).substr(0, 5000);
  write_inputs();
  expect_refused(params(16), "profiles");
  profiles_text_ = read_file_text(kGlobins4) + read_file_text(kMade1);
  write_inputs();
  expect_refused(params(16), "profiles");
  profiles_text_ = read_file_text(kGlobins4);
  write_inputs();
  expect_refused(params(16), "1 models where the WU's params say 2");
  fs::remove(dir_ / "profiles");
  expect_refused(params(16), "profiles");
  profiles_text_ = read_file_text(kGlobins4) + read_file_text(kFn3);
  write_inputs();
  // Absurd params never reach the inputs.
  nlohmann::json absurd = hmm_params_json(params(16));
  absurd["F1"] = 2;
  DirectoryRuntime runtime(dir_.string());
  EXPECT_THROW(run_kind(kind, absurd, RunOptions{true, 0}, runtime), InputError);
}

}  // namespace
}  // namespace helix::hmmsearch
