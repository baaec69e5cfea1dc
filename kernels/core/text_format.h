// text_format.h: printf-style formatting into a std::string, for output
// that must match a C program's printf byte for byte (hmmsearch's tables
// and reports), and the padding of string columns without printf.
#pragma once
#include <algorithm>
#include <charconv>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <string_view>

namespace helix {

// Appends vprintf's text to `out`: one formatting pass into a stack buffer
// for the usual line, a second pass only when the text is longer. (Sizing
// every line with vsnprintf(nullptr, 0) first doubled the formatting.)
inline void append_vprintf(std::string& out, const char* pattern, va_list args) {
  char line[512];
  va_list copy;
  va_copy(copy, args);
  const int size = std::vsnprintf(line, sizeof line, pattern, args);
  if (size > 0 && static_cast<std::size_t>(size) < sizeof line) {
    out.append(line, static_cast<std::size_t>(size));
  } else if (size > 0) {
    const std::size_t at = out.size();
    out.resize(at + static_cast<std::size_t>(size));
    std::vsnprintf(out.data() + at, static_cast<std::size_t>(size) + 1, pattern, copy);
  }
  va_end(copy);
}

inline void append_printf(std::string& out, const char* pattern, ...) __attribute__((format(printf, 2, 3)));
inline void append_printf(std::string& out, const char* pattern, ...) {
  va_list args;
  va_start(args, pattern);
  append_vprintf(out, pattern, args);
  va_end(args);
}

inline std::string printf_text(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
inline std::string printf_text(const char* pattern, ...) {
  std::string text;
  va_list args;
  va_start(args, pattern);
  append_vprintf(text, pattern, args);
  va_end(args);
  return text;
}

// `text` in a column of `width`, padded with spaces: printf's "%-*s" (left)
// and "%*s" (right), without glibc's padding, which was most of the time of
// hmmsearch's tables (one padding call per column and row).
inline void append_left_aligned(std::string& out, std::string_view text, int width) {
  out += text;
  out.append(static_cast<std::size_t>(std::max(width - static_cast<int>(text.size()), 0)), ' ');
}
inline void append_right_aligned(std::string& out, std::string_view text, int width) {
  out.append(static_cast<std::size_t>(std::max(width - static_cast<int>(text.size()), 0)), ' ');
  out += text;
}

// printf's "%.17g" of `value`, byte for byte: std::to_chars with a precision
// is specified to format as printf does in the C locale (nan, inf and signs
// included), and it is about nine times faster than glibc's printf (glcm's
// features table formats four such numbers a row).
inline void append_g17(std::string& out, double value) {
  char digits[32];
  const std::to_chars_result end = std::to_chars(digits, digits + sizeof digits, value, std::chars_format::general, 17);
  out.append(digits, end.ptr);
}

// printf's "%d" / "%zu" of an integer, and "%*d" with a width.
template <typename Integer>
void append_integer(std::string& out, Integer value, int width = 0) {
  char digits[24];
  const std::to_chars_result end = std::to_chars(digits, digits + sizeof digits, value);
  append_right_aligned(out, std::string_view(digits, static_cast<std::size_t>(end.ptr - digits)), width);
}

// printf's "%*.*f" and "%*.*g" of `value` (right-aligned in `width`), byte
// for byte, as append_g17: hmmsearch's tables and reports print a few such
// numbers a row, and glibc's float formatting was about half of their time.
inline void append_fixed(std::string& out, double value, int precision, int width = 0) {
  char digits[400];  // the longest "%.*f" this is used with: 309 digits of DBL_MAX and the decimals
  const std::to_chars_result end =
      std::to_chars(digits, digits + sizeof digits, value, std::chars_format::fixed, precision);
  append_right_aligned(out, std::string_view(digits, static_cast<std::size_t>(end.ptr - digits)), width);
}
inline void append_general(std::string& out, double value, int precision, int width = 0) {
  char digits[64];
  const std::to_chars_result end =
      std::to_chars(digits, digits + sizeof digits, value, std::chars_format::general, precision);
  append_right_aligned(out, std::string_view(digits, static_cast<std::size_t>(end.ptr - digits)), width);
}

}  // namespace helix
