#include "stop_signal.h"

#include <csignal>

namespace gpupool::cli {
namespace {

std::atomic<bool> g_stop_requested{false};
void OnStopSignal(int) { g_stop_requested = true; }

}  // namespace

std::atomic<bool>& StopRequested() { return g_stop_requested; }

void StopOnSignals() {
  std::signal(SIGTERM, OnStopSignal);
  std::signal(SIGINT, OnStopSignal);
}

}  // namespace gpupool::cli
