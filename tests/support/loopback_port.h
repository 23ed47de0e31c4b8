// A TCP port on 127.0.0.1 that nobody listens on right now: for a listener a
// test must name before it starts (a webhook's URL, Prometheus's target).
#pragma once

namespace gpupool::sandbox::testing {

// Throws std::runtime_error when the system gives none.
int FreeLoopbackPort();

}  // namespace gpupool::sandbox::testing
