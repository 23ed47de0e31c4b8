// Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`),
// which kubectl's typed clients send for some built-ins: `kubectl create
// namespace|configmap|deployment|service|priorityclass|poddisruptionbudget`, the
// evictions of `kubectl drain`, the TokenRequest of `kubectl create token`. Decoded
// into the JSON form for the kinds listed in protobuf.cpp; where only part of a
// large type is modelled (a pod spec), a field outside it is refused (415), not dropped.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gpupool::sandbox {

// Throws ApiError 400 (malformed) or 415 (a kind not decoded here).
nlohmann::json DecodeProtobuf(const std::string& body);

}  // namespace gpupool::sandbox
