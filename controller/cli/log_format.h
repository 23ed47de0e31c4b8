// Logging for long-running commands: level and format (text, or one JSON object
// per line for log collectors) chosen by flags.
#pragma once

#include <string>

namespace gpupool::cli {

// Throws UsageError for an unknown level or format.
void ConfigureLogging(const std::string& level, const std::string& format);

}  // namespace gpupool::cli
