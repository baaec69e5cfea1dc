// hmm_summary.h: the hmmsearch result's "summary" output (JSON, the result's
// last file; it names the kind).
//
// Contents:
//   hmm_summary_json()
#pragma once
#include <string>

#include "hmm_result.h"

namespace helix::hmmsearch {

// {"kind": "hmmsearch", "engine", "params", "profiles": [{"name",
// "accession", "description", "M", "targets", "residues", "past_msv", "past_bias",
// "past_viterbi", "past_forward"}]}.
std::string hmm_summary_json(const HmmJobResult& result);

}  // namespace helix::hmmsearch
