// Seeded, reproducible fault injection for the HTTP front end.
#pragma once

#include <mutex>
#include <optional>
#include <random>
#include <string>

#include "sandbox/api_error.h"
#include "sandbox/sandbox.h"

namespace gpupool::sandbox {

class FaultInjector {
 public:
  explicit FaultInjector(const FaultOptions& options) : options_(options), random_(options.seed) {}

  // The error a request of `verb` gets, if any.
  std::optional<ApiError> ErrorFor(const std::string& verb);
  int LatencyMs(const std::string& verb) const;
  bool DropConnection();
  const FaultOptions& options() const { return options_; }

 private:
  double Draw();

  FaultOptions options_;
  std::mutex mutex_;
  std::mt19937_64 random_;
};

}  // namespace gpupool::sandbox
