// hmm_oracle_test.cpp: the hmmsearch kind's CPU reference against its oracle,
// HMMER 3.3.2's own hmmsearch (Debian's /usr/bin/hmmsearch), run as
//
//   hmmsearch --nonull2 -Z 1000000 --noali --cpu 1 --tblout T -o O <hmm> <fasta>
//
// on the same files. -Z 1000000 makes the E-values those of a big database
// (a work unit is one chunk of one), --nonull2 leaves out the null2
// correction, which part 1 of the kind does not compute.
//
// Contents (one test per profile, so that ctest -j runs them side by side;
// about 35 s in all under ctest -j2 on a 2-core machine):
//   EveryExampleProfile/HmmOracleProfile.*/<profile>: every protein profile
//       of hmmer-examples (13 files, 14 models; HMMER3/b's example.hmm.gz
//       through hmmconvert for our parser) against the first 5,000 proteins
//       of mmseqs2-examples' DB.fasta.gz ($HELIX_HMM_ORACLE_TARGETS=20000:
//       all of them, about 4x the time; everything passes that way too);
//   HmmOracle.PkinaseFullDatabase: Pkinase against all 20,000;
//   PlantedHomologs/HmmOraclePlanted.*/<profile>: 20 sequences hmmemit
//       samples from globins4, fn3, Pkinase and SMC_N, planted among 2,000
//       real proteins; both must find at least 15 (all 20 are, by both).
// Each asserts, per model: the pipeline's counts (targets, residues, passed
// MSV, bias, Vit, Fwd: hmmsearch's "Internal pipeline statistics summary");
// the same reported targets (E-value <= 10); for each the score as printed
// ("%6.1f"), bias 0.0, the E-value as printed ("%9.2g"); and the same order
// of the rows. (The report's text itself, tblout included, is part 2's:
// hmm_domain_oracle_test compares it byte for byte.)
//
// What may differ, by design of part 1 (docs/hmmsearch.md): hmmsearch's
// score is the Forward score unless its domain definition finds domains whose
// summed score is higher ("domain-sum scores"), and it drops a target that
// passed Forward with no domain. So:
//   - E-value print mismatches: the scores print the same, the E-values not
//     (the sum of one domain a hair above Forward). Counted (test property
//     "evalue_print_mismatches"), at most 1 + 1% of a model's hits. Measured:
//     1 of 430 Pkinase hits in all 20,000 proteins (13.2757 bits, E 2.3 for
//     us; 13.3, E 2.2 for hmmsearch, one domain), none elsewhere.
//   - domain-sum scores: hmmsearch's score prints higher, its E-value lower,
//     and it defined at least one domain. Not small: SMC_N (M=1142, the
//     split ATPase head of SMC proteins) has 9 of 88 hits in 5,000 proteins
//     raised by 5.8 to 41 bits, all with 2 to 6 domains (in all 20,000: 40
//     of 395, by 0.2 to 318 bits, one of them with one domain); no other
//     example model has any. Counted ("domain_sum_scores"), at most 1 + 15%
//     of a model's hits; left out of the tblout layout and order comparisons
//     (they sort by the other score).
//     Such a target could also be reported by hmmsearch alone (our E-value
//     over 10): allowed when it passed our Forward filter; none does here.
//   - no target passes Forward without a domain on these data, so the reverse
//     (reported by us alone) is a failure.
//
// Skipped when hmmsearch, hmmemit (planted), hmmer-examples or
// mmseqs2-examples is missing ($HELIX_HMMER_EXAMPLES: the tutorial folder;
// $HELIX_MMSEQS_EXAMPLES: the folder of DB.fasta.gz).
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/file_io.h"
#include "hmm_file.h"
#include "hmm_oracle_util.h"
#include "hmm_pipeline.h"
#include "hmm_test_data.h"

