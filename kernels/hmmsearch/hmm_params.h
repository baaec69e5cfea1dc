// hmm_params.h: an hmmsearch work unit's parameters, the WU's "params" JSON
// (docs/hmmsearch.md, "Work units and server"). Shared by the app, the work
// generator and the validator.
//
// Contents:
//   kMaxProfilesPerWu, kDefaultBlockTargets, kMaxPlainName   limits every reader enforces
//   HmmParams, HmmParams::pipeline()        the chunk, the whole database's size, hmmsearch's options
//   parse_hmm_params(), hmm_params_json()   the JSON, read (every absurd value refused) and written
//
// A WU is one chunk of the database (FASTA, in database order) against one or
// more profiles (HMMER3 text); every WU of a search carries the whole
// database's size, so E-values are the database's (hmmsearch -Z).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "hmm_pipeline.h"

namespace helix::hmmsearch {

// Limits every reader enforces (the params parser, the validator).
constexpr std::uint32_t kMaxProfilesPerWu = 1000;
constexpr std::uint32_t kDefaultBlockTargets = 16384;
// Search and profile stems in file names: plain names of at most this many characters.
constexpr std::size_t kMaxPlainName = 200;

struct HmmParams {
  std::string search;                       // the search's name (helix-wu --name), the same in all its WUs
  std::uint32_t chunk = 0, chunks = 1;      // this WU's chunk of the database, of how many
  std::uint64_t first_ordinal = 0;          // database ordinal (FASTA order, from 0) of the chunk's first target
  std::uint64_t chunk_targets = 0, chunk_residues = 0, chunk_bytes = 0;  // the "database" file's
  std::uint64_t database_sequences = 0;     // of the WHOLE database: Z
  std::uint64_t database_residues = 0;
  std::uint32_t profile_count = 0;          // models in the "profiles" file
  std::uint32_t block_targets = kDefaultBlockTargets;  // targets searched between checkpoints
  double report_evalue = 10.0;              // hmmsearch -E
  // hmmsearch --domZ: the domain search space, set for the whole search.
  // 0 (absent from the JSON): hmmsearch's own default, the number of targets
  // reported; a WU's files count its chunk's, the merged report the whole
  // database's (domain E-values are printed from stored P-values, so the
  // choice changes no computed number, only what is printed and reported).
  double domZ = 0;
  double F1 = 0.02, F2 = 1e-3, F3 = 1e-5;   // hmmsearch --F1/--F2/--F3
  bool bias_filter = true;                  // false: hmmsearch --nobias
  PipelineOptions pipeline() const;         // the options search_chunk takes (Z = database_sequences)
};
// {"kind": "hmmsearch", "search", "chunk", "chunks", "first_ordinal",
//  "chunk_targets", "chunk_residues", "chunk_bytes", "database_sequences",
//  "database_residues", "profile_count", "block_targets"?, "report_evalue"?,
//  "F1"?, "F2"?, "F3"?, "bias_filter"?, "domZ"? (written only when set)}. Throws InputError, one line naming
// the member, on anything missing, mistyped or absurd (a P-value threshold
// outside (0, 1], a chunk larger than the database, ...).
HmmParams parse_hmm_params(const nlohmann::json& json);
nlohmann::json hmm_params_json(const HmmParams& params);

}  // namespace helix::hmmsearch
