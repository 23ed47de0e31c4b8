// Flags of the controller's listeners (metrics, probes, webhook): where they
// bind and where their certificates are.
#pragma once

#include <optional>
#include <string>

#include "gpupool/metrics/bind_address.h"

namespace gpupool::cli {

// HOST:PORT, :PORT or 0 (not served: nullopt); else UsageError naming `flag`.
std::optional<metrics::BindAddress> BindAddressFlag(const std::string& flag,
                                                    const std::string& value);
// `dir` when DIR/tls.crt and DIR/tls.key can be read; else UsageError naming `flag`.
std::string CertDirFlag(const std::string& flag, const std::string& dir);

}  // namespace gpupool::cli
