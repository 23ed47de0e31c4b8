#include "heap_counter.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace gpupool::engine::bench {
namespace {

std::atomic<std::int64_t> live_bytes{0};

void* Counted(void* pointer) {
  if (pointer == nullptr) throw std::bad_alloc();
  live_bytes.fetch_add(static_cast<std::int64_t>(malloc_usable_size(pointer)),
                       std::memory_order_relaxed);
  return pointer;
}

void Uncounted(void* pointer) {
  if (pointer == nullptr) return;
  live_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(pointer)),
                       std::memory_order_relaxed);
  std::free(pointer);
}

}  // namespace

std::int64_t LiveHeapBytes() { return live_bytes.load(std::memory_order_relaxed); }

}  // namespace gpupool::engine::bench

// The other forms (arrays, nothrow) call these in libstdc++.
void* operator new(std::size_t size) {
  return gpupool::engine::bench::Counted(std::malloc(size == 0 ? 1 : size));
}

void* operator new(std::size_t size, std::align_val_t align) {
  auto alignment = static_cast<std::size_t>(align);
  std::size_t rounded = (size + alignment - 1) / alignment * alignment;
  return gpupool::engine::bench::Counted(
      std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded));
}

void operator delete(void* pointer) noexcept { gpupool::engine::bench::Uncounted(pointer); }

void operator delete(void* pointer, std::align_val_t) noexcept {
  gpupool::engine::bench::Uncounted(pointer);
}

void operator delete(void* pointer, std::size_t) noexcept {
  gpupool::engine::bench::Uncounted(pointer);
}

void operator delete(void* pointer, std::size_t, std::align_val_t) noexcept {
  gpupool::engine::bench::Uncounted(pointer);
}
