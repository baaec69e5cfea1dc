#include "byte_codec.h"

#include <zstd.h>

namespace helix {

// Level 3 (zstd's default) is a good ratio/speed balance for label maps and CT.
constexpr int kZstdLevel = 3;

std::vector<std::uint8_t> zstd_compress(const void* data, std::size_t size) {
  std::vector<std::uint8_t> frame(ZSTD_compressBound(size));
  const std::size_t written = ZSTD_compress(frame.data(), frame.size(), data, size, kZstdLevel);
  if (ZSTD_isError(written)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(written));
  frame.resize(written);
  return frame;
}

std::vector<std::uint8_t> zstd_decompress(const std::uint8_t* frame, std::size_t frame_size, std::size_t expected_size,
                                          const std::string& what) {
  const unsigned long long content = ZSTD_getFrameContentSize(frame, frame_size);
  if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN)
    throw InputError(what + ": not a complete zstd frame");
  if (content != expected_size)
    throw InputError(what + ": holds " + std::to_string(content) + " bytes, expected " + std::to_string(expected_size));
  std::vector<std::uint8_t> out(expected_size);
  const std::size_t got = ZSTD_decompress(out.data(), out.size(), frame, frame_size);
  if (ZSTD_isError(got) || got != expected_size) throw InputError(what + ": corrupt zstd data");
  return out;
}

}  // namespace helix
