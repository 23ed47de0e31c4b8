// Base64 for continue tokens and kubeconfig certificate data.
#pragma once

#include <optional>
#include <string>

namespace gpupool::sandbox {

std::string Base64Encode(const std::string& data);
std::optional<std::string> Base64Decode(const std::string& text);

}  // namespace gpupool::sandbox
