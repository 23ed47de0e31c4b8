// Server-side apply through the Cluster: the apply itself is in apply.cpp;
// here it meets the store, admission and the events.k8s.io view.
#include "sandbox/api_error.h"
#include "sandbox/cluster.h"
#include "sandbox/rules/known_fields.h"
#include "sandbox/store/apply.h"
#include "sandbox/store/events.h"
#include "sandbox/store/managed_fields.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

// metadata.resourceVersion of an applied configuration: a precondition.
std::string WantedVersion(const Json& config) {
  const Json& metadata = MetadataOf(config);
  const auto found = metadata.find("resourceVersion");
  if (found == metadata.end() || found->is_null()) return "";
  if (!found->is_string()) throw BadRequest("metadata.resourceVersion must be a string");
  return found->get<std::string>();
}

}  // namespace

Cluster::Applied Cluster::Apply(const ResourceType& resource, const std::string& ns,
                                const std::string& name, const std::string& body,
                                const std::string& subresource, WriteOptions& options) {
  Json config = ParseApplyConfig(body);
  CheckApplyTarget(resource, config, ns, name);
  const ResourcePtr core_events = CoreEventsFor(resource, options);
  if (core_events) config = EventToCore(std::move(config));
  Applied applied = ApplyConfig(core_events ? *core_events : resource, ns, name, std::move(config),
                                subresource, options);
  if (core_events) applied.object = EventFromCore(std::move(applied.object));
  return applied;
}

Cluster::Applied Cluster::ApplyConfig(const ResourceType& resource, const std::string& ns,
                                      const std::string& name, Json config,
                                      const std::string& subresource, WriteOptions& options) {
  CheckKnownFields(resource, config, options);
  const ApplyRequest request{options.field_manager, options.force, subresource};
  const std::string wanted_rv = WantedVersion(config);
  options.applied = true;
  // An apply computes its write under the lock: webhooks are called with it held.
  ReadUpdateWebhooks(resource, ns, options);
  auto lock = store_.Lock();
  auto stored = store_.Get(StorageKey(resource), ObjectKey(resource.namespaced ? ns : "", name));
  const std::string stored_rv = stored ? std::to_string(stored->rv) : "";
  if (!wanted_rv.empty() && wanted_rv != stored_rv) {
    throw Conflict(resource.QualifiedName(), name,
                   "the object has been modified; please apply your changes to the latest "
                   "version and try again");
  }
  if (!stored) {
    if (!subresource.empty()) throw NotFound(resource.QualifiedName(), name);
    Json object = ServerSideApply(resource, Json::object(), config, request);
    return {CreateLocked(resource, ns, std::move(object), options), true};
  }
  Json old = stored->Parsed();
  Json object = ServerSideApply(resource, old, config, request);
  return {UpdateLocked(resource, std::move(old), std::move(object), subresource, options), false};
}

}  // namespace gpupool::sandbox
