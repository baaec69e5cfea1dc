// mrf_test_util.h: helpers shared by the mrf tests: temporary directories and
// small phantoms.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>

#include "mrf/mrf.h"
#include "mrf/mrf_phantom.h"

namespace helix::mrf::testing {

// A fresh directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "helix-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline Phantom small_phantom(int nx, int ny, int nz, std::uint64_t seed = 7, double noise = 40.0) {
  PhantomSpec spec;
  spec.nx = nx, spec.ny = ny, spec.nz = nz, spec.seed = seed, spec.noise_sigma_hu = noise;
  return make_phantom(spec);
}

}  // namespace helix::mrf::testing
