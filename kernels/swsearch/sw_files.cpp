// sw_files.cpp: the database chunk file and the "hits" table (sw_files.h).
#include "sw_files.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <sstream>

#include "core/byte_codec.h"
#include "core/errors.h"

namespace helix::swsearch {
namespace {

constexpr char kChunkMagic[8] = {'H', 'X', 'S', 'W', 'D', 'B', '0', '1'};

}  // namespace

DatabaseChunk make_chunk(std::vector<FastaRecord> records, const std::vector<std::uint64_t>& ordinals) {
  if (ordinals.size() != records.size()) throw InputError("database chunk: one ordinal per record expected");
  for (const FastaRecord& record : records)
    if (record.id.size() > kMaxIdLength)
      throw InputError("database chunk: id '" + record.id.substr(0, 40) + "...' is longer than " +
                       std::to_string(kMaxIdLength) + " characters");
  std::vector<std::size_t> order(records.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto la = records[a].residues.size(), lb = records[b].residues.size();
    return la != lb ? la < lb : ordinals[a] < ordinals[b];
  });
  DatabaseChunk chunk;
  for (std::size_t k : order) {
    chunk.ids.push_back(records[k].id);
    chunk.ordinals.push_back(ordinals[k]);
    chunk.targets.append(records[k].residues);
  }
  return chunk;
}

std::vector<std::uint8_t> encode_chunk(const DatabaseChunk& chunk) {
  ByteWriter payload;
  payload.put<std::uint64_t>(chunk.ids.size());
  for (std::size_t t = 0; t < chunk.ids.size(); ++t) {
    payload.put_string(chunk.ids[t]);
    payload.put<std::uint64_t>(chunk.ordinals[t]);
    payload.put<std::uint32_t>(static_cast<std::uint32_t>(chunk.targets.length(t)));
  }
  payload.put_bytes(chunk.targets.residues.data(), chunk.targets.residues.size());
  ByteWriter file;
  file.put_bytes(kChunkMagic, 8);
  file.put<std::uint64_t>(payload.bytes().size());
  const auto frame = zstd_compress(payload.bytes().data(), payload.bytes().size());
  file.put_bytes(frame.data(), frame.size());
  return std::move(file.bytes());
}

DatabaseChunk decode_chunk(const std::vector<std::uint8_t>& bytes, std::uint64_t max_residues) {
  ByteReader file(bytes, "database chunk");
  if (file.remaining() < 16 || std::memcmp(file.take(8), kChunkMagic, 8) != 0)
    throw InputError("database chunk: not a helix swsearch database chunk");
  const auto raw_size = file.get<std::uint64_t>();
  if (raw_size > 64 * max_residues + 4096) throw InputError("database chunk: declares more data than allowed");
  const std::size_t frame = file.remaining();
  const auto raw = zstd_decompress(file.take(frame), frame, raw_size, "database chunk");
  ByteReader r(raw, "database chunk");
  const auto count = r.get<std::uint64_t>();
  if (count > max_residues) throw InputError("database chunk: more targets than residues allowed");
  DatabaseChunk chunk;
  std::vector<std::uint32_t> lengths;
  std::uint64_t total = 0;
  for (std::uint64_t t = 0; t < count; ++t) {
    chunk.ids.push_back(r.get_string(kMaxIdLength));
    chunk.ordinals.push_back(r.get<std::uint64_t>());
    lengths.push_back(r.get<std::uint32_t>());
    if (lengths.back() == 0) throw InputError("database chunk: an empty target");
    if (t > 0 && (lengths[t] < lengths[t - 1] || (lengths[t] == lengths[t - 1] && chunk.ordinals[t] <= chunk.ordinals[t - 1])))
      throw InputError("database chunk: targets not sorted by length, then ordinal");
    total += lengths.back();
    if (total > max_residues) throw InputError("database chunk: more residues than allowed");
  }
  const std::uint8_t* residues = r.take(total);
  if (r.remaining() != 0) throw InputError("database chunk: trailing bytes");
  chunk.targets.residues.assign(residues, residues + total);
  for (std::uint8_t code : chunk.targets.residues)
    if (code >= kAlphabetSize) throw InputError("database chunk: a residue code out of range");
  for (std::uint32_t length : lengths) chunk.targets.offsets.push_back(chunk.targets.offsets.back() + length);
  return chunk;
}

std::string hits_tsv(const SearchResult& result) {
  std::string text =
      "query_id\ttarget_id\tscore\tbits\tevalue\tquery_start\tquery_end\ttarget_start\ttarget_end\tidentities\tlength"
      "\tcigar\ttarget_ordinal\n";
  char numbers[256];
  for (const QueryHits& q : result.queries) {
    for (const Hit& h : q.hits) {
      std::snprintf(numbers, sizeof numbers, "\t%d\t%.1f\t%.3e\t%d\t%d\t%d\t%d\t%d\t%d\t", h.score, h.bits, h.evalue,
                    h.query_start, h.query_end, h.target_start, h.target_end, h.identities, h.length);
      text += q.query_id + "\t" + h.target_id + numbers + (h.cigar.empty() ? "-" : h.cigar) + "\t" +
              std::to_string(h.target_ordinal) + "\n";
    }
  }
  return text;
}

std::vector<std::vector<std::string>> parse_hits_tsv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.rfind("query_id\ttarget_id\tscore\t", 0) != 0)
    throw InputError("hits table: missing or wrong header");
  std::vector<std::vector<std::string>> rows;
  for (int number = 2; std::getline(in, line); ++number) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
      fields.push_back(line.substr(start, tab - start));
    fields.push_back(line.substr(start));
    if (fields.size() != 13) throw InputError("hits table: line " + std::to_string(number) + " does not have 13 fields");
    rows.push_back(std::move(fields));
  }
  return rows;
}

}  // namespace helix::swsearch
