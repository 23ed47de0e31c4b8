#include "heap_counter.h"

#include <malloc.h>

namespace gpupool::engine::bench {

std::int64_t LiveHeapBytes() {
  struct mallinfo2 info = mallinfo2();
  return static_cast<std::int64_t>(info.uordblks + info.hblkhd);
}

}  // namespace gpupool::engine::bench
