// hmm_test_util.cpp: see hmm_test_util.h.
#include "hmm_test_util.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/directory_runtime.h"
#include "core/file_io.h"
#include "hmmsearch/hmm_server.h"

namespace helix::test {
namespace fs = std::filesystem;

std::string tutorial_file(const std::string& name) { return std::string(kHmmTutorial) + "/" + name; }

bool hmm_data_present() {
  for (const char* name : {"globins4.hmm", "fn3.hmm", "Pkinase.hmm", "MADE1.hmm", "globins45.fa"})
    if (!fs::exists(tutorial_file(name))) return false;
  return fs::exists(kMmseqsDb);
}

std::string profiles_file_of(const std::string& dir, const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += read_file_text(tutorial_file(name));
  const std::string path = dir + "/profiles.hmm";
  write_file_atomic(path, text);
  return path;
}

std::string mmseqs_proteins(const std::string& dir, std::size_t count) {
  const std::string all = read_text_maybe_gzipped(kMmseqsDb);
  std::size_t end = 0;
  for (std::size_t seen = 0; end != std::string::npos && seen <= count; ++seen)
    end = all.find('>', seen == 0 ? 0 : end + 1);
  const std::string path = dir + "/db.fasta";
  write_file_atomic(path, all.substr(0, end));
  return path;
}

WuRun run_hmm_wu(const std::vector<std::string>& args) {
  return run_workunit_command("hmmsearch", args);
}

void write_hmm_files(const hmmsearch::HmmJobResult& result, const std::vector<std::string>& paths) {
  const hmmsearch::ProfileTexts reports = hmmsearch::report_outputs(result);
  write_file_atomic(paths[hmmsearch::kTbloutFile], reports.tblout);
  write_file_atomic(paths[hmmsearch::kDomtbloutFile], reports.domtblout);
  write_file_atomic(paths[hmmsearch::kOutFile], reports.out);
  write_file_atomic(paths[hmmsearch::kScoresFile], hmmsearch::scores_tsv(result.rows));
  write_file_atomic(paths[hmmsearch::kDomainsFile], hmmsearch::domains_tsv(result.rows));
  write_file_atomic(paths[hmmsearch::kSummaryFile], hmmsearch::hmm_summary_json(result));
}

HmmResult run_hmm_spec(const WorkunitSpec& spec, const std::string& result_dir) {
  const std::string run_dir = scratch_dir("hmm_run");
  for (const auto& [logical, path] : spec.inputs) fs::copy_file(path, run_dir + "/" + logical);
  const hmmsearch::HmmParams params = hmmsearch::parse_hmm_params(nlohmann::json::parse(read_file_text(run_dir + "/params")));
  DirectoryRuntime runtime(run_dir);
  runtime.set_checkpoint_every_call(false);
  auto engine = hmmsearch::make_cpu_engine();
  HmmResult out;
  out.result = hmmsearch::run_hmm_job(params, *engine, runtime, false);
  for (std::size_t k = 0; k < hmmsearch::kResultFiles; ++k) out.paths.push_back(result_dir + "/" + spec.name + "_0_" + std::to_string(k));
  write_hmm_files(out.result, out.paths);
  fs::remove_all(run_dir);
  return out;
}

}  // namespace helix::test
