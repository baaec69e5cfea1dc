// huge_pages.h: the app's memory in transparent huge pages, where the
// volunteer's kernel offers them on request.
//
// Contents:
//   tunables_with_huge_pages()        GLIBC_TUNABLES with glibc's malloc asked for huge pages
//   restart_with_huge_page_malloc()   the app re-executed once with that setting
//
// Why: a work unit's buffers are large and touched once, front to back (the
// hmmsearch GPU class reads a 209 MB chunk, digitizes it, splits it for the
// engines and writes reports of tens of MB). In 4 KiB pages every first
// touch is a page fault: 365 thousand in one such WU, a third of the app's
// host CPU on the device (bench/RESULTS.md, "huge pages"). Most Linux
// kernels (Ubuntu's, the device's) back memory with 2 MiB pages only where
// the program asks for them (transparent_hugepage "madvise"); glibc's malloc
// asks (madvise MADV_HUGEPAGE on what it maps) when its tunable
// glibc.malloc.hugetlb=1 is set, and glibc reads tunables only when a process
// starts. Where the kernel's setting is "always" the request changes nothing,
// where it is "never" it is ignored, and a glibc without the tunable ignores it.
#pragma once
#include <optional>
#include <string>

namespace helix {

// GLIBC_TUNABLES' value (`current`, null when unset) with
// glibc.malloc.hugetlb=1 added, or nullopt when it already names
// glibc.malloc.hugetlb (a setting of the volunteer's, kept as it is).
std::optional<std::string> tunables_with_huge_pages(const char* current);

// When GLIBC_TUNABLES lacks glibc.malloc.hugetlb: sets it and re-executes
// this program (/proc/self/exe) with the same arguments, as the same
// process (same pid, so the BOINC client still tracks it). Call first in
// main(), before any thread or BOINC state exists. Returns only when no
// restart is needed or it could not be made (the app then runs as it is).
// An exec keeps interval timers but not signal handlers: a profiler
// preloaded into the app (gperftools' CPUPROFILE) kills it with SIGPROF after
// the restart, so set GLIBC_TUNABLES=glibc.malloc.hugetlb=1 when profiling.
void restart_with_huge_page_malloc(char** argv);

}  // namespace helix
