#include "sandbox/rules/known_fields.h"

#include <map>

#include "gpupool/json/field_error.h"
#include "sandbox/api_error.h"

namespace gpupool::sandbox {
namespace {

// Shapes, written as JSON: an object lists the known fields with the shape of
// each; "" is a value not looked into (free-form maps, statuses, deep
// structures); "@name" refers to another shape; [shape] is a list of shape.
// Only the levels clients commonly mistype are spelled out.
const char* const kShapes = R"({
  "@meta": {"name": "", "generateName": "", "namespace": "", "selfLink": "", "uid": "",
    "resourceVersion": "", "generation": "", "creationTimestamp": "", "deletionTimestamp": "",
    "deletionGracePeriodSeconds": "", "labels": "", "annotations": "", "finalizers": "",
    "managedFields": "", "ownerReferences": [{"apiVersion": "", "kind": "", "name": "",
      "uid": "", "controller": "", "blockOwnerDeletion": ""}]},
  "@container": {"name": "", "image": "", "command": "", "args": "", "workingDir": "",
    "ports": [{"name": "", "hostPort": "", "containerPort": "", "protocol": "", "hostIP": ""}],
    "envFrom": "", "env": [{"name": "", "value": "", "valueFrom": ""}],
    "resources": {"limits": "", "requests": "", "claims": ""}, "resizePolicy": "",
    "restartPolicy": "", "volumeMounts": [{"name": "", "readOnly": "", "recursiveReadOnly": "",
      "mountPath": "", "subPath": "", "mountPropagation": "", "subPathExpr": ""}],
    "volumeDevices": "", "livenessProbe": "", "readinessProbe": "", "startupProbe": "",
    "lifecycle": "", "terminationMessagePath": "", "terminationMessagePolicy": "",
    "imagePullPolicy": "", "securityContext": "", "stdin": "", "stdinOnce": "", "tty": ""},
  "@podSpec": {"volumes": "", "initContainers": ["@container"], "containers": ["@container"],
    "ephemeralContainers": "", "restartPolicy": "", "terminationGracePeriodSeconds": "",
    "activeDeadlineSeconds": "", "dnsPolicy": "", "nodeSelector": "", "serviceAccountName": "",
    "serviceAccount": "", "automountServiceAccountToken": "", "nodeName": "", "hostNetwork": "",
    "hostPID": "", "hostIPC": "", "shareProcessNamespace": "", "securityContext": "",
    "imagePullSecrets": "", "hostname": "", "subdomain": "", "affinity": "", "schedulerName": "",
    "tolerations": [{"key": "", "operator": "", "value": "", "effect": "",
      "tolerationSeconds": ""}],
    "hostAliases": "", "priorityClassName": "", "priority": "", "dnsConfig": "",
    "readinessGates": "", "runtimeClassName": "", "enableServiceLinks": "",
    "preemptionPolicy": "", "overhead": "", "topologySpreadConstraints": "",
    "setHostnameAsFQDN": "", "os": "", "hostUsers": "", "schedulingGates": [{"name": ""}],
    "resourceClaims": ""},
  "@objectReference": {"kind": "", "namespace": "", "name": "", "uid": "", "apiVersion": "",
    "resourceVersion": "", "fieldPath": ""},
  "Pod": {"spec": "@podSpec", "status": ""},
  "Node": {"spec": {"podCIDR": "", "podCIDRs": "", "providerID": "", "unschedulable": "",
    "taints": [{"key": "", "value": "", "effect": "", "timeAdded": ""}], "configSource": "",
    "externalID": ""}, "status": ""},
  "Namespace": {"spec": {"finalizers": ""}, "status": ""},
  "Service": {"spec": {"ports": [{"name": "", "protocol": "", "appProtocol": "", "port": "",
      "targetPort": "", "nodePort": ""}], "selector": "", "clusterIP": "", "clusterIPs": "",
    "type": "", "externalIPs": "", "sessionAffinity": "", "loadBalancerIP": "",
    "loadBalancerSourceRanges": "", "externalName": "", "externalTrafficPolicy": "",
    "healthCheckNodePort": "", "publishNotReadyAddresses": "", "sessionAffinityConfig": "",
    "ipFamilies": "", "ipFamilyPolicy": "", "allocateLoadBalancerNodePorts": "",
    "loadBalancerClass": "", "internalTrafficPolicy": "", "trafficDistribution": ""},
    "status": ""},
  "ConfigMap": {"data": "", "binaryData": "", "immutable": ""},
  "Secret": {"data": "", "stringData": "", "type": "", "immutable": ""},
  "Event": {"involvedObject": "@objectReference", "reason": "", "message": "",
    "source": {"component": "", "host": ""}, "firstTimestamp": "", "lastTimestamp": "",
    "count": "", "type": "", "eventTime": "", "series": {"count": "", "lastObservedTime": ""},
    "action": "", "related": "@objectReference", "reportingComponent": "",
    "reportingInstance": ""},
  "Event.events.k8s.io": {"regarding": "@objectReference", "related": "@objectReference",
    "note": "", "reason": "", "type": "", "eventTime": "", "action": "",
    "series": {"count": "", "lastObservedTime": ""}, "reportingController": "",
    "reportingInstance": "", "deprecatedSource": {"component": "", "host": ""},
    "deprecatedFirstTimestamp": "", "deprecatedLastTimestamp": "", "deprecatedCount": ""},
  "Lease.coordination.k8s.io": {"spec": {"holderIdentity": "", "leaseDurationSeconds": "",
    "acquireTime": "", "renewTime": "", "leaseTransitions": "", "strategy": "",
    "preferredHolder": ""}},
  "PriorityClass.scheduling.k8s.io": {"value": "", "globalDefault": "", "description": "",
    "preemptionPolicy": ""},
  "PodDisruptionBudget.policy": {"spec": {"minAvailable": "", "selector": "",
    "maxUnavailable": "", "unhealthyPodEvictionPolicy": ""}, "status": ""},
  "CustomResourceDefinition.apiextensions.k8s.io": {"spec": {"group": "", "names": "",
    "scope": "", "versions": [{"name": "", "served": "", "storage": "", "deprecated": "",
      "deprecationWarning": "", "schema": "", "subresources": "",
      "additionalPrinterColumns": "", "selectableFields": ""}], "conversion": "",
    "preserveUnknownFields": ""}, "status": ""},
  "MutatingWebhookConfiguration.admissionregistration.k8s.io": {"webhooks": [{"name": "",
    "clientConfig": {"url": "", "service": {"namespace": "", "name": "", "path": "", "port": ""},
      "caBundle": ""}, "rules": [{"operations": "", "apiGroups": "", "apiVersions": "",
      "resources": "", "scope": ""}], "failurePolicy": "", "matchPolicy": "",
    "namespaceSelector": "", "objectSelector": "", "sideEffects": "", "timeoutSeconds": "",
    "admissionReviewVersions": "", "reinvocationPolicy": "", "matchConditions": ""}]},
  "@policyRule": {"verbs": "", "apiGroups": "", "resources": "", "resourceNames": "",
    "nonResourceURLs": ""},
  "@binding": {"subjects": [{"kind": "", "apiGroup": "", "name": "", "namespace": ""}],
    "roleRef": {"apiGroup": "", "kind": "", "name": ""}},
  "ServiceAccount": {"secrets": "", "imagePullSecrets": "", "automountServiceAccountToken": ""},
  "Role.rbac.authorization.k8s.io": {"rules": ["@policyRule"]},
  "ClusterRole.rbac.authorization.k8s.io": {"rules": ["@policyRule"], "aggregationRule": ""},
  "RoleBinding.rbac.authorization.k8s.io": "@binding",
  "ClusterRoleBinding.rbac.authorization.k8s.io": "@binding",
  "Deployment.apps": {"spec": {"replicas": "", "selector": "", "template": {"metadata": "@meta",
      "spec": "@podSpec"}, "strategy": "", "minReadySeconds": "", "revisionHistoryLimit": "",
    "paused": "", "progressDeadlineSeconds": ""}, "status": ""},
  "Job.batch": {"spec": {"parallelism": "", "completions": "", "completionMode": "",
      "activeDeadlineSeconds": "", "backoffLimit": "", "backoffLimitPerIndex": "",
      "maxFailedIndexes": "", "podFailurePolicy": "", "podReplacementPolicy": "",
      "successPolicy": "", "managedBy": "", "selector": "", "manualSelector": "", "suspend": "",
      "ttlSecondsAfterFinished": "", "template": {"metadata": "@meta", "spec": "@podSpec"}},
    "status": ""}
})";

