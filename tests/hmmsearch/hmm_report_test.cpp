// hmm_report_test: hmmsearch's output side (hmm_alidisplay.h, hmm_report.h).
//
// - make_alignment_display() on hand-made traces: model / mline / aseq /
//   ppline rules, RF and CS lines, the second domain of a trace; the printed
//   blocks, including a block of deletions only.
// - thresholds, domZ and hmmsearch's order on a small made-up hit list.
// - Byte-for-byte against HMMER 3.3.2 itself, independent of the domain
//   pipeline: hmmsearch's own --tblout, --domtblout and alignment blocks are
//   read back into a QueryReport, which must print the very same tblout,
//   domtblout and query text (from "Query:" to "//"), banner and table tail;
//   and make_alignment_display(), on traces read back from hmmsearch's
//   alignments and the real profile and targets, must give its lines.
//   Runs /usr/bin/hmmsearch on hmmer-examples (globins4 on globins45;
//   Pkinase and fn3, with CS lines, on 3,000 proteins of mmseqs2-examples at
//   -Z 1e7, which gives inclusion thresholds, '?' domains and a target
//   without reported domains); skipped without them.
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/file_io.h"
#include "hmm_alidisplay.h"
#include "hmm_report.h"
#include "hmm_test_data.h"

namespace helix::hmmsearch {
namespace {

using namespace test_data;  // NOLINT: kTutorial, kProteins, ...

namespace fs = std::filesystem;

// ------------------------------------------------------- alignment displays

// A four-node profile: consensus "AcDE" (node 2 weakly conserved), with R
// scoring positively at node 4 and every other non-consensus residue not.
SearchProfile tiny_profile() {
  SearchProfile profile;
  profile.name = "tiny";
  profile.M = 4;
  profile.consensus = " AcDE";
  profile.fwd_match.assign(static_cast<std::size_t>(kCodes) * profile.M, 0.5f);
  profile.fwd_match[digitize("R", "test")[0] * profile.M + 3] = 1.5f;
  return profile;
}

// S N(1) B M1(2) I1(3) M2(4) D3 M4(5) E C(6) T over "GAWCRE", then a
// second domain J B M3(7) E C T when `second` (the target is then "GAWCREK").
Trace tiny_trace(bool second) {
  Trace trace;
  trace.append(kTraceS, 0, 0), trace.append(kTraceN, 0, 0), trace.append(kTraceN, 0, 1);
  trace.append(kTraceB, 0, 0);
  trace.append(kTraceM, 1, 2, 0.96f), trace.append(kTraceI, 1, 3, 0.5f), trace.append(kTraceM, 2, 4, 0.04f);
  trace.append(kTraceD, 3, 0), trace.append(kTraceM, 4, 5, 0.949f);
  trace.append(kTraceE, 0, 0);
  if (second) {
    trace.append(kTraceJ, 0, 0), trace.append(kTraceJ, 0, 6), trace.append(kTraceB, 0, 0);
    trace.append(kTraceM, 3, 7, 1.0f), trace.append(kTraceE, 0, 0);
  }
  trace.append(kTraceC, 0, 0);
  if (!second) trace.append(kTraceC, 0, 6);
  trace.append(kTraceT, 0, 0);
  return trace;
}

TEST(AlignmentDisplay, FollowsHmmersLineRules) {
  const std::vector<std::uint8_t> codes = digitize("GAWCRE", "test");
  const AlignmentDisplay ali = make_alignment_display(tiny_trace(false), tiny_profile(), codes.data(), 6);
  EXPECT_EQ(ali.model, "A.cDE");   // '.' on the insert, the consensus on the deletion
  EXPECT_EQ(ali.mline, "A c +");   // identity in the consensus' case, '+' for odds > 1
  EXPECT_EQ(ali.aseq, "AwC-R");    // insert lower case, deletion '-'
  EXPECT_EQ(ali.ppline, "*50.9");  // 0.96 '*', 0.5 '5', 0.04 '0', deletion '.', 0.949 '9'
  EXPECT_TRUE(ali.rfline.empty() && ali.csline.empty() && ali.mmline.empty());
  EXPECT_EQ(ali.hmmfrom, 1);
  EXPECT_EQ(ali.hmmto, 4);
  EXPECT_EQ(ali.M, 4);
  EXPECT_EQ(ali.sqfrom, 2);
  EXPECT_EQ(ali.sqto, 5);
  EXPECT_EQ(ali.L, 6);
}

TEST(AlignmentDisplay, AnnotationLinesAndSecondDomain) {
  SearchProfile profile = tiny_profile();
  profile.reference = " xxx.";
  profile.structure = " HHE-";
  const std::vector<std::uint8_t> codes = digitize("GAWCREK", "test");
  const Trace trace = tiny_trace(true);
  const AlignmentDisplay first = make_alignment_display(trace, profile, codes.data(), 7);
  EXPECT_EQ(first.rfline, "x.xx.");
  EXPECT_EQ(first.csline, "H.HE-");
  const AlignmentDisplay second = make_alignment_display(trace, profile, codes.data(), 7, 1);
  EXPECT_EQ(second.model, "D");
  EXPECT_EQ(second.mline, " ");  // K at node 3: odds 0.5
  EXPECT_EQ(second.aseq, "K");
  EXPECT_EQ(second.ppline, "*");
  EXPECT_EQ(second.sqfrom, 7);
  EXPECT_EQ(second.hmmfrom, 3);
  EXPECT_THROW(make_alignment_display(trace, profile, codes.data(), 7, 2), std::invalid_argument);
}

TEST(AlignmentDisplay, EncodesPosteriorsAsHmmerRounds) {
  EXPECT_EQ(encode_posterior(0.0f), '0');
  EXPECT_EQ(encode_posterior(0.0499f), '0');
  EXPECT_EQ(encode_posterior(0.05f), '1');
  EXPECT_EQ(encode_posterior(0.5f), '5');
  EXPECT_EQ(encode_posterior(0.9499f), '9');
  EXPECT_EQ(encode_posterior(0.95f), '9');  // 0.95f is 0.94999999: HMMER's '9' too
  EXPECT_EQ(encode_posterior(0.9501f), '*');
  EXPECT_EQ(encode_posterior(1.0f), '*');
}

TEST(AlignmentDisplay, PrintsBlocks) {
  const std::vector<std::uint8_t> codes = digitize("GAWCRE", "test");
  const AlignmentDisplay ali = make_alignment_display(tiny_trace(false), tiny_profile(), codes.data(), 6);
  EXPECT_EQ(alignment_display_text(ali, "tiny", "seq"),
            "  tiny 1 A.cDE 4\n"
            "         A c +\n"
            "   seq 2 AwC-R 5\n"
            "         *50.9 PP\n");
  // One column per block: the fourth block holds only the deletion.
  EXPECT_EQ(alignment_display_text(ali, "q", "t", 1, 1),
            "  q 1 A 1\n      A\n  t 2 A 2\n      * PP\n\n"
            "  q 2 . 1\n       \n  t 3 w 3\n      5 PP\n\n"
            "  q 2 c 2\n      c\n  t 4 C 4\n      0 PP\n\n"
            "  q 3 D 3\n       \n  t - - -\n      . PP\n\n"
            "  q 4 E 4\n      +\n  t 5 R 5\n      9 PP\n");
}

// ------------------------------------------------------ thresholds and order

DomainHit domain_with(double ln_p, float bits, int iali, int jali) {
  DomainHit domain;
  domain.ln_p = ln_p, domain.bitscore = bits, domain.iali = iali, domain.jali = jali;
  domain.ienv = iali, domain.jenv = jali;
  return domain;
}

ReportTarget target_with(const std::string& name, double ln_p, std::vector<DomainHit> domains) {
  ReportTarget target;
  target.name = name, target.ln_p = ln_p, target.domains = std::move(domains);
  return target;
}

TEST(Report, ThresholdsOrderAndDomainSearchSpace) {
  QueryReport report;
  report.options.Z = 1000;
  report.targets.push_back(target_with("b", std::log(1e-3 / 1000), {domain_with(std::log(1e-4 / 1000), 30, 1, 9)}));
  report.targets.push_back(target_with("a", std::log(1e-3 / 1000), {domain_with(std::log(5 / 1000.0), 10, 1, 9)}));
  report.targets.push_back(target_with("c", std::log(1 / 1000.0), {domain_with(std::log(1 / 1000.0), 10, 1, 9)}));
  report.targets.push_back(target_with("d", std::log(20 / 1000.0), {domain_with(std::log(1e-9), 50, 1, 9)}));
  sort_report_targets(report.targets);
  std::string order;
  for (const ReportTarget& target : report.targets) order += target.name;
  EXPECT_EQ(order, "abcd");  // equal P-values by name
  EXPECT_EQ(apply_thresholds(report), 3.0);  // no --domZ: the number of reported targets
  const ReportTarget &a = report.targets[0], &b = report.targets[1], &c = report.targets[2], &d = report.targets[3];
  EXPECT_TRUE(a.reported && a.included && b.included && c.reported && !c.included && !d.reported);
  EXPECT_TRUE(b.domains[0].reported && b.domains[0].included);
  EXPECT_TRUE(a.domains[0].reported && !a.domains[0].included);  // 5/1000 * 3 > 0.01
  EXPECT_TRUE(c.domains[0].reported && !c.domains[0].included);  // its target is not included
  EXPECT_FALSE(d.domains[0].reported);                           // its target is not reported
  EXPECT_EQ(a.nreported, 1);
  EXPECT_EQ(a.nincluded, 0);
  report.options.domZ = 1;
  EXPECT_EQ(apply_thresholds(report), 1.0);
  EXPECT_TRUE(report.targets[0].domains[0].included);  // 5/1000 * 1 <= 0.01
}

TEST(Report, DuplicateAlignmentsShowOnce) {
  QueryReport report;
  report.options.Z = 1;
  ReportTarget target = target_with("t", std::log(1e-20),
                                    {domain_with(std::log(1e-10), 40, 5, 50), domain_with(std::log(1e-12), 45, 5, 50)});
  target.noverlaps = 1;
  report.targets.push_back(target);
  apply_thresholds(report);
  EXPECT_FALSE(report.targets[0].domains[0].reported);
  EXPECT_TRUE(report.targets[0].domains[1].reported);
  EXPECT_EQ(report.targets[0].nreported, 1);
  EXPECT_EQ(report.targets[0].nincluded, 1);
}

TEST(Report, NoHitsText) {
  QueryReport report;
  report.name = "q", report.M = 7, report.options.Z = 10;
  apply_thresholds(report);
  EXPECT_EQ(query_report_text(report, "S\n"),
            "Query:       q  [M=7]\n"
            "Scores for complete sequences (score includes all domains):\n"
            "   --- full sequence ---   --- best 1 domain ---    -#dom-\n"
            "    E-value  score  bias    E-value  score  bias    exp  N  Sequence Description\n"
            "    ------- ------ -----    ------- ------ -----   ---- --  -------- -----------\n"
            "\n   [No hits detected that satisfy reporting thresholds]\n\n\n"
            "Domain annotation for each sequence (and alignments):\n"
            "\n   [No targets detected that satisfy reporting thresholds]\n\n\n"
            "S\n//\n");
}

// ------------------------------------------- against hmmsearch's own output

const std::string kHmmsearch = "/usr/bin/hmmsearch";


std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Whitespace-separated fields, then the rest of the line after one space.
std::vector<std::string> table_fields(const std::string& line, int count, std::string& rest) {
  std::vector<std::string> fields;
  std::size_t at = 0;
  for (int f = 0; f < count; ++f) {
    const std::size_t start = line.find_first_not_of(' ', at);
    if (start == std::string::npos) throw std::runtime_error("short table row: " + line);
    at = std::min(line.find(' ', start), line.size());
    fields.push_back(line.substr(start, at - start));
  }
  rest = at + 1 <= line.size() ? line.substr(at + 1) : "";
  return fields;
}

std::string none_if_dash(const std::string& text) { return text == "-" ? "" : text; }

// A domain's alignment blocks as hmmsearch printed them.
struct PrintedAlignment {
  std::string rf, cs, model, mline, aseq, pp;
};

PrintedAlignment parse_alignment(const std::vector<std::string>& lines) {
  PrintedAlignment ali;
  std::vector<std::vector<std::string>> blocks(1);
  for (const std::string& line : lines) {
    if (line.empty()) blocks.emplace_back();
    else blocks.back().push_back(line);
  }
  auto ends_with = [](const std::string& s, const char* tag) {
    return s.size() >= 3 && s.compare(s.size() - 3, 3, tag) == 0;
  };
  for (const std::vector<std::string>& block : blocks) {
    if (block.empty()) continue;
    const bool pp = ends_with(block.back(), " PP");
    const std::size_t annotations = block.size() - 3 - (pp ? 1 : 0);
    const std::string& model = block[annotations];
    // "  <name> <from> <columns> <to>": the columns start after the second word.
    std::size_t at = model.find_first_not_of(' ');
    at = model.find(' ', at);
    at = model.find_first_not_of(' ', at);
    at = model.find(' ', at) + 1;
    const std::size_t width = model.find(' ', at) - at;
    auto columns = [&](const std::string& line) { return line.substr(at, width); };
    for (std::size_t a = 0; a < annotations; ++a)
      (ends_with(block[a], " CS") ? ali.cs : ali.rf) += columns(block[a]);
    ali.model += columns(model);
    ali.mline += columns(block[annotations + 1]);
    ali.aseq += columns(block[annotations + 2]);
    if (pp) ali.pp += columns(block.back());
  }
  return ali;
}

// The '!' / '?' of each domain row of the human-readable output, by target.
std::map<std::string, std::string> parse_domain_flags(const std::vector<std::string>& lines) {
  std::map<std::string, std::string> flags;
  std::string target;
  for (const std::string& line : lines) {
    if (line.rfind(">> ", 0) == 0) target = line.substr(3, line.find(' ', 3) - 3);
    std::istringstream words(line);
    int number = 0;
    std::string flag;
    if (line.size() > 6 && line[0] == ' ' && (words >> number >> flag) && (flag == "!" || flag == "?"))
      flags[target] += flag;
  }
  return flags;
}

// The alignments of the human-readable output, by target name, in order.
std::map<std::string, std::vector<PrintedAlignment>> parse_alignments(const std::vector<std::string>& lines) {
  std::map<std::string, std::vector<PrintedAlignment>> alignments;
  std::string target;
  for (std::size_t n = 0; n < lines.size(); ++n) {
    if (lines[n].rfind(">> ", 0) == 0) target = lines[n].substr(3, lines[n].find(' ', 3) - 3);
    if (lines[n].rfind("  == domain ", 0) != 0) continue;
    std::vector<std::string> block;
    for (++n; n < lines.size() && lines[n].rfind("  == domain ", 0) != 0 && lines[n].rfind(">> ", 0) != 0 &&
              lines[n].rfind("Internal pipeline", 0) != 0;
         ++n)
      block.push_back(lines[n]);
    --n;
    while (!block.empty() && block.back().empty()) block.pop_back();
    alignments[target].push_back(parse_alignment(block));
  }
  return alignments;
}

// What hmmsearch wrote for one query.
struct OracleOutput {
  std::string tblout, domtblout, text;                  // the files, whole
  std::string header, query_text, timing, tail_options;  // pieces of them
  PipelineCounts counts;
};

std::uint64_t count_after_colon(const std::string& line) { return std::stoull(line.substr(line.find(':') + 1)); }

OracleOutput run_hmmsearch(const std::string& arguments, const std::string& dir) {
  OracleOutput out;
  const std::string tbl = dir + "/t.tbl", dom = dir + "/d.tbl", text = dir + "/out.txt";
  const std::string command =
      kHmmsearch + " --tblout " + tbl + " --domtblout " + dom + " " + arguments + " > " + text + " 2>&1";
  if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
  out.tblout = read_file_text(tbl), out.domtblout = read_file_text(dom), out.text = read_file_text(text);
  const std::size_t query = out.text.find("Query:");
  out.header = out.text.substr(0, query);
  out.query_text = out.text.substr(query, out.text.find("//\n", query) + 3 - query);
  for (const std::string& line : lines_of(out.query_text)) {
    if (line.rfind("# CPU time:", 0) == 0 || line.rfind("# Mc/sec:", 0) == 0) out.timing += line + "\n";
    if (line.rfind("Target sequences:", 0) == 0) {
      out.counts.targets = count_after_colon(line);
      out.counts.residues = std::stoull(line.substr(line.find('(') + 1));
    }
    if (line.rfind("Passed MSV filter:", 0) == 0) out.counts.past_msv = count_after_colon(line);
    if (line.rfind("Passed bias filter:", 0) == 0) out.counts.past_bias = count_after_colon(line);
    if (line.rfind("Passed Vit filter:", 0) == 0) out.counts.past_viterbi = count_after_colon(line);
    if (line.rfind("Passed Fwd filter:", 0) == 0) out.counts.past_forward = count_after_colon(line);
  }
  return out;
}

// The rows of a table file (no '#' lines).
std::vector<std::string> table_rows(const std::string& table) {
  std::vector<std::string> rows;
  for (const std::string& line : lines_of(table))
    if (!line.empty() && line[0] != '#') rows.push_back(line);
  return rows;
}

constexpr double kLog2R = 1.44269504088896341;

// hmmsearch's tables and alignments read back into the report model. The
// E-values are printed to two digits, so ln_p is nudged: by rank, to keep
// hmmsearch's order where two printed values are equal, and to the side of
// the inclusion threshold that the text's flags say.
QueryReport rebuild_report(const OracleOutput& out, const std::string& name, const std::string& accession,
                           const std::string& description, int M, const ReportOptions& options) {
  QueryReport report;
  report.name = name, report.accession = accession, report.description = description, report.M = M;
  report.options = options;
  const double Z = options.Z;
  std::map<std::string, std::vector<std::vector<std::string>>> domain_rows;
  for (const std::string& row : table_rows(out.domtblout)) {
    std::string rest;
    const std::vector<std::string> f = table_fields(row, 22, rest);
    domain_rows[f[0]].push_back(f);
  }
  const auto alignments = parse_alignments(lines_of(out.query_text));
  const auto flags = parse_domain_flags(lines_of(out.query_text));
  std::string below_rest;
  std::set<std::string> excluded;  // targets listed below the inclusion threshold
  bool below = false;
  for (const std::string& line : lines_of(out.query_text)) {
    if (line.rfind("Domain annotation", 0) == 0) break;
    if (line.find("inclusion threshold") != std::string::npos) below = true;
    else if (below && !line.empty()) excluded.insert(table_fields(line, 9, below_rest).back());
  }
  int rank = 0;
  for (const std::string& row : table_rows(out.tblout)) {
    std::string description_text;
    const std::vector<std::string> f = table_fields(row, 18, description_text);
    ReportTarget target;
    target.name = f[0], target.accession = none_if_dash(f[1]), target.description = none_if_dash(description_text);
    target.ln_p = std::log(std::stod(f[4]) / Z) + 1e-12 * ++rank;
    target.ln_p += excluded.count(target.name) ? 1e-9 : -1e-9;  // the same for the target's E-value
    target.score_bits = std::stof(f[5]);
    target.pre_score_bits = target.score_bits + std::stof(f[6]);
    target.nexpected = std::stof(f[10]);
    target.nregions = std::stoi(f[11]), target.nclustered = std::stoi(f[12]);
    target.noverlaps = std::stoi(f[13]), target.nenvelopes = std::stoi(f[14]);
    const int ndom = std::stoi(f[15]);
    const auto found = domain_rows.find(target.name);
    const std::size_t printed = found == domain_rows.end() ? 0 : found->second.size();
    for (std::size_t d = 0; d < printed; ++d) {
      const std::vector<std::string>& g = found->second[d];
      DomainHit domain;
      target.length = std::stol(g[2]);
      domain.bitscore = std::stof(g[13]);
      domain.dombias_nats = static_cast<float>(std::stod(g[14]) / kLog2R);
      domain.ln_p = std::log(std::stod(g[12]) / Z);
      // An E-value printed as the threshold itself may have been just above it.
      domain.ln_p += flags.at(target.name).at(d) == '?' ? 1e-9 : -1e-9;
      domain.ienv = std::stoi(g[19]), domain.jenv = std::stoi(g[20]);
      domain.iali = std::stoi(g[17]), domain.jali = std::stoi(g[18]);
      domain.oasc = static_cast<float>(std::stod(g[21]) * (1.0 + (domain.jenv - domain.ienv)));
      AlignmentDisplay& ali = domain.alignment;
      ali.M = M, ali.L = target.length;
      ali.hmmfrom = std::stoi(g[15]), ali.hmmto = std::stoi(g[16]), ali.sqfrom = domain.iali, ali.sqto = domain.jali;
      const PrintedAlignment& printed_ali = alignments.at(target.name).at(d);
      ali.rfline = printed_ali.rf, ali.csline = printed_ali.cs, ali.model = printed_ali.model;
      ali.mline = printed_ali.mline, ali.aseq = printed_ali.aseq, ali.ppline = printed_ali.pp;
      target.domains.push_back(domain);
    }
    // The best domain's columns; a domain hmmsearch did not report stands in
    // for the others (and for the best one when it is not among the printed).
    const double best_ln_p = std::log(std::stod(f[7]) / Z);
    const float best_bits = std::stof(f[8]);
    int best = -1;
    for (std::size_t d = 0; d < target.domains.size(); ++d)
      if (best < 0 || target.domains[d].bitscore > target.domains[best].bitscore) best = static_cast<int>(d);
    for (int d = static_cast<int>(printed); d < ndom; ++d) {
      DomainHit hidden = domain_with(0.0, -1000.0f, 0, 0);
      if (best < 0 || target.domains[best].bitscore != best_bits) {
        hidden = domain_with(best_ln_p, best_bits, 0, 0);
        hidden.dombias_nats = static_cast<float>(std::stod(f[9]) / kLog2R);
        best = d;
      }
      target.domains.push_back(hidden);
    }
    target.best_domain = best;
    report.targets.push_back(target);
  }
  return report;
}

// A trace that hmmsearch's display would come from (its alignment, read
// back): M where both lines have a residue, D for a gap in the target, I for
// a '.' in the model; posteriors decoded from the PP line.
Trace trace_of(const AlignmentDisplay& shown) {
  Trace trace;
  trace.append(kTraceS, 0, 0), trace.append(kTraceN, 0, 0), trace.append(kTraceB, 0, 0);
  int k = shown.hmmfrom - 1, i = static_cast<int>(shown.sqfrom);
  for (std::size_t a = 0; a < shown.model.size(); ++a) {
    const char pp = shown.ppline[a];
    const float posterior = pp == '*' ? 1.0f : pp == '.' ? 0.0f : static_cast<float>(pp - '0') / 10.0f;
    if (shown.model[a] == '.') trace.append(kTraceI, k, i++, posterior);
    else if (shown.aseq[a] == '-') trace.append(kTraceD, ++k, 0);
    else trace.append(kTraceM, ++k, i++, posterior);
  }
  trace.append(kTraceE, 0, 0), trace.append(kTraceC, 0, 0), trace.append(kTraceT, 0, 0);
  return trace;
}

// make_alignment_display() from the profile and the target must give
// hmmsearch's lines for every reported domain.
void expect_same_displays(const QueryReport& report, const SearchProfile& profile, const std::string& fasta) {
  std::map<std::string, std::vector<std::uint8_t>> codes;
  for (TargetSequence& target : parse_targets(read_file_text(fasta), fasta)) codes[target.name] = target.codes;
  int compared = 0;
  for (const ReportTarget& target : report.targets)
    for (const DomainHit& domain : target.domains) {
      if (!domain.reported) continue;
      const AlignmentDisplay& shown = domain.alignment;
      const std::vector<std::uint8_t>& sequence = codes.at(target.name);
      const AlignmentDisplay made = make_alignment_display(trace_of(shown), profile, sequence.data(),
                                                           static_cast<int>(sequence.size()));
      EXPECT_EQ(made.model, shown.model) << target.name;
      EXPECT_EQ(made.mline, shown.mline) << target.name;
      EXPECT_EQ(made.aseq, shown.aseq) << target.name;
      EXPECT_EQ(made.ppline, shown.ppline) << target.name;
      EXPECT_EQ(made.csline, shown.csline) << target.name;
      EXPECT_EQ(made.rfline, shown.rfline) << target.name;
      EXPECT_EQ(made.hmmto, shown.hmmto) << target.name;
      EXPECT_EQ(made.sqto, shown.sqto) << target.name;
      EXPECT_EQ(made.L, shown.L) << target.name;
      ++compared;
    }
  EXPECT_GT(compared, 0);
}

bool have_oracle() { return fs::exists(kHmmsearch) && fs::exists(kTutorial + "globins4.hmm"); }

class HmmsearchOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_oracle()) GTEST_SKIP() << "needs " << kHmmsearch << " and hmmer-examples";
    std::string pattern = (fs::temp_directory_path() / "helix_hmm_report.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) FAIL() << "mkdtemp";
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }

