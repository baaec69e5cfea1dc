// device_stream.h: the host side of the device layer, what a kind's CUDA
// engine owns besides device memory (DeviceBuffer, cuda_support.h), written
// once: streams, ordering events, pinned host memory and CUDA graphs, each an
// RAII holder that releases its handle when it goes, and whose every checked
// call goes through check_cuda() (so a fault is a GpuError, and the test
// switch HELIX_GPU_FAULT sees it). Include from .cu files only.
//
// One stream policy for every engine: non-blocking streams
// (cudaStreamNonBlocking), which never wait for the legacy default stream nor
// make it wait. Work on the legacy stream (cudaMemcpy, DeviceBuffer::upload)
// is therefore not ordered with an engine's streams: DeviceBuffer::upload
// waits for its copy to land for that reason.
//
// Holders start empty and get their handle from create() / reserve() /
// capture(), not from their constructor: an engine's members are constructed
// before its constructor has selected the device (select_cuda_device()), and
// a handle made before that would belong to the wrong device or context.
// Destructors never throw: after a fault the release calls' statuses are
// ignored, as the runtime's own teardown would ignore them.
//
// Contents:
//   CudaEvent          an event for ordering streams only (no timing)
//   CudaStream         a non-blocking stream; converts to cudaStream_t
//   PinnedBuffer<T>    page-locked host memory, grow-only (reserve)
//   CudaGraph          an instantiated CUDA graph, captured from a stream
//                      (capture(); capture_while(): a loop as one conditional node)
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <utility>

#include "core/cuda_support.h"

namespace helix {

// An event that only orders streams (cudaEventDisableTiming: recording it
// costs no timestamp). Empty until create().
class CudaEvent {
 public:
  CudaEvent() = default;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  ~CudaEvent() { release(); }

  // Creates the event, releasing any held one. Throws GpuError naming `what`.
  void create(const char* what) {
    release();
    check_cuda(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), what);
  }
  // Marks the point reached by `stream`'s queue so far. Throws GpuError.
  void record(cudaStream_t stream, const char* what) const { check_cuda(cudaEventRecord(event_, stream), what); }

  cudaEvent_t get() const { return event_; }

 private:
  void release() {
    if (event_) cudaEventDestroy(event_);
    event_ = nullptr;
  }
  cudaEvent_t event_ = nullptr;
};

// A non-blocking CUDA stream. Empty (no stream; converts to the legacy
// stream's handle 0) until create().
class CudaStream {
 public:
  CudaStream() = default;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  ~CudaStream() { release(); }

  // Creates the stream (cudaStreamNonBlocking), releasing any held one.
  // Throws GpuError naming `what`.
  void create(const char* what) {
    release();
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), what);
  }
  // Waits until everything queued on the stream has finished. Throws GpuError.
  void synchronize(const char* what) const { check_cuda(cudaStreamSynchronize(stream_), what); }
  // Makes work queued on this stream from now on wait for what `event` last
  // recorded (on any stream). Throws GpuError.
  void wait_for(const CudaEvent& event, const char* what) const {
    check_cuda(cudaStreamWaitEvent(stream_, event.get(), 0), what);
  }

  cudaStream_t get() const { return stream_; }
  // For launches and the runtime's *Async calls: kernel<<<grid, block, 0, stream>>>.
  operator cudaStream_t() const { return stream_; }

 private:
  void release() {
    if (stream_) cudaStreamDestroy(stream_);
    stream_ = nullptr;
  }
  cudaStream_t stream_ = nullptr;
};

// Page-locked host memory for T (cudaMallocHost), so that a copy to or from
// the device is one DMA, asynchronous on a stream, instead of a CPU copy
// through the runtime's staging buffer. Grow-only: reserve() keeps the memory
// when it already holds enough, so an engine reuses it call after call.
template <typename T>
struct PinnedBuffer {
  T* data = nullptr;
  std::size_t capacity = 0;  // elements

  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { release(); }

  // Room for at least n elements (at least one). When the buffer grows its
  // contents are not kept (engines refill it before each use), and it grows
  // by half again at least: pinning is the driver's work, about as costly
  // as the bytes pinned, and growing to exactly each larger batch's size
  // pinned anew for every one of them (cudaMallocHost and cudaFreeHost were
  // 8 % of the hmmsearch app's host CPU on a GPU-class WU). Throws
  // GpuError naming `what`; the buffer is then empty.
  void reserve(std::size_t n, const char* what) {
    if (n == 0) n = 1;
    if (capacity >= n) return;
    const std::size_t grown = std::max(n, capacity + capacity / 2);
    release();
    void* memory = nullptr;
    check_cuda(cudaMallocHost(&memory, grown * sizeof(T)), what);
    data = static_cast<T*>(memory), capacity = grown;
  }
  void release() {
    if (data) cudaFreeHost(data);
    data = nullptr, capacity = 0;
  }
};

