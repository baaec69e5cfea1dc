// huge_pages_test.cpp: the GLIBC_TUNABLES value with which the app restarts
// itself (app/huge_pages.h): glibc's huge-page tunable added to whatever the
// volunteer set, and nothing done when the volunteer set that tunable.
#include "huge_pages.h"

#include <gtest/gtest.h>

namespace helix {
namespace {

TEST(HugePages, UnsetOrEmptyTunablesGetTheSettingAlone) {
  EXPECT_EQ(tunables_with_huge_pages(nullptr), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(tunables_with_huge_pages(""), "glibc.malloc.hugetlb=1");
}

TEST(HugePages, OtherTunablesAreKeptAndTheSettingAppended) {
  EXPECT_EQ(tunables_with_huge_pages("glibc.malloc.arena_max=2"), "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  EXPECT_EQ(tunables_with_huge_pages("glibc.malloc.check=0:glibc.malloc.tcache_count=0"),
            "glibc.malloc.check=0:glibc.malloc.tcache_count=0:glibc.malloc.hugetlb=1");
}

TEST(HugePages, TheVolunteersOwnHugePageSettingIsKept) {
  EXPECT_EQ(tunables_with_huge_pages("glibc.malloc.hugetlb=0"), std::nullopt);
  EXPECT_EQ(tunables_with_huge_pages("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"), std::nullopt);
}

}  // namespace
}  // namespace helix
