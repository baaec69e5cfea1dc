#include "core/names.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace helix {

bool is_plain_name(const std::string& name, std::size_t max_length) {
  return !name.empty() && name.size() <= max_length && name[0] != '.' &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
         });
}

bool is_small_number(const std::string& text) {
  return !text.empty() && text.size() <= 9 &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

namespace {

// Strips "_<digits>" (at most max_digits) from the end of name; false when it does not end so.
bool strip_number_suffix(std::string& name, const char* marker, std::size_t max_digits) {
  const auto underscore = name.rfind('_');
  if (underscore == std::string::npos) return false;
  const std::string suffix = name.substr(underscore + 1);
  const std::size_t marker_length = std::char_traits<char>::length(marker);
  if (suffix.compare(0, marker_length, marker) != 0) return false;
  const std::string digits = suffix.substr(marker_length);
  if (digits.empty() || digits.size() > max_digits ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return false;
  name.resize(underscore);
  return true;
}

}  // namespace

std::string wu_name_of_result_file(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  if (!strip_number_suffix(name, "", 9)) return "";       // file index
  strip_number_suffix(name, "r", 10);                      // BOINC's random part (lrand48(): < 2^31), when present
  if (!strip_number_suffix(name, "", 9)) return "";       // replica number
  return name;
}

}  // namespace helix
