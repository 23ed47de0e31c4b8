// Standard base64 with padding, as the Kubernetes API carries bytes in JSON
// (Secret data, a webhook's caBundle, an admission response's patch).
#pragma once

#include <string>

namespace gpupool::webhook::internal {

std::string EncodeBase64(const std::string& bytes);

}  // namespace gpupool::webhook::internal
