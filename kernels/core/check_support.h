// check_support.h: what every kind's validator checks share. A check throws
// Rejection (or InputError from a decoder) at the first thing wrong with a
// result; outcome_of() turns that into script_validator's verdict and one line.
//
//   Rejection, reject(), require(), server_trouble()   how a check says no
//   server_read()                                      WU inputs: missing = transient
//   returned_file_size()  a returned file's size; links and devices refused
//   read_bounded()   a returned file, refused before reading when oversized
//   wu_of_result()   the WU a result's BOINC file names belong to
//   bound_wu()       the WU a result is checked against (one policy for every kind)
//   integer_field()  a summary's integer member, range-checked
//   outcome_of()     runs a check, never throws
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/kind.h"
#include "core/names.h"

namespace helix {

struct Rejection {
  Verdict verdict;
  std::string reason;
};
[[noreturn]] inline void reject(const std::string& reason) { throw Rejection{Verdict::kInvalid, reason}; }
inline void require(bool condition, const std::string& reason) {
  if (!condition) reject(reason);
}
// The WU's inputs are the project's own files: trouble reading them is the
// server's, so the result is looked at again later (transient), not rejected.
[[noreturn]] inline void server_trouble(const std::string& reason) { throw Rejection{Verdict::kTransient, reason}; }

// Reads server-side inputs with `read`; an InputError there (a missing or
// damaged WU file) is the server's trouble, not the result's: transient.
template <typename Read>
auto server_read(const std::string& what, Read&& read) {
  try {
    return read();
  } catch (const InputError& error) {
    server_trouble(what + " unavailable: " + error.what());
  }
}

// Volunteers' files may be hostile. The upload handler writes plain files:
// a symbolic link (to /etc/passwd, to another result, to a device) or any
// other kind of file is refused, and the size is known before a byte is read.
inline std::uint64_t returned_file_size(const std::string& path, const std::string& what) {
  std::error_code error;
  const auto status = std::filesystem::symlink_status(path, error);
  if (error || !std::filesystem::exists(status)) reject(what + " " + path + " is missing or unreadable");
  require(std::filesystem::is_regular_file(status), what + " " + path + " is not a plain file (a link or a device)");
  const auto size = std::filesystem::file_size(path, error);
  if (error) reject(what + " " + path + " is missing or unreadable");
  return size;
}

inline std::vector<std::uint8_t> read_bounded(const std::string& path, std::uint64_t max_bytes, const std::string& what) {
  const std::uint64_t size = returned_file_size(path, what);
  if (size > max_bytes)
    reject(what + " is " + std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) + " its WU allows");
  return read_file_bytes(path);
}

// The WU a result belongs to, told by the names BOINC gave its files on the
// server (core/names.h): those come from the server's own result template,
// never from the volunteer, so a result copied from another WU still names
// this one. "" when no file has such a name (a standalone run's files);
// rejected when the files name different WUs.
inline std::string wu_of_result(const std::vector<std::string>& files) {
  std::string wu;
  for (const std::string& file : files) {
    const std::string name = wu_name_of_result_file(file);
    if (name.empty()) continue;
    require(wu.empty() || name == wu, "the result's files belong to different WUs (" + wu + ", " + name + ")");
    wu = name;
  }
  return wu;
}

// The WU whose inputs a result is checked against; every kind's validator
// binds a result to its WU through this one policy:
//   - the WU BOINC filed the result under (wu_of_result) wins;
//   - `claimed`, the WU the result's summary names ("" for a kind whose
//     summary cannot name it), must then be that WU: a genuine result of
//     another WU is refused;
//   - a standalone run's files (no BOINC names) are bound to `claimed`;
//   - with neither, the server cannot tell the WU: transient.
inline std::string bound_wu(const std::vector<std::string>& files, const std::string& claimed) {
  const std::string filed_under = wu_of_result(files);
  require(filed_under.empty() || claimed.empty() || filed_under == claimed,
          "the result is WU " + claimed + "'s, returned for WU " + filed_under);
  const std::string wu = filed_under.empty() ? claimed : filed_under;
  if (wu.empty()) server_trouble("cannot tell the WU of result file " + files.front() + " (not named by BOINC)");
  return wu;
}

// A summary's integer member within [low, high] (get<int64_t> alone would
// silently truncate 1.5).
inline std::int64_t integer_field(const nlohmann::json& object, const char* key, std::int64_t low, std::int64_t high) {
  const auto& value = object.at(key);
  require(value.is_number_integer() && value.get<std::int64_t>() >= low && value.get<std::int64_t>() <= high,
          std::string("summary field '") + key + "' is not an integer in " + std::to_string(low) + ".." +
              std::to_string(high));
  return value.get<std::int64_t>();
}

template <typename Check>
CheckOutcome outcome_of(Check&& check) {
  try {
    check();
    return {Verdict::kValid, ""};
  } catch (const Rejection& rejection) {
    return {rejection.verdict, rejection.reason};
  } catch (const InputError& error) {
    return {Verdict::kInvalid, error.what()};
  } catch (const nlohmann::json::exception& error) {
    return {Verdict::kInvalid, std::string("summary field missing or of the wrong type: ") + error.what()};
  } catch (const std::exception& error) {
    return {Verdict::kInvalid, error.what()};
  }
}

}  // namespace helix
