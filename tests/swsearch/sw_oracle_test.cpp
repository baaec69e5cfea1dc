// sw_oracle_test.cpp: the swsearch reference's scores (sw_score) against two
// independent Smith-Waterman programs, run as external tools:
//
//   parasail_aligner (Debian parasail 2.6), -a sw_striped_sat: Farrar's
//     striped SIMD kernel in 8 bits, redone in 16 and then 32 bits on
//     saturation; -x (no suffix-array filter: every query x target pair);
//     CSV output "query,target,qlen,tlen,score,qend,tend".
//   ssw_test (Debian ssw-align 1.1), -p: SSW's striped kernel in 8 bits,
//     redone in 16 bits when the score nears 255.
//
// Both charge a k-gap open + (k - 1) extend, as sw.h does, so -o/-e are our
// GapPenalties unchanged (the probe test checks it on a 2-gap). Each tool runs
// once per data set and setting, on a query file against a target file, and
// every score it prints is compared with ours: they must be identical.
//
// Linear gaps (open = extend): Farrar's lazy-F loop stops when no F - extend
// exceeds H - open, which with open = extend holds at once (H >= F), so both
// tools' striped kernels under-score some pairs there (seen: globins, hmmer
// and random pairs under BLOSUM62 5/5, by 1 to 5; ours was confirmed by a
// plain Gotoh in Python and by parasail's own scalar `sw` and `sw_scan_sat`).
// For open = extend this test therefore runs parasail's sw_scan_sat (no
// lazy-F loop) and leaves SSW out (counted); open = extend + 1 is striped
// and agrees.
//
// Matrices: both tools read NCBI's own files (/usr/share/ncbi/data/, as the
// reference does), not their built-in tables: parasail's built-in blosum62
// is an older table whose X row differs from NCBI's (A/X = 0, not -1; the
// probe test prints it), and ssw_test's built-in is BLOSUM50 only.
// ssw_test copies the -a argument into a 16-byte buffer (Debian's fortified
// build aborts on a longer path), so it runs in the work directory with the
// matrix copied there as "M".
//
// Letters (checked by the probe test): with an NCBI file, parasail scores the
// 25 letters of kAlphabet as we do, but U and O (no row in the file) as '*',
// where we score them as X; ssw_test scores U and O as X, as we do, but never
// gives '*' a row and scores it as X. So pairs with a U or O are left out of
// the parasail comparison and pairs with a '*' out of the SSW one; they are
// counted and printed, never dropped silently. The real data sets hold only
// the 20 amino acids, X, and (mmseqs2's database) B and Z, and the random
// sequences are drawn from the 24 letters both tools read as NCBI does, so
// the counts are 0 there; the probes cover '*', U and O.
// ssw_test's 16-bit scores saturate at 32767: pairs of ours above 32766
// would be left out of the SSW comparison (counted; none here).
//
// Ends are not compared: tools break ties between equal-scoring end cells
// their own way (ours: the first such cell, target position outer).
// Alignments: for every query's best positive pair, every positive pair with
// a sequence of length <= 2, and every n-th positive pair, sw_align() must
// give the same score and end as sw_score(), and score_of_cigar() of its
// CIGAR must equal the score.
//
// Data: HMMER's example protein FASTA files (hmmer-examples), mmseqs2's
// example queries against a slice of its database (mmseqs2-examples), and
// random sequences with mutated relatives (lengths 1..500, fixed seed). Skips,
// with the reason, when a tool, a data file or a matrix is missing; compares
// with the one tool that is there (and then skips, saying so) when only one is.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/file_io.h"

#include "core/errors.h"
#include "sw.h"

