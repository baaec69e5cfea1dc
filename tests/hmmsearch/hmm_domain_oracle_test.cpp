// hmm_domain_oracle_test.cpp: part 2 of the hmmsearch kind (domains, null2,
// the complete report) against HMMER 3.3.2's own hmmsearch, run with its
// defaults (null2 on) as
//
//   hmmsearch -Z 1000000 --domZ 1000000 --cpu 1 -o O
//             --tblout T --domtblout D <hmm> <fasta>
//
// Our side: the CPU reference pipeline and domain_hits() (the app's
// define_passed_domains() with the reference engine, then score_target()
// for every target that passed Forward), the report model
// (hmm_report.h), its tblout / domtblout and human-readable text. Every row
// of both tables must be identical, byte for byte: target and domain sets,
// full-sequence and best-domain scores, bias and E-values,
// exp/reg/clu/ov/env/dom/rep/inc, each domain's c-/i-Evalue, score, bias,
// hmm/ali/env coordinates and accuracy; and so must the human-readable text
// from "Query:" to "//" (alignments included; hmmsearch's two timing lines
// left out). The header lines are compared too; the '#' tail (paths, date)
// is not.
//
// Skipped when hmmsearch, hmmer-examples or mmseqs2-examples is missing.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/file_io.h"
#include "hmm_domains.h"
#include "hmm_file.h"
#include "hmm_oracle_util.h"
#include "hmm_pipeline.h"
#include "hmm_report.h"
#include "hmm_search.h"
#include "hmm_test_data.h"

namespace helix::hmmsearch {
namespace {

using namespace test_data;  // NOLINT: kTutorial, kProteins, ...

using namespace oracle_util;  // NOLINT: the oracle helpers

const std::string kHmmsearch = "/usr/bin/hmmsearch";
constexpr double kZ = 1000000, kDomZ = 1000000;

struct Tables {
  std::vector<std::string> tbl, dom;  // rows and the three header lines; no '#' tail
  std::string text;                   // the human-readable text, "Query:" to "//" of each query
};

Tables run_hmmsearch(const std::string& hmm, const std::string& fasta, const TempDir& dir) {
  const std::string tbl = dir.file("t.tbl"), dom = dir.file("d.tbl"), out = dir.file("o.txt");
  const std::string command = kHmmsearch + " -Z " + printed("%.0f", kZ) + " --domZ " + printed("%.0f", kDomZ) +
                              " --cpu 1 -o " + shell_quoted(out) + " --tblout " + shell_quoted(tbl) +
                              " --domtblout " + shell_quoted(dom) + " " + shell_quoted(hmm) + " " + shell_quoted(fasta);
  const CommandResult result = run_command(command);
  if (result.exit_code != 0) throw std::runtime_error(command + ": " + result.output);
  return {table_lines(read_file_text(tbl)), table_lines(read_file_text(dom)), query_texts(read_file_text(out))};
}

// Our tables for every model of the file, as hmmsearch writes them (header
// once, then each query's rows).
Tables run_ours(const std::vector<ProfileHmm>& models, const std::vector<TargetSequence>& targets) {
  const SequenceSet chunk = make_target_chunk(targets);
  std::unique_ptr<HmmEngine> engine = make_cpu_engine();
  engine->load_targets(chunk);
  PipelineOptions options;
  options.database_sequences = kZ;
  std::string tbl, dom, text;
  for (std::size_t q = 0; q < models.size(); ++q) {
    const SearchProfile profile = configure_profile(models[q]);
    engine->load_profile(profile);
    const ChunkSearch search = search_chunk(profile, chunk, *engine, options);
    QueryReport report;
    report.name = profile.name, report.accession = profile.accession, report.description = profile.description;
    report.M = profile.M;
    report.options.Z = kZ, report.options.domZ = kDomZ;
    report.targets = domain_hits(profile, targets, search, *engine, options);
    sort_report_targets(report.targets);
    apply_thresholds(report);
    tbl += tblout_report_text(report, q == 0);
    dom += domtblout_report_text(report, q == 0);
    text += query_report_text(report, report_statistics_text(report, search.counts, options));
  }
  return {table_lines(tbl), table_lines(dom), text};
}

// Lines in one list and not the other (as multisets), for the message.
std::string differences(const std::vector<std::string>& theirs, const std::vector<std::string>& ours) {
  std::vector<std::string> a = theirs, b = ours, only_theirs, only_ours;
  std::sort(a.begin(), a.end()), std::sort(b.begin(), b.end());
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only_theirs));
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(only_ours));
  std::string text;
  for (const auto& line : only_theirs) text += "hmmsearch: " + line + "\n";
  for (const auto& line : only_ours) text += "helix:     " + line + "\n";
  return text;
}

