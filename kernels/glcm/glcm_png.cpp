// glcm_png.cpp: the glcm work unit's images, read with libpng (linked
// statically into the app). Only grey PNGs are accepted: a colour image has
// no single grey level per pixel, and guessing a conversion would make the
// features depend on the guess.
#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/file_io.h"
#include "glcm_png.h"

namespace helix::glcm {
namespace {

constexpr png_uint_32 kMaxSide = 16384;

struct PngFile {
  std::FILE* file = nullptr;
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~PngFile() {
    if (png) png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    if (file) std::fclose(file);
  }
};

// libpng reports errors by longjmp; this keeps its message for the one line we print.
struct ErrorText {
  char message[200] = "";
};
void on_png_error(png_structp png, png_const_charp message) {
  auto* text = static_cast<ErrorText*>(png_get_error_ptr(png));
  std::snprintf(text->message, sizeof text->message, "%s", message);
  png_longjmp(png, 1);
}
void on_png_warning(png_structp, png_const_charp) {}

// The two libpng phases. libpng reports errors by longjmp, so these hold no
// C++ object with a destructor between setjmp and a possible longjmp; each
// returns false on a libpng error (message in the ErrorText).
struct PngHeader {
  png_uint_32 width, height;
  int colour, depth;
};
bool read_header(PngFile& f, PngHeader& header) {
  if (setjmp(png_jmpbuf(f.png))) return false;
  png_init_io(f.png, f.file);
  png_set_sig_bytes(f.png, 8);
  png_read_info(f.png, f.info);
  header.width = png_get_image_width(f.png, f.info);
  header.height = png_get_image_height(f.png, f.info);
  header.colour = png_get_color_type(f.png, f.info);
  header.depth = png_get_bit_depth(f.png, f.info);
  return true;
}
bool read_grey_rows(PngFile& f, const PngHeader& header, png_bytepp rows) {
  if (setjmp(png_jmpbuf(f.png))) return false;
  if (header.depth < 8) png_set_expand_gray_1_2_4_to_8(f.png);
  if (header.depth == 16) png_set_strip_16(f.png);  // the high byte: v >> 8
  if (png_get_valid(f.png, f.info, PNG_INFO_tRNS)) png_set_strip_alpha(f.png);
  png_read_update_info(f.png, f.info);
  png_read_image(f.png, rows);
  png_read_end(f.png, nullptr);
  return true;
}

}  // namespace

GreyImage read_grey_png(const std::string& path) {
  PngFile f;
  f.file = std::fopen(path.c_str(), "rb");
  if (!f.file) throw InputError("cannot open image " + path);
  png_byte signature[8] = {};
  if (std::fread(signature, 1, 8, f.file) != 8 || png_sig_cmp(signature, 0, 8) != 0)
    throw InputError("image " + path + " is not a PNG file");
  ErrorText error;
  f.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, on_png_error, on_png_warning);
  if (!f.png) throw InputError("cannot read image " + path + ": libpng could not start");
  f.info = png_create_info_struct(f.png);
  if (!f.info) throw InputError("cannot read image " + path + ": libpng could not start");
  PngHeader header{};
  if (!read_header(f, header)) throw InputError("image " + path + " is damaged: " + error.message);
  if (header.colour != PNG_COLOR_TYPE_GRAY)
    throw InputError("image " + path +
                     (header.colour == PNG_COLOR_TYPE_GRAY_ALPHA ? " has an alpha channel (grey without alpha expected)"
                                                                 : " is a colour image (8- or 16-bit grey expected)"));
  if (header.width < 1 || header.height < 1 || header.width > kMaxSide || header.height > kMaxSide)
    throw InputError("image " + path + " is " + std::to_string(header.width) + "x" + std::to_string(header.height) +
                     " (1..16384 pixels per side expected)");
  GreyImage image{static_cast<int>(header.width), static_cast<int>(header.height), {}};
  image.pixels.resize(static_cast<std::size_t>(header.width) * header.height);
  std::vector<png_bytep> rows(header.height);
  for (png_uint_32 y = 0; y < header.height; ++y) rows[y] = image.pixels.data() + static_cast<std::size_t>(y) * header.width;
  if (!read_grey_rows(f, header, rows.data())) throw InputError("image " + path + " is damaged: " + error.message);
  return image;
}

std::vector<std::uint8_t> read_mask_png(const std::string& path, int width, int height) {
  GreyImage mask = read_grey_png(path);
  if (mask.width != width || mask.height != height)
    throw InputError("mask " + path + " is " + std::to_string(mask.width) + "x" + std::to_string(mask.height) +
                     " but its image is " + std::to_string(width) + "x" + std::to_string(height));
  return std::move(mask.pixels);
}

}  // namespace helix::glcm

namespace helix::glcm {
namespace {

// Encodes with libpng's simplified API into memory, then writes atomically.
void write_png(const std::string& path, png_image& image, const void* pixels) {
  png_alloc_size_t size = 0;
  if (!png_image_write_get_memory_size(image, size, 0, pixels, 0, nullptr))
    throw InputError("cannot encode PNG " + path + ": " + image.message);
  std::vector<std::uint8_t> bytes(size);
  if (!png_image_write_to_memory(&image, bytes.data(), &size, 0, pixels, 0, nullptr))
    throw InputError("cannot encode PNG " + path + ": " + image.message);
  bytes.resize(size);
  write_file_atomic(path, bytes);
}

}  // namespace

void write_grey_png(const std::string& path, const GreyImage& image) {
  if (image.pixels.size() != static_cast<std::size_t>(image.width) * image.height)
    throw InputError("cannot write PNG " + path + ": pixel count does not match its size");
  png_image header{};
  header.version = PNG_IMAGE_VERSION;
  header.width = image.width, header.height = image.height;
  header.format = PNG_FORMAT_GRAY;
  write_png(path, header, image.pixels.data());
}

void write_grey16_png(const std::string& path, int width, int height, const std::vector<std::uint16_t>& pixels) {
  if (pixels.size() != static_cast<std::size_t>(width) * height)
    throw InputError("cannot write PNG " + path + ": pixel count does not match its size");
  png_image header{};
  header.version = PNG_IMAGE_VERSION;
  header.width = width, header.height = height;
  header.format = PNG_FORMAT_LINEAR_Y;  // 16-bit grey, values as given
  write_png(path, header, pixels.data());
}

}  // namespace helix::glcm
