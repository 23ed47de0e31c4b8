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
  // Create only. A create whose attempt failed ambiguously (sent, no answer)
  // is sent again; if the first attempt had been applied the repeat meets
  // AlreadyExists. Naming a label and/or an annotation whose value in the
  // object sent is unique to this write lets Create recognise that object as
  // its own and return it instead: it is ours when every named key has the
  // same value on it as on the object sent, and its ownerReferences carry the
  // same set of uids. Otherwise (nothing named, not ours, or no ambiguous
  // attempt before) AlreadyExists is thrown.
  std::string identity_label;
  std::string identity_annotation;
  // The caller has no use for the object the server answers with: it is not
  // parsed, and the call returns an empty object. Errors are reported as ever.
  bool ignore_answer = false;
};

enum class PatchType { kMerge, kJson, kStrategicMerge, kApply };

struct PatchOptions {
  std::string field_manager;  // Required for kApply.
  bool force = false;         // kApply only: take over conflicting fields.
  std::string subresource;    // e.g. "status"
  bool dry_run = false;
  // Non-empty: the patch applies only to this resourceVersion (Conflict, or
  // Invalid for a failed JSON-patch test, otherwise). Merge, strategic merge
  // and apply patches get metadata.resourceVersion; a JSON patch gets a
  // leading {"op":"test","path":"/metadata/resourceVersion"}. A patch with a
  // precondition (given here or already in the patch) or a server-side apply
  // is repeated after an ambiguous failure, any other patch never is.
  std::string precondition_resource_version;
  // As WriteOptions::ignore_answer.
  bool ignore_answer = false;
};

// `patch` with a resourceVersion precondition added as described above.
Json WithPrecondition(PatchType type, const Json& patch, const std::string& resource_version);
// Whether `patch` already carries a resourceVersion precondition.
bool HasPrecondition(PatchType type, const Json& patch);

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

  // A named object's create is repeated after an ambiguous failure (the server
  // refuses a second object of that name; see WriteOptions for how the
  // AlreadyExists that may follow is resolved). A generateName create is not.
  Json Create(const Resource& resource, const std::string& ns, const Json& object,
              const WriteOptions& options = {});
  // The create of a named object already encoded as JSON text (`body`), repeated
  // as Create repeats it; its answer is not read (WriteOptions::ignore_answer).
  void CreateEncoded(const Resource& resource, const std::string& ns, std::string body);
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
  // finalizers or grace) or a Status. Repeated after an ambiguous failure only
  // with a uid or resourceVersion precondition: without one a repeat could
  // delete a new object that took the name meanwhile.
  Json Delete(const Resource& resource, const std::string& ns, const std::string& name,
              const DeleteOptions& options = {});

  // policy/v1 Eviction of a pod (honours PodDisruptionBudgets server-side).
  // Repeated after an ambiguous failure: evicting a pod twice deletes it once.
  void Evict(const std::string& ns, const std::string& pod, const DeleteOptions& options = {});
  // core/v1 Binding of a pod to a node. Repeated after an ambiguous failure: a
  // pod is bound once; the repeat of an applied binding meets Conflict.
  void Bind(const std::string& ns, const std::string& pod, const std::string& node);

  // Discovery: does the server serve `resource` (GET of its group/version)?
  bool Serves(const Resource& resource);

  // Raw request through the same transport (retries, rate limit, auth);
  // repeated after an ambiguous failure as `repeat` says.
  Json Request(const std::string& method, const std::string& path, const Json* body = nullptr,
               const std::string& content_type = "application/json",
               RepeatSafety repeat = RepeatSafety::kByVerb);

  // As Request, but the answer's body is not parsed (see WriteOptions::ignore_answer).
  void RequestIgnoringAnswer(const std::string& method, const std::string& path, const Json& body,
                             const std::string& content_type, RepeatSafety repeat);
  // Shutdown: see Transport::Cancel.
  void Cancel() { transport_->Cancel(); }

  Transport& transport() { return *transport_; }
  const std::string& default_namespace() const { return transport_->config().default_namespace; }

 private:
  std::shared_ptr<Transport> transport_;
};

// metadata.name / metadata.namespace / metadata.resourceVersion, "" when absent.
std::string NameOf(const Json& object);
std::string NamespaceOf(const Json& object);
std::string ResourceVersionOf(const Json& object);

// Whether `existing` is the object `sent` by a create with `options` (see
// WriteOptions::identity_label); false when no identity key is named.
bool IsSameCreation(const Json& sent, const Json& existing, const WriteOptions& options);

}  // namespace gpupool::kube
