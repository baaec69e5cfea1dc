// hmm_result_files.h: the "scores" and "domains" outputs of an hmmsearch work
// unit: every target past Forward and its domain definition, exact (floats as
// C99 %a), so that the validator compares results bit for bit and the
// assimilator rebuilds hmmsearch's reports from them.
//
// Contents:
//   scores_tsv(), parse_scores_tsv()      the "scores" output
//   domains_tsv(), parse_domains_tsv()    the "domains" output
//   kMaxScoreLineFixedBytes, kMaxDomainTargetLineBytes, kMaxDomainLineFixedBytes   their lines' size bounds
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hmm_result.h"

namespace helix::hmmsearch {

// "scores": a header line, then one tab-separated line per row: profile,
// target_ordinal, target_name, msv_nats, filter_nats, viterbi_nats ("-" when
// Viterbi was skipped), forward_nats, null_nats, score_bits, ln_p, reported
// (0/1), description (the rest of the line, may be empty). Scores are C99
// hexadecimal floats ("%a"): exact, so results compare bit for bit.
std::string scores_tsv(const std::vector<ScoreRow>& rows);
// Rows back; InputError naming the line for anything malformed or not
// written exactly as scores_tsv writes it (canonical numbers only).
std::vector<ScoreRow> parse_scores_tsv(const std::string& text, std::uint64_t first_ordinal);
// The bytes one scores line may take beyond its name and description.
constexpr std::uint64_t kMaxScoreLineFixedBytes = 320;

// "domains": two header lines ("#T\t..." and "#D\t...": the field names),
// then for every row, in the rows' order, a target line and one line per
// domain, tab-separated:
//   T profile target_ordinal length dropped score_bits pre_score_bits
//     sum_score_bits ln_p best_domain nexpected nregions nclustered noverlaps
//     nenvelopes domains
//   D profile target_ordinal domain ienv jenv iali jali envsc_nats
//     domcorrection_nats dombias_nats oasc bitscore ln_p hmmfrom hmmto M
//     sqfrom sqto L rfline mmline csline model mline aseq ppline
// Floats and doubles as %a (exact); the display lines as they are (empty
// when the model has no such annotation). Reported / included flags are not
// written: apply_thresholds derives them.
std::string domains_tsv(const std::vector<ScoreRow>& rows);
// Fills rows[k].domains from the text; InputError naming the line for
// anything malformed, not canonical, or not in the rows' order.
void parse_domains_tsv(const std::string& text, std::vector<ScoreRow>& rows);
// Bytes of a domains target line, and of a domain line beyond its display.
constexpr std::uint64_t kMaxDomainTargetLineBytes = 400, kMaxDomainLineFixedBytes = 400;

}  // namespace helix::hmmsearch
