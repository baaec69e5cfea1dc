// hmm_report.h: hmmsearch 3.3.2's reports for one query profile, byte for
// byte: the --tblout and --domtblout tables and the human-readable text
// from "Query:" to "//" (target list, domain tables and alignments, pipeline
// statistics), from a report model that the pipeline fills after domain
// definition and that a server can rebuild from stored rows.
//
// Contents:
//   ReportTarget, QueryReport     the model: every target in hmmsearch's hit
//                                 list with its domains and display
//   report_target()               a ReportTarget from define_domains() and
//                                 score_target() results
//   sort_report_targets()         hmmsearch's order (p7_tophits_SortBySortkey)
//   apply_thresholds()            reported / included flags and counts, domZ
//                                 (p7_tophits_Threshold)
//   tblout_report_text(), domtblout_report_text(), query_report_text(),
//   report_statistics_text(), hmmsearch_banner_text(), tabular_tail_text()
//
// Which targets belong in the model: those hmmsearch keeps in its hit list,
// i.e. every target whose domain definition kept at least one domain and
// whose E-value (over Z) is <= -E at the time it is scored. With -Z given
// (how this kind runs) that is exactly the reported targets; the table
// widths are taken over all targets in the model, as hmmsearch takes them
// over its whole hit list.
//
// Not reproduced: score thresholds (-T, --domT, --incT, --incdomT, --cut_ga
// and the like), --acc, iterative-search newness marks, and the two timing
// lines of the statistics (the caller passes them as text if it has them).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hmm_domains.h"
#include "hmm_pipeline.h"

namespace helix::hmmsearch {

// One target of the hit list (HMMER's P7_HIT, search mode). Scores are in
// HMMER's types so that printing rounds as hmmsearch does.
struct ReportTarget {
  std::string name, accession, description;  // empty accession / description: none
  long length = 0;                            // L, residues
  float score_bits = 0;      // final sequence score (null2-corrected, or the domain sum)
  float pre_score_bits = 0;  // the same before the null2 correction (the table's bias = pre - score)
  double ln_p = 0;           // log P-value of score_bits
  float nexpected = 0;       // the tblout's exp, reg, clu, ov, env columns
  int nregions = 0, nclustered = 0, noverlaps = 0, nenvelopes = 0;
  int best_domain = 0;               // index into domains of the highest bitscore (first of equals)
  std::vector<DomainHit> domains;    // in sequence order; reported ones carry their alignment
  // Set by apply_thresholds():
  bool reported = false, included = false;
  int nreported = 0, nincluded = 0;  // domains
};

// hmmsearch's reporting and inclusion thresholds, search spaces and layout.
struct ReportOptions {
  double E = 10, domE = 10, incE = 0.01, incdomE = 0.01;  // -E --domE --incE --incdomE
  double Z = 0;            // sequences in the search space (-Z, or the number searched)
  bool Z_from_option = true;
  double domZ = 0;         // --domZ; 0: the number of reported targets, hmmsearch's default
  int textw = 120;         // --textw; 0 is --notextw (no limit)
  bool show_alignments = true;  // false is --noali
};

struct QueryReport {
  std::string name, accession, description;  // the query profile's
  int M = 0;
  ReportOptions options;
  double domZ = 0;  // the domain search space used (apply_thresholds sets it)
  std::vector<ReportTarget> targets;  // in hmmsearch's order once sorted
};

// A target as the pipeline leaves it: scores from score_target(), counts and
// domains (with their bitscore, ln_p, dombias and, for those that will be
// reported, alignment) from define_domains(). `definition` is moved from.
ReportTarget report_target(const std::string& name, const std::string& accession, const std::string& description,
                           long length, const TargetScores& scores, DomainDefinition&& definition);

// hmmsearch's order: best (lowest) ln_p first; equal ones by name (strcmp),
// then by the first domain's alignment start; the sort is stable beyond that.
void sort_report_targets(std::vector<ReportTarget>& targets);

// Sets every target's and domain's reported / included flags and counts as
// p7_tophits_Threshold does (E-value thresholds): a target is reported when
// exp(ln_p) * Z <= E and included when also <= incE; the domain search space
// is options.domZ or else the number of reported targets; a domain is
// reported when its target is and exp(ln_p) * domZ <= domE, included when
// its target is included and <= incdomE. Of two domains of one target with
// identical alignment ends (possible only when envelopes overlapped), only
// the higher scoring one stays reported. Returns the domZ used (also stored
// in report.domZ).
double apply_thresholds(QueryReport& report);

// --tblout and --domtblout rows of the reported targets (and domains), with
// the three header lines when `header` (hmmsearch writes them for its first
// query only). Without the "#" tail (tabular_tail_text).
std::string tblout_report_text(const QueryReport& report, bool header = true);
std::string domtblout_report_text(const QueryReport& report, bool header = true);

// The human-readable text for the query: "Query:" and its accession and
// description lines, the target list, the domain annotation (with
// alignments unless --noali), then `statistics` (report_statistics_text),
// then "//". Call after sort_report_targets() and apply_thresholds().
std::string query_report_text(const QueryReport& report, const std::string& statistics);

// "Internal pipeline statistics summary" for one query: pipeline_statistics_text()
// and the domain search space line; `timing_lines` ("# CPU time: ...\n# Mc/sec:
// ...\n" in hmmsearch) is appended as given.
std::string report_statistics_text(const QueryReport& report, const PipelineCounts& counts,
                                   const PipelineOptions& pipeline, const std::string& timing_lines = "");

// hmmsearch's output header: the program banner, the two file lines, one
// line per option given in hmmsearch's order, and the closing dashes. Only
// options this kind can take are listed; unset ones (empty / 0 / false)
// print nothing.
struct BannerOptions {
  std::string hmm_file, sequence_file;
  std::string output_file, tblout_file, domtblout_file;  // -o --tblout --domtblout
  bool noali = false;
  int textw = 0;              // --textw as given (0: not given); notextw for --notextw
  bool notextw = false;
  double E = 0, domE = 0, incE = 0, incdomE = 0;  // 0: not given
  double F1 = 0, F2 = 0, F3 = 0;
  bool nobias = false;
  double Z = 0, domZ = 0;
  int cpu = -1;               // --cpu (-1: not given)
};
std::string hmmsearch_banner_text(const BannerOptions& options);

// The comment block hmmsearch appends to each table file (after the last
// query): program, version, mode, files, the options as typed, current
// directory and date (`date` as ctime() writes it, with its newline).
std::string tabular_tail_text(const std::string& hmm_file, const std::string& sequence_file,
                              const std::string& option_settings, const std::string& current_dir,
                              const std::string& date);

}  // namespace helix::hmmsearch
