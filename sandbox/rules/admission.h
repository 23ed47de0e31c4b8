// Per-kind rules applied to writes before they are stored: defaults,
// validation (built-ins through their table, kind_rules.h; custom resources
// against their CRD), and the side effects of CRDs on what the server serves.
#pragma once

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sandbox/rules/resource_type.h"
#include "sandbox/rules/write_options.h"
#include "sandbox/store/store.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

class Admission {
 public:
  explicit Admission(ResourceRegistry& resources) : resources_(resources) {}

  // Defaults and validation of a new object; throws ApiError (422 Invalid).
  void OnCreate(const ResourceType& resource, Json& object, WriteOptions& options);
  // Validation of an update (`object` already carries the preserved metadata).
  void OnUpdate(const ResourceType& resource, const Json& old, Json& object,
                const std::string& subresource, WriteOptions& options);
  // Side effects once stored: a CRD starts or stops serving its resources.
  void AfterWrite(const ResourceType& resource, const Json& object);
  void AfterDelete(const ResourceType& resource, const Json& object, Store& store);

 private:
  void CheckCustomResource(const ResourceType& resource, Json& object, WriteOptions& options,
                           const Json* old = nullptr, const std::string& subresource = "");

  ResourceRegistry& resources_;
  std::atomic<uint32_t> allocated_ips_{0};  // creates are admitted in parallel
};

}  // namespace gpupool::sandbox
