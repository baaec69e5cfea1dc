#include "huge_pages.h"

#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace helix {

namespace {

constexpr char kTunablesVariable[] = "GLIBC_TUNABLES";
constexpr char kHugePageTunable[] = "glibc.malloc.hugetlb";

}  // namespace

std::optional<std::string> tunables_with_huge_pages(const char* current) {
  const std::string setting = std::string(kHugePageTunable) + "=1";
  if (!current || current[0] == '\0') return setting;
  if (std::strstr(current, kHugePageTunable)) return std::nullopt;
  return std::string(current) + ":" + setting;  // tunables are colon-separated name=value pairs
}

void restart_with_huge_page_malloc(char** argv) {
  const std::optional<std::string> tunables = tunables_with_huge_pages(std::getenv(kTunablesVariable));
  if (!tunables) return;  // set already: this is the restarted process, or the volunteer chose
  if (::setenv(kTunablesVariable, tunables->c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // Only on failure (no /proc, the binary replaced under us): run as we are.
  // The variable stays set, so that nothing started from here tries again.
}

}  // namespace helix
