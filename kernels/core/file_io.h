// file_io.h: whole-file reads and atomic writes.
//   read_file_bytes()   whole file, InputError if missing/unreadable
//   first_unreadable()  the first of some paths this process cannot read, if any
//   write_file_atomic() writes <path>.tmp, fsyncs, renames over <path>: a reader
//                       sees either the old file, nothing, or the whole new file.
//                       On failure the temp file is removed; StorageFull when the
//                       disk or quota is full (ENOSPC, EDQUOT), else std::runtime_error.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace helix {

std::vector<std::uint8_t> read_file_bytes(const std::string& path);
// The first path in `paths` that is missing or unreadable (access(R_OK)), or
// nothing: how the server tools tell a file lost on the server from a bad one.
std::optional<std::string> first_unreadable(const std::vector<std::string>& paths);
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
