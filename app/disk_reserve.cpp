#include "disk_reserve.h"

#include <cstdio>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace helix {

DiskReserve::DiskReserve(std::string path, std::size_t bytes) : path_(std::move(path)) {
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  // Written bytes, not a hole (ftruncate) and not fallocate (not every file
  // system has it): the pages must be taken now to be given back later.
  const std::vector<char> zeros(bytes, 0);
  std::size_t done = 0;
  while (done < zeros.size()) {
    const ssize_t n = ::write(fd, zeros.data() + done, zeros.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
}

void DiskReserve::release() {
  if (!path_.empty()) ::unlink(path_.c_str());
  path_.clear();
}

}  // namespace helix
