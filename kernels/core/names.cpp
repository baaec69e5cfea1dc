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

std::string wu_name_of_result_file(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  for (int suffix = 0; suffix < 2; ++suffix) {
    const auto underscore = name.rfind('_');
    if (underscore == std::string::npos || !is_small_number(name.substr(underscore + 1))) return "";
    name.resize(underscore);
  }
  return name;
}

}  // namespace helix
