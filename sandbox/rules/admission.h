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
#include "sandbox/store/store.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;
struct WebhookInputs;

struct WriteOptions {
  bool dry_run = false;
  bool strict_fields = false;         // fieldValidation=Strict: unknown fields are errors
  bool ignore_fields = false;         // fieldValidation=Ignore: dropped without a warning
  bool via_events_api = false;        // an Event written through events.k8s.io
  bool json_patch = false;            // a merge or JSON patch: strict errors name "patch"
  std::string field_manager;          // who the write's managedFields entry names
  bool force = false;                 // an apply takes over conflicting fields
  bool applied = false;               // the object carries the managedFields an apply made
  std::vector<std::string> warnings;  // returned as Warning headers
  ObjectPtr stored;  // set by a create or update to what it stored: the answer, serialized
  // The requester as an AdmissionReview names it ({"username", "groups"}):
  // set by the HTTP front end. Null for the server's own writes (the
  // simulated controllers), which no admission webhook is called for.
  Json user_info;
  // An update's mutating webhooks, read under the store's lock before it.
  std::shared_ptr<const WebhookInputs> webhooks;
};

class Admission {
 public:
  explicit Admission(ResourceRegistry& resources) : resources_(resources) {}

  // Defaults and validation of a new object; throws ApiError (422 Invalid).
  void OnCreate(const ResourceType& resource, Json& object, WriteOptions& options);
  // Validation of an update (`object` already carries the preserved metadata).
  void OnUpdate(const ResourceType& resource, const Json& old, Json& object,
                const std::string& subresource, WriteOptions& options);
  // Unknown fields of built-in kinds: 400 with fieldValidation=Strict, else
  // dropped with a warning (none with Ignore), as the real decoder does.
  void CheckKnownFields(const ResourceType& resource, Json& object, WriteOptions& options);
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
