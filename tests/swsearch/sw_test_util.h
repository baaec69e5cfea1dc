// sw_test_util.h: fixtures for the swsearch kind's server-side tests: a small
// real protein database (HMMER's tutorial globins45.fa) and NCBI's BLOSUM62,
// `helix-wu swsearch make` run in-process, and genuine results: WUs made by
// the work generator and run with the reference engine, written as the app
// writes them under BOINC's result file names (<wu>_0_0, <wu>_0_1).
#pragma once
#include <string>
#include <vector>

#include "core/kind.h"
#include "swsearch/sw_job.h"
#include "server_test_util.h"

namespace helix::test {

constexpr const char* kGlobins = "/usr/share/doc/hmmer/examples/tutorial/globins45.fa";
constexpr const char* kBlosum62 = "/usr/share/ncbi/data/BLOSUM62";
bool sw_data_present();
#define SKIP_WITHOUT_SW_DATA() \
  if (!helix::test::sw_data_present()) GTEST_SKIP() << "ncbi-data or hmmer-examples are not installed"

// The first `count` records of globins45.fa (past its 45, the same again with
// ids ending "_copyN") as a FASTA file in `dir`; returns its path.
std::string globin_queries(const std::string& dir, std::size_t count);

// `helix-wu <args...>` with the swsearch commands (run_workunit_command).
WuRun run_sw_wu(const std::vector<std::string>& args);

struct SwResult {
  std::string hits, summary;  // file paths
  swsearch::SearchResult result;
  std::vector<std::string> files() const { return {hits, summary}; }
};
// Runs WU `spec` (inputs as helix-wu wrote them) with the reference engine and
// writes its outputs into `result_dir` as <wu>_0_0 (hits) and <wu>_0_1 (summary).
SwResult run_sw_spec(const WorkunitSpec& spec, const std::string& result_dir);

}  // namespace helix::test
