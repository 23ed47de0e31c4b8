// What makes a write safe to send again after an ambiguous failure:
// resourceVersion preconditions on patches, and recognising the object a
// repeated create meets as the one its first attempt wrote.
#include <set>
#include <stdexcept>

#include "gpupool/kube/client.h"

namespace gpupool::kube {
namespace {

constexpr const char* kResourceVersionPointer = "/metadata/resourceVersion";

// The value of metadata.<field>[key], or nullopt when absent or not a string.
std::optional<std::string> MetaMapValue(const Json& object, const char* field,
                                        const std::string& key) {
  if (!object.is_object()) return std::nullopt;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return std::nullopt;
  auto map = meta->find(field);
  if (map == meta->end() || !map->is_object()) return std::nullopt;
  auto value = map->find(key);
  if (value == map->end() || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

std::set<std::string> OwnerUids(const Json& object) {
  std::set<std::string> uids;
  if (!object.is_object() || !object.contains("metadata")) return uids;
  const Json& meta = object["metadata"];
  if (!meta.is_object() || !meta.contains("ownerReferences")) return uids;
  for (const auto& owner : meta["ownerReferences"])
    if (owner.is_object()) uids.insert(owner.value("uid", ""));
  return uids;
}

// True when `key` is unnamed, or names a value that `sent` has and `existing`
// repeats. Throws when the object sent lacks a key the caller named.
bool SameValue(const Json& sent, const Json& existing, const char* field, const std::string& key) {
  if (key.empty()) return true;
  auto ours = MetaMapValue(sent, field, key);
  if (!ours || ours->empty())
    throw std::invalid_argument(std::string("create identity: the object sent has no ") + field +
                                " \"" + key + "\"");
  return MetaMapValue(existing, field, key) == ours;
}

}  // namespace

Json WithPrecondition(PatchType type, const Json& patch, const std::string& resource_version) {
  if (resource_version.empty()) return patch;
  if (type != PatchType::kJson) {
    Json guarded = patch;
    guarded["metadata"]["resourceVersion"] = resource_version;
    return guarded;
  }
  Json guarded = Json::array(
      {{{"op", "test"}, {"path", kResourceVersionPointer}, {"value", resource_version}}});
  for (const auto& op : patch) guarded.push_back(op);
  return guarded;
}

bool HasPrecondition(PatchType type, const Json& patch) {
  if (type == PatchType::kJson) {
    if (!patch.is_array() || patch.empty() || !patch[0].is_object()) return false;
    const Json& first = patch[0];
    return first.value("op", "") == "test" && first.value("path", "") == kResourceVersionPointer;
  }
  return !ResourceVersionOf(patch).empty();
}

bool IsSameCreation(const Json& sent, const Json& existing, const WriteOptions& options) {
  if (options.identity_label.empty() && options.identity_annotation.empty()) return false;
  return SameValue(sent, existing, "labels", options.identity_label) &&
         SameValue(sent, existing, "annotations", options.identity_annotation) &&
         OwnerUids(sent) == OwnerUids(existing);
}

}  // namespace gpupool::kube
