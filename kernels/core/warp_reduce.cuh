// warp_reduce.cuh: the device side of the device layer, reductions written
// once (CUB style): a warp-level collective (warp_reduce and its sum, max and
// min) and a block-level one on top (BlockReduce, with its temporary storage
// an explicit type the caller places in shared memory). Include from .cu
// files only.
//
// Exactness: these reduce in a butterfly (warp) and then in warp order
// (block), an order that differs from a sequential loop's. They are meant for
// operators whose result does not depend on the order: integer sums (two's
// complement wraps the same way in any order), maxima and minima, and
// selections by a strict total order (the best of several fields, ties broken
// by an index). A floating-point sum that must match a CPU's order bit for bit
// does not belong here.
//
// Contents:
//   kWarpThreads, kFullWarpMask          the warp's size and every lane's mask
//   ReduceSum, ReduceMax, ReduceMin      the operators
//   shuffle_xor()                        a value of any trivially copyable type from lane ^ mask
//   warp_reduce<kLanes>()                an operator over each group of kLanes lanes, every lane gets it
//   warp_sum/warp_max/warp_min<kLanes>() the same for +, max, min (one instruction on sm_80+ where it exists)
//   BlockReduce<T, kBlockX, kBlockY>     an operator over a block, thread 0 gets it; TempStorage
#pragma once
#include <cuda_runtime.h>

#include <cstring>
#include <type_traits>

namespace helix {

constexpr int kWarpThreads = 32;
constexpr unsigned kFullWarpMask = 0xffffffffu;

struct ReduceSum {
  template <typename T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const {
    return a + b;
  }
};
struct ReduceMax {
  template <typename T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const {
    return b > a ? b : a;
  }
};
struct ReduceMin {
  template <typename T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
};

namespace warp_detail {
// The types __shfl_xor_sync takes as they are (64-bit ones as two shuffles).
template <typename T>
constexpr bool kNativeShuffle =
    std::is_same_v<T, int> || std::is_same_v<T, unsigned> || std::is_same_v<T, long> ||
    std::is_same_v<T, unsigned long> || std::is_same_v<T, long long> || std::is_same_v<T, unsigned long long> ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;
// The types with a one-instruction warp reduction (__reduce_*_sync, sm_80+).
template <typename T>
constexpr bool kReduxType = std::is_same_v<T, int> || std::is_same_v<T, unsigned>;
}  // namespace warp_detail

// `value` of lane (this lane ^ lane_mask) within groups of `width` lanes (a
// power of two); every lane of the warp must call. Types other than the
// shuffle's own (structs, __int128) travel as 32-bit words.
template <typename T>
__device__ __forceinline__ T shuffle_xor(const T& value, int lane_mask, int width = kWarpThreads) {
  if constexpr (warp_detail::kNativeShuffle<T>) {
    return __shfl_xor_sync(kFullWarpMask, value, lane_mask, width);
  } else if constexpr (std::is_same_v<T, __int128> || std::is_same_v<T, unsigned __int128>) {
    // As two 64-bit halves: through bytes, nvcc would place it in local memory.
    const auto bits = static_cast<unsigned __int128>(value);
    const unsigned long long low = __shfl_xor_sync(kFullWarpMask, static_cast<unsigned long long>(bits), lane_mask, width);
    const unsigned long long high =
        __shfl_xor_sync(kFullWarpMask, static_cast<unsigned long long>(bits >> 64), lane_mask, width);
    return static_cast<T>(static_cast<unsigned __int128>(high) << 64 | low);
  } else {
    static_assert(std::is_trivially_copyable_v<T>, "shuffle_xor: a value that can be copied as bytes");
    constexpr int kWords = (sizeof(T) + sizeof(unsigned) - 1) / sizeof(unsigned);
    unsigned words[kWords] = {};
    memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int k = 0; k < kWords; ++k) words[k] = __shfl_xor_sync(kFullWarpMask, words[k], lane_mask, width);
    T other = value;
    memcpy(&other, words, sizeof(T));
    return other;
  }
}

