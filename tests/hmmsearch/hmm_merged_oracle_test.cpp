// hmm_merged_oracle_test.cpp: the loop closed end to end. A search split
// into work units, each run on the CPU, assimilated and merged, reports
// exactly what ONE run of HMMER 3.3.2's hmmsearch over the whole database
// reports:
//
//   helix-wu hmmsearch make   (in-process)  Pkinase + fn3 x the first 3,000
//                                           mmseqs2-examples proteins, >= 3 chunks
//   run_hmm_job               (in-process)  each WU with the reference engine
//   helix-assimilate          (the program) every result into one sqlite file
//   helix-wu hmmsearch report (the program) per profile tblout, domtblout, out
//
//   /usr/bin/hmmsearch -Z 3000 --cpu 1 --tblout T --domtblout D -o O
//                      <Pkinase + fn3 in one file> <the same 3,000 proteins>
//
// No --domZ on either side: the WUs leave domZ unset and the merged report
// uses hmmsearch's own default, the number of targets reported over the
// whole database (which no chunk knows).
//
// Byte for byte: the three header lines and every row of the tblout and the
// domtblout (both profiles' rows, in hmmsearch's order; not the '#' tail of
// paths and date), and the human-readable text of each query from "Query:"
// to "//" (hmmsearch's "# CPU time:" and "# Mc/sec:" lines left out).
//
// Skipped when hmmsearch, hmmer-examples or mmseqs2-examples is missing.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../hmmsearch/hmm_oracle_util.h"
#include "../hmmsearch/hmm_test_data.h"
#include "core/file_io.h"
#include "hmm_test_util.h"
#include "server_test_util.h"