class HmmDomainOracle : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (!fs::exists(kHmmsearch) || !fs::exists("/usr/bin/hmmemit") || !fs::exists(kProteins) ||
        !fs::exists(kTutorial + "globins4.hmm"))
      GTEST_SKIP() << "hmmsearch, hmmemit, hmmer-examples or mmseqs2-examples is not installed";
  }
};
class HmmDomainOraclePlanted : public HmmDomainOracle {};

// Both programs on `fasta`; every table row and the whole human-readable
// text must be identical.
void expect_same_reports(const std::string& hmm, const std::string& fasta_text) {
  const std::vector<ProfileHmm> models = parse_hmm_file(read_text_maybe_gzipped(hmm), hmm);
  TempDir dir;
  const std::string fasta = dir.file("targets.fa");
  write_file_atomic(fasta, fasta_text);
  const std::vector<TargetSequence> targets = parse_targets(fasta_text, fasta);
  const Tables theirs = run_hmmsearch(hmm, fasta, dir);
  const Tables ours = run_ours(models, targets);
  EXPECT_EQ(ours.tbl, theirs.tbl) << differences(theirs.tbl, ours.tbl);
  EXPECT_EQ(ours.dom, theirs.dom) << differences(theirs.dom, ours.dom);
  EXPECT_EQ(ours.text, theirs.text);
  ::testing::Test::RecordProperty("targets_reported", static_cast<int>(theirs.tbl.size()) - 3);
  ::testing::Test::RecordProperty("domains_reported", static_cast<int>(theirs.dom.size()) - 3);
  std::cout << "[ oracle   ] " << fs::path(hmm).filename().string() << ": " << targets.size() << " targets, "
            << theirs.tbl.size() - 3 << " reported, " << theirs.dom.size() - 3 << " domains: identical\n";
}

std::string database_text() {
  static const std::string text = read_text_maybe_gzipped(kProteins);
  return text;
}

TEST_P(HmmDomainOracle, ReportsEqualHmmsearchs) {
  const char* count_variable = std::getenv("HELIX_HMM_ORACLE_TARGETS");
  const std::size_t count = count_variable ? std::stoul(count_variable) : 3000;
  expect_same_reports(kExamples + GetParam(), first_fasta_records(database_text(), count));
}

// The profiles with the most hits and multi-domain targets, against all
// 20,000 proteins (SMC_N too with $HELIX_HMM_ORACLE_TARGETS=20000: about a
// minute).
TEST_F(HmmDomainOracle, PkinaseAndFn3FullDatabase) {
  expect_same_reports(kTutorial + "Pkinase.hmm", database_text());
  expect_same_reports(kTutorial + "fn3.hmm", database_text());
}

// hmmemit samples planted among 2,000 real proteins: one sample each, and
// two or three samples joined by real sequence (multi-domain targets, so the
// stochastic clustering decides their envelopes).
// hmmemit's FASTA for the model in `hmm` (maybe gzipped) with `options`.
std::string hmmemit(const std::string& hmm, const std::string& options) {
  TempDir dir;
  const std::string plain = dir.file("model.hmm"), emitted = dir.file("emitted.fa");
  write_file_atomic(plain, read_text_maybe_gzipped(hmm));
  const CommandResult result =
      run_command("/usr/bin/hmmemit " + options + " -o " + shell_quoted(emitted) + " " + shell_quoted(plain));
  if (result.exit_code != 0) throw std::runtime_error("hmmemit " + options + ": " + result.output);
  return read_file_text(emitted);
}

