// The API server's semantics, independent of HTTP: create/get/list/update/
// patch/delete over the store with admission (defaults, validation, the pod
// rules, custom resource schemas), resourceVersions, finalizers and graceful
// deletion. HTTP handlers and the simulated controllers both call this.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sandbox/rules/admission.h"
#include "sandbox/rules/pod_admission.h"
#include "sandbox/rules/resource_type.h"
#include "sandbox/store/patch.h"
#include "sandbox/store/store.h"

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
  size_t history_window = kDefaultHistoryWindow;
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
  // `stored`, when given, is set to what the binding stored.
  Json Bind(const std::string& ns, const std::string& name, const Json& binding,
            ObjectPtr* stored = nullptr);
  Json Evict(const std::string& ns, const std::string& name, const Json& eviction);

  // How many times a write computed without the store's lock may lose a race
  // to other writes before it is computed again under the lock.
  static constexpr int kOptimisticTries = 4;

  // Read-modify-write for the simulated controllers: `change` edits the
  // object and returns false to skip the write. Returns false when the object
  // is gone. Conflicts never reach the caller: a lost race runs `change` again
  // on the newer state. `manager` names the simulated component in managedFields;
  // `stored`, when given, is set to what was stored (null: nothing).
  bool Mutate(const ResourceType& resource, const std::string& ns, const std::string& name,
              const std::function<bool(Json&)>& change, const std::string& subresource = "",
              const std::string& manager = "kube-controller-manager", ObjectPtr* stored = nullptr);

 private:
  // A create in four steps: the request's namespace (no lock); what admission
  // reads from the store (lock held); the object as it will be stored, from
  // defaults, validation, admission and managedFields (no lock); and the store
  // (lock held, cluster_commit.cpp), where an existing object refuses it.
  // CreateLocked runs all four under a lock already held.
  Json CreateLocked(const ResourceType& resource, const std::string& ns, Json object,
                    WriteOptions& options);
  struct CreateInputs {
    PodAdmissionInputs pod;                         // of a pod only
    std::shared_ptr<const WebhookInputs> webhooks;  // null when none is configured
  };
  static void SetCreateNamespace(const ResourceType& resource, const std::string& ns,
                                 Json& metadata);
  CreateInputs ReadCreateInputs(const ResourceType& resource, const std::string& ns,
                                const Json& object);
  Json PrepareCreate(const ResourceType& resource, Json object, const CreateInputs& inputs,
                     WriteOptions& options);
  Json FinishCreate(const ResourceType& resource, Json object, WriteOptions& options);
  // The mutating webhook configurations and the labels of `ns` (of a
  // Namespace `object`, its own); null when no configuration exists. Lock held.
  std::shared_ptr<const WebhookInputs> ReadWebhookInputs(const ResourceType& resource,
                                                         const std::string& ns, const Json& object);
  // Sets options.webhooks for an update the front end received. An update
  // computed under the lock after lost races (WriteFromStored) then calls
  // them with the lock held: a webhook that writes back to the sandbox would
  // wait for it.
  void ReadUpdateWebhooks(const ResourceType& resource, const std::string& ns,
                          WriteOptions& options);
  // Calls the matching mutating webhooks for a write the front end received
  // (options.user_info set); `old` is null for a create (cluster_webhooks.cpp).
  static void AdmitByWebhooks(const ResourceType& resource, const WebhookInputs* inputs,
                              const Json& old, const std::string& subresource,
                              WriteOptions& options, Json& object);
  void CreateDefaultServiceAccount(const std::string& ns);
  Applied ApplyConfig(const ResourceType& resource, const std::string& ns, const std::string& name,
                      Json config, const std::string& subresource, WriteOptions& options);
  Json UpdateLocked(const ResourceType& resource, Json old, Json object,
                    const std::string& subresource, WriteOptions& options);
  // An update computed from the stored state it read, without the store's lock.
  struct PreparedUpdate {
    Json old;                // the state it was computed from
    Json object;             // the state to store
    WriteOptions options;    // as admission left them (warnings, ...)
    bool unchanged = false;  // nothing but the resourceVersion would change
  };
  // Everything of an update that reads only the two states: metadata rules,
  // admission, generation and managedFields.
  PreparedUpdate PrepareUpdate(const ResourceType& resource, Json old, Json object,
                               const std::string& subresource, WriteOptions options);
  // The rest, with the lock held: stores the update, or removes the object
  // when its deletion is complete.
  Json FinishUpdate(const ResourceType& resource, PreparedUpdate& update, WriteOptions& options);
  // A write computed from the stored object as the real server's guaranteed
  // update is: `prepare` builds the next state from the stored one with the
  // store unlocked (parsing, patching, validation and managedFields: most of a
  // write's cost), and `finish` stores it under the lock if nothing was stored
  // in between; otherwise it starts over from the newer state. After
  // kOptimisticTries lost races the whole runs under the lock, so a hot object
  // still gets written. Throws NotFound when the object is missing.
  template <typename Prepare, typename Finish>
  auto WriteFromStored(const ResourceType& resource, const std::string& ns, const std::string& name,
                       Prepare prepare, Finish finish);
  // The stored object, or NotFound; the lock is held.
  ObjectPtr StoredOrNotFound(const ResourceType& resource, const std::string& ns,
                             const std::string& name);
  Json DeleteLocked(const ResourceType& resource, const Json& old, const DeleteOptions& options);
  // Stores `object` with a new resourceVersion; `stored`, when given, is set
  // to the stored form (cluster_commit.cpp, as FinishCreate, FinishUpdate
  // and RemoveNow).
  Json Commit(const ResourceType& resource, Json object, bool dry_run, ObjectPtr* stored = nullptr);
  Json RemoveNow(const ResourceType& resource, Json object, bool dry_run);
  Json ParseStored(const ResourceType& resource, const std::string& ns, const std::string& name);
  void CheckNamespace(const ResourceType& resource, const std::string& ns);
  // The core Events, which also store what events.k8s.io writes.
  ResourcePtr CoreEvents() const;
  // An Event written through events.k8s.io is stored as a core Event: the
  // core resource, noted in `options`; null for any other write.
  ResourcePtr CoreEventsFor(const ResourceType& resource, WriteOptions& options) const;
  bool PdbForbidsEviction(const Json& pod);
  // Assigns `pod` to `node` as a binding does, or throws the Conflict that refuses it.
  static void BindPod(Json& pod, const std::string& name, const std::string& node,
                      const Json* annotations);

  ResourceRegistry resources_;
  Store store_;
  Admission admission_;
  PodAdmission pod_admission_;
};

template <typename Prepare, typename Finish>
auto Cluster::WriteFromStored(const ResourceType& resource, const std::string& ns,
                              const std::string& name, Prepare prepare, Finish finish) {
  for (int tries = 0; tries < kOptimisticTries; ++tries) {
    ObjectPtr base;
    {
      auto lock = store_.Lock();
      base = StoredOrNotFound(resource, ns, name);
    }
    auto prepared = prepare(base);
    auto lock = store_.Lock();
    if (StoredOrNotFound(resource, ns, name) == base) return finish(prepared);
  }
  auto lock = store_.Lock();
  auto prepared = prepare(StoredOrNotFound(resource, ns, name));
  return finish(prepared);
}

}  // namespace gpupool::sandbox
