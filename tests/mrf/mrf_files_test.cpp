// The volume and label-map file formats: round trips and every kind of damage.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "mrf/mrf_files.h"
#include "mrf_test_util.h"

namespace helix::mrf {
namespace {

using testing::small_phantom;

TEST(VolumeFile, RoundTrips) {
  const Phantom phantom = small_phantom(17, 9, 5);
  const Volume decoded = decode_volume(encode_volume(phantom.volume), "test");
  EXPECT_EQ(decoded.nx, 17);
  EXPECT_EQ(decoded.ny, 9);
  EXPECT_EQ(decoded.nz, 5);
  EXPECT_EQ(decoded.spacing_mm, phantom.volume.spacing_mm);
  EXPECT_EQ(decoded.voxels, phantom.volume.voxels);
}

TEST(VolumeFile, RejectsDamage) {
  const auto good = encode_volume(small_phantom(16, 8, 4).volume);
  auto truncated = good;
  truncated.resize(good.size() - 10);
  EXPECT_THROW(decode_volume(truncated, "v"), InputError);
  auto padded = good;
  padded.push_back(0);
  EXPECT_THROW(decode_volume(padded, "v"), InputError);
  auto bad_magic = good;
  bad_magic[0] = 'X';
  EXPECT_THROW(decode_volume(bad_magic, "v"), InputError);
  auto wrong_dims = good;
  wrong_dims[8] = 15;  // nx 16 -> 15: the frame no longer holds nx*ny*nz voxels
  EXPECT_THROW(decode_volume(wrong_dims, "v"), InputError);
  auto zero_dims = good;
  zero_dims[8] = 0;
  EXPECT_THROW(decode_volume(zero_dims, "v"), InputError);
  auto huge_dims = good;
  huge_dims[11] = 0x7f;  // nx = 2^30: absurd
  EXPECT_THROW(decode_volume(huge_dims, "v"), InputError);
  EXPECT_THROW(decode_volume({}, "v"), InputError);
  EXPECT_THROW(read_volume_file("/nonexistent/volume.hxv"), InputError);
}

TEST(LabelFile, RoundTripsAndRejectsBadLabels) {
  std::vector<std::uint8_t> labels = {0, 1, 2, 2, 1, 0};
  const auto bytes = encode_labels(3, 2, 1, labels);
  const LabelMap map = decode_labels(bytes, "l");
  EXPECT_EQ(map.labels, labels);
  labels[4] = 3;
  EXPECT_THROW(decode_labels(encode_labels(3, 2, 1, labels), "l"), InputError);
  auto truncated = bytes;
  truncated.pop_back();
  EXPECT_THROW(decode_labels(truncated, "l"), InputError);
}

}  // namespace
}  // namespace helix::mrf
