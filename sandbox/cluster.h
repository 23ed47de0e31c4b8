// The API server's semantics, independent of HTTP: create/get/list/update/
// patch/delete over the store with admission (defaults, validation, the pod
// rules, custom resource schemas), resourceVersions, finalizers and graceful
// deletion. HTTP handlers and the simulated controllers both call this.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sandbox/admission.h"
#include "sandbox/patch.h"
#include "sandbox/resource_type.h"
#include "sandbox/store.h"

namespace gpupool::sandbox {

struct DeleteOptions {
  std::optional<int64_t> grace_seconds;
  std::string propagation;  // "", "Orphan", "Background" or "Foreground"
  std::string uid_precondition;
  std::string rv_precondition;
  bool dry_run = false;
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  size_t limit = 0;
  std::string continue_token;
  std::string resource_version;
};

struct ListResult {
  std::vector<ObjectPtr> items;
  uint64_t rv = 0;
  std::string continue_token;
  int64_t remaining = -1;  // only with a continue token
};

struct ClusterConfig {
  size_t history_window = 10000;
};

class Cluster {
 public:
  explicit Cluster(const ClusterConfig& config);

  ResourceRegistry& resources() { return resources_; }
  Store& store() { return store_; }
  // The served resource; throws 404 NotFound when it is not served.
  ResourcePtr Resource(const std::string& group, const std::string& version,
                       const std::string& plural) const;

  Json Create(const ResourceType& resource, const std::string& ns, Json object,
              WriteOptions& options);
  Json Get(const ResourceType& resource, const std::string& ns, const std::string& name);
  ObjectPtr GetStored(const ResourceType& resource, const std::string& ns, const std::string& name);
  ListResult List(const ResourceType& resource, const std::string& ns, const ListOptions& options);
  Json Update(const ResourceType& resource, const std::string& ns, const std::string& name,
              Json object, const std::string& subresource, WriteOptions& options);
  Json Patch(const ResourceType& resource, const std::string& ns, const std::string& name,
             PatchType type, const std::string& body, const std::string& subresource,
             WriteOptions& options);
  // Server-side apply of an apply-patch body: creates the object when it is
  // missing (not through a subresource), else updates it.
  struct Applied {
    Json object;
    bool created = false;
  };
  Applied Apply(const ResourceType& resource, const std::string& ns, const std::string& name,
                const std::string& body, const std::string& subresource, WriteOptions& options);
  Json Delete(const ResourceType& resource, const std::string& ns, const std::string& name,
              const DeleteOptions& options);
  // pods/binding and pods/eviction.
  Json Bind(const std::string& ns, const std::string& name, const Json& binding);
  Json Evict(const std::string& ns, const std::string& name, const Json& eviction);

  // Read-modify-write for the simulated controllers: `change` edits the
  // object and returns false to skip the write. Returns false when the object
  // is gone. Conflicts cannot happen: the store lock is held throughout.
  // `manager` names the simulated component in managedFields.
  bool Mutate(const ResourceType& resource, const std::string& ns, const std::string& name,
              const std::function<bool(Json&)>& change, const std::string& subresource = "",
              const std::string& manager = "kube-controller-manager");

 private:
  Json CreateLocked(const ResourceType& resource, const std::string& ns, Json object,
                    WriteOptions& options);
  Applied ApplyConfig(const ResourceType& resource, const std::string& ns, const std::string& name,
                      Json config, const std::string& subresource, WriteOptions& options);
  Json UpdateLocked(const ResourceType& resource, const Json& old, Json object,
                    const std::string& subresource, WriteOptions& options);
  Json DeleteLocked(const ResourceType& resource, const Json& old, const DeleteOptions& options);
  // Stores `object` with a new resourceVersion; `stored`, when given, is set
  // to the stored form.
  Json Commit(const ResourceType& resource, Json object, bool dry_run, ObjectPtr* stored = nullptr);
  Json RemoveNow(const ResourceType& resource, Json object, bool dry_run);
  Json ParseStored(const ResourceType& resource, const std::string& ns, const std::string& name);
  void CheckNamespace(const ResourceType& resource, const std::string& ns);
  // The core Events, which also store what events.k8s.io writes.
  ResourcePtr CoreEvents() const;
  void ResolvePriority(Json& pod);
  ObjectPtr DefaultPriorityClass() const;
  // The PriorityClass last read by a pod create, parsed: stored objects never
  // change, so the pointer tells whether the parse still holds.
  const Json& ParsedClass(const ObjectPtr& stored);
  bool PdbForbidsEviction(const Json& pod);

  ResourceRegistry resources_;
  Store store_;
  Admission admission_;
  ObjectPtr parsed_class_;  // guarded by the store's lock, as all writes
  Json parsed_class_json_;
};

}  // namespace gpupool::sandbox
