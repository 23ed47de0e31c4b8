// The Cluster's side of mutating admission webhooks: what a write reads for
// them under the store's lock, and when they are called (webhooks.h).
#include "sandbox/cluster.h"
#include "sandbox/store/object_meta.h"
#include "sandbox/webhooks/webhooks.h"

namespace gpupool::sandbox {
namespace {

Json LabelsIn(const Json& object) {
  if (!object.is_object() || !object.contains("metadata")) return Json::object();
  return object["metadata"].value("labels", Json::object());
}

}  // namespace

std::shared_ptr<const WebhookInputs> Cluster::ReadWebhookInputs(const ResourceType& resource,
                                                                const std::string& ns,
                                                                const Json& object) {
  const auto configurations =
      resources_.Find("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations");
  if (!configurations) return nullptr;
  const ObjectMap& stored = store_.Objects(StorageKey(*configurations));
  if (stored.empty()) return nullptr;
  auto inputs = std::make_shared<WebhookInputs>();
  for (const auto& [key, configuration] : stored) {
    inputs->configurations.push_back(configuration->Parsed());
  }
  if (resource.group.empty() && resource.kind == "Namespace") {
    inputs->namespace_labels = LabelsIn(object);
  } else if (resource.namespaced) {
    const auto namespace_object = store_.Get("/namespaces", ns);
    inputs->namespace_labels =
        namespace_object ? LabelsIn(namespace_object->Parsed()) : Json::object();
  }
  return inputs;
}

void Cluster::ReadUpdateWebhooks(const ResourceType& resource, const std::string& ns,
                                 WriteOptions& options) {
  if (options.user_info.is_null()) return;
  auto lock = store_.Lock();
  options.webhooks = ReadWebhookInputs(resource, ns, Json());
}

void Cluster::AdmitByWebhooks(const ResourceType& resource, const WebhookInputs* inputs,
                              const Json& old, const std::string& subresource,
                              WriteOptions& options, Json& object) {
  if (!inputs || options.user_info.is_null()) return;
  AdmissionAttributes attributes;
  attributes.resource = &resource;
  attributes.subresource = subresource;
  attributes.operation = old.is_null() ? "CREATE" : "UPDATE";
  const Json& metadata = object["metadata"];
  attributes.ns = resource.namespaced ? metadata.value("namespace", "") : "";
  attributes.name = metadata.value("name", "");
  attributes.old_object = old;
  attributes.namespace_labels = inputs->namespace_labels;
  CallMutatingWebhooks(*inputs, attributes, options, object);
}

}  // namespace gpupool::sandbox
