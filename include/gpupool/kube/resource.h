// Names an API resource (group/version/resource) and builds its URL paths.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpupool::kube {

struct Resource {
  std::string group;     // "" for the core group.
  std::string version;   // "v1"
  std::string resource;  // Lower-case plural: "pods".
  bool namespaced = true;

  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
  // "/api/v1/namespaces/ns/pods/name/status". An empty `ns` on a namespaced
  // resource means "all namespaces" (valid for list and watch only).
  std::string Path(std::string_view ns, std::string_view name = "",
                   std::string_view subresource = "") const;
};

namespace resources {
inline const Resource kPods{"", "v1", "pods", true};
inline const Resource kNodes{"", "v1", "nodes", false};
inline const Resource kNamespaces{"", "v1", "namespaces", false};
inline const Resource kServices{"", "v1", "services", true};
inline const Resource kConfigMaps{"", "v1", "configmaps", true};
inline const Resource kCoreEvents{"", "v1", "events", true};
inline const Resource kEvents{"events.k8s.io", "v1", "events", true};
inline const Resource kLeases{"coordination.k8s.io", "v1", "leases", true};
inline const Resource kQueues{"gpupool.dev", "v1alpha1", "queues", false};
inline const Resource kProjects{"gpupool.dev", "v1alpha1", "projects", false};
inline const Resource kDepartments{"gpupool.dev", "v1alpha1", "departments", false};
inline const Resource kTrainingJobs{"gpupool.dev", "v1alpha1", "trainingjobs", true};
}  // namespace resources

// Percent-encodes a query-string value.
std::string UrlEncode(std::string_view text);

// "?a=1&b=2" from the non-empty pairs; "" when all are empty.
std::string QueryString(const std::vector<std::pair<std::string, std::string>>& params);

}  // namespace gpupool::kube