// An executable CUDA graph (cudaGraphExec_t), made by recording the work an
// engine queues on a stream. Empty until capture().
class CudaGraph {
 public:
  CudaGraph() = default;
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;
  ~CudaGraph() { release(); }

  // Records what `enqueue()` queues on `stream` (capture mode thread-local:
  // other threads' CUDA calls are not affected) and instantiates it,
  // replacing any held graph. Launches inside the capture are only recorded,
  // not run. Throws GpuError naming `capturing` (begin, end) or
  // `instantiating`; when enqueue() throws, the capture is ended and its
  // graph dropped before the exception goes on, so the stream is usable.
  template <typename Enqueue>
  void capture(cudaStream_t stream, const char* capturing, const char* instantiating, Enqueue&& enqueue) {
    release();
    check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), capturing);
    try {
      std::forward<Enqueue>(enqueue)();
    } catch (...) {
      cudaGraph_t abandoned = nullptr;
      cudaStreamEndCapture(stream, &abandoned);
      if (abandoned) cudaGraphDestroy(abandoned);
      throw;
    }
    cudaGraph_t graph = nullptr;
    check_cuda(cudaStreamEndCapture(stream, &graph), capturing);
    instantiate(graph, instantiating);
  }
  // Records, as one graph, what `prologue()` queues on `stream`, then a loop
  // that runs what `body(handle)` queues for as long as its condition is not
  // zero: the body's kernels set it with cudaGraphSetConditional(handle, v)
  // (device code, sm_90), and it is 1 on each launch's entry. A loop of
  // many turns is then a few nodes, not one per turn unrolled: launching a
  // graph costs the host time per node. Instantiates it, replacing any held
  // graph; errors as capture().
  template <typename Prologue, typename Body>
  void capture_while(cudaStream_t stream, const char* capturing, const char* instantiating, Prologue&& prologue,
                     Body&& body) {
    release();
    cudaGraph_t graph = nullptr;
    check_cuda(cudaGraphCreate(&graph, 0), capturing);
    try {
      cudaGraphConditionalHandle handle{};
      check_cuda(cudaGraphConditionalHandleCreate(&handle, graph, 1, cudaGraphCondAssignDefault), capturing);
      cudaGraph_t loop_body = nullptr;
      recorded_into(graph, stream, capturing, [&] {
        std::forward<Prologue>(prologue)();
        // The loop: a conditional node after what the prologue queued.
        cudaStreamCaptureStatus status{};
        const cudaGraphNode_t* tail = nullptr;
        std::size_t tail_count = 0;
        check_cuda(cudaStreamGetCaptureInfo(stream, &status, nullptr, nullptr, &tail, nullptr, &tail_count), capturing);
        cudaGraphNodeParams loop{};
        loop.type = cudaGraphNodeTypeConditional;
        loop.conditional.handle = handle, loop.conditional.type = cudaGraphCondTypeWhile, loop.conditional.size = 1;
        cudaGraphNode_t node = nullptr;
        check_cuda(cudaGraphAddNode(&node, graph, tail, nullptr, tail_count, &loop), capturing);
        check_cuda(cudaStreamUpdateCaptureDependencies(stream, &node, nullptr, 1, cudaStreamSetCaptureDependencies),
                   capturing);
        loop_body = loop.conditional.phGraph_out[0];  // owned by the node
      });
      recorded_into(loop_body, stream, capturing, [&] { std::forward<Body>(body)(handle); });
    } catch (...) {
      cudaGraphDestroy(graph);
      throw;
    }
    instantiate(graph, instantiating);
  }
  // Queues one run of the graph on `stream`. Throws GpuError naming `what`.
  void launch(cudaStream_t stream, const char* what) const { check_cuda(cudaGraphLaunch(exec_, stream), what); }

  explicit operator bool() const { return exec_ != nullptr; }

 private:
  void release() {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
  }
  // Makes `graph` the held executable graph and destroys it (the executable
  // does not need it); throws GpuError naming `instantiating`.
  void instantiate(cudaGraph_t graph, const char* instantiating) {
    const cudaError_t instantiated = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
    if (instantiated != cudaSuccess) exec_ = nullptr;
    check_cuda(instantiated, instantiating);
  }
  // Records what `enqueue()` queues on `stream` into the existing `graph`
  // (which keeps it); the capture is ended whatever happens.
  template <typename Enqueue>
  static void recorded_into(cudaGraph_t graph, cudaStream_t stream, const char* capturing, Enqueue&& enqueue) {
    check_cuda(cudaStreamBeginCaptureToGraph(stream, graph, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal),
               capturing);
    try {
      std::forward<Enqueue>(enqueue)();
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);
      throw;
    }
    check_cuda(cudaStreamEndCapture(stream, &graph), capturing);
  }
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace helix
