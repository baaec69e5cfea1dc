// shared_work.h: items of work shared among a few host threads, each with
// its own resources (an engine, a GPU stream), the calling thread one of them.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace helix {

// Runs work(item, worker) for item = 0 .. count-1 on up to `workers` threads
// (this one is worker 0): worker w first runs prepare(w), then item w, then
// takes the next item not yet taken. Once every thread has stopped (after a
// throw the others finish the item in hand and take no more), the first
// exception any worker threw is rethrown here. An item's work must touch only
// its own results and its worker's resources.
template <typename Prepare, typename Work>
void share_work(std::size_t count, std::size_t workers, Prepare prepare, Work work) {
  const std::size_t working = std::min(count, workers);
  std::atomic<std::size_t> next{working};
  std::vector<std::exception_ptr> failures(working);
  auto worker = [&](std::size_t w) {
    try {
      prepare(w);
      for (std::size_t item = w; item < count; item = next.fetch_add(1)) work(item, w);
    } catch (...) {
      failures[w] = std::current_exception();
      next = count;
    }
  };
  std::vector<std::thread> helpers;
  for (std::size_t w = 1; w < working; ++w) helpers.emplace_back(worker, w);
  if (working > 0) worker(0);
  for (std::thread& helper : helpers) helper.join();
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

}  // namespace helix