namespace helix::swsearch {
namespace {

namespace fs = std::filesystem;

// Debian's ncbi-data matrices; $HELIX_NCBI_DATA overrides (as the other swsearch tests).
const std::string kMatrixDir = [] {
  const char* override_dir = std::getenv("HELIX_NCBI_DATA");
  return std::string(override_dir ? override_dir : "/usr/share/ncbi/data") + "/";
}();
const std::string kHmmerExamples = "/usr/share/doc/hmmer/examples/";           // hmmer-examples
const std::string kMmseqsExamples = "/usr/share/doc/mmseqs2/example-data/";    // mmseqs2-examples

// Every protein FASTA file hmmer-examples ships (its other FASTA files are DNA
// or aligned, with '-' gaps): 224 sequences of 20 to 450 residues.
const std::vector<std::string> kHmmerFiles = {
    "tutorial/globins45.fa",
    "tutorial/HBB_HUMAN",
    "testsuite/PAX8_HUMAN",
    "testsuite/20aa-alitest.fa",
    "testsuite/rndseq400-10.fa.gz",
    "easel/formats/fasta",
    "easel/demotic/examples/example.fa",
    "easel/demotic/examples/example-single.fa.gz",
    "easel/demotic/examples/example-single-psiquery.fa",
};

// Matrix and gaps (a k-gap costs open + (k - 1) extend). BLAST's defaults,
// whose existence E, extension X is open E + X here: BLOSUM62 12/1 (BLAST
// 11/1), BLOSUM45 17/2 (15/2), BLOSUM80 11/1 (10/1), PAM30 10/1 (9/1), PAM70
// 11/1 (10/1); other common ones: BLOSUM62 11/1, BLOSUM50 10/2, PAM250 15/3;
// and edge cases: cheap gaps (gap-rich alignments, large scores), open =
// extend + 1 (the striped kernels' lazy-F loop runs longest) and linear gaps
// (open = extend: parasail through sw_scan_sat, SSW not at all; see the top).
struct Setting {
  const char* matrix;
  int open, extend;
};
const std::vector<Setting> kSettings = {
    {"BLOSUM62", 11, 1}, {"BLOSUM62", 12, 1}, {"BLOSUM50", 10, 2}, {"BLOSUM45", 17, 2},
    {"BLOSUM80", 11, 1}, {"PAM30", 10, 1},    {"PAM70", 11, 1},    {"PAM250", 15, 3},
    {"BLOSUM62", 2, 1},  {"BLOSUM62", 6, 5},  {"BLOSUM62", 5, 5},
};
std::string setting_name(const Setting& s) {
  return std::string(s.matrix) + " " + std::to_string(s.open) + "/" + std::to_string(s.extend);
}

// Letters each tool, given an NCBI matrix file, scores exactly as we do.
const std::string kParasailLetters = "ARNDCQEGHILKMFPSTWYVBJZX*";   // not U, O (parasail: '*')
const std::string kSswLetters = "ARNDCQEGHILKMFPSTWYVBJZXUO";       // not '*' (ssw_test: X)
constexpr int kSswMaxScore = 32767;                                  // its 16-bit kernel saturates here

struct Sequence {
  std::string id;
  std::string letters;  // upper case, as the tools get them
  std::vector<std::uint8_t> codes;
};

std::string quote(const std::string& text) {  // for /bin/sh
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// Records through our parse_fasta(); the letters alongside, read plainly, so
// a tool gets exactly the file's residues (decode_protein would turn U into X).
std::vector<Sequence> read_fasta(const std::string& path) {
  const std::string text = read_text_maybe_gzipped(path);
  const std::vector<FastaRecord> records = parse_fasta(text, path);
  std::vector<std::string> letters;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] == '>') {
      letters.emplace_back();
      continue;
    }
    for (char c : line)
      if (!std::isspace(static_cast<unsigned char>(c))) letters.back() += static_cast<char>(std::toupper(c));
  }
  if (letters.size() != records.size()) throw std::runtime_error(path + ": record count differs from parse_fasta's");
  std::vector<Sequence> out;
  for (std::size_t k = 0; k < records.size(); ++k) {
    if (encode_protein(letters[k], path) != records[k].residues) throw std::runtime_error(path + ": residues differ");
    out.push_back({records[k].id, letters[k], records[k].residues});
  }
  return out;
}

bool only_letters(const std::string& residues, const std::string& allowed) {
  return residues.find_first_not_of(allowed) == std::string::npos;
}

void write_fasta(const std::string& path, const std::vector<const Sequence*>& sequences, char prefix) {
  std::ofstream out(path);
  for (std::size_t k = 0; k < sequences.size(); ++k) out << '>' << prefix << k << '\n' << sequences[k]->letters << '\n';
  if (!out) throw std::runtime_error("cannot write " + path);
}

