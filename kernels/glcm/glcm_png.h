// glcm_png.h: the glcm work unit's images as PNG files (glcm_png.cpp, libpng;
// 8/16-bit grey only).
//
// Contents:
//   read_grey_png(), read_mask_png()        the WU's images and ROI masks
//   write_grey_png(), write_grey16_png()    masks, feature maps, test images
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "glcm_engine.h"

namespace helix::glcm {

// An 8-bit grey image from a PNG: 8-bit grey as is, 1/2/4-bit grey expanded
// to 0..255 steps, 16-bit grey as its high byte (v >> 8). Throws InputError
// (one line) for a missing/unreadable/non-PNG file, colour or alpha, or a
// size outside 1..16384 per side.
GreyImage read_grey_png(const std::string& path);
// A ROI mask: a grey PNG of the image's size, nonzero = inside. InputError if
// it is not width x height.
std::vector<std::uint8_t> read_mask_png(const std::string& path, int width, int height);
// Writes an 8-bit (or 16-bit) grey PNG atomically (temp file + rename); for
// masks, feature maps and tests. Throws InputError when it cannot.
void write_grey_png(const std::string& path, const GreyImage& image);
void write_grey16_png(const std::string& path, int width, int height, const std::vector<std::uint16_t>& pixels);

}  // namespace helix::glcm