// The residues of one FASTA record's text.
std::string residues(const std::string& record) {
  std::string letters;
  for (char c : record.substr(record.find('\n') + 1)) if (c != '\n') letters += c;
  return letters;
}

TEST_P(HmmDomainOraclePlanted, ReportsEqualHmmsearchs) {
  const std::string hmm = kExamples + GetParam();
  const std::vector<std::string> samples = record_texts(hmmemit(hmm, "-N 40 --seed 11"));
  ASSERT_EQ(samples.size(), 40u);
  const std::vector<std::string> real = record_texts(first_fasta_records(database_text(), 2000));
  std::string fasta;
  for (std::size_t r = 0; r < real.size(); ++r) {
    fasta += real[r];
    if (r % 100 != 50) continue;
    const std::size_t s = r / 100 * 2;  // 20 plants, two samples each
    const std::string spacer = residues(real[r]).substr(0, 40 + r % 60);
    const bool single = r / 100 % 2 == 0;
    fasta += ">planted" + std::to_string(r / 100) + (single ? " one sample\n" : " two samples\n");
    fasta += single ? residues(samples[s]) : residues(samples[s]) + spacer + residues(samples[s + 1]);
    fasta += "\n";
  }
  expect_same_reports(hmm, fasta);
}

// Strong hits of a long profile: its consensus (hmmemit -c) cut to every
// 1/40 of its length from half to all of it, among 300 real proteins. For
// SMC_N (M 1142) and Patched (M 803) the scores run from about 500 to over
// 1,500 bits, through the range (about 1,020 to 1,075 bits at Z = 1e6) where
// exp(ln P) is a subnormal double: hmmsearch, in flush-to-zero mode, prints
// those E-values as 0 (hmmer_evalue()).
class HmmDomainOracleStrong : public HmmDomainOracle {};

TEST_P(HmmDomainOracleStrong, SubnormalEValuesPrintAsHmmsearchsZero) {
  const std::string hmm = kExamples + GetParam();
  const std::string consensus = residues(hmmemit(hmm, "-c"));
  ASSERT_GE(consensus.size(), 800u) << "a long profile";
  std::string fasta = first_fasta_records(database_text(), 300);
  for (int k = 20; k <= 40; ++k)
    fasta += ">consensus_" + std::to_string(k) + "_of_40\n" + consensus.substr(0, consensus.size() * k / 40) + "\n";
  expect_same_reports(hmm, fasta);
}

std::string profile_test_name(const ::testing::TestParamInfo<const char*>& info) {
  std::string name = fs::path(info.param).filename().string();
  name = name.substr(0, name.find('.'));
  for (char& c : name) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(EveryExampleProfile, HmmDomainOracle,
                         ::testing::Values("tutorial/globins4.hmm", "tutorial/fn3.hmm", "tutorial/Pkinase.hmm",
                                           "testsuite/XYPPX.hmm", "testsuite/M1.hmm", "testsuite/Caudal_act.hmm.gz",
                                           "testsuite/RRM_1.hmm.gz", "testsuite/20aa.hmm.gz",
                                           "testsuite/SMC_N.hmm.gz", "testsuite/Patched.hmm.gz",
                                           "testsuite/LuxC.hmm.gz", "testsuite/2OG-FeII_Oxy_3.hmm.gz"),
                         profile_test_name);

INSTANTIATE_TEST_SUITE_P(LongProfiles, HmmDomainOracleStrong,
                         ::testing::Values("testsuite/SMC_N.hmm.gz", "testsuite/Patched.hmm.gz"), profile_test_name);

INSTANTIATE_TEST_SUITE_P(PlantedHomologs, HmmDomainOraclePlanted,
                         ::testing::Values("tutorial/globins4.hmm", "tutorial/fn3.hmm", "tutorial/Pkinase.hmm",
                                           "testsuite/SMC_N.hmm.gz", "testsuite/RRM_1.hmm.gz"),
                         profile_test_name);

}  // namespace
}  // namespace helix::hmmsearch
