// sw_files.h: the swsearch kind's files besides its params and summary
// (docs/swsearch.md). Shared by the app, the work generator, the validator and
// the assimilator, so that every side writes and reads the same bytes.
//
// Contents:
//   DatabaseChunk, make_chunk()        a slice of the database, sorted by length
//   encode_chunk(), decode_chunk()     "HXSWDB01": the WU's "database" input (zstd frame)
//   hits_tsv(), parse_hits_tsv()       the result's "hits" output
//
// Database chunk, little-endian: 8 bytes "HXSWDB01" | u64 payload bytes | zstd
// frame of: u64 targets | per target u64 id length, id, u64 ordinal, u32
// length | every target's residue codes, back to back.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sw.h"
#include "sw_engine.h"
#include "sw_result.h"

namespace helix::swsearch {

// A slice of the database: targets sorted by length (ties by ordinal), each
// with its id and its ordinal (position in the whole database's FASTA, from 0),
// which orders equal scores identically in every chunk.
struct DatabaseChunk {
  std::vector<std::string> ids;
  std::vector<std::uint64_t> ordinals;
  SequenceSet targets;
};
// Sorts `records` (with their ordinals) by length into a chunk.
DatabaseChunk make_chunk(std::vector<FastaRecord> records, const std::vector<std::uint64_t>& ordinals);
// Real FASTA ids run long: metastudent-data's UniProt set has ids of up to
// 4,021 characters (accession|GO terms, no blank). The bound keeps a corrupt
// chunk from declaring absurd strings; make_chunk refuses an id above it, so
// every chunk the work generator writes decodes.
constexpr std::size_t kMaxIdLength = 65536;
std::vector<std::uint8_t> encode_chunk(const DatabaseChunk& chunk);
// Throws InputError on a malformed, unsorted or oversized file (max_residues bounds the allocation).
DatabaseChunk decode_chunk(const std::vector<std::uint8_t>& bytes, std::uint64_t max_residues);

// BLAST-tabular-like, one line per hit, header first:
// query_id target_id score bits evalue query_start query_end target_start
// target_end identities length cigar target_ordinal (evalue as %.3e, bits as %.1f).
std::string hits_tsv(const SearchResult& result);
std::vector<std::vector<std::string>> parse_hits_tsv(const std::string& text);  // rows of fields; InputError if malformed

}  // namespace helix::swsearch
