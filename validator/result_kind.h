// result_kind.h: which kind produced a result, read from the result's content.
// By convention (core/kind.h) a result's LAST file is a JSON summary whose
// "kind" member names the kind. The validator and the assimilator both
// dispatch through this.
#pragma once
#include <string>
#include <vector>

#include "core/kind.h"

namespace helix {

// Reads at most 1 MiB of files.back(), parses it as JSON and looks up its kind.
// Throws InputError (one line) for no files, a missing/oversized/non-JSON
// summary, or an unknown kind.
const ServerKind& result_kind(const std::vector<std::string>& files);

}  // namespace helix