const Json& Shapes() {
  static const Json shapes = Json::parse(kShapes);
  return shapes;
}

const Json& Resolve(const Json& shape) {
  // json::empty() is false for every string: test the text itself.
  if (!shape.is_string() || shape.get_ref<const std::string&>().empty()) return shape;
  return Shapes().at(shape.get<std::string>());
}

void Drop(const Json& raw_shape, Json& value, const std::string& path,
          std::vector<std::string>& dropped) {
  const Json& shape = Resolve(raw_shape);
  if (shape.is_array() && value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i)
      Drop(shape[0], value[i], json::Child(path, i), dropped);
    return;
  }
  if (!shape.is_object() || !value.is_object()) return;
  for (auto it = value.begin(); it != value.end();) {
    const std::string key = it.key();
    if (!shape.contains(key)) {
      dropped.push_back(json::Child(path, key));
      it = value.erase(it);
      continue;
    }
    Drop(shape[key], it.value(), json::Child(path, key), dropped);
    ++it;
  }
}

}  // namespace

std::vector<std::string> DropUnknownFields(const ResourceType& resource, Json& object) {
  std::vector<std::string> dropped;
  if (resource.IsCustom() || !object.is_object()) return dropped;
  const std::string name =
      resource.group.empty() ? resource.kind : resource.kind + "." + resource.group;
  if (!Shapes().contains(name)) return dropped;
  Json shape = Resolve(Shapes().at(name));
  shape["apiVersion"] = "";
  shape["kind"] = "";
  shape["metadata"] = "@meta";
  Drop(shape, object, "", dropped);
  return dropped;
}

