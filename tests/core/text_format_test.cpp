// printf_text and append_printf (core/text_format.h): the bytes of C's
// printf, for lines that fit its stack buffer and for longer ones, which take
// a second pass; the column helpers: the bytes of "%-*s" and "%*s"; the
// number helpers: the bytes of "%.17g" and "%d".
#include "core/text_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

namespace {

TEST(PrintfText, ShortLineIsPrintfsBytes) {
  EXPECT_EQ(helix::printf_text("%-*s %9.2g %6.1f|", 8, "name", 3.7e-12, 41.25), "name       3.7e-12   41.2|");
  EXPECT_EQ(helix::printf_text("%s", ""), "");
}

TEST(PrintfText, LongerThanTheBufferIsWhole) {
  const std::string description(1000, 'x');
  const std::string text = helix::printf_text("%5d %s end", 42, description.c_str());
  EXPECT_EQ(text.size(), 1010u);
  EXPECT_EQ(text.substr(0, 6), "   42 ");
  EXPECT_EQ(text.substr(6, 1000), description);
  EXPECT_EQ(text.substr(1006), " end");
}

TEST(PrintfText, ExactlyTheBufferSizeIsWhole) {
  for (const int length : {510, 511, 512, 513}) {
    const std::string text = helix::printf_text("%*s", length, "z");
    ASSERT_EQ(static_cast<int>(text.size()), length);
    EXPECT_EQ(text.back(), 'z');
    EXPECT_EQ(text.find_first_not_of(' '), static_cast<std::size_t>(length - 1));
  }
}

TEST(AppendPrintf, AppendsToWhatIsThere) {
  std::string text = "row:";
  helix::append_printf(text, " %3d %4.2f", 7, 0.125);
  EXPECT_EQ(text, "row:   7 0.12");  // glibc rounds the exact tie 0.125 to even
  const std::string description(600, 'y');
  helix::append_printf(text, " %s|", description.c_str());
  EXPECT_EQ(text.size(), 13u + 602u);
  EXPECT_EQ(text.substr(13, 1), " ");
  EXPECT_EQ(text.back(), '|');
}

TEST(ColumnHelpers, AreTheBytesOfPrintfsPaddedStrings) {
  for (const char* name : {"", "P04637", "a_name_longer_than_twenty"})
    for (const int width : {0, 1, 6, 20}) {
      std::string left, right;
      helix::append_left_aligned(left, name, width);
      helix::append_right_aligned(right, name, width);
      EXPECT_EQ(left, helix::printf_text("%-*s", width, name)) << name << " in " << width;
      EXPECT_EQ(right, helix::printf_text("%*s", width, name)) << name << " in " << width;
    }
}

TEST(NumberHelpers, AreTheBytesOfPrintfsG17AndD) {
  std::vector<double> values{0.0, -0.0, 1.0, 0.1, -2.5e-310, 5e-324, 1.7976931348623157e308, 123456789012345678.0,
                             std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                             std::nan(""), -std::nan("")};
  std::mt19937_64 random(20261128);
  for (int k = 0; k < 20000; ++k) {  // every bit pattern's kind: normal, subnormal, huge, nan
    const std::uint64_t bits = random();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    values.push_back(value);
    values.push_back(std::uniform_real_distribution<double>(-1e3, 1e3)(random));
  }
  for (const double value : values) {
    std::string text = "x";
    helix::append_g17(text, value);
    EXPECT_EQ(text, "x" + helix::printf_text("%.17g", value));
  }
  for (const long long value : {0LL, 7LL, -1LL, 2147483647LL, -9223372036854775807LL - 1}) {
    std::string text;
    helix::append_integer(text, value);
    EXPECT_EQ(text, helix::printf_text("%lld", value));
  }
  std::string text;
  helix::append_integer(text, std::size_t{18446744073709551615u});
  EXPECT_EQ(text, "18446744073709551615");
}

// hmmsearch's report columns: "%*.*f", "%*.*g" and "%*d" as glibc prints them.
TEST(NumberHelpers, AreTheBytesOfPrintfsFixedGeneralAndWidths) {
  std::vector<double> values{0.0, -0.0, 0.05, 0.15, 0.25, -0.05, 1.0, 9.95, 99.95, 999.95, -12.35, 1e-300, 2.5e-310,
                             1.7976931348623157e308, 3.4e38, 1e100, std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(), std::nan(""), -std::nan("")};
  std::mt19937_64 random(20261129);
  for (int k = 0; k < 20000; ++k) {
    std::uint64_t bits = random();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    values.push_back(value);
    values.push_back(std::uniform_real_distribution<double>(-5e3, 5e3)(random));
    values.push_back(std::exp(std::uniform_real_distribution<double>(-745.0, 5.0)(random)));  // E-values
    values.push_back(static_cast<float>(std::uniform_real_distribution<double>(-50.0, 3000.0)(random)));  // scores
  }
  for (const double value : values) {
    for (const auto& [precision, width] : {std::pair{1, 6}, {1, 5}, {2, 4}, {2, 0}, {0, 3}}) {
      std::string text = "x";
      helix::append_fixed(text, value, precision, width);
      ASSERT_EQ(text, "x" + helix::printf_text("%*.*f", width, precision, value)) << value;
    }
    for (const auto& [precision, width] : {std::pair{2, 9}, {2, 0}, {1, 4}, {0, 6}}) {
      std::string text = "x";
      helix::append_general(text, value, precision, width);
      ASSERT_EQ(text, "x" + helix::printf_text("%*.*g", width, precision, value)) << value;
    }
  }
  for (const long value : {0L, 7L, -1L, 123456L, -99999L}) {
    for (const int width : {0, 3, 5, 7}) {
      std::string text;
      helix::append_integer(text, value, width);
      EXPECT_EQ(text, helix::printf_text("%*ld", width, value));
    }
  }
}

}  // namespace
