#include "crd_schemas.h"

#include <algorithm>

#include "embedded_crds.h"
#include "gpupool/json/yaml.h"

namespace gpupool::cli {
namespace {

void AddServedVersions(const nlohmann::json& crd, std::vector<ServedKind>& kinds) {
  const auto& spec = crd.at("spec");
  for (const auto& version : spec.at("versions")) {
    if (!version.value("served", false)) continue;
    ServedKind served;
    served.kind = spec.at("names").at("kind");
    served.api_version =
        spec.at("group").get<std::string>() + "/" + version.at("name").get<std::string>();
    served.namespaced = spec.value("scope", "") == "Namespaced";
    served.schema = version.at("schema").at("openAPIV3Schema");
    kinds.push_back(std::move(served));
  }
}

std::vector<ServedKind> ParseEmbeddedCrds() {
  std::vector<ServedKind> kinds;
  for (auto text : EmbeddedCrdTexts()) {
    for (const auto& crd : json::YamlToJson(std::string(text), "embedded CRD")) {
      AddServedVersions(crd, kinds);
    }
  }
  return kinds;
}

}  // namespace

const std::vector<ServedKind>& ServedKinds() {
  static const std::vector<ServedKind> kinds = ParseEmbeddedCrds();
  return kinds;
}

const ServedKind* FindServedKind(std::string_view kind) {
  for (const auto& served : ServedKinds()) {
    if (served.kind == kind) return &served;
  }
  return nullptr;
}

std::string ServedKindNames() {
  std::vector<std::string_view> seen;
  std::string names;
  for (const auto& served : ServedKinds()) {
    if (std::find(seen.begin(), seen.end(), served.kind) != seen.end()) continue;
    seen.push_back(served.kind);
    names += (names.empty() ? "" : ", ") + served.kind;
  }
  return names;
}

}  // namespace gpupool::cli
