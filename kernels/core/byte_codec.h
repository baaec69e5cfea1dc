// byte_codec.h: little-endian binary records and zstd frames, for the binary
// files helix writes (volumes, label maps, checkpoints).
//   ByteWriter/ByteReader  append/consume fixed-width little-endian values;
//                          ByteReader throws InputError on a short buffer.
//   zstd_compress()        one zstd frame, fixed level, single thread: the same
//                          bytes in give the same bytes out.
//   zstd_decompress()      InputError unless the frame holds exactly expected_size bytes.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "errors.h"

namespace helix {

class ByteWriter {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* raw = reinterpret_cast<const std::uint8_t*>(&value);
    bytes_.insert(bytes_.end(), raw, raw + sizeof(T));  // x86-64 and every CUDA host are little-endian
  }
  void put_bytes(const void* data, std::size_t size) {
    const auto* raw = static_cast<const std::uint8_t*>(data);
    bytes_.insert(bytes_.end(), raw, raw + size);
  }
  void put_string(const std::string& text) {
    put<std::uint64_t>(text.size());
    put_bytes(text.data(), text.size());
  }
  std::vector<std::uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
};

class ByteReader {
 public:
  ByteReader(const std::vector<std::uint8_t>& bytes, std::string what) : bytes_(bytes), what_(std::move(what)) {}
  template <typename T>
  T get() {
    T value;
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
    return value;
  }
  const std::uint8_t* take(std::size_t size) {
    if (size > bytes_.size() - offset_) throw InputError(what_ + " is truncated");
    const std::uint8_t* at = bytes_.data() + offset_;
    offset_ += size;
    return at;
  }
  std::string get_string(std::size_t max_size) {
    auto size = get<std::uint64_t>();
    if (size > max_size) throw InputError(what_ + " holds an oversized string");
    const auto* at = take(size);
    return std::string(reinterpret_cast<const char*>(at), size);
  }
  std::size_t remaining() const { return bytes_.size() - offset_; }

 private:
  const std::vector<std::uint8_t>& bytes_;
  std::string what_;
  std::size_t offset_ = 0;
};

std::vector<std::uint8_t> zstd_compress(const void* data, std::size_t size);
std::vector<std::uint8_t> zstd_decompress(const std::uint8_t* frame, std::size_t frame_size, std::size_t expected_size,
                                          const std::string& what);

}  // namespace helix
