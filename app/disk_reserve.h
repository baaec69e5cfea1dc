// disk_reserve.h: a few pages of the slot's disk held back for the exit notes.
//
// On a full disk the app must still tell the client to retry later: it writes
// its error line to stderr.txt and boinc_temporary_exit() writes a note the
// client reads. With no free page left both are written empty, the client
// takes the exit for a premature one and restarts the task every 2 s, never
// postponing it (seen in the disk_full e2e test, docs/boinc-e2e.md). So the
// app fills a small file at its start and deletes it before it writes them.
#pragma once

#include <cstddef>
#include <string>

namespace helix {

class DiskReserve {
 public:
  // Best effort: on a disk already too full, holds what it could write.
  DiskReserve(std::string path, std::size_t bytes);
  DiskReserve(const DiskReserve&) = delete;
  DiskReserve& operator=(const DiskReserve&) = delete;
  ~DiskReserve() = default;  // kept on a crash or a kill: the client empties the slot

  // Deletes the file (the pages go back to the file system). Idempotent.
  void release();

 private:
  std::string path_;
};

}  // namespace helix