namespace helix::hmmsearch {
namespace {

using namespace test_data;  // NOLINT: kTutorial, kProteins, ...

namespace fs = std::filesystem;

const std::string kHmmsearch = "/usr/bin/hmmsearch";
const std::string kHmmemit = "/usr/bin/hmmemit";
const std::string kHmmconvert = "/usr/bin/hmmconvert";
constexpr double kZ = 1000000;  // -Z: the database size the E-values are for

// ---------------------------------------------------------------- helpers

using namespace helix::hmmsearch::oracle_util;  // NOLINT: the oracle helpers

// ------------------------------------------------------- hmmsearch's side

// One --tblout row: the line and its 18 columns before the description.
struct TblRow {
  std::string line;
  std::vector<std::string> fields;
};

TblRow parse_tbl_row(const std::string& line) {
  TblRow row;
  row.line = line;
  std::size_t at = 0;
  for (int f = 0; f < 18; ++f) {
    const std::size_t start = line.find_first_not_of(' ', at);
    if (start == std::string::npos) throw std::runtime_error("short tblout row: " + line);
    at = std::min(line.find(' ', start), line.size());
    row.fields.push_back(line.substr(start, at - start));
  }
  return row;
}

// What hmmsearch says about one query model.
struct OracleQuery {
  std::string name;
  PipelineCounts counts;
  std::vector<TblRow> rows;  // its --tblout rows, in order
};

struct OracleRun {
  std::vector<OracleQuery> queries;      // in the file's order
  double seconds = 0;
};

std::uint64_t count_after_colon(const std::string& line) {
  return std::stoull(line.substr(line.find(':') + 1));
}

OracleRun run_hmmsearch(const std::string& hmm, const std::string& fasta, const TempDir& dir) {
  const std::string tbl = dir.file("hmmsearch.tbl"), out = dir.file("hmmsearch.out");
  const std::string command = kHmmsearch + " --nonull2 -Z " + printed("%.0f", kZ) + " --tblout " +
                              shell_quoted(tbl) + " -o " + shell_quoted(out) + " --noali --cpu 1 " +
                              shell_quoted(hmm) + " " + shell_quoted(fasta);
  const auto start = std::chrono::steady_clock::now();
  const CommandResult result = run_command(command);
  OracleRun run;
  run.seconds = seconds_since(start);
  if (result.exit_code != 0)
    throw std::runtime_error(command + " exited with " + std::to_string(result.exit_code) + ": " + result.output);

  // The main output: a "Query:" line, then its statistics summary, per model.
  for (const std::string& line : lines_of(read_file_text(out))) {
    if (line.rfind("Query:", 0) == 0) {
      std::istringstream words(line.substr(6));
      run.queries.emplace_back();
      words >> run.queries.back().name;
      continue;
    }
    if (run.queries.empty()) continue;
    PipelineCounts& counts = run.queries.back().counts;
    if (line.rfind("Target sequences:", 0) == 0) {
      counts.targets = count_after_colon(line);
      counts.residues = std::stoull(line.substr(line.find('(') + 1));
    } else if (line.rfind("Passed MSV filter:", 0) == 0) {
      counts.past_msv = count_after_colon(line);
    } else if (line.rfind("Passed bias filter:", 0) == 0) {
      counts.past_bias = count_after_colon(line);
    } else if (line.rfind("Passed Vit filter:", 0) == 0) {
      counts.past_viterbi = count_after_colon(line);
    } else if (line.rfind("Passed Fwd filter:", 0) == 0) {
      counts.past_forward = count_after_colon(line);
    }
  }

  // --tblout: '#' lines around each query's rows (column 3 is the query).
  for (const std::string& line : lines_of(read_file_text(tbl))) {
    if (line.empty() || line[0] == '#') continue;
    TblRow row = parse_tbl_row(line);
    auto query = std::find_if(run.queries.begin(), run.queries.end(),
                              [&](const OracleQuery& q) { return q.name == row.fields[2]; });
    if (query == run.queries.end()) throw std::runtime_error("tblout row for an unknown query: " + line);
    query->rows.push_back(std::move(row));
  }
  return run;
}

// -------------------------------------------------------------- our side

struct OurQuery {
  SearchProfile profile;
  ChunkSearch search;
  double seconds = 0;  // configure + search_chunk on the reference engine
};

std::vector<OurQuery> run_reference(const std::vector<ProfileHmm>& models, const std::vector<TargetSequence>& targets) {
  const SequenceSet chunk = make_target_chunk(targets);
  std::unique_ptr<HmmEngine> engine = make_cpu_engine();
  engine->load_targets(chunk);
  PipelineOptions options;
  options.database_sequences = kZ;
  std::vector<OurQuery> queries;
  for (const ProfileHmm& model : models) {
    const auto start = std::chrono::steady_clock::now();
    OurQuery query;
    query.profile = configure_profile(model);
    engine->load_profile(query.profile);
    query.search = search_chunk(query.profile, chunk, *engine, options);
    query.seconds = seconds_since(start);
    queries.push_back(std::move(query));
  }
  return queries;
}

// ------------------------------------------------------------ comparison

struct Tally {
  int models = 0, hits = 0, evalue_print_mismatches = 0, domain_sum_scores = 0;
  double our_seconds = 0, hmmsearch_seconds = 0;
  std::vector<std::string> notes;  // one line per difference allowed
};

std::string counts_text(const PipelineCounts& c) {
  return std::to_string(c.targets) + " targets, " + std::to_string(c.residues) + " residues; passed MSV " +
         std::to_string(c.past_msv) + ", bias " + std::to_string(c.past_bias) + ", Vit " +
         std::to_string(c.past_viterbi) + ", Fwd " + std::to_string(c.past_forward);
}

// At most this many of `hits` may differ in one way (1 + 1%, 1 + 15%).
int allowed(std::size_t hits, int percent) { return 1 + static_cast<int>(hits) * percent / 100; }

// Everything the header of this file promises, for one model.
void expect_same_search(const OurQuery& ours, const OracleQuery& theirs, const std::vector<TargetSequence>& targets,
                        Tally& tally) {
  SCOPED_TRACE("model " + theirs.name);
  ASSERT_EQ(ours.profile.name, theirs.name);
  const PipelineCounts& a = ours.search.counts;
  const PipelineCounts& b = theirs.counts;
  EXPECT_EQ(a.targets, b.targets);
  EXPECT_EQ(a.residues, b.residues);
  EXPECT_EQ(a.past_msv, b.past_msv);
  EXPECT_EQ(a.past_bias, b.past_bias);
  EXPECT_EQ(a.past_viterbi, b.past_viterbi);
  EXPECT_EQ(a.past_forward, b.past_forward);
  ++tally.models;

  std::map<std::string, const PassedTarget*> our_passed;  // past Forward, reported or not
  for (const PassedTarget& passed : ours.search.passed) our_passed[targets[passed.target].name] = &passed;
  std::map<std::string, const TblRow*> their_hits;
  for (const TblRow& row : theirs.rows) their_hits[row.fields[0]] = &row;

  // hmmsearch's hits, one by one. Each is one of:
  //  - the same: score and E-value print the same;
  //  - an E-value print mismatch: the scores print the same, the E-values
  //    not (the score differs below 0.05 bits);
  //  - a domain-sum score: hmmsearch's domain definition found domains
  //    (one is enough: each is rescored with its own length model) whose
  //    summed score beats the Forward score and took it (part 2 of the
  //    kind): its score is higher, its E-value lower; such a target may even
  //    be reported by hmmsearch only (E-value over 10 for us).
  std::set<std::string> domain_sum;
  int evalue_mismatches = 0;
  for (const auto& [name, row] : their_hits) {
    auto found = our_passed.find(name);
    if (found == our_passed.end()) {
      ADD_FAILURE() << "reported by hmmsearch, did not pass our Forward filter: " << row->line;
      continue;
    }
    const PassedTarget& passed = *found->second;
    const double our_evalue = std::exp(passed.ln_p) * kZ;
    const std::string our_score_text = printed("%.1f", passed.score_bits);
    const std::string our_evalue_text = trimmed(printed("%9.2g", our_evalue));
    const std::string ours_in_words = "ours " + printed("%.4f", passed.score_bits) + " bits, E " + our_evalue_text +
                                      (passed.reported ? "" : " (not reported)") + "; hmmsearch " + row->fields[5] +
                                      " bits, E " + row->fields[4] + ", " + row->fields[15] + " domains";
    EXPECT_EQ(row->fields[6], "0.0") << name << ": hmmsearch's bias column (--nonull2)";
    ++tally.hits;
    if (our_score_text == row->fields[5]) {
      EXPECT_TRUE(passed.reported) << name << ": " << ours_in_words;
      if (our_evalue_text != row->fields[4]) {
        ++evalue_mismatches;
        tally.notes.push_back(theirs.name + " " + name + ": E-value printed differently: " + ours_in_words);
      }
      continue;
    }
    const bool raised = std::stod(row->fields[5]) > passed.score_bits && std::stod(row->fields[4]) <= our_evalue &&
                        std::stoi(row->fields[15]) >= 1;
    EXPECT_TRUE(raised) << name << ": score differs, and not as a sum of domains raises it: " << ours_in_words;
    if (!raised) continue;
    domain_sum.insert(name);
    tally.notes.push_back(theirs.name + " " + name + ": domain-sum score: " + ours_in_words);
  }
  tally.evalue_print_mismatches += evalue_mismatches;
  tally.domain_sum_scores += domain_sum.size();
  EXPECT_LE(evalue_mismatches, allowed(their_hits.size(), 1)) << "E-values printed differently, scores the same";
  EXPECT_LE(static_cast<int>(domain_sum.size()), allowed(their_hits.size(), 15)) << "domain-sum scores";

  // Our reported targets that hmmsearch does not report: it would drop one
  // only when its domain definition finds no domain (part 2), which none of
  // these data do.
  for (const auto& [name, passed] : our_passed)
    if (passed->reported && !their_hits.count(name))
      ADD_FAILURE() << "reported by the reference only: " << name << " (score "
                    << printed("%.2f", passed->score_bits) << ", E " << printed("%.3g", std::exp(passed->ln_p) * kZ)
                    << "; hmmsearch found no domain?)";

  // The order of the rows: hmmsearch's (by P-value, then name), the
  // domain-sum ones aside, which sort by another score. (The complete
  // tblout's text, header and domain columns included, is compared byte for
  // byte in hmm_domain_oracle_test.)
  std::vector<const PassedTarget*> reported;
  for (const auto& [name, passed] : our_passed)
    if (passed->reported && !domain_sum.count(name)) reported.push_back(passed);
  std::stable_sort(reported.begin(), reported.end(), [](const PassedTarget* x, const PassedTarget* y) {
    return x->ln_p < y->ln_p;  // our_passed iterates by name: ties stay in name order
  });
  std::vector<std::string> our_order, their_order;
  for (const PassedTarget* passed : reported)
    if (their_hits.count(targets[passed->target].name)) our_order.push_back(targets[passed->target].name);
  for (const TblRow& row : theirs.rows)
    if (!domain_sum.count(row.fields[0])) their_order.push_back(row.fields[0]);
  EXPECT_EQ(our_order, their_order) << "tblout rows and their order";

  std::cout << "[ oracle   ] " << theirs.name << " (M=" << ours.profile.M << "): " << counts_text(a) << "; "
            << their_hits.size() << " hits: " << evalue_mismatches << " E-value print mismatches, "
            << domain_sum.size() << " domain-sum scores; reference " << printed("%.2f", ours.seconds) << " s\n";
}

void report(const Tally& tally) {
  ::testing::Test::RecordProperty("models", tally.models);
  ::testing::Test::RecordProperty("hits", tally.hits);
  ::testing::Test::RecordProperty("evalue_print_mismatches", tally.evalue_print_mismatches);
  ::testing::Test::RecordProperty("domain_sum_scores", tally.domain_sum_scores);
  ::testing::Test::RecordProperty("reference_seconds", printed("%.2f", tally.our_seconds));
  ::testing::Test::RecordProperty("hmmsearch_seconds", printed("%.2f", tally.hmmsearch_seconds));
  std::cout << "[ oracle   ] " << tally.models << " model(s), " << tally.hits << " hits, "
            << tally.evalue_print_mismatches << " E-value print mismatches, " << tally.domain_sum_scores
            << " domain-sum scores; reference " << printed("%.2f", tally.our_seconds) << " s, hmmsearch "
            << printed("%.2f", tally.hmmsearch_seconds) << " s\n";
  for (const std::string& note : tally.notes) std::cout << "[ oracle   ]   " << note << "\n";
}

// ------------------------------------------------------------------ tests

class HmmOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kHmmsearch)) GTEST_SKIP() << kHmmsearch << " is not installed (Debian package hmmer)";
    if (!fs::exists(kTutorial + "globins4.hmm")) GTEST_SKIP() << "hmmer-examples is not installed";
    if (!fs::exists(kProteins)) GTEST_SKIP() << "mmseqs2-examples is not installed";
  }

  // How many proteins of the database the per-profile tests search: 5,000, or
  // $HELIX_HMM_ORACLE_TARGETS (e.g. 20000 for all, about 4x the time).
  static std::size_t subset_size() {
    const char* value = std::getenv("HELIX_HMM_ORACLE_TARGETS");
    return value ? std::stoul(value) : 5000;
  }

  static const std::string& database_text() {
    static const std::string text = read_text_maybe_gzipped(kProteins);
    return text;
  }

  // The models of `hmm` (a path under hmmer-examples, maybe gzipped) as we read
  // them, and a plain-text file of them for hmmsearch in `dir`. HMMER 3.0's
  // older "HMMER3/b" files (example.hmm.gz) are not ours to read: HMMER's own
  // hmmconvert rewrites them as HMMER3/f for our parser, and hmmsearch reads
  // the original.
  static std::vector<ProfileHmm> models_of(const std::string& hmm, const TempDir& dir, std::string& plain_path) {
    const std::string text = read_text_maybe_gzipped(hmm);
    plain_path = dir.file("query.hmm");
    write_file_atomic(plain_path, text);
    if (text.rfind("HMMER3/b", 0) != 0) return parse_hmm_file(text, hmm);
    if (!fs::exists(kHmmconvert)) return {};
    const std::string converted = dir.file("converted.hmm");
    const CommandResult result =
        run_command(kHmmconvert + " " + shell_quoted(plain_path) + " > " + shell_quoted(converted));
    if (result.exit_code != 0) throw std::runtime_error("hmmconvert failed: " + result.output);
    return parse_hmm_file(read_file_text(converted), hmm + " (hmmconvert)");
  }

  // Searches `fasta` (its text) with every model of `hmm` both ways and
  // compares; returns the two sides for the caller's own checks.
  void search_both(const std::string& hmm, const std::string& fasta, Tally& tally,
                   std::vector<OurQuery>* our_queries = nullptr, OracleRun* oracle_run = nullptr) {
    TempDir dir;
    std::string plain_hmm;
    const std::vector<ProfileHmm> models = models_of(hmm, dir, plain_hmm);
    if (models.empty()) GTEST_SKIP() << kHmmconvert << " is not installed, needed for " << hmm;
    const std::string fasta_path = dir.file("targets.fa");
    write_file_atomic(fasta_path, fasta);
    const std::vector<TargetSequence> targets = parse_targets(fasta, fasta_path);

    std::vector<OurQuery> ours = run_reference(models, targets);
    OracleRun theirs = run_hmmsearch(plain_hmm, fasta_path, dir);
    ASSERT_EQ(theirs.queries.size(), ours.size()) << "models searched by hmmsearch";
    for (std::size_t q = 0; q < ours.size(); ++q) {
      expect_same_search(ours[q], theirs.queries[q], targets, tally);
      tally.our_seconds += ours[q].seconds;
    }
    tally.hmmsearch_seconds += theirs.seconds;
    if (our_queries) *our_queries = std::move(ours);
    if (oracle_run) *oracle_run = std::move(theirs);
  }
};