// One tool run's worth: every query against every target under one setting.
struct Job {
  std::string label;
  Setting setting;
  std::vector<const Sequence*> queries, targets;
  int align_every;  // also rescore every align_every-th positive pair's alignment
};

struct Tools {
  std::string parasail = find_program("parasail_aligner");
  std::string ssw = find_program("ssw_test");
};

// Our scores, row-major (query, target), on all cores; and the alignment
// checks, whose failures come back as messages.
std::vector<int> reference_scores(const Job& job, const ScoreMatrix& matrix, std::vector<std::string>& failures,
                                  long& aligned) {
  const std::size_t nq = job.queries.size(), nt = job.targets.size();
  const GapPenalties gaps{job.setting.open, job.setting.extend};
  std::vector<int> scores(nq * nt);
  std::atomic<std::size_t> next_query{0};
  std::atomic<long> alignments{0};
  std::mutex failures_mutex;
  auto work = [&] {
    for (std::size_t q; (q = next_query++) < nq;) try {
      const auto& query = job.queries[q]->codes;
      std::vector<LocalScore> row(nt);
      std::size_t best = 0;
      for (std::size_t t = 0; t < nt; ++t) {
        row[t] = sw_score(query, job.targets[t]->codes, matrix, gaps);
        scores[q * nt + t] = row[t].score;
        if (row[t].score > row[best].score) best = t;
      }
      for (std::size_t t = 0; t < nt; ++t) {
        const auto& target = job.targets[t]->codes;
        const bool short_one = std::min(query.size(), target.size()) <= 2;
        if (row[t].score == 0 || !(t == best || short_one || (q * nt + t) % job.align_every == 0)) continue;
        if (static_cast<double>(query.size()) * target.size() > 2e7) continue;  // traceback memory
        const Alignment a = sw_align(query, target, matrix, gaps);
        const int rescored = score_of_cigar(query, target, a.query_begin, a.target_begin, a.cigar, matrix, gaps);
        ++alignments;
        if (a.score != row[t].score || a.query_end != row[t].query_end || a.target_end != row[t].target_end ||
            rescored != row[t].score) {
          std::lock_guard<std::mutex> lock(failures_mutex);
          failures.push_back(job.label + " " + job.queries[q]->id + " x " + job.targets[t]->id + ": sw_score " +
                             std::to_string(row[t].score) + ", sw_align " + std::to_string(a.score) + " CIGAR " +
                             a.cigar + " rescores to " + std::to_string(rescored));
        }
      }
    } catch (const std::exception& e) {  // score_of_cigar refusing a CIGAR, say
      std::lock_guard<std::mutex> lock(failures_mutex);
      failures.push_back(job.label + " " + job.queries[q]->id + ": " + e.what());
    }
  };
  std::vector<std::thread> threads;
  for (unsigned k = 1; k < std::max(1u, std::thread::hardware_concurrency()); ++k) threads.emplace_back(work);
  work();
  for (auto& thread : threads) thread.join();
  aligned += alignments;
  return scores;
}

// parasail_aligner's scores into `scores` (row-major); "" or why not.
// Its stdin must be an empty pipe: it reads a regular file or /dev/null on
// stdin as a further input.
std::string run_parasail(const std::string& program, const std::string& dir, const Job& job,
                         std::vector<int>& scores) {
  const std::string csv = dir + "/parasail.csv", log = dir + "/parasail.log";
  // Farrar's striped kernel needs open > extend (see the top of the file).
  const char* function = job.setting.open > job.setting.extend ? "sw_striped_sat" : "sw_scan_sat";
  const std::string command = ": | " + quote(program) + " -a " + function + " -x -m " +
                              quote(kMatrixDir + job.setting.matrix) + " -o " + std::to_string(job.setting.open) +
                              " -e " + std::to_string(job.setting.extend) + " -f " + quote(dir + "/targets.fa") +
                              " -q " + quote(dir + "/queries.fa") + " -g " + quote(csv) + " > " + quote(log) + " 2>&1";
  if (std::system(command.c_str()) != 0) return "failed: " + command + "\n" + read_text_maybe_gzipped(log);
  const std::size_t nq = job.queries.size(), nt = job.targets.size();
  scores.assign(nq * nt, -1);
  std::ifstream in(csv);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    long q, t, qlen, tlen, score;
    char comma[4];
    std::istringstream fields(line);
    if (!(fields >> q >> comma[0] >> t >> comma[1] >> qlen >> comma[2] >> tlen >> comma[3] >> score) || q < 0 ||
        t < 0 || static_cast<std::size_t>(q) >= nq || static_cast<std::size_t>(t) >= nt)
      return "bad line in " + csv + ": " + line;
    if (static_cast<std::size_t>(qlen) != job.queries[q]->letters.size() ||
        static_cast<std::size_t>(tlen) != job.targets[t]->letters.size())
      return "lengths differ from ours: " + line;
    if (scores[q * nt + t] != -1) return "pair twice: " + line;
    scores[q * nt + t] = static_cast<int>(score);
  }
  if (lines != nq * nt) return std::to_string(lines) + " scores for " + std::to_string(nq * nt) + " pairs\n" + read_text_maybe_gzipped(log);
  return "";
}

