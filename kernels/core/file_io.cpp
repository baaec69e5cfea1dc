#include "file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "errors.h"

namespace helix {

std::optional<std::string> first_unreadable(const std::vector<std::string>& paths) {
  for (const std::string& path : paths)
    if (::access(path.c_str(), R_OK) != 0) return path;
  return std::nullopt;
}

namespace {

// The whole file in a std::string or byte vector: sized once from fstat and
// read in place (a WU's database is tens of MB: growing a buffer and copying
// it cost the app a tenth of a second), then read on to the end, should the
// file be longer than it said (a pipe, a file being written).
template <typename Bytes>
Bytes read_whole_file(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw InputError("cannot open " + path + ": " + std::strerror(errno));
  struct stat status {};
  std::size_t size = ::fstat(fileno(file), &status) == 0 && status.st_size > 0 ? status.st_size : 0;
  Bytes bytes;
  bytes.resize(size + 1);  // one byte more: the end of the file is seen by a short read
  std::size_t used = 0, got;
  while ((got = std::fread(&bytes[used], 1, bytes.size() - used, file)) > 0) {
    used += got;
    if (used == bytes.size()) bytes.resize(2 * bytes.size());
  }
  const bool failed = std::ferror(file);
  std::fclose(file);
  if (failed) throw InputError("cannot read " + path);
  bytes.resize(used);
  return bytes;
}

}  // namespace

std::vector<std::uint8_t> read_file_bytes(const std::string& path) {
  return read_whole_file<std::vector<std::uint8_t>>(path);
}

std::string read_file_text(const std::string& path) { return read_whole_file<std::string>(path); }

MappedFile::MappedFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError("cannot open " + path + ": " + std::strerror(errno));
  struct stat status {};
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    ::close(fd);
    throw InputError("cannot map " + path + ": not a regular file");
  }
  size_ = static_cast<std::size_t>(status.st_size);
  if (size_ > 0) {
    // MAP_POPULATE maps every page now, in one call, rather than a fault at a time.
    void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (mapped == MAP_FAILED) {
      const int error = errno;
      ::close(fd);
      throw InputError("cannot map " + path + ": " + std::strerror(error));
    }
    data_ = static_cast<const char*>(mapped);
  }
  ::close(fd);  // the mapping keeps the file
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

std::string read_text_maybe_gzipped(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) throw InputError("cannot open " + path);
  std::string text;
  char buffer[1 << 16];
  int got;
  while ((got = gzread(file, buffer, sizeof buffer)) > 0) text.append(buffer, got);
  gzclose(file);
  if (got < 0) throw InputError("cannot read " + path);
  return text;
}

namespace {

// A failed write: StorageFull when the disk or the quota is full (the work is
// fine; the app exits temporarily), std::runtime_error otherwise.
[[noreturn]] void throw_write_failure(const std::string& what, int error_number) {
  const std::string message = what + ": " + std::strerror(error_number);
  if (error_number == ENOSPC || error_number == EDQUOT) throw StorageFull(message);
  throw std::runtime_error(message);
}

// Removes the temp file of a failed write, then throws (errno saved first).
[[noreturn]] void abandon_temp_file(const std::string& temp_path, const std::string& what, int error_number) {
  ::unlink(temp_path.c_str());
  throw_write_failure(what, error_number);
}

}  // namespace

void write_file_atomic(const std::string& path, const void* data, std::size_t size) {
  const std::string temp_path = path + ".tmp";
  int fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw_write_failure("cannot create " + temp_path, errno);
  const auto* cursor = static_cast<const char*>(data);
  std::size_t left = size;
  while (left > 0) {
    ssize_t wrote = ::write(fd, cursor, left);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      // write() returning 0 for a non-empty buffer means no room either.
      const int saved = wrote < 0 ? errno : ENOSPC;
      ::close(fd);
      abandon_temp_file(temp_path, "cannot write " + temp_path, saved);
    }
    cursor += wrote;
    left -= static_cast<std::size_t>(wrote);
  }
  // fsync so that a crash after rename never exposes a short file. A full disk
  // may show only here (delayed allocation, network file systems).
  if (::fsync(fd) != 0) {
    const int saved = errno;
    ::close(fd);
    abandon_temp_file(temp_path, "cannot flush " + temp_path, saved);
  }
  if (::close(fd) != 0) abandon_temp_file(temp_path, "cannot close " + temp_path, errno);
  if (std::rename(temp_path.c_str(), path.c_str()) != 0)
    abandon_temp_file(temp_path, "cannot rename " + temp_path + " to " + path, errno);
}

}  // namespace helix
