// Bytes the program holds on the heap, counted by this binary's replacement of the
// global operator new and delete (heap_counter.cpp): every allocation's usable size
// (what the allocator hands out, at least the size asked for) is added when made and
// subtracted when freed. Memory figures are differences of LiveHeapBytes() around
// the work they measure.
#pragma once

#include <cstdint>

namespace gpupool::engine::bench {

std::int64_t LiveHeapBytes();

}  // namespace gpupool::engine::bench
