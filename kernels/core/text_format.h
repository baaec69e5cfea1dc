// text_format.h: printf-style formatting into a std::string, for output
// that must match a C program's printf byte for byte (hmmsearch's tables
// and reports).
#pragma once
#include <cstdarg>
#include <cstdio>
#include <string>

namespace helix {

inline std::string printf_text(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
inline std::string printf_text(const char* pattern, ...) {
  va_list args, copy;
  va_start(args, pattern);
  va_copy(copy, args);
  const int size = std::vsnprintf(nullptr, 0, pattern, copy);
  va_end(copy);
  std::string text(size > 0 ? size : 0, '\0');
  if (size > 0) std::vsnprintf(text.data(), size + 1, pattern, args);
  va_end(args);
  return text;
}

}  // namespace helix
