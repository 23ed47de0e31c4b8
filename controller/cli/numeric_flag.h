// Range-checked numeric flag values: a clear usage error, never a silent cast.
#pragma once

#include <stdexcept>
#include <string>

namespace gpupool::cli {

class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The whole of `text` as an integer in [min, max], else UsageError naming `flag`.
int IntFlag(const std::string& flag, const std::string& text, int min, int max);
double DoubleFlag(const std::string& flag, const std::string& text, double min, double max);
// `text` if it is an RFC 1123 label (a namespace or ServiceAccount name), else
// UsageError naming `flag`.
std::string NameFlag(const std::string& flag, const std::string& text);
// `text` unless empty, else UsageError naming `flag`.
std::string NonEmptyFlag(const std::string& flag, const std::string& text);

}  // namespace gpupool::cli
