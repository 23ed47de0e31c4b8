// Helpers for replay tests: small CSV files written to a temporary folder, and
// the real trace folder (tests that need it skip when it is absent).
#pragma once

#include <filesystem>
#include <string>

namespace gpupool::replay::testing {

// Writes text to a fresh file under the test temp folder and returns its path.
std::string WriteTempFile(const std::string& name, const std::string& text);

// The trace file's path, or empty when the trace folder does not have it.
std::string TraceFileOrEmpty(const std::string& relative);

}  // namespace gpupool::replay::testing
