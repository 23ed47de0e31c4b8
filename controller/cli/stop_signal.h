// The flag SIGTERM and SIGINT raise, for the commands that run until stopped.
#pragma once

#include <atomic>

namespace gpupool::cli {

// Turns true once the process is asked to stop.
std::atomic<bool>& StopRequested();
// From now on SIGTERM and SIGINT set StopRequested() instead of ending the process.
void StopOnSignals();

}  // namespace gpupool::cli
