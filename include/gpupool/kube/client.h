// Typed-by-resource operations on any API resource, built-in or custom:
// get, list, create, update, update status, patch, delete, evict, bind.
// Objects are JSON; the `api` module turns them into gpupool types.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "gpupool/kube/resource.h"
#include "gpupool/kube/transport.h"

namespace gpupool::kube {

using Json = nlohmann::json;

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 0;  // Page size; 0: no paging.
  std::string continue_token;
  std::string resource_version;
  std::string resource_version_match;  // "NotOlderThan" or "Exact"
};

struct ListPage {
  Json items = Json::array();
  std::string resource_version;
  std::string continue_token;  // Empty on the last page.
};

struct WriteOptions {
  std::string field_manager;
  bool dry_run = false;
};

enum class PatchType { kMerge, kJson, kStrategicMerge, kApply };

struct PatchOptions {
  std::string field_manager;  // Required for kApply.
  bool force = false;         // kApply only: take over conflicting fields.
  std::string subresource;    // e.g. "status"
  bool dry_run = false;
};

struct DeleteOptions {
  std::optional<std::string> propagation_policy;  // "Foreground", "Background" or "Orphan"
  std::optional<int64_t> grace_period_seconds;
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  bool dry_run = false;

  Json ToJson() const;
};

class Client {
 public:
  Client(RestConfig config, TransportOptions options = {});
  explicit Client(std::shared_ptr<Transport> transport);

  Json Get(const Resource& resource, const std::string& ns, const std::string& name);
  // One page; `ns` empty lists across all namespaces.
  ListPage List(const Resource& resource, const std::string& ns, const ListOptions& options = {});
  // Every page, following continue tokens; items in server order.
  ListPage ListAll(const Resource& resource, const std::string& ns, ListOptions options = {});

  Json Create(const Resource& resource, const std::string& ns, const Json& object,
              const WriteOptions& options = {});
  // PUT of the whole object; its metadata.resourceVersion makes it a
  // compare-and-swap (Conflict when someone else wrote in between).
  Json Update(const Resource& resource, const std::string& ns, const Json& object,
              const WriteOptions& options = {});
  Json UpdateStatus(const Resource& resource, const std::string& ns, const Json& object,
                    const WriteOptions& options = {});
  Json Patch(const Resource& resource, const std::string& ns, const std::string& name,
             PatchType type, const Json& patch, const PatchOptions& options = {});
  // Server-side apply of `object` (which names itself) under `field_manager`.
  Json Apply(const Resource& resource, const std::string& ns, const Json& object,
             const std::string& field_manager, bool force = false);
  // Returns the server's answer: the object (when deletion is deferred by
  // finalizers or grace) or a Status.
  Json Delete(const Resource& resource, const std::string& ns, const std::string& name,
              const DeleteOptions& options = {});

  // policy/v1 Eviction of a pod (honours PodDisruptionBudgets server-side).
  void Evict(const std::string& ns, const std::string& pod, const DeleteOptions& options = {});
  // core/v1 Binding of a pod to a node.
  void Bind(const std::string& ns, const std::string& pod, const std::string& node);

  // Discovery: does the server serve `resource` (GET of its group/version)?
  bool Serves(const Resource& resource);

  // Raw request through the same transport (retries, rate limit, auth).
  Json Request(const std::string& method, const std::string& path, const Json* body = nullptr,
               const std::string& content_type = "application/json");

  Transport& transport() { return *transport_; }
  const std::string& default_namespace() const { return transport_->config().default_namespace; }

 private:
  std::shared_ptr<Transport> transport_;
};

// metadata.name / metadata.namespace / metadata.resourceVersion, "" when absent.
std::string NameOf(const Json& object);
std::string NamespaceOf(const Json& object);
std::string ResourceVersionOf(const Json& object);

}  // namespace gpupool::kube
