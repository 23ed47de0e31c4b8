// The last step of every write, with the store's lock held: what only the
// current state can refuse (a name already taken), the new resourceVersion,
// the stored form, and what follows a write (a CRD's resources, a new
// namespace's default ServiceAccount).
#include "sandbox/api_error.h"
#include "sandbox/cluster.h"
#include "sandbox/http/body_limits.h"
#include "sandbox/store/object_meta.h"
#include "sandbox/store/stored_form.h"

namespace gpupool::sandbox {

Json Cluster::FinishCreate(const ResourceType& resource, Json object, WriteOptions& options) {
  const auto& metadata = object["metadata"];
  const std::string name = metadata.value("name", "");
  if (store_.Get(StorageKey(resource), ObjectKey(metadata.value("namespace", ""), name))) {
    throw AlreadyExists(resource.QualifiedName(), name);
  }
  Json created = Commit(resource, std::move(object), options.dry_run, &options.stored);
  if (resource.group.empty() && resource.kind == "Namespace" && !options.dry_run)
    CreateDefaultServiceAccount(name);
  return created;
}

Json Cluster::Commit(const ResourceType& resource, Json object, bool dry_run,
                     ObjectPtr* stored_form) {
  if (dry_run) return object;
  const uint64_t rv = store_.NextVersion();
  object["metadata"]["resourceVersion"] = std::to_string(rv);
  auto stored = MakeStored(resource, object, rv);
  CheckObjectSize(stored->json);  // a skipped resourceVersion is harmless
  store_.Put(StorageKey(resource), ObjectKey(stored->ns, stored->name), stored);
  admission_.AfterWrite(resource, object);
  if (stored_form) *stored_form = std::move(stored);
  return object;
}

Json Cluster::RemoveNow(const ResourceType& resource, Json object, bool dry_run) {
  if (dry_run) return object;
  const uint64_t rv = store_.NextVersion();
  object["metadata"]["resourceVersion"] = std::to_string(rv);
  auto stored = MakeStored(resource, object, rv);
  store_.Remove(StorageKey(resource), ObjectKey(stored->ns, stored->name), stored);
  admission_.AfterDelete(resource, object, store_);
  return object;
}

Json Cluster::FinishUpdate(const ResourceType& resource, PreparedUpdate& update,
                           WriteOptions& options) {
  options = std::move(update.options);
  if (update.unchanged) return std::move(update.old);
  Json& object = update.object;
  const auto& metadata = object["metadata"];
  bool finalizers_done = !metadata.contains("finalizers") || metadata["finalizers"].empty();
  if (resource.group.empty() && resource.kind == "Namespace") {
    finalizers_done = finalizers_done && object["spec"].value("finalizers", Json::array()).empty();
  }
  const bool pod_terminating = resource.kind == "Pod" && resource.group.empty() &&
                               metadata.value("deletionGracePeriodSeconds", 0) > 0;
  if (metadata.contains("deletionTimestamp") && finalizers_done && !pod_terminating) {
    return RemoveNow(resource, std::move(object), options.dry_run);
  }
  return Commit(resource, std::move(object), options.dry_run, &options.stored);
}

}  // namespace gpupool::sandbox
