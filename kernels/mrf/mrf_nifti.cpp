// mrf_nifti.cpp: CT volumes in NIfTI (the format clinical pipelines export)
// read into and written from the mrf kind's Volume, through libnifti2.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include <nifti2_io.h>

#include "core/errors.h"
#include "mrf_files.h"
#include "mrf_server.h"

namespace helix::mrf {
namespace {

struct NiftiFree {
  void operator()(nifti_image* image) const { nifti_image_free(image); }
};
using NiftiImage = std::unique_ptr<nifti_image, NiftiFree>;

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Header-only read, so absurd dimensions are refused before any data is loaded.
NiftiImage read_header(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw InputError(path + ": no such file");
  nifti_set_debug_level(0);  // our one-line errors replace the library's messages
  NiftiImage image(nifti_image_read(path.c_str(), 0));
  if (!image) throw InputError(path + ": not a readable NIfTI file");
  return image;
}

void check_geometry(const nifti_image& image, const std::string& path) {
  for (int axis = 4; axis <= 7; ++axis)
    if (image.dim[0] >= axis && image.dim[axis] > 1)
      throw InputError(path + ": 4-D (or higher) NIfTI volumes are not supported; give one 3-D volume");
  if (image.nx < 1 || image.ny < 1 || image.nz < 1)
    throw InputError(path + ": empty volume");
  if (image.nx > kMaxDimension || image.ny > kMaxDimension || image.nz > kMaxDimension ||
      static_cast<std::uint64_t>(image.nx) * image.ny * image.nz > kMaxVoxels)
    throw InputError(path + ": absurd dimensions " + std::to_string(image.nx) + "x" + std::to_string(image.ny) +
                     "x" + std::to_string(image.nz));
  for (int axis = 1; axis <= 3; ++axis)
    if (!std::isfinite(image.pixdim[axis]) || image.pixdim[axis] <= 0 || image.pixdim[axis] > 100)
      throw InputError(path + ": pixdim[" + std::to_string(axis) + "] must be a spacing in (0, 100] mm");
}

// The raw value of voxel `index` as a double, whatever the stored datatype
// (every integer type up to 32 bits is exact in a double; 64-bit ones beyond
// 2^53 are absurd for CT and are refused by the int16 range check anyway).
double raw_value(const nifti_image& image, std::size_t index) {
  const void* data = image.data;
  switch (image.datatype) {
    case DT_INT8: return static_cast<const std::int8_t*>(data)[index];
    case DT_UINT8: return static_cast<const std::uint8_t*>(data)[index];
    case DT_INT16: return static_cast<const std::int16_t*>(data)[index];
    case DT_UINT16: return static_cast<const std::uint16_t*>(data)[index];
    case DT_INT32: return static_cast<const std::int32_t*>(data)[index];
    case DT_UINT32: return static_cast<const std::uint32_t*>(data)[index];
    case DT_INT64: return static_cast<double>(static_cast<const std::int64_t*>(data)[index]);
    case DT_UINT64: return static_cast<double>(static_cast<const std::uint64_t*>(data)[index]);
    case DT_FLOAT32: return static_cast<const float*>(data)[index];
    case DT_FLOAT64: return static_cast<const double*>(data)[index];
    default: return 0;  // refused by check_datatype() before any call
  }
}

void check_datatype(const nifti_image& image, const std::string& path) {
  switch (image.datatype) {
    case DT_INT8: case DT_UINT8: case DT_INT16: case DT_UINT16: case DT_INT32: case DT_UINT32:
    case DT_INT64: case DT_UINT64: case DT_FLOAT32: case DT_FLOAT64:
      return;
    default:
      throw InputError(path + ": NIfTI datatype " + std::to_string(image.datatype) +
                       " is not supported (need an integer or real scalar type)");
  }
}

// NIfTI: a slope of 0 (or a non-finite one) means "no scaling".
std::int16_t scaled_intensity(const nifti_image& image, std::size_t index, const std::string& path) {
  double value = raw_value(image, index);
  if (image.scl_slope != 0 && std::isfinite(image.scl_slope))
    value = value * image.scl_slope + (std::isfinite(image.scl_inter) ? image.scl_inter : 0.0);
  const double rounded = std::nearbyint(value);
  if (!(rounded >= -32768 && rounded <= 32767))
    throw InputError(path + ": voxel " + std::to_string(index) + " has value " + std::to_string(value) +
                     " (after scl_slope/scl_inter), outside the int16 range of a CT volume");
  return static_cast<std::int16_t>(rounded);
}

}  // namespace

Volume read_nifti_volume(const std::string& path) {
  NiftiImage image = read_header(path);
  check_geometry(*image, path);
  check_datatype(*image, path);
  if (nifti_image_load(image.get()) != 0 || !image->data) throw InputError(path + ": NIfTI data is truncated or unreadable");
  Volume volume;
  volume.nx = static_cast<int>(image->nx), volume.ny = static_cast<int>(image->ny), volume.nz = static_cast<int>(image->nz);
  for (int axis = 0; axis < 3; ++axis) volume.spacing_mm[axis] = image->pixdim[axis + 1];
  volume.voxels.resize(volume.size());
  for (std::size_t i = 0; i < volume.voxels.size(); ++i) volume.voxels[i] = scaled_intensity(*image, i, path);
  return volume;
}

void write_nifti_volume(const std::string& path, const Volume& volume) {
  const std::int64_t dims[8] = {3, volume.nx, volume.ny, volume.nz, 1, 1, 1, 1};
  NiftiImage image(nifti_make_new_nim(dims, DT_INT16, 1));
  if (!image) throw InputError(path + ": cannot allocate a NIfTI image");
  std::memcpy(image->data, volume.voxels.data(), volume.voxels.size() * sizeof(std::int16_t));
  image->nifti_type = NIFTI_FTYPE_NIFTI1_1;
  image->xyz_units = NIFTI_UNITS_MM;
  double* spacing[3] = {&image->dx, &image->dy, &image->dz};
  for (int axis = 0; axis < 3; ++axis) *spacing[axis] = image->pixdim[axis + 1] = volume.spacing_mm[axis];
  // libnifti picks the file name (and gzip) from the extension: write "<stem>.tmp<ext>", then rename.
  const std::string extension = ends_with(path, ".nii.gz") ? ".nii.gz" : ".nii";
  const std::string temporary = path.substr(0, path.size() - (ends_with(path, extension) ? extension.size() : 0)) +
                                ".tmp" + extension;
  nifti_set_debug_level(0);
  if (nifti_set_filenames(image.get(), temporary.c_str(), 0, 1) != 0) throw InputError(path + ": bad NIfTI file name");
  nifti_image_write(image.get());  // returns nothing: success is judged by the file below
  std::error_code error;
  if (!std::filesystem::is_regular_file(temporary) || std::filesystem::file_size(temporary, error) == 0)
    throw InputError(path + ": could not write the NIfTI file");
  std::filesystem::rename(temporary, path, error);
  if (error) throw InputError(path + ": " + error.message());
}

Volume read_input_volume(const std::string& path) {
  return ends_with(path, ".hxv") ? read_volume_file(path) : read_nifti_volume(path);
}

}  // namespace helix::mrf
