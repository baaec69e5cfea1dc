#include "hmm_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/text_format.h"
#include "hmm_alidisplay.h"

namespace helix::hmmsearch {

namespace {

constexpr double kLog2R = 1.44269504088896341;  // 1 / ln 2: nats to bits, as HMMER converts at print time

const char* or_dash(const std::string& text) { return text.empty() ? "-" : text.c_str(); }

int text_width(const std::string& text) { return static_cast<int>(text.size()); }

int longest_name(const std::vector<ReportTarget>& targets) {
  int width = 0;
  for (const ReportTarget& target : targets) width = std::max(width, text_width(target.name));
  return width;
}

int longest_accession(const std::vector<ReportTarget>& targets) {
  int width = 0;
  for (const ReportTarget& target : targets) width = std::max(width, text_width(target.accession));
  return width;
}

// The bias columns: the sequence's is the drop from the null2 correction
// (float arithmetic, as HMMER subtracts), a domain's its null2 term in bits.
float sequence_bias(const ReportTarget& target) { return target.pre_score_bits - target.score_bits; }
double domain_bias(const DomainHit& domain) { return domain.dombias_nats * kLog2R; }

// Expected accuracy per residue of the envelope (the tables' "acc").
double domain_accuracy(const DomainHit& domain) {
  return domain.oasc / (1.0 + std::fabs(static_cast<float>(domain.jenv - domain.ienv)));
}

// The first domain's alignment start breaks ties after the name.
long first_alignment_start(const ReportTarget& target) { return target.domains.empty() ? 0 : target.domains[0].iali; }

// Of two domains with identical alignment ends, hmmsearch shows only the
// better one (HMMER's workaround for its bug h74: overlapping envelopes can
// yield the same optimal-accuracy alignment twice).
void drop_duplicate_alignments(ReportTarget& target) {
  if (target.noverlaps == 0) return;
  std::vector<DomainHit>& domains = target.domains;
  for (std::size_t a = 0; a < domains.size(); ++a)
    for (std::size_t b = a + 1; b < domains.size(); ++b) {
      if (domains[a].iali != domains[b].iali || domains[a].jali != domains[b].jali) continue;
      DomainHit& dropped = domains[a].bitscore >= domains[b].bitscore ? domains[b] : domains[a];
      if (dropped.reported) dropped.reported = false, --target.nreported;
      if (dropped.included) dropped.included = false, --target.nincluded;
    }
}

}  // namespace

ReportTarget report_target(const std::string& name, const std::string& accession, const std::string& description,
                           long length, const TargetScores& scores, DomainDefinition&& definition) {
  ReportTarget target;
  target.name = name, target.accession = accession, target.description = description;
  target.length = length;
  target.score_bits = scores.score_bits, target.pre_score_bits = scores.pre_score_bits, target.ln_p = scores.ln_p;
  target.nexpected = definition.nexpected, target.nregions = definition.nregions;
  target.nclustered = definition.nclustered, target.noverlaps = definition.noverlaps;
  target.nenvelopes = definition.nenvelopes;
  target.best_domain = scores.best_domain;
  target.domains = std::move(definition.domains);
  return target;
}

void sort_report_targets(std::vector<ReportTarget>& targets) {
  std::stable_sort(targets.begin(), targets.end(), [](const ReportTarget& a, const ReportTarget& b) {
    // hmmsearch sorts on -ln_p, larger first (inclusion by E-value, its default).
    if (a.ln_p != b.ln_p) return a.ln_p < b.ln_p;
    const int by_name = std::strcmp(a.name.c_str(), b.name.c_str());
    if (by_name != 0) return by_name < 0;
    return first_alignment_start(a) < first_alignment_start(b);
  });
}

double apply_thresholds(QueryReport& report) {
  const ReportOptions& options = report.options;
  int reported_targets = 0;
  for (ReportTarget& target : report.targets) {
    const double evalue = hmmer_evalue(target.ln_p, options.Z);
    target.reported = evalue <= options.E;
    target.included = target.reported && evalue <= options.incE;
    reported_targets += target.reported ? 1 : 0;
  }
  // Without --domZ, the domain search space is the number of targets reported.
  report.domZ = options.domZ > 0 ? options.domZ : static_cast<double>(reported_targets);
  for (ReportTarget& target : report.targets) {
    target.nreported = target.nincluded = 0;
    for (DomainHit& domain : target.domains) {
      const double evalue = hmmer_evalue(domain.ln_p, report.domZ);
      domain.reported = target.reported && evalue <= options.domE;
      domain.included = target.included && evalue <= options.incdomE;
      target.nreported += domain.reported ? 1 : 0;
      target.nincluded += domain.included ? 1 : 0;
    }
    drop_duplicate_alignments(target);
  }
  return report.domZ;
}

// ------------------------------------------------------------------ tables

namespace {

// Column widths both tables share: target name and accession, query name
// and accession, at least hmmsearch's minimums (20, 10, 20, 10).
struct TableWidths {
  int target_name, target_accession, query_name, query_accession;
};
TableWidths table_widths(const QueryReport& report) {
  return {std::max(20, longest_name(report.targets)), std::max(10, longest_accession(report.targets)),
          std::max(20, text_width(report.name)), std::max(10, text_width(report.accession))};
}

// A row's name and accession columns, "%-*s %-*s", of the target and of
// the query.
void append_target_columns(std::string& text, const ReportTarget& target, const TableWidths& widths) {
  append_left_aligned(text, target.name, widths.target_name);
  text += ' ';
  append_left_aligned(text, or_dash(target.accession), widths.target_accession);
}
void append_query_columns(std::string& text, const QueryReport& report, const TableWidths& widths) {
  append_left_aligned(text, report.name, widths.query_name);
  text += ' ';
  append_left_aligned(text, or_dash(report.accession), widths.query_accession);
}

// A row's number columns, each after a space, as printf's "%*.*g" (g),
// "%*.*f" (f) and "%*d" (d) print them (core/text_format.h): a report's rows
// print thousands of numbers, and glibc's float formatting was about half
// of the texts' time.
struct NumberColumns {
  std::string& text;
  NumberColumns& g(double value, int width, int precision) {
    text += ' ';
    append_general(text, value, precision, width);
    return *this;
  }
  NumberColumns& f(double value, int width, int precision) {
    text += ' ';
    append_fixed(text, value, precision, width);
    return *this;
  }
  NumberColumns& d(long value, int width) {
    text += ' ';
    append_integer(text, value, width);
    return *this;
  }
};

}  // namespace

std::string tblout_report_text(const QueryReport& report, bool header) {
  const TableWidths widths = table_widths(report);
  const auto [tnamew, taccw, qnamew, qaccw] = widths;
  std::string text;
  if (header) {
    text += printf_text("#%*s %22s %22s %33s\n", tnamew + qnamew + taccw + qaccw + 2, "", "--- full sequence ----",
                   "--- best 1 domain ----", "--- domain number estimation ----");
    text += printf_text("#%-*s %-*s %-*s %-*s %9s %6s %5s %9s %6s %5s %5s %3s %3s %3s %3s %3s %3s %3s %s\n", tnamew - 1,
                   " target name", taccw, "accession", qnamew, "query name", qaccw, "accession", "  E-value", " score",
                   " bias", "  E-value", " score", " bias", "exp", "reg", "clu", " ov", "env", "dom", "rep", "inc",
                   "description of target");
    text += printf_text("#%*s %*s %*s %*s %9s %6s %5s %9s %6s %5s %5s %3s %3s %3s %3s %3s %3s %3s %s\n", tnamew - 1,
                   "-------------------", taccw, "----------", qnamew, "--------------------", qaccw, "----------",
                   "---------", "------", "-----", "---------", "------", "-----", "---", "---", "---", "---", "---",
                   "---", "---", "---", "---------------------");
  }
  const double Z = report.options.Z;
  for (const ReportTarget& target : report.targets) {
    if (!target.reported) continue;
    const DomainHit& best = target.domains.at(target.best_domain);
    // "%-*s %-*s %-*s %-*s %9.2g ... %3d %s\n": the string columns padded here.
    append_target_columns(text, target, widths);
    text += ' ';
    append_query_columns(text, report, widths);
    // " %9.2g %6.1f %5.1f %9.2g %6.1f %5.1f %5.1f %3d %3d %3d %3d %3d %3d %3d "
    NumberColumns{text}
        .g(hmmer_evalue(target.ln_p, Z), 9, 2)
        .f(target.score_bits, 6, 1)
        .f(sequence_bias(target), 5, 1)
        .g(hmmer_evalue(best.ln_p, Z), 9, 2)
        .f(best.bitscore, 6, 1)
        .f(domain_bias(best), 5, 1)
        .f(target.nexpected, 5, 1)
        .d(target.nregions, 3)
        .d(target.nclustered, 3)
        .d(target.noverlaps, 3)
        .d(target.nenvelopes, 3)
        .d(static_cast<long>(target.domains.size()), 3)
        .d(target.nreported, 3)
        .d(target.nincluded, 3);
    text += ' ';
    text += or_dash(target.description);
    text += '\n';
  }
  return text;
}

std::string domtblout_report_text(const QueryReport& report, bool header) {
  const TableWidths widths = table_widths(report);
  const auto [tnamew, taccw, qnamew, qaccw] = widths;
  std::string text;
  if (header) {
    text += printf_text("#%*s %22s %40s %11s %11s %11s\n", tnamew + qnamew - 1 + 15 + taccw + qaccw, "",
                   "--- full sequence ---", "-------------- this domain -------------", "hmm coord", "ali coord",
                   "env coord");
    text += printf_text("#%-*s %-*s %5s %-*s %-*s %5s %9s %6s %5s %3s %3s %9s %9s %6s %5s %5s %5s %5s %5s %5s %5s %4s %s\n",
                   tnamew - 1, " target name", taccw, "accession", "tlen", qnamew, "query name", qaccw, "accession",
                   "qlen", "E-value", "score", "bias", "#", "of", "c-Evalue", "i-Evalue", "score", "bias", "from", "to",
                   "from", "to", "from", "to", "acc", "description of target");
    text += printf_text("#%*s %*s %5s %*s %*s %5s %9s %6s %5s %3s %3s %9s %9s %6s %5s %5s %5s %5s %5s %5s %5s %4s %s\n",
                   tnamew - 1, "-------------------", taccw, "----------", "-----", qnamew, "--------------------",
                   qaccw, "----------", "-----", "---------", "------", "-----", "---", "---", "---------", "---------",
                   "------", "-----", "-----", "-----", "-----", "-----", "-----", "-----", "----",
                   "---------------------");
  }
  const double Z = report.options.Z;
  for (const ReportTarget& target : report.targets) {
    if (!target.reported) continue;
    int number = 0;
    for (const DomainHit& domain : target.domains) {
      if (!domain.reported) continue;
      const AlignmentDisplay& ali = domain.alignment;
      // "%-*s %-*s %5ld %-*s %-*s %5d %9.2g ... %4.2f %s\n": the string columns padded here.
      append_target_columns(text, target, widths);
      NumberColumns{text}.d(ali.L, 5);  // " %5ld "
      text += ' ';
      append_query_columns(text, report, widths);
      // " %5d %9.2g %6.1f %5.1f %3d %3d %9.2g %9.2g %6.1f %5.1f %5d %5d %5ld %5ld %5d %5d %4.2f "
      NumberColumns{text}
          .d(ali.M, 5)
          .g(hmmer_evalue(target.ln_p, Z), 9, 2)
          .f(target.score_bits, 6, 1)
          .f(sequence_bias(target), 5, 1)
          .d(++number, 3)
          .d(target.nreported, 3)
          .g(hmmer_evalue(domain.ln_p, report.domZ), 9, 2)
          .g(hmmer_evalue(domain.ln_p, Z), 9, 2)
          .f(domain.bitscore, 6, 1)
          .f(domain_bias(domain), 5, 1)
          .d(ali.hmmfrom, 5)
          .d(ali.hmmto, 5)
          .d(ali.sqfrom, 5)
          .d(ali.sqto, 5)
          .d(domain.ienv, 5)
          .d(domain.jenv, 5)
          .f(domain_accuracy(domain), 4, 2);
      text += ' ';
      text += or_dash(target.description);
      text += '\n';
    }
  }
  return text;
}

// ------------------------------------------------------- human-readable text

namespace {

// "%-.*s" of hmmsearch: at most `width` characters, none at all limit for 0.
std::string clipped(const std::string& text, int textw, int width) {
  return textw > 0 ? text.substr(0, static_cast<std::size_t>(std::max(width, 0))) : text;
}

// The report's parts are appended to one text: the alignments alone are
// megabytes for a long profile, and each part returned and added would copy
// them again.
void append_target_list_text(std::string& text, const QueryReport& report) {
  const int namew = std::max(8, longest_name(report.targets));
  const int descw = std::max(32, report.options.textw - namew - 61);
  text += "Scores for complete sequences (score includes all domains):\n";
  text += printf_text("  %22s  %22s  %8s\n", " --- full sequence ---", " --- best 1 domain ---", "-#dom-");
  text += printf_text("  %9s %6s %5s  %9s %6s %5s  %5s %2s  %-*s %s\n", "E-value", " score", " bias", "E-value", " score",
                 " bias", "  exp", "N", namew, "Sequence", "Description");
  text += printf_text("  %9s %6s %5s  %9s %6s %5s  %5s %2s  %-*s %s\n", "-------", "------", "-----", "-------", "------",
                 "-----", " ----", "--", namew, "--------", "-----------");
  bool threshold_shown = false;
  int reported = 0;
  const double Z = report.options.Z;
  for (const ReportTarget& target : report.targets) {
    if (!target.reported) continue;
    ++reported;
    if (!target.included && !threshold_shown) {
      text += "  ------ inclusion threshold ------\n";
      threshold_shown = true;
    }
    const DomainHit& best = target.domains.at(target.best_domain);
    // "%c %9.2g %6.1f %5.1f  %9.2g %6.1f %5.1f  %5.1f %2d  " with ' '
    text += ' ';
    NumberColumns{text}.g(hmmer_evalue(target.ln_p, Z), 9, 2).f(target.score_bits, 6, 1).f(sequence_bias(target), 5, 1);
    text += ' ';
    NumberColumns{text}.g(hmmer_evalue(best.ln_p, Z), 9, 2).f(best.bitscore, 6, 1).f(domain_bias(best), 5, 1);
    text += ' ';
    NumberColumns{text}.f(target.nexpected, 5, 1).d(target.nreported, 2);
    text += "  ";
    append_left_aligned(text, target.name, namew);  // "%-*s"
    text += "  ";
    text += clipped(target.description, report.options.textw, descw);
    text += '\n';
  }
  if (reported == 0) text += "\n   [No hits detected that satisfy reporting thresholds]\n";
}

void append_domain_row(std::string& text, const DomainHit& domain, int number, double domZ, double Z) {
  const AlignmentDisplay& ali = domain.alignment;
  // " %3d %c %6.1f %5.1f %9.2g %9.2g %7d %7d %c%c %7ld %7ld %c%c %7d %7d %c%c %4.2f\n"
  auto ends = [&](bool first_end, bool last_end) {
    text += ' ';
    text += first_end ? '[' : '.';
    text += last_end ? ']' : '.';
  };
  NumberColumns{text}.d(number, 3);
  text += ' ';
  text += domain.included ? '!' : '?';
  NumberColumns{text}
      .f(domain.bitscore, 6, 1)
      .f(domain_bias(domain), 5, 1)
      .g(hmmer_evalue(domain.ln_p, domZ), 9, 2)
      .g(hmmer_evalue(domain.ln_p, Z), 9, 2)
      .d(ali.hmmfrom, 7)
      .d(ali.hmmto, 7);
  ends(ali.hmmfrom == 1, ali.hmmto == ali.M);
  NumberColumns{text}.d(ali.sqfrom, 7).d(ali.sqto, 7);
  ends(ali.sqfrom == 1, ali.sqto == ali.L);
  NumberColumns{text}.d(domain.ienv, 7).d(domain.jenv, 7);
  ends(domain.ienv == 1, domain.jenv == ali.L);
  NumberColumns{text}.f(domain_accuracy(domain), 4, 2);
  text += '\n';
}

// The same two lines for every target: made once.
const std::string& domain_table_heading() {
  static const std::string heading =
      printf_text(" %3s   %6s %5s %9s %9s %7s %7s %2s %7s %7s %2s %7s %7s %2s %4s\n", "#", "score", "bias", "c-Evalue",
                  "i-Evalue", "hmmfrom", "hmm to", "  ", "alifrom", "ali to", "  ", "envfrom", "env to", "  ", "acc") +
      printf_text(" %3s   %6s %5s %9s %9s %7s %7s %2s %7s %7s %2s %7s %7s %2s %4s\n", "---", "------", "-----",
                  "---------", "---------", "-------", "-------", "  ", "-------", "-------", "  ", "-------", "-------",
                  "  ", "----");
  return heading;
}

void append_target_domains_text(std::string& text, const QueryReport& report, const ReportTarget& target) {
  const ReportOptions& options = report.options;
  const int descw = std::max(32, options.textw - text_width(target.name) - 5);
  text += ">> " + target.name + "  " + clipped(target.description, options.textw, descw) + "\n";
  if (target.nreported == 0) {
    text += "   [No individual domains that satisfy reporting thresholds (although complete target did)]\n\n";
    return;
  }
  text += domain_table_heading();
  int number = 0;
  for (const DomainHit& domain : target.domains)
    if (domain.reported) append_domain_row(text, domain, ++number, report.domZ, options.Z);
  if (!options.show_alignments) {
    text += "\n";
    return;
  }
  text += "\n  Alignments for each domain:\n";
  number = 0;
  for (const DomainHit& domain : target.domains) {
    if (!domain.reported) continue;
    // "  == domain %d  score: %.1f bits;  conditional E-value: %.2g\n"
    text += "  == domain ";
    append_integer(text, ++number);
    text += "  score: ";
    append_fixed(text, domain.bitscore, 1);
    text += " bits;  conditional E-value: ";
    append_general(text, hmmer_evalue(domain.ln_p, report.domZ), 2);
    text += '\n';
    append_alignment_display_text(text, domain.alignment, report.name, target.name, options.textw, 40);
    text += "\n";
  }
}

void append_domain_annotation_text(std::string& text, const QueryReport& report) {
  text += report.options.show_alignments ? "Domain annotation for each sequence (and alignments):\n"
                                         : "Domain annotation for each sequence:\n";
  int reported = 0;
  for (const ReportTarget& target : report.targets) {
    if (!target.reported) continue;
    ++reported;
    append_target_domains_text(text, report, target);
  }
  if (reported == 0) text += "\n   [No targets detected that satisfy reporting thresholds]\n";
}

}  // namespace

std::string query_report_text(const QueryReport& report, const std::string& statistics) {
  std::string text = printf_text("Query:       %s  [M=%d]\n", report.name.c_str(), report.M);
  if (!report.accession.empty()) text += "Accession:   " + report.accession + "\n";
  if (!report.description.empty()) text += "Description: " + report.description + "\n";
  append_target_list_text(text, report);
  text += "\n\n";
  append_domain_annotation_text(text, report);
  text += "\n\n";
  text += statistics;
  text += "//\n";
  return text;
}

std::string report_statistics_text(const QueryReport& report, const PipelineCounts& counts,
                                   const PipelineOptions& pipeline, const std::string& timing_lines) {
  SearchProfile shown;  // pipeline_statistics_text prints only M of the profile
  shown.M = report.M;
  PipelineOptions options = pipeline;
  options.database_sequences = report.options.Z_from_option ? report.options.Z : 0;
  std::string text = pipeline_statistics_text(shown, counts, options);
  text += printf_text("Domain search space  (domZ): %15.0f  %s\n", report.domZ,
                 report.options.domZ > 0 ? "[as set by --domZ on cmdline]"
                                         : "[number of targets reported over threshold]");
  return text + timing_lines;
}

// ------------------------------------------------------------ file framing

std::string hmmsearch_banner_text(const BannerOptions& o) {
  const char* dashes = "# - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n";
  std::string text = "# hmmsearch :: search profile(s) against a sequence database\n"
                      "# HMMER 3.3.2 (Nov 2020); http://hmmer.org/\n"
                      "# Copyright (C) 2020 Howard Hughes Medical Institute.\n"
                      "# Freely distributed under the BSD open source license.\n";
  text += dashes;
  text += "# query HMM file:                  " + o.hmm_file + "\n";
  text += "# target sequence database:        " + o.sequence_file + "\n";
  auto line = [&](bool given, const std::string& content) {
    if (given) text += content;
  };
  line(!o.output_file.empty(), "# output directed to file:         " + o.output_file + "\n");
  line(!o.tblout_file.empty(), "# per-seq hits tabular output:     " + o.tblout_file + "\n");
  line(!o.domtblout_file.empty(), "# per-dom hits tabular output:     " + o.domtblout_file + "\n");
  line(o.noali, "# show alignments in output:       no\n");
  line(o.notextw, "# max ASCII text line length:      unlimited\n");
  line(o.textw > 0, printf_text("# max ASCII text line length:      %d\n", o.textw));
  line(o.E > 0, printf_text("# sequence reporting threshold:    E-value <= %g\n", o.E));
  line(o.domE > 0, printf_text("# domain reporting threshold:      E-value <= %g\n", o.domE));
  line(o.incE > 0, printf_text("# sequence inclusion threshold:    E-value <= %g\n", o.incE));
  line(o.incdomE > 0, printf_text("# domain inclusion threshold:      E-value <= %g\n", o.incdomE));
  line(o.F1 > 0, printf_text("# MSV filter P threshold:       <= %g\n", o.F1));
  line(o.F2 > 0, printf_text("# Vit filter P threshold:       <= %g\n", o.F2));
  line(o.F3 > 0, printf_text("# Fwd filter P threshold:       <= %g\n", o.F3));
  line(o.nobias, "# biased composition HMM filter:   off\n");
  line(o.Z > 0, printf_text("# sequence search space set to:    %.0f\n", o.Z));
  line(o.domZ > 0, printf_text("# domain search space set to:      %.0f\n", o.domZ));
  line(o.cpu >= 0, printf_text("# number of worker threads:        %d\n", o.cpu));
  text += dashes;
  return text + "\n";
}

std::string tabular_tail_text(const std::string& hmm_file, const std::string& sequence_file,
                              const std::string& option_settings, const std::string& current_dir,
                              const std::string& date) {
  return "#\n"
         "# Program:         hmmsearch\n"
         "# Version:         3.3.2 (Nov 2020)\n"
         "# Pipeline mode:   SEARCH\n"
         "# Query file:      " + hmm_file + "\n" +
         "# Target file:     " + sequence_file + "\n" +
         "# Option settings: " + option_settings + "\n" +
         "# Current dir:     " + current_dir + "\n" +
         "# Date:            " + date +
         "# [ok]\n";
}

}  // namespace helix::hmmsearch
