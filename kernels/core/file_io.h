// file_io.h: whole-file reads and atomic writes.
//   read_file_bytes()   whole file, InputError if missing/unreadable
//   MappedFile          a whole file read in place through the page cache (mmap)
//   first_unreadable()  the first of some paths this process cannot read, if any
//   write_file_atomic() writes <path>.tmp, fsyncs, renames over <path>: a reader
//                       sees either the old file, nothing, or the whole new file.
//                       On failure the temp file is removed; StorageFull when the
//                       disk or quota is full (ENOSPC, EDQUOT), else std::runtime_error.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

// A whole file, mapped read-only, for inputs of hundreds of MB that are
// parsed once (hmmsearch's database chunk): its bytes are the page cache's
// own pages, where read_file_text() would fill as many fresh pages, each
// zeroed by the kernel and then copied into (0.1-0.2 s of the app's host CPU
// for a 209 MB chunk). The file must not shrink while mapped (a WU's inputs
// do not change). Throws InputError if it cannot be opened or mapped.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
  std::string_view text() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

void write_file_atomic(const std::string& path, const void* data, std::size_t size);
inline void write_file_atomic(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  write_file_atomic(path, bytes.data(), bytes.size());
}
inline void write_file_atomic(const std::string& path, const std::string& text) {
  write_file_atomic(path, text.data(), text.size());
}

}  // namespace helix
