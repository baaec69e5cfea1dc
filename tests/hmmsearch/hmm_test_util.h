// hmm_test_util.h: fixtures for the hmmsearch kind's server-side tests: real
// profiles (hmmer-examples' globins4, fn3, Pkinase) and real proteins
// (globins45.fa; the first N of mmseqs2-examples' 20,000), `helix-wu
// hmmsearch ...` run in-process, and genuine results: WUs made by the work
// generator and run with the reference engine, written as the app writes
// them under BOINC's result file names (<wu>_0_0 .. <wu>_0_5).
#pragma once
#include <string>
#include <vector>

#include "core/kind.h"
#include "hmmsearch/hmm_job.h"
#include "server_test_util.h"

namespace helix::test {

constexpr const char* kHmmTutorial = "/usr/share/doc/hmmer/examples/tutorial";
constexpr const char* kMmseqsDb = "/usr/share/doc/mmseqs2/example-data/DB.fasta.gz";
bool hmm_data_present();
#define SKIP_WITHOUT_HMM_DATA() \
  if (!helix::test::hmm_data_present()) GTEST_SKIP() << "hmmer-examples or mmseqs2-examples are not installed"

// hmmer-examples' tutorial file `name` (e.g. "globins4.hmm").
std::string tutorial_file(const std::string& name);
// The named tutorial profiles concatenated into dir/profiles.hmm; returns its path.
std::string profiles_file_of(const std::string& dir, const std::vector<std::string>& names);
// The first `count` proteins of mmseqs2-examples' DB.fasta.gz as dir/db.fasta; returns its path.
std::string mmseqs_proteins(const std::string& dir, std::size_t count);

// `helix-wu <args...>` with the hmmsearch commands (run_workunit_command).
WuRun run_hmm_wu(const std::vector<std::string>& args);

struct HmmResult {
  std::vector<std::string> paths;  // tblout, domtblout, out, scores, domains, summary
  hmmsearch::HmmJobResult result;
  const std::vector<std::string>& files() const { return paths; }
};
// Writes `result`'s six files as the app does, under `paths`.
void write_hmm_files(const hmmsearch::HmmJobResult& result, const std::vector<std::string>& paths);
// Runs WU `spec` (inputs as helix-wu wrote them) with the reference engine and
// writes its outputs into `result_dir` as <wu>_0_0 .. <wu>_0_5.
HmmResult run_hmm_spec(const WorkunitSpec& spec, const std::string& result_dir);

}  // namespace helix::test
