// checkpoint.cpp: the checkpoint envelope (checkpoint.h).
#include "checkpoint.h"

#include <cstring>

namespace helix {

ByteWriter begin_checkpoint(const char (&magic)[8], const std::string& fingerprint) {
  ByteWriter writer;
  writer.put_bytes(magic, 8);
  writer.put_string(fingerprint);
  return writer;
}

std::optional<ByteReader> open_checkpoint(const std::vector<std::uint8_t>& bytes, const char (&magic)[8],
                                          const std::string& fingerprint) {
  try {
    ByteReader reader(bytes, "checkpoint");
    if (reader.remaining() < 8 || std::memcmp(reader.take(8), magic, 8) != 0) return std::nullopt;
    if (reader.get_string(kMaxCheckpointFingerprint) != fingerprint) return std::nullopt;
    return reader;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

}  // namespace helix
