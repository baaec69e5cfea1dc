// hmm_outputs.h: hmmsearch's own reports of a work unit's result, byte for byte
// as hmmsearch 3.3.2 writes them for the chunk's targets (hmm_report.h formats
// them): the "tblout", "domtblout" and "out" outputs.
//
// Contents:
//   query_report_of()                                  a profile's hmmsearch report model from the rows
//   ProfileTexts, profile_texts()                      a profile's three texts
//   report_outputs()                                   every profile's three, in file order
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hmm_params.h"
#include "hmm_report.h"
#include "hmm_result.h"

namespace helix::hmmsearch {

// hmmsearch's report model for profile `index` from the rows (`rows` may hold
// other profiles' too): the targets hmmsearch keeps (not dropped, E-value
// over Z = database_sequences within report_evalue), sorted, thresholds
// applied with the params' domZ (0: the number of targets reported).
QueryReport query_report_of(const ProfileOutcome& profile, std::uint32_t index, const std::vector<ScoreRow>& rows,
                            const HmmParams& params);
// A profile's three texts: --tblout and --domtblout rows (with their header
// lines when `header`), and the human-readable query block (query_report_text
// with report_statistics_text, no timing lines), "Query:" to "//".
struct ProfileTexts {
  std::string tblout, domtblout, out;
};
ProfileTexts profile_texts(const ProfileOutcome& profile, std::uint32_t index, const std::vector<ScoreRow>& rows,
                           const HmmParams& params, bool header);
// The WU's "tblout", "domtblout" and "out": every profile's in file order, as
// one hmmsearch run over the chunk's targets writes them (the table headers
// once, before the first profile's rows; no banner, no '#' tail, no timing).
// Each profile's report is made once for the three.
ProfileTexts report_outputs(const HmmJobResult& result);

}  // namespace helix::hmmsearch
