// gpu_devices.cu: gpu_device_count() (gpu_devices.h).
#include "core/cuda_support.h"
#include "core/gpu_devices.h"

namespace helix {

int gpu_device_count() { return cuda_device_count(); }

}  // namespace helix
