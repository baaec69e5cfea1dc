// text_format.h: printf-style formatting into a std::string, for output
// that must match a C program's printf byte for byte (hmmsearch's tables
// and reports).
#pragma once
#include <cstdarg>
#include <cstdio>
#include <string>

namespace helix {

// One formatting pass into a stack buffer for the usual line; a second pass
// only when the text is longer. (Sizing every line with vsnprintf(nullptr,
// 0) first doubled the formatting and was most of a report's host time.)
inline std::string printf_text(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
inline std::string printf_text(const char* pattern, ...) {
  char line[512];
  va_list args, copy;
  va_start(args, pattern);
  va_copy(copy, args);
  const int size = std::vsnprintf(line, sizeof line, pattern, args);
  va_end(args);
  std::string text;
  if (size > 0 && static_cast<std::size_t>(size) < sizeof line) {
    text.assign(line, static_cast<std::size_t>(size));
  } else if (size > 0) {
    text.resize(static_cast<std::size_t>(size));
    std::vsnprintf(text.data(), static_cast<std::size_t>(size) + 1, pattern, copy);
  }
  va_end(copy);
  return text;
}

}  // namespace helix