// ssw_test's scores (it takes the targets first and prints, per query, every
// target: "target_name: t7", "query_name: q3", "optimal_alignment_score: 44 ...").
std::string run_ssw(const std::string& program, const std::string& dir, const Job& job, std::vector<int>& scores) {
  fs::copy_file(kMatrixDir + job.setting.matrix, dir + "/M", fs::copy_options::overwrite_existing);
  const std::string command = "cd " + quote(dir) + " && " + quote(program) + " -p -a M -o " +
                              std::to_string(job.setting.open) + " -e " + std::to_string(job.setting.extend) +
                              " targets.fa queries.fa > ssw.out 2> ssw.log";
  if (std::system(command.c_str()) != 0) return "failed: " + command + "\n" + read_text_maybe_gzipped(dir + "/ssw.log");
  const std::size_t nq = job.queries.size(), nt = job.targets.size();
  scores.assign(nq * nt, -1);
  std::ifstream in(dir + "/ssw.out");
  std::size_t count = 0;
  long t = -1, q = -1;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("target_name: t", 0) == 0) {
      t = std::stol(line.substr(14));
    } else if (line.rfind("query_name: q", 0) == 0) {
      q = std::stol(line.substr(13));
    } else if (line.rfind("optimal_alignment_score: ", 0) == 0) {
      if (q < 0 || t < 0 || static_cast<std::size_t>(q) >= nq || static_cast<std::size_t>(t) >= nt ||
          scores[q * nt + t] != -1)
        return "unexpected score line (query " + std::to_string(q) + ", target " + std::to_string(t) + ")";
      scores[q * nt + t] = std::stoi(line.substr(25));
      q = t = -1;
      ++count;
    }
  }
  if (count != nq * nt) return std::to_string(count) + " scores for " + std::to_string(nq * nt) + " pairs";
  return "";
}

