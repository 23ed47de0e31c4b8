#include "sandbox/store/quantities.h"

#include <cmath>
#include <optional>

#include "gpupool/json/quantity.h"

namespace gpupool::sandbox {
namespace {

bool UsesBinarySuffix(const std::string& text) { return !text.empty() && text.back() == 'i'; }

bool UsesExponent(const std::string& text) {
  return text.find_first_of("eE") != std::string::npos && !UsesBinarySuffix(text);
}

// value * 1024^k bytes with the largest k that divides exactly: "512Gi".
std::string BinaryForm(int64_t bytes) {
  static const char* kSuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  int power = 0;
  while (power < 6 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++power;
  }
  return std::to_string(bytes) + kSuffixes[power];
}

// mantissa * 10^(3k) with the largest k that keeps the mantissa whole:
// "64" for 64000m, "1k" for 1000, "500m" for 0.5 (or "1e3" in exponent form).
std::string DecimalForm(int64_t milli, bool exponent) {
  static const char* kSuffixes[] = {"m", "", "k", "M", "G", "T", "P", "E"};
  int step = 0;  // 0: milli, 1: units, 2: kilo, ...
  while (step < 7 && milli != 0 && milli % 1000 == 0) {
    milli /= 1000;
    ++step;
  }
  if (milli == 0) return "0";
  if (!exponent) return std::to_string(milli) + kSuffixes[step];
  const int power = 3 * (step - 1);
  return std::to_string(milli) + (power == 0 ? "" : "e" + std::to_string(power));
}

void NormalizeMap(Json& map) {
  if (!map.is_object()) return;
  for (auto& [name, value] : map.items()) {
    if (auto canonical = CanonicalQuantity(value)) value = *canonical;
  }
}

void NormalizeContainer(Json& container) {
  if (!container.is_object() || !container.contains("resources")) return;
  auto& resources = container["resources"];
  if (!resources.is_object()) return;
  if (resources.contains("limits") && resources["limits"].is_object()) {
    auto& requests = resources["requests"];
    if (!requests.is_object()) requests = Json::object();
    for (const auto& [name, limit] : resources["limits"].items()) {
      if (!requests.contains(name)) requests[name] = limit;
    }
  }
  for (const char* list : {"limits", "requests"}) {
    if (resources.contains(list)) NormalizeMap(resources[list]);
  }
}

}  // namespace

std::optional<std::string> CanonicalQuantity(const Json& value) {
  std::string text;
  if (value.is_number_integer()) {
    text = std::to_string(value.get<int64_t>());
  } else if (value.is_number()) {
    text = value.dump();
  } else if (value.is_string()) {
    text = value.get<std::string>();
  } else {
    return std::nullopt;
  }
  std::string error;
  const auto milli = json::ParseMilli(text, &error);
  if (!milli) return std::nullopt;
  const bool whole = *milli % 1000 == 0;
  // Binary quantities below 1Ki or with fractions are shown in decimal form.
  if (UsesBinarySuffix(text) && whole && std::llabs(*milli) >= 1024000) {
    return BinaryForm(*milli / 1000);
  }
  return DecimalForm(*milli, UsesExponent(text));
}

void NormalizePodResources(Json& pod) {
  if (!pod.contains("spec") || !pod["spec"].is_object()) return;
  auto& spec = pod["spec"];
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (auto& container : spec[list]) NormalizeContainer(container);
  }
  if (spec.contains("overhead")) NormalizeMap(spec["overhead"]);
}

void NormalizeNodeResources(Json& node) {
  if (!node.contains("status") || !node["status"].is_object()) return;
  for (const char* list : {"capacity", "allocatable"}) {
    if (node["status"].contains(list)) NormalizeMap(node["status"][list]);
  }
}

}  // namespace gpupool::sandbox
