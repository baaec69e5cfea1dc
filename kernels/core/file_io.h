// file_io.h: whole-file reads and atomic writes.
//   read_file_bytes()   whole file, InputError if missing/unreadable
//   write_file_atomic() writes <path>.tmp, fsyncs, renames over <path>: a reader
//                       sees either the old file, nothing, or the whole new file.
//                       On failure the temp file is removed; StorageFull when the
//                       disk or quota is full (ENOSPC, EDQUOT), else std::runtime_error.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace helix {

std::vector<std::uint8_t> read_file_bytes(const std::string& path);
std::string read_file_text(const std::string& path);
// A whole text file, gunzipped when it is gzip (Debian ships much reference
// data gzipped; zlib passes plain files through). InputError if unreadable.
std::string read_text_maybe_gzipped(const std::string& path);
void write_file_atomic(const std::string& path, const void* data, std::size_t size);
inline void write_file_atomic(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  write_file_atomic(path, bytes.data(), bytes.size());
}
inline void write_file_atomic(const std::string& path, const std::string& text) {
  write_file_atomic(path, text.data(), text.size());
}

}  // namespace helix
