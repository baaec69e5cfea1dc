// result_kind.h: which kind produced a result, read from the result's content,
// for every server tool that dispatches on it (the validator, the
// assimilator). By convention (core/kind.h) a result's LAST file is a JSON
// summary whose "kind" member names the kind.
//
// Part of the server registry (helix_server_kinds): it finds server kinds.
#pragma once
#include <string>
#include <vector>

#include "core/kind.h"

namespace helix {

// Reads files.back() as a returned file (check_support.h: a plain file, at
// most kMaxSummaryBytes, refused before reading), parses it as JSON and looks
// up its kind. Throws InputError (one line) for no files, a missing, oversized
// or non-JSON summary, or an unknown kind.
const KindSpec& result_kind(const std::vector<std::string>& files);

}  // namespace helix