// `op` over the values of each group of kLanes consecutive lanes (kLanes a
// power of two, 1..32), by a butterfly of log2(kLanes) xor shuffles: round by
// round value = op(value, partner's value), so every lane of a group ends
// with the group's result when `op` is associative and commutative. Every
// lane of the warp must call (full mask).
template <int kLanes = kWarpThreads, typename T, typename Op>
__device__ __forceinline__ T warp_reduce(T value, Op op) {
  static_assert(kLanes >= 1 && kLanes <= kWarpThreads && (kLanes & (kLanes - 1)) == 0,
                "warp_reduce: kLanes is a power of two up to a warp");
#pragma unroll
  for (int step = kLanes / 2; step >= 1; step /= 2) value = op(value, shuffle_xor(value, step, kLanes));
  return value;
}

// The sum, maximum and minimum over each group of kLanes lanes, in every lane
// of it (integer sums wrap as two's complement). A whole warp of int or
// unsigned reduces in one instruction on sm_80 and later; the release also
// runs on sm_75 (Turing), which has none: the butterfly gives the same value.
template <int kLanes = kWarpThreads, typename T>
__device__ __forceinline__ T warp_sum(T value) {
#if __CUDA_ARCH__ >= 800
  if constexpr (kLanes == kWarpThreads && warp_detail::kReduxType<T>) return __reduce_add_sync(kFullWarpMask, value);
  else
#endif
    return warp_reduce<kLanes>(value, ReduceSum{});
}
template <int kLanes = kWarpThreads, typename T>
__device__ __forceinline__ T warp_max(T value) {
#if __CUDA_ARCH__ >= 800
  if constexpr (kLanes == kWarpThreads && warp_detail::kReduxType<T>) return __reduce_max_sync(kFullWarpMask, value);
  else
#endif
    return warp_reduce<kLanes>(value, ReduceMax{});
}
template <int kLanes = kWarpThreads, typename T>
__device__ __forceinline__ T warp_min(T value) {
#if __CUDA_ARCH__ >= 800
  if constexpr (kLanes == kWarpThreads && warp_detail::kReduxType<T>) return __reduce_min_sync(kFullWarpMask, value);
  else
#endif
    return warp_reduce<kLanes>(value, ReduceMin{});
}

// A reduction over a block of kBlockX x kBlockY threads (a whole number of
// warps; thread rank x + kBlockX y, so warps are runs of 32 ranks): each warp
// reduces with warp_reduce, lane 0 of each leaves its warp's value in the
// caller's TempStorage, and thread 0 combines the warps' values in warp order.
//
//   using Sums = BlockReduce<unsigned long long, 32, 8>;
//   __shared__ Sums::TempStorage temp;
//   const unsigned long long total = Sums::sum(mine, temp);  // thread 0's is the block's
//
// Every thread of the block must call (it synchronises the block once). The
// result is defined in thread 0 only. The TempStorage may be used again after
// the block's next __syncthreads().
template <typename T, int kBlockX, int kBlockY = 1>
struct BlockReduce {
  static constexpr int kThreads = kBlockX * kBlockY;
  static_assert(kThreads % kWarpThreads == 0, "BlockReduce: a block of whole warps");
  static constexpr int kWarps = kThreads / kWarpThreads;

  struct TempStorage {
    T warp_values[kWarps];
  };

  static __device__ __forceinline__ int thread_rank() {
    if constexpr (kBlockY == 1) return threadIdx.x;
    else return threadIdx.x + threadIdx.y * kBlockX;
  }

  template <typename Op>
  static __device__ __forceinline__ T reduce(T value, Op op, TempStorage& temp) {
    return combine_warps(warp_reduce(value, op), op, temp);
  }
  static __device__ __forceinline__ T sum(T value, TempStorage& temp) {
    return combine_warps(warp_sum(value), ReduceSum{}, temp);
  }
  static __device__ __forceinline__ T max(T value, TempStorage& temp) {
    return combine_warps(warp_max(value), ReduceMax{}, temp);
  }
  static __device__ __forceinline__ T min(T value, TempStorage& temp) {
    return combine_warps(warp_min(value), ReduceMin{}, temp);
  }

 private:
  // Thread 0: op over the warps' values (each lane 0's), in warp order.
  template <typename Op>
  static __device__ __forceinline__ T combine_warps(T warp_value, Op op, TempStorage& temp) {
    const int rank = thread_rank();
    if (rank % kWarpThreads == 0) temp.warp_values[rank / kWarpThreads] = warp_value;
    __syncthreads();
    if (rank == 0) {
#pragma unroll
      for (int warp = 1; warp < kWarps; ++warp) warp_value = op(warp_value, temp.warp_values[warp]);
    }
    return warp_value;
  }
};

}  // namespace helix