  // Runs hmmsearch with -Z and --domZ on one tutorial model and requires
  // every output to be re-created byte for byte from the report model.
  void expect_identical(const std::string& model, const std::string& targets, double Z) {
    const std::string hmm_path = kTutorial + model + ".hmm";
    const std::string z = std::to_string(static_cast<long long>(Z));
    const OracleOutput out = run_hmmsearch("-Z " + z + " --domZ " + z + " " + hmm_path + " " + targets, dir_);
    const ProfileHmm hmm = read_hmm_file(hmm_path).at(0);
    ReportOptions options;
    options.Z = Z, options.domZ = Z;
    QueryReport report = rebuild_report(out, hmm.name, hmm.accession, hmm.description, hmm.length, options);
    std::reverse(report.targets.begin(), report.targets.end());  // the order must come from the sort
    sort_report_targets(report.targets);
    apply_thresholds(report);

    const std::string tail = out.tblout.substr(out.tblout.find("#\n# Program:"));
    EXPECT_EQ(tblout_report_text(report) + tail, out.tblout);
    const std::string domtail = out.domtblout.substr(out.domtblout.find("#\n# Program:"));
    EXPECT_EQ(domtblout_report_text(report) + domtail, out.domtblout);
    PipelineOptions pipeline;
    const std::string statistics = report_statistics_text(report, out.counts, pipeline, out.timing);
    EXPECT_EQ(query_report_text(report, statistics), out.query_text);
    expect_same_displays(report, configure_profile(hmm), targets);

    BannerOptions banner;
    banner.hmm_file = hmm_path, banner.sequence_file = targets;
    banner.tblout_file = dir_ + "/t.tbl", banner.domtblout_file = dir_ + "/d.tbl";
    banner.Z = Z, banner.domZ = Z;
    EXPECT_EQ(hmmsearch_banner_text(banner), out.header);
    EXPECT_EQ(out.text.substr(out.text.size() - 5), "[ok]\n");

    // The tail, from the pieces hmmsearch put in it.
    const std::vector<std::string> tail_lines = lines_of(tail);
    auto after_colon = [](const std::string& line) { return line.substr(line.find(':') + 1 + 1); };
    auto value = [&](int n) {
      std::string rest = after_colon(tail_lines.at(n));
      return rest.substr(rest.find_first_not_of(' '));
    };
    EXPECT_EQ(tabular_tail_text(hmm_path, targets, value(6), value(7), value(8) + "\n"), tail);
  }

  std::string dir_;
};

TEST_F(HmmsearchOutput, Globins4OnGlobins45) { expect_identical("globins4", kTutorial + "globins45.fa", 1000); }

// Long names and descriptions (clipped in the text), CS lines, several
// domains per target, the inclusion threshold, '?' domains and a target
// without reported domains.
std::string first_proteins(const std::string& dir, int count) {
  const std::string path = dir + "/proteins.fa";
  const std::string command = "gzip -dc " + kProteins + " | awk '/^>/{n++} n<=" + std::to_string(count) + "' > " + path;
  if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
  return path;
}

TEST_F(HmmsearchOutput, PkinaseAndFn3OnProteins) {
  if (!fs::exists(kProteins)) GTEST_SKIP() << "needs mmseqs2-examples' " << kProteins;
  const std::string proteins = first_proteins(dir_, 3000);
  expect_identical("Pkinase", proteins, 1e7);
  expect_identical("fn3", proteins, 1e7);
}

}  // namespace
}  // namespace helix::hmmsearch
