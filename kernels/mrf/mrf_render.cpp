// mrf_render.cpp: PNG previews of a segmentation, for a person to judge it at a
// glance: each axial slice shows the CT in a soft-tissue window beside the same
// slice with the labels blended over it.
#include <algorithm>
#include <cstdio>
#include <csetjmp>

#include <png.h>

#include "core/errors.h"
#include "core/file_io.h"
#include "mrf_server.h"

namespace helix::mrf {
namespace {

// Soft-tissue window: -200 HU and below black, 300 HU and above white.
constexpr double kWindowLowHu = -200, kWindowHighHu = 300;
constexpr double kOverlayOpacity = 0.4;
struct Rgb { std::uint8_t r, g, b; };
// Per label: air is left transparent, bone and liver get one colour each.
constexpr Rgb kLabelColours[kClassCount] = {{0, 0, 0}, {255, 230, 90}, {220, 40, 40}};
constexpr bool kLabelOverlaid[kClassCount] = {false, true, true};

std::uint8_t window_grey(int intensity) {
  const double fraction = (intensity - kWindowLowHu) / (kWindowHighHu - kWindowLowHu);
  return static_cast<std::uint8_t>(std::clamp(fraction, 0.0, 1.0) * 255.0 + 0.5);
}

std::uint8_t blend(std::uint8_t under, std::uint8_t over) {
  return static_cast<std::uint8_t>((1 - kOverlayOpacity) * under + kOverlayOpacity * over + 0.5);
}

// RGB pixels of slice z, 2*nx wide: plain CT on the left, overlay on the right.
std::vector<std::uint8_t> slice_pixels(const Volume& volume, const std::vector<std::uint8_t>& labels, int z) {
  const int width = 2 * volume.nx;
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(width) * volume.ny * 3);
  for (int y = 0; y < volume.ny; ++y)
    for (int x = 0; x < volume.nx; ++x) {
      const std::size_t voxel = x + static_cast<std::size_t>(volume.nx) * (y + static_cast<std::size_t>(volume.ny) * z);
      const std::uint8_t grey = window_grey(volume.voxels[voxel]);
      const int label = labels[voxel];
      const Rgb colour = kLabelOverlaid[label] ? Rgb{blend(grey, kLabelColours[label].r), blend(grey, kLabelColours[label].g),
                                                     blend(grey, kLabelColours[label].b)}
                                               : Rgb{grey, grey, grey};
      std::uint8_t* left = &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
      std::uint8_t* right = left + static_cast<std::size_t>(volume.nx) * 3;
      left[0] = left[1] = left[2] = grey;
      right[0] = colour.r, right[1] = colour.g, right[2] = colour.b;
    }
  return rgb;
}

void append_png_bytes(png_structp png, png_bytep data, png_size_t size) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(png_get_io_ptr(png));
  out->insert(out->end(), data, data + size);
}

// Encodes 8-bit RGB into PNG bytes in memory (so the file can be written atomically).
// libpng reports errors by longjmp to the setjmp below; nothing with a
// destructor is created between the two.
std::vector<std::uint8_t> encode_png(std::vector<std::uint8_t>& rgb, int width, int height) {
  std::vector<std::uint8_t> out;
  std::vector<png_bytep> rows(height);
  for (int y = 0; y < height; ++y) rows[y] = &rgb[static_cast<std::size_t>(y) * width * 3];
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw InputError("PNG encoding failed");
  }
  png_set_write_fn(png, &out, append_png_bytes, nullptr);
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_set_rows(png, info, rows.data());
  png_write_png(png, info, PNG_TRANSFORM_IDENTITY, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

}  // namespace

std::vector<std::string> render_slices(const Volume& volume, const std::vector<std::uint8_t>& labels,
                                       const std::string& out_dir, int slice_count) {
  if (labels.size() != volume.size()) throw InputError("label map and volume have different dimensions");
  if (slice_count < 1 || slice_count > volume.nz)
    throw InputError("--slices must be in [1, " + std::to_string(volume.nz) + "]");
  std::vector<std::string> written;
  for (int k = 0; k < slice_count; ++k) {
    const int z = static_cast<int>((2 * static_cast<long long>(k) + 1) * volume.nz / (2 * slice_count));  // slab centres
    auto rgb = slice_pixels(volume, labels, z);
    char name[32];
    std::snprintf(name, sizeof name, "slice_%03d.png", z);
    written.push_back(out_dir + "/" + name);
    write_file_atomic(written.back(), encode_png(rgb, 2 * volume.nx, volume.ny));
  }
  return written;
}

}  // namespace helix::mrf
