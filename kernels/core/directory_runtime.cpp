#include "directory_runtime.h"

#include <sys/stat.h>

#include "file_io.h"

namespace helix {

void DirectoryRuntime::save_state(const std::vector<std::uint8_t>& state) {
  write_file_atomic(state_path(), state);
  ++checkpoints_saved_;
}

std::optional<std::vector<std::uint8_t>> DirectoryRuntime::restore_state() {
  struct stat info;
  if (::stat(state_path().c_str(), &info) != 0) return std::nullopt;
  return read_file_bytes(state_path());
}

}  // namespace helix
