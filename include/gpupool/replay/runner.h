// `gpupool replay` end to end: load the trace, run the experiment on the engine,
// print tables or JSON, write charts. Kept in the module so tests can run it
// without a process.
#pragma once

#include <ostream>

#include "gpupool/replay/options.h"

namespace gpupool::replay {

// Returns the exit code: 0 done, 1 the trace could not be read or replayed.
// Errors go to err with the file, line and column they are about.
int RunReplay(const ReplayOptions& options, std::ostream& out, std::ostream& err);

}  // namespace gpupool::replay