// "testsuite/2OG-FeII_Oxy_3.hmm.gz" -> "2OG_FeII_Oxy_3".
std::string profile_test_name(const ::testing::TestParamInfo<const char*>& info) {
  std::string name = fs::path(info.param).filename().string();
  name = name.substr(0, name.find('.'));
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

// Every protein profile of hmmer-examples (the nucleic-acid ones, and
// HMMER2 files, are not the kind's), one test each so that ctest runs them
// side by side.
class HmmOracleProfile : public HmmOracle, public ::testing::WithParamInterface<const char*> {};

TEST_P(HmmOracleProfile, SameCountsHitsScoresAndTbloutAsHmmsearch) {
  const std::string hmm = kExamples + GetParam();
  if (!fs::exists(hmm)) GTEST_SKIP() << hmm << " is missing";
  Tally tally;
  search_both(hmm, first_fasta_records(database_text(), subset_size()), tally);
  report(tally);
}

INSTANTIATE_TEST_SUITE_P(EveryExampleProfile, HmmOracleProfile,
                         ::testing::Values("tutorial/globins4.hmm", "tutorial/fn3.hmm", "tutorial/Pkinase.hmm",
                                           "testsuite/XYPPX.hmm", "testsuite/M1.hmm", "testsuite/Caudal_act.hmm.gz",
                                           "testsuite/RRM_1.hmm.gz", "testsuite/20aa.hmm.gz",
                                           "testsuite/SMC_N.hmm.gz", "testsuite/Patched.hmm.gz",
                                           "testsuite/LuxC.hmm.gz", "testsuite/2OG-FeII_Oxy_3.hmm.gz",
                                           "easel/demotic/examples/example.hmm.gz"),
                         profile_test_name);

// Pkinase (M=260, the examples' most hits) against the whole database.
TEST_F(HmmOracle, PkinaseFullDatabase) {
  Tally tally;
  search_both(kTutorial + "Pkinase.hmm", database_text(), tally);
  report(tally);
}

// Homologs sampled from the model itself (hmmemit's default: the core model,
// full length) planted among real proteins: the pipeline must agree on them
// as on the rest, and both must find most of them.
class HmmOraclePlanted : public HmmOracle, public ::testing::WithParamInterface<const char*> {};

TEST_P(HmmOraclePlanted, PlantedHomologsFoundAlike) {
  if (!fs::exists(kHmmemit)) GTEST_SKIP() << kHmmemit << " is not installed";
  const std::string hmm = kExamples + GetParam();
  if (!fs::exists(hmm)) GTEST_SKIP() << hmm << " is missing";
  constexpr int kPlanted = 20;
  std::string emitted;
  {
    TempDir dir;
    const std::string plain = dir.file("model.hmm");
    write_file_atomic(plain, read_text_maybe_gzipped(hmm));
    const std::string sampled = dir.file("sampled.fa");
    const CommandResult result = run_command(kHmmemit + " -N " + std::to_string(kPlanted) + " --seed 7 -o " +
                                             shell_quoted(sampled) + " " + shell_quoted(plain));
    ASSERT_EQ(result.exit_code, 0) << result.output;
    emitted = read_file_text(sampled);
  }
  const std::vector<std::string> planted = record_texts(emitted);
  ASSERT_EQ(planted.size(), static_cast<std::size_t>(kPlanted));
  std::set<std::string> planted_names;
  for (const std::string& record : planted) planted_names.insert(record.substr(1, record.find_first_of(" \n") - 1));

  // One planted sequence after every 100 real ones.
  const std::vector<std::string> real = record_texts(first_fasta_records(database_text(), 2000));
  std::string fasta;
  for (std::size_t r = 0; r < real.size(); ++r) {
    if (r % 100 == 50 && r / 100 < planted.size()) fasta += planted[r / 100];
    fasta += real[r];
  }

  Tally tally;
  std::vector<OurQuery> ours;
  OracleRun theirs;
  search_both(hmm, fasta, tally, &ours, &theirs);
  if (HasFatalFailure() || IsSkipped()) return;
  const std::vector<TargetSequence> targets = parse_targets(fasta, "planted");
  // Found: past Forward for us; reported (E-value <= 10) by hmmsearch.
  int ours_found = 0, theirs_found = 0;
  for (const PassedTarget& passed : ours.front().search.passed)
    ours_found += planted_names.count(targets[passed.target].name);
  for (const TblRow& row : theirs.queries.front().rows) theirs_found += planted_names.count(row.fields[0]);
  std::cout << "[ oracle   ] planted " << kPlanted << " from " << GetParam() << ": found by the reference "
            << ours_found << ", by hmmsearch " << theirs_found << "\n";
  RecordProperty("planted_found_reference", ours_found);
  RecordProperty("planted_found_hmmsearch", theirs_found);
  EXPECT_GE(ours_found, kPlanted * 3 / 4) << "most planted homologs must be found";
  EXPECT_GE(theirs_found, kPlanted * 3 / 4) << "most planted homologs must be found";
  report(tally);
}

INSTANTIATE_TEST_SUITE_P(PlantedHomologs, HmmOraclePlanted,
                         ::testing::Values("tutorial/globins4.hmm", "tutorial/fn3.hmm", "tutorial/Pkinase.hmm",
                                           "testsuite/SMC_N.hmm.gz"),
                         profile_test_name);

}  // namespace
}  // namespace helix::hmmsearch
