// usable_gpus.h: how many CUDA devices this host has (0 without a driver or GPU).
#pragma once

namespace helix::faults {

int usable_gpu_count();

}  // namespace helix::faults
