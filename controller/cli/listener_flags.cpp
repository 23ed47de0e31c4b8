#include "listener_flags.h"

#include <fstream>
#include <stdexcept>

#include "numeric_flag.h"

namespace gpupool::cli {

std::optional<metrics::BindAddress> BindAddressFlag(const std::string& flag,
                                                    const std::string& value) {
  try {
    return metrics::ParseBindAddress(value);
  } catch (const std::invalid_argument& error) {
    throw UsageError(flag + ": " + error.what());
  }
}

std::string CertDirFlag(const std::string& flag, const std::string& dir) {
  for (const char* file : {"/tls.crt", "/tls.key"})
    if (!std::ifstream(dir + file).good())
      throw UsageError(flag + ": cannot read \"" + dir + file + "\"");
  return dir;
}

}  // namespace gpupool::cli
