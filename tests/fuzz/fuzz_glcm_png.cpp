// fuzz_glcm_png.cpp: the glcm WU's images (8/16-bit grey PNG, libpng) through
// read_grey_png(), and the same bytes as a mask through read_mask_png().
#include "fuzz_support.h"
#include "glcm_job.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static helix::fuzz::ScratchFile scratch(".png");
  const std::string& path = scratch.write(data, size);
  helix::fuzz::bad_input_ok([&] {
    const helix::glcm::GreyImage image = helix::glcm::read_grey_png(path);
    helix::glcm::read_mask_png(path, image.width, image.height);
  });
  return 0;
}
