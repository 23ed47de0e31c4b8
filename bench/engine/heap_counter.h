// Bytes the program holds on the heap, as the allocator counts them (glibc's
// mallinfo2: bytes in chunks in use, their headers included, plus chunks mapped on
// their own). Memory figures are differences of LiveHeapBytes() around the work they
// measure. Counting costs nothing between calls, so timings in the same program are
// not affected.
#pragma once

#include <cstdint>

namespace gpupool::engine::bench {

std::int64_t LiveHeapBytes();

}  // namespace gpupool::engine::bench
