// Resource quantities as a real server writes them back: canonical strings
// ("64", "512Gi", "500m", "1k") whatever the client sent (numbers included),
// and a pod's requests defaulted from its limits.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace gpupool::sandbox {

using Json = nlohmann::json;

// The canonical form of a quantity (a string or a JSON number); nullopt when
// it is not one the sandbox can read exactly (left as sent).
std::optional<std::string> CanonicalQuantity(const Json& value);

// Per container (init containers too): requests copied from limits for every
// resource with a limit and no request; every quantity made canonical.
void NormalizePodResources(Json& pod);
// status.capacity and status.allocatable made canonical.
void NormalizeNodeResources(Json& node);

}  // namespace gpupool::sandbox
