// bench_util.h: what every helix benchmark shares: the process's CPU time (to
// report how busy the host is while a GPU works) and integer flags of its own
// taken out of argv before Google Benchmark parses the rest.
#pragma once
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace helix::bench {

inline double process_cpu_seconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
}

// For each "--name VALUE" in argv whose name is listed, stores
// convert(VALUE) and removes both words.
template <typename T, typename Convert>
void take_flags(int& argc, char** argv, const std::vector<std::pair<const char*, T*>>& flags, Convert convert) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    T* target = nullptr;
    for (const auto& [name, value] : flags)
      if (i + 1 < argc && std::strcmp(argv[i], name) == 0) target = value;
    if (target) {
      *target = convert(argv[++i]);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
}
inline void take_int_flags(int& argc, char** argv, const std::vector<std::pair<const char*, int*>>& flags) {
  take_flags(argc, argv, flags, [](const char* word) { return std::atoi(word); });
}
inline void take_string_flags(int& argc, char** argv, const std::vector<std::pair<const char*, std::string*>>& flags) {
  take_flags(argc, argv, flags, [](const char* word) { return std::string(word); });
}

}  // namespace helix::bench