struct Tally {
  long compared = 0, differing = 0, left_out = 0;
  double seconds = 0;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A tool and where its definitions meet ours.
struct Oracle {
  const char* tool;
  std::string program;       // "" when not installed
  std::string letters;       // letters it scores as we do
  int max_score;             // the largest score it can hold
  bool linear_gaps;          // whether it is right when open = extend
  std::string (*run)(const std::string&, const std::string&, const Job&, std::vector<int>&);
};
std::vector<Oracle> oracles(const Tools& tools) {
  return {{"parasail", tools.parasail, kParasailLetters, 1 << 30, true, run_parasail},
          {"ssw", tools.ssw, kSswLetters, kSswMaxScore - 1, false, run_ssw}};
}

// Runs the jobs: ours, then each tool that is installed; every score the
// tool gives for a pair where its definitions meet ours must equal ours.
void run_jobs(const std::string& test_name, const std::vector<Job>& jobs, const Tools& tools) {
  const std::string dir = (fs::path(::testing::TempDir()) / ("helix_sw_oracle_" + test_name + "_" +
                                                             std::to_string(getpid()))).string();
  fs::create_directories(dir);
  std::map<std::string, ScoreMatrix> matrices;
  std::map<std::string, Tally> tallies;
  std::vector<std::string> align_failures;
  long pairs = 0, aligned = 0, over_255 = 0;
  double our_seconds = 0;
  int max_score = 0;
  for (const Job& job : jobs) {
    SCOPED_TRACE(job.label);
    auto found = matrices.find(job.setting.matrix);
    if (found == matrices.end())
      found = matrices.emplace(job.setting.matrix, read_ncbi_matrix(kMatrixDir + job.setting.matrix)).first;
    const auto started = std::chrono::steady_clock::now();
    const std::vector<int> ours = reference_scores(job, found->second, align_failures, aligned);
    our_seconds += seconds_since(started);
    pairs += static_cast<long>(ours.size());
    int job_max = 0;
    for (int s : ours) job_max = std::max(job_max, s), over_255 += s > 255;
    max_score = std::max(max_score, job_max);
    write_fasta(dir + "/queries.fa", job.queries, 'q');
    write_fasta(dir + "/targets.fa", job.targets, 't');
    const std::size_t nt = job.targets.size();
    std::ostringstream line;
    line << "[oracle] " << job.label << ": " << job.queries.size() << " x " << nt << " pairs, max " << job_max;
    for (const Oracle& oracle : oracles(tools)) {
      if (oracle.program.empty()) continue;
      Tally& tally = tallies[oracle.tool];
      if (job.setting.open == job.setting.extend && !oracle.linear_gaps) {  // see the top of the file
        tally.left_out += static_cast<long>(ours.size());
        line << "; " << oracle.tool << " not run (open = extend)";
        continue;
      }
      std::vector<int> theirs;
      const auto tool_started = std::chrono::steady_clock::now();
      const std::string error = oracle.run(oracle.program, dir, job, theirs);
      ASSERT_EQ(error, "") << oracle.tool;
      tally.seconds += seconds_since(tool_started);
      long compared = 0, differing = 0, left_out = 0;
      for (std::size_t p = 0; p < ours.size(); ++p) {
        const Sequence &query = *job.queries[p / nt], &target = *job.targets[p % nt];
        if (!only_letters(query.letters, oracle.letters) || !only_letters(target.letters, oracle.letters) ||
            ours[p] > oracle.max_score) {
          ++left_out;
          continue;
        }
        ++compared;
        if (ours[p] == theirs[p]) continue;
        if (differing++ < 10)
          ADD_FAILURE() << oracle.tool << " " << job.label << ": " << query.id << " (" << query.letters.size()
                        << ") x " << target.id << " (" << target.letters.size() << "): ours " << ours[p] << ", "
                        << oracle.tool << " " << theirs[p];
      }
      tally.compared += compared, tally.differing += differing, tally.left_out += left_out;
      line << "; " << oracle.tool << " " << compared - differing << " identical";
      if (differing) line << ", " << differing << " DIFFER";
      if (left_out) line << ", " << left_out << " left out (letters/range)";
    }
    std::cout << line.str() << "\n";
  }
  for (std::size_t k = 0; k < align_failures.size() && k < 10; ++k) ADD_FAILURE() << align_failures[k];
  EXPECT_EQ(align_failures.size(), 0u) << "alignments that do not rescore to their score";
  std::cout << "[oracle] " << test_name << ": " << jobs.size() << " settings, " << pairs << " pairs, max score "
            << max_score << ", " << over_255 << " scores > 255, " << aligned << " alignments rescored; ours "
            << our_seconds << " s\n";
  for (const auto& [tool, tally] : tallies) {
    std::cout << "[oracle]   " << tool << ": " << tally.compared << " compared, " << tally.differing << " differ, "
              << tally.left_out << " left out (open = extend, letters or range); " << tally.seconds << " s\n";
    EXPECT_EQ(tally.differing, 0) << tool;
    EXPECT_GT(tally.compared, 0) << tool;
    ::testing::Test::RecordProperty(tool + "_compared", std::to_string(tally.compared));
  }
  EXPECT_GT(over_255, 0) << "no score needed the tools' 16-bit path";
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
  else std::cout << "[oracle] inputs and outputs kept in " << dir << "\n";
}

// Why the test cannot run ("" when it can): no tool, or a matrix missing.
std::string cannot_run(const Tools& tools) {
  if (tools.parasail.empty() && tools.ssw.empty())
    return "neither parasail_aligner (apt-get install parasail) nor ssw_test (apt-get install ssw-align) is on PATH";
  for (const Setting& s : kSettings)
    if (!fs::exists(kMatrixDir + s.matrix)) return "no matrix " + kMatrixDir + s.matrix + " (apt-get install ncbi-data)";
  return "";
}

// After comparing with the tool that is there: say which one was not.
void skip_if_a_tool_is_missing(const Tools& tools) {
  if (tools.parasail.empty()) GTEST_SKIP() << "compared with ssw_test only: parasail_aligner is not on PATH";
  if (tools.ssw.empty()) GTEST_SKIP() << "compared with parasail_aligner only: ssw_test is not on PATH";
}

std::string missing_file(const std::vector<std::string>& paths) {
  for (const auto& path : paths)
    if (!fs::exists(path)) return path;
  return "";
}

// Probes: one pair each, the tools' gap convention and the letters where
// their definitions meet ours (asserted) or not (printed: why pairs with those
// letters are left out of that tool's comparison).
TEST(SwOracle, GapConventionAndLetterProbes) {
  const Tools tools;
  if (const std::string why = cannot_run(tools); !why.empty()) GTEST_SKIP() << why;
  const ScoreMatrix blosum62 = read_ncbi_matrix(kMatrixDir + "BLOSUM62");
  struct Probe {
    std::string query, target;
    int ours;           // by hand, BLOSUM62, open 10, extend 1
    std::string meets;  // the tools whose definitions agree with ours here
  };
  const std::vector<Probe> probes = {
      {"WWWWW", "WWPPWWW", 44, "parasail ssw"},    // WW--WWW: 5 x 11 - (10 + 1)
      {"AAAAXAAAA", "AAAAAAAAA", 31, "parasail ssw"},  // 8 x 4 - 1 (A/X = -1 in NCBI's BLOSUM62)
      {"WJW", "WLW", 25, "parasail ssw"},          // 11 + 3 + 11 (J/L = 3)
      {"WBZW", "WDEW", 30, "parasail ssw"},        // 11 + 4 + 4 + 11 (B/D, Z/E = 4)
      {"W*W", "W*W", 23, "parasail"},              // */* = 1; ssw_test scores * as X (X/X = -1): 21
      {"WUW", "WUW", 21, "ssw"},                   // U as X; parasail scores U as * (*/* = 1): 23
      {"WOW", "WOW", 21, "ssw"},                   // O as X; parasail: 23
  };
  std::vector<Sequence> sequences;
  for (const Probe& probe : probes) {
    sequences.push_back({"q", probe.query, encode_protein(probe.query, "probe")});
    sequences.push_back({"t", probe.target, encode_protein(probe.target, "probe")});
  }
  const std::string dir = (fs::path(::testing::TempDir()) / ("helix_sw_oracle_probes_" + std::to_string(getpid()))).string();
  fs::create_directories(dir);
  for (std::size_t k = 0; k < probes.size(); ++k) {
    Job job{"probe " + probes[k].query + " x " + probes[k].target, {"BLOSUM62", 10, 1}, {&sequences[2 * k]},
            {&sequences[2 * k + 1]}, 1};
    const int ours = sw_score(sequences[2 * k].codes, sequences[2 * k + 1].codes, blosum62, {10, 1}).score;
    EXPECT_EQ(ours, probes[k].ours) << job.label;
    write_fasta(dir + "/queries.fa", job.queries, 'q');
    write_fasta(dir + "/targets.fa", job.targets, 't');
    std::vector<int> theirs;
    if (!tools.parasail.empty()) {
      ASSERT_EQ(run_parasail(tools.parasail, dir, job, theirs), "");
      if (probes[k].meets.find("parasail") != std::string::npos) EXPECT_EQ(theirs[0], ours) << "parasail " << job.label;
      else std::cout << "[oracle] parasail " << job.label << ": ours " << ours << ", parasail " << theirs[0] << "\n";
    }
    if (!tools.ssw.empty()) {
      ASSERT_EQ(run_ssw(tools.ssw, dir, job, theirs), "");
      if (probes[k].meets.find("ssw") != std::string::npos) EXPECT_EQ(theirs[0], ours) << "ssw " << job.label;
      else std::cout << "[oracle] ssw " << job.label << ": ours " << ours << ", ssw " << theirs[0] << "\n";
    }
  }
  // parasail's built-in "blosum62" is not NCBI's table: A/X scores 0 there.
  if (!tools.parasail.empty()) {
    Job job{"built-in blosum62", {"BLOSUM62", 10, 1}, {&sequences[2]}, {&sequences[3]}, 1};
    write_fasta(dir + "/queries.fa", job.queries, 'q');
    write_fasta(dir + "/targets.fa", job.targets, 't');
    const std::string command = ": | " + quote(tools.parasail) + " -a sw_striped_sat -x -m blosum62 -o 10 -e 1 -f " +
                                quote(dir + "/targets.fa") + " -q " + quote(dir + "/queries.fa") + " -g " +
                                quote(dir + "/builtin.csv") + " > /dev/null 2>&1";
    if (std::system(command.c_str()) == 0)
      std::cout << "[oracle] parasail built-in blosum62, AAAAXAAAA x AAAAAAAAA: " << read_text_maybe_gzipped(dir + "/builtin.csv")
                << "         (NCBI's file: 31; the built-in table's A/X is 0)\n";
  }
  fs::remove_all(dir);
  skip_if_a_tool_is_missing(tools);
}

// HMMER's 45 globins, every pair, under every setting.
TEST(SwOracle, Globins45AllPairsEverySetting) {
  const Tools tools;
  if (const std::string why = cannot_run(tools); !why.empty()) GTEST_SKIP() << why;
  const std::string path = kHmmerExamples + "tutorial/globins45.fa";
  if (!fs::exists(path)) GTEST_SKIP() << "no " << path << " (apt-get install hmmer-examples)";
  const std::vector<Sequence> globins = read_fasta(path);
  ASSERT_EQ(globins.size(), 45u);
  std::vector<const Sequence*> all;
  for (const auto& s : globins) all.push_back(&s);
  std::vector<Job> jobs;
  for (const Setting& setting : kSettings) jobs.push_back({"globins45 " + setting_name(setting), setting, all, all, 7});
  run_jobs("globins45", jobs, tools);
  skip_if_a_tool_is_missing(tools);
}

// Every protein sequence of hmmer-examples against every one (224 x 224):
// query k under setting k mod 11, so each pair is scored once and every
// setting sees long, short and X-holding sequences.
TEST(SwOracle, HmmerExamplesAllPairs) {
  const Tools tools;
  if (const std::string why = cannot_run(tools); !why.empty()) GTEST_SKIP() << why;
  std::vector<std::string> paths;
  for (const auto& file : kHmmerFiles) paths.push_back(kHmmerExamples + file);
  if (const std::string missing = missing_file(paths); !missing.empty())
    GTEST_SKIP() << "no " << missing << " (apt-get install hmmer-examples)";
  std::vector<Sequence> sequences;
  for (const auto& path : paths) {
    std::vector<Sequence> more = read_fasta(path);
    sequences.insert(sequences.end(), more.begin(), more.end());
  }
  ASSERT_EQ(sequences.size(), 224u);
  std::vector<const Sequence*> all;
  for (const auto& s : sequences) all.push_back(&s);
  std::vector<Job> jobs;
  for (std::size_t k = 0; k < kSettings.size(); ++k) {
    Job job{"hmmer " + setting_name(kSettings[k]), kSettings[k], {}, all, 61};
    for (std::size_t q = k; q < all.size(); q += kSettings.size()) job.queries.push_back(all[q]);
    jobs.push_back(job);
  }
  run_jobs("hmmer", jobs, tools);
  skip_if_a_tool_is_missing(tools);
}

// mmseqs2's 500 example queries against a slice of its 20,000-sequence
// example database (all of it would take an hour here): the 74 database
// sequences that are also queries (identical pairs: scores in the
// thousands), those holding an ambiguity code other than X (B and Z occur
// only there), and every 4000th. Query k runs under setting k mod 11.
TEST(SwOracle, MmseqsExampleQueriesAgainstDatabaseSlice) {
  const Tools tools;
  if (const std::string why = cannot_run(tools); !why.empty()) GTEST_SKIP() << why;
  const std::string query_path = kMmseqsExamples + "QUERY.fasta.gz", db_path = kMmseqsExamples + "DB.fasta.gz";
  if (const std::string missing = missing_file({query_path, db_path}); !missing.empty())
    GTEST_SKIP() << "no " << missing << " (apt-get install mmseqs2-examples)";
  const std::vector<Sequence> queries = read_fasta(query_path), database = read_fasta(db_path);
  ASSERT_EQ(queries.size(), 500u);
  ASSERT_EQ(database.size(), 20000u);
  std::set<std::string> query_ids;
  for (const auto& q : queries) query_ids.insert(q.id);
  std::vector<const Sequence*> slice;
  int shared = 0, ambiguous = 0;
  for (std::size_t k = 0; k < database.size(); ++k) {
    const Sequence& s = database[k];
    const bool is_query = query_ids.count(s.id) > 0;
    const bool has_ambiguity = s.letters.find_first_of("BJZUO*") != std::string::npos;
    if (is_query || has_ambiguity || k % 4000 == 0) slice.push_back(&s);
    shared += is_query, ambiguous += has_ambiguity;
  }
  EXPECT_EQ(shared, 74);
  EXPECT_GT(ambiguous, 0);
  std::cout << "[oracle] mmseqs database slice: " << slice.size() << " sequences (" << shared << " also queries, "
            << ambiguous << " with B/J/Z/U/O/*)\n";
  std::vector<Job> jobs;
  for (std::size_t k = 0; k < kSettings.size(); ++k) {
    Job job{"mmseqs " + setting_name(kSettings[k]), kSettings[k], {}, slice, 53};
    for (std::size_t q = k; q < queries.size(); q += kSettings.size()) job.queries.push_back(&queries[q]);
    jobs.push_back(job);
  }
  run_jobs("mmseqs", jobs, tools);
  skip_if_a_tool_is_missing(tools);
}

// Random proteins of length 1..500 (four of each set of length 1 or 2) over
// the 24 letters both tools read as NCBI does (B, J, Z, X now and then), half
// of the targets mutated copies of queries (substitutions, insertions and
// deletions of 1..8 residues), so that long gapped alignments occur; every
// query against every target under every setting. Fixed seed.
TEST(SwOracle, RandomPairsFromLengthOne) {
  const Tools tools;
  if (const std::string why = cannot_run(tools); !why.empty()) GTEST_SKIP() << why;
  std::uint32_t state = 20261122;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  auto letter = [&] {
    const std::uint32_t pick = next();
    return pick % 16 == 0 ? "BJZX"[next() % 4] : "ARNDCQEGHILKMFPSTWYV"[pick % 20];
  };
  auto random_text = [&](std::size_t length) {
    std::string text;
    while (text.size() < length) text += letter();
    return text;
  };
  auto mutated = [&](const std::string& from) {
    std::string text;
    for (std::size_t k = 0; k < from.size(); ++k) {
      const std::uint32_t pick = next() % 40;
      if (pick < 6) text += letter();                                  // substituted
      else if (pick == 6) k += next() % 8;                             // 1..8 deleted
      else text += from[k];
      if (pick == 7) text += random_text(1 + next() % 8);              // 1..8 inserted
    }
    if (text.empty()) text = random_text(1);
    return text.substr(0, 500);
  };
  const int kCount = 48;
  std::vector<Sequence> queries, targets;
  const std::size_t fixed_lengths[] = {1, 1, 2, 2};
  for (int k = 0; k < kCount; ++k) {
    const std::string text = random_text(k < 4 ? fixed_lengths[k] : 1 + next() % 500);
    queries.push_back({"random_q" + std::to_string(k), text, encode_protein(text, "random")});
  }
  for (int k = 0; k < kCount; ++k) {
    const std::string text = k < 4 ? random_text(fixed_lengths[k])
                                   : k % 2 ? mutated(queries[next() % kCount].letters) : random_text(1 + next() % 500);
    targets.push_back({"random_t" + std::to_string(k), text, encode_protein(text, "random")});
  }
  std::vector<const Sequence*> q, t;
  for (const auto& s : queries) q.push_back(&s);
  for (const auto& s : targets) t.push_back(&s);
  std::vector<Job> jobs;
  for (const Setting& setting : kSettings) jobs.push_back({"random " + setting_name(setting), setting, q, t, 5});
  run_jobs("random", jobs, tools);
  skip_if_a_tool_is_missing(tools);
}

}  // namespace
}  // namespace helix::swsearch