void CheckKnownFields(const ResourceType& resource, Json& object, WriteOptions& options) {
  const Json given = options.strict_fields && options.json_patch ? object : Json();
  const auto unknown = DropUnknownFields(resource, object);
  if (unknown.empty()) return;
  if (options.strict_fields) {
    ThrowStrictDecodingError(unknown,
                             resource.kind + " in version \"" + resource.version +
                                 "\" cannot be handled as a " + resource.kind + ": ",
                             given, options);
  }
  WarnOfUnknownFields(unknown, options);
}

void WarnOfUnknownFields(const std::vector<std::string>& unknown, WriteOptions& options) {
  if (options.ignore_fields) return;
  for (const auto& path : unknown) options.warnings.push_back("unknown field \"" + path + "\"");
}

void ThrowStrictDecodingError(const std::vector<std::string>& unknown,
                              const std::string& bad_request, const Json& object,
                              const WriteOptions& options) {
  std::string message = "strict decoding error: ";
  for (size_t i = 0; i < unknown.size(); ++i) {
    message += (i ? ", " : "") + std::string("unknown field \"") + unknown[i] + "\"";
  }
  if (!options.json_patch) throw BadRequest(bad_request + message);
  throw Invalid("", "",
                {{"patch", "Invalid value: " + Json(object.dump()).dump() + ": " + message}});
}

}  // namespace gpupool::sandbox
