// usable_gpus.cu: how many CUDA devices this host has, for the tests to skip
// GPU-only cases without one (CI has none). Never throws.
#include "usable_gpus.h"

#include "core/cuda_support.h"

namespace helix::faults {

int usable_gpu_count() { return cuda_device_count(); }

}  // namespace helix::faults
