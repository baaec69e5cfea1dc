// hmm_outputs.cpp: hmmsearch's "tblout", "domtblout" and "out" reports of a
// work unit's result (hmm_outputs.h).
#include "hmm_outputs.h"

#include <utility>

namespace helix::hmmsearch {

QueryReport query_report_of(const ProfileOutcome& profile, std::uint32_t index, const std::vector<ScoreRow>& rows,
                            const HmmParams& params) {
  QueryReport report;
  report.name = profile.name, report.accession = profile.accession, report.description = profile.description;
  report.M = profile.M;
  report.options.E = params.report_evalue;
  report.options.Z = static_cast<double>(params.database_sequences);
  report.options.Z_from_option = true;  // every WU reports over the whole database (-Z)
  report.options.domZ = params.domZ;
  for (const ScoreRow& row : rows) {
    if (row.profile != index) continue;
    const TargetDomains& found = row.domains;
    // hmmsearch keeps in its hit list what survived domain definition with
    // an E-value within -E (p7_Pipeline, with -Z given).
    if (found.scores.dropped || hmmer_evalue(found.scores.ln_p, report.options.Z) > report.options.E) continue;
    DomainDefinition definition = found.definition;
    report.targets.push_back(
        report_target(row.name, "", row.description, found.length, found.scores, std::move(definition)));
  }
  sort_report_targets(report.targets);
  apply_thresholds(report);
  return report;
}

ProfileTexts profile_texts(const ProfileOutcome& profile, std::uint32_t index, const std::vector<ScoreRow>& rows,
                           const HmmParams& params, bool header) {
  const QueryReport report = query_report_of(profile, index, rows, params);
  ProfileTexts texts;
  texts.tblout = tblout_report_text(report, header);
  texts.domtblout = domtblout_report_text(report, header);
  texts.out = query_report_text(report, report_statistics_text(report, profile.counts, params.pipeline()));
  return texts;
}

ProfileTexts report_outputs(const HmmJobResult& result) {
  ProfileTexts joined;
  for (std::uint32_t p = 0; p < result.profiles.size(); ++p) {
    const ProfileTexts texts = profile_texts(result.profiles[p], p, result.rows, result.params, p == 0);
    joined.tblout += texts.tblout, joined.domtblout += texts.domtblout, joined.out += texts.out;
  }
  return joined;
}

}  // namespace helix::hmmsearch
