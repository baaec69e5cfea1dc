// gpu_devices.h: how many usable CUDA devices this machine has, for code that
// is not CUDA (tests deciding to skip, benchmarks, the app's choice of
// engine). 0 without a driver or GPU; never throws. Defined once in
// gpu_devices.cu over cuda_support.h's cuda_device_count().
#pragma once

namespace helix {

int gpu_device_count();

}  // namespace helix
