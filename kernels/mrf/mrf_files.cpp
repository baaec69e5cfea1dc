#include "mrf_files.h"

#include <cmath>
#include <cstring>

#include "core/byte_codec.h"
#include "core/errors.h"
#include "core/file_io.h"

namespace helix::mrf {
namespace {

constexpr char kVolumeMagic[8] = {'H', 'X', 'V', 'O', 'L', '0', '0', '1'};
constexpr char kLabelsMagic[8] = {'H', 'X', 'L', 'A', 'B', '0', '0', '1'};

void check_magic(ByteReader& reader, const char (&magic)[8], const std::string& what) {
  if (reader.remaining() < 8 || std::memcmp(reader.take(8), magic, 8) != 0)
    throw InputError(what + ": not a helix " + (magic[2] == 'V' ? "volume" : "label") + " file");
}

void read_dimensions(ByteReader& reader, int& nx, int& ny, int& nz, const std::string& what) {
  const auto x = reader.get<std::uint32_t>(), y = reader.get<std::uint32_t>(), z = reader.get<std::uint32_t>();
  if (x == 0 || y == 0 || z == 0 || x > kMaxDimension || y > kMaxDimension || z > kMaxDimension ||
      static_cast<std::uint64_t>(x) * y * z > kMaxVoxels)
    throw InputError(what + ": absurd dimensions " + std::to_string(x) + "x" + std::to_string(y) + "x" +
                     std::to_string(z));
  nx = static_cast<int>(x), ny = static_cast<int>(y), nz = static_cast<int>(z);
}

const std::uint8_t* read_frame(ByteReader& reader, std::uint64_t& frame_size, const std::string& what) {
  frame_size = reader.get<std::uint64_t>();
  if (frame_size != reader.remaining())
    throw InputError(what + ": payload is " + std::to_string(reader.remaining()) + " bytes, header says " +
                     std::to_string(frame_size) + " (truncated or padded file)");
  return reader.take(frame_size);
}

}  // namespace

std::vector<std::uint8_t> encode_volume(const Volume& volume) {
  ByteWriter writer;
  writer.put_bytes(kVolumeMagic, 8);
  writer.put<std::uint32_t>(volume.nx), writer.put<std::uint32_t>(volume.ny), writer.put<std::uint32_t>(volume.nz);
  for (double spacing : volume.spacing_mm) writer.put<double>(spacing);
  auto frame = zstd_compress(volume.voxels.data(), volume.voxels.size() * sizeof(std::int16_t));
  writer.put<std::uint64_t>(frame.size());
  writer.put_bytes(frame.data(), frame.size());
  return std::move(writer.bytes());
}

Volume decode_volume(const std::vector<std::uint8_t>& bytes, const std::string& what) {
  ByteReader reader(bytes, what);
  check_magic(reader, kVolumeMagic, what);
  Volume volume;
  read_dimensions(reader, volume.nx, volume.ny, volume.nz, what);
  for (double& spacing : volume.spacing_mm) {
    spacing = reader.get<double>();
    if (!std::isfinite(spacing) || spacing <= 0 || spacing > 100)
      throw InputError(what + ": voxel spacing must be in (0, 100] mm");
  }
  std::uint64_t frame_size = 0;
  const std::uint8_t* frame = read_frame(reader, frame_size, what);
  auto raw = zstd_decompress(frame, frame_size, volume.size() * sizeof(std::int16_t), what);
  volume.voxels.resize(volume.size());
  std::memcpy(volume.voxels.data(), raw.data(), raw.size());
  return volume;
}

Volume read_volume_file(const std::string& path) { return decode_volume(read_file_bytes(path), path); }

void write_volume_file(const std::string& path, const Volume& volume) { write_file_atomic(path, encode_volume(volume)); }

std::vector<std::uint8_t> encode_labels(int nx, int ny, int nz, const std::vector<std::uint8_t>& labels) {
  ByteWriter writer;
  writer.put_bytes(kLabelsMagic, 8);
  writer.put<std::uint32_t>(nx), writer.put<std::uint32_t>(ny), writer.put<std::uint32_t>(nz);
  auto frame = zstd_compress(labels.data(), labels.size());
  writer.put<std::uint64_t>(frame.size());
  writer.put_bytes(frame.data(), frame.size());
  return std::move(writer.bytes());
}

LabelMap decode_labels(const std::vector<std::uint8_t>& bytes, const std::string& what) {
  ByteReader reader(bytes, what);
  check_magic(reader, kLabelsMagic, what);
  LabelMap map;
  read_dimensions(reader, map.nx, map.ny, map.nz, what);
  std::uint64_t frame_size = 0;
  const std::uint8_t* frame = read_frame(reader, frame_size, what);
  map.labels = zstd_decompress(frame, frame_size, static_cast<std::size_t>(map.nx) * map.ny * map.nz, what);
  for (std::uint8_t label : map.labels)
    if (label >= kClassCount) throw InputError(what + ": label " + std::to_string(label) + " out of range");
  return map;
}

LabelMap read_labels_file(const std::string& path) { return decode_labels(read_file_bytes(path), path); }

}  // namespace helix::mrf
