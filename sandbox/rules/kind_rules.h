// The rules of each built-in kind, one table entry per kind: what its writes
// are checked and defaulted with, what follows once one is stored or removed,
// how its objects are named, and how the server treats them apart from that.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "sandbox/rules/resource_type.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;
class Store;
struct WriteOptions;

// What a kind's admission rules read besides the object: the write, and the
// server state some kinds keep.
struct AdmissionContext {
  const ResourceType& resource;
  WriteOptions& options;
  std::atomic<uint32_t>& allocated_ips;  // services' cluster IPs handed out so far
};

// Each rule is optional: a kind without one has nothing of its own there.
struct KindRules {
  std::string group;  // "" for the core group
  std::string kind;
  // Shared by create and update, before either's rules: what the real server's
  // decoder refuses (400), normalisations, and checks both make.
  void (*decode)(Json& object, const AdmissionContext& context) = nullptr;
  // Defaults and validation of a new object; throws ApiError.
  void (*on_create)(Json& object, const AdmissionContext& context) = nullptr;
  // Validation of an update of `old` ("" or "status" for `subresource`).
  void (*on_update)(const Json& old, Json& object, const std::string& subresource,
                    const AdmissionContext& context) = nullptr;
  // Side effects once an object is stored, and once it is removed.
  void (*after_write)(const Json& object, ResourceRegistry& resources) = nullptr;
  void (*after_delete)(const Json& object, ResourceRegistry& resources, Store& store) = nullptr;
  NameSyntax name_syntax = NameSyntax::kSubdomain;
  // The real server gives its objects no metadata.generation, spec or not.
  bool without_generation = false;
  // Listed in the category `all` (`kubectl get all`).
  bool in_category_all = false;
  // A DELETE that removes an object at once answers with the object, as the
  // kind's real storage does, rather than with a Status naming it.
  bool delete_returns_object = false;
};

// The entry of the resource's group and kind; null for a kind without rules of
// its own.
const KindRules* RulesFor(const ResourceType& resource);

}  // namespace gpupool::sandbox