namespace helix::test {
namespace {
namespace fs = std::filesystem;
namespace data = hmmsearch::test_data;
using hmmsearch::oracle_util::first_fasta_records;
using hmmsearch::oracle_util::lines_of;
using hmmsearch::oracle_util::query_texts;
using hmmsearch::oracle_util::shell_quoted;
using hmmsearch::oracle_util::table_lines;

const std::string kHmmsearch = "/usr/bin/hmmsearch";
const std::vector<std::string> kProfileNames = {"Pkinase", "fn3"};  // in the profiles file's order
constexpr std::size_t kTargets = 3000;
constexpr const char* kChunkResidues = "400000";  // the 3,000 proteins hold about 1.39 million

struct Report {
  std::vector<std::string> tbl, dom;  // the three header lines, then every row
  std::string text;                   // each query's "Query:" .. "//", without the timing lines
};

// Appends `more`'s rows (its first three lines are the header) to `all`;
// the first table's header is kept, every later one must equal it.
void append_table(std::vector<std::string>& all, const std::vector<std::string>& more, const std::string& name) {
  ASSERT_GE(more.size(), 3u) << name;
  if (all.empty()) {
    all = more;
    return;
  }
  EXPECT_TRUE(std::equal(all.begin(), all.begin() + 3, more.begin())) << name << ": another header";
  all.insert(all.end(), more.begin() + 3, more.end());
}

Report run_hmmsearch(const std::string& profiles, const std::string& fasta, const std::string& dir) {
  const std::string tbl = dir + "/t.tbl", dom = dir + "/d.tbl", out = dir + "/o.txt";
  const ToolRun run = run_tool(kHmmsearch + " -Z " + std::to_string(kTargets) + " --cpu 1 -o " + shell_quoted(out) +
                               " --tblout " + shell_quoted(tbl) + " --domtblout " + shell_quoted(dom) + " " +
                               shell_quoted(profiles) + " " + shell_quoted(fasta));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return {table_lines(read_file_text(tbl)), table_lines(read_file_text(dom)), query_texts(read_file_text(out))};
}

// Makes the WUs, runs each on the CPU and stores its result with
// helix-assimilate; returns the results database's path.
std::string search_in_chunks(const std::string& profiles, const std::string& fasta, const std::string& dir) {
  const WuRun made = run_hmm_wu({"hmmsearch", "make", "--name", "mo", "--profiles", profiles, "--database", fasta,
                                 "--chunk-residues", kChunkResidues, "--out", dir + "/in"});
  EXPECT_EQ(made.error, "");
  EXPECT_GE(made.specs.size(), 3u);
  const std::string results = dir + "/results.sqlite";
  fs::create_directories(dir + "/results");
  for (std::size_t c = 0; c < made.specs.size(); ++c) {
    const HmmResult result = run_hmm_spec(made.specs[c], dir + "/results");
    std::string files;
    for (const std::string& path : result.files()) files += " " + shell_quoted(path);
    const ToolRun stored = run_tool(std::string(HELIX_ASSIMILATE) + " --db " + shell_quoted(results) + " " +
                                    std::to_string(1 + c) + files);
    EXPECT_EQ(stored.exit_code, 0) << stored.err;
  }
  return results;
}

// `helix-wu hmmsearch report` of the stored search, its per-profile files
// joined as one hmmsearch run over both profiles writes them.
Report merged_report(const std::string& results, const std::string& dir) {
  const ToolRun run = run_tool(std::string(HELIX_WU) + " hmmsearch report --results " + shell_quoted(results) +
                               " --search mo --out " + shell_quoted(dir + "/report"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  Report report;
  for (const std::string& name : kProfileNames) {
    const std::string base = dir + "/report/mo." + name;
    append_table(report.tbl, table_lines(read_file_text(base + ".tblout")), base + ".tblout");
    append_table(report.dom, table_lines(read_file_text(base + ".domtblout")), base + ".domtblout");
    report.text += read_file_text(base + ".out");
  }
  return report;
}

// The first lines where two line lists part, for the failure message.
std::string first_difference(const std::vector<std::string>& theirs, const std::vector<std::string>& ours) {
  const std::size_t common = std::min(theirs.size(), ours.size());
  std::size_t k = 0;
  while (k < common && theirs[k] == ours[k]) ++k;
  return "line " + std::to_string(k + 1) + " of " + std::to_string(theirs.size()) + " / " + std::to_string(ours.size()) +
         "\nhmmsearch: " + (k < theirs.size() ? theirs[k] : "(end)") + "\nmerged:    " + (k < ours.size() ? ours[k] : "(end)");
}

bool oracle_present() {
  return fs::exists(kHmmsearch) && fs::exists(data::kProteins) && fs::exists(data::kTutorial + "Pkinase.hmm") &&
         fs::exists(data::kTutorial + "fn3.hmm");
}

TEST(HmmMergedOracle, MergedChunkReportEqualsOneHmmsearchOverTheWholeDatabase) {
  if (!oracle_present()) GTEST_SKIP() << "hmmsearch, hmmer-examples or mmseqs2-examples is not installed";
  const std::string dir = scratch_dir("hmm_merged_oracle");
  const std::string fasta = dir + "/db.fasta", profiles = dir + "/profiles.hmm";
  write_file_atomic(fasta, first_fasta_records(read_text_maybe_gzipped(data::kProteins), kTargets));
  write_file_atomic(profiles, read_file_text(data::kTutorial + "Pkinase.hmm") + read_file_text(data::kTutorial + "fn3.hmm"));

  const Report merged = merged_report(search_in_chunks(profiles, fasta, dir), dir);
  const Report theirs = run_hmmsearch(profiles, fasta, dir);
  // EXPECT_TRUE, not EXPECT_EQ: a failure names the first differing line, not thousands.
  EXPECT_TRUE(merged.tbl == theirs.tbl) << "tblout: " << first_difference(theirs.tbl, merged.tbl);
  EXPECT_TRUE(merged.dom == theirs.dom) << "domtblout: " << first_difference(theirs.dom, merged.dom);
  EXPECT_TRUE(merged.text == theirs.text) << "text: " << first_difference(lines_of(theirs.text), lines_of(merged.text));
  EXPECT_GT(theirs.tbl.size(), 3u + 20u);  // real kinases and fn3 proteins, not an empty agreement
  const std::vector<std::string> text_lines = lines_of(theirs.text);
  EXPECT_EQ(std::count(text_lines.begin(), text_lines.end(), "//"), 2);  // both queries' texts
  if (!HasFailure())
    std::cout << "[ merged   ] " << kTargets << " targets: " << theirs.tbl.size() - 3 << " targets and "
              << theirs.dom.size() - 3 << " domains reported, identical to hmmsearch's\n";
}

}  // namespace
}  // namespace helix::test
