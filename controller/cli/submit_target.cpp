#include "submit_target.h"

#include <algorithm>
#include <optional>

#include "gpupool/json/quantity.h"
#include "gpupool/kube/client.h"
#include "json_fields.h"

namespace gpupool::cli {
namespace {

using Json = nlohmann::json;

const Json* Named(const std::vector<Json>& objects, const std::string& name) {
  for (const Json& object : objects)
    if (kube::NameOf(object) == name) return &object;
  return nullptr;
}

std::string Joined(const std::vector<std::string>& names) {
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

std::string Suggestion(const std::string& name, const std::vector<std::string>& names) {
  const std::string closest = ClosestName(name, names);
  return closest.empty() ? "" : " (did you mean " + closest + "?)";
}

std::vector<std::string> StringsAt(const Json& object, const char* key) {
  std::vector<std::string> values;
  const auto found = object.find(key);
  if (found == object.end() || !found->is_array()) return values;
  for (const Json& item : *found)
    if (item.is_string()) values.push_back(item.get<std::string>());
  return values;
}

const Json& FindProject(const std::string& name, const std::vector<Json>& projects) {
  if (const Json* project = Named(projects, name)) return *project;
  std::vector<std::string> names;
  for (const Json& project : projects) names.push_back(kube::NameOf(project));
  if (names.empty())
    throw SubmitRefused("--project: no project named " + name +
                        "; the cluster has no Projects yet (an admin creates them: kubectl get "
                        "projects)");
  throw SubmitRefused("--project: no project named " + name + Suggestion(name, names) +
                      "; the projects are " + Joined(names));
}

std::string NamespaceIn(const SubmitRequest& request, const Json& spec) {
  const auto namespaces = StringsAt(spec, "namespaces");
  if (namespaces.empty())
    throw SubmitRefused("--project: project " + request.project + " names no namespace");
  if (request.cluster.ns.empty()) return namespaces.front();
  if (std::find(namespaces.begin(), namespaces.end(), request.cluster.ns) != namespaces.end())
    return request.cluster.ns;
  throw SubmitRefused("-n: namespace " + request.cluster.ns + " is not project " + request.project +
                      "'s; its namespaces are " + Joined(namespaces));
}

const Json& QuotaIn(const SubmitRequest& request, const Json& spec) {
  const Json quotas = spec.value("quotas", Json::array());
  std::vector<std::string> queues;
  for (const Json& quota : quotas) queues.push_back(quota.value("queue", std::string()));
  const std::string& project = request.project;
  if (queues.empty())
    throw SubmitRefused("--project: project " + project + " has no quota in any queue");
  std::string queue = request.queue;
  if (queue.empty() && queues.size() > 1)
    throw SubmitRefused("--queue: project " + project + " has quotas in " + Joined(queues) +
                        "; say which with --queue");
  if (queue.empty()) queue = queues.front();
  const auto at = std::find(queues.begin(), queues.end(), queue);
  if (at == queues.end())
    throw SubmitRefused("--queue: project " + project + " has no quota in queue " + queue +
                        Suggestion(queue, queues) + "; its queues are " + Joined(queues));
  return spec["quotas"][static_cast<std::size_t>(at - queues.begin())];
}

void CheckFits(const SubmitRequest& request, const Json& quota, const Json& queue) {
  const int64_t total = request.gpu_milli * request.replicas;
  const std::string asked = "--gpus: " + json::FormatDecimal(total) + " GPUs";
  const std::string name = quota.value("queue", std::string());
  const Json spec = queue.value("spec", Json::object());
  const auto gpu = MilliAt(quota, "gpu");
  if (spec.value("sharing", std::string("Guaranteed")) == "Fixed" && gpu && total > *gpu)
    throw SubmitRefused(asked + " is more than project " + request.project + "'s fixed quota of " +
                        json::FormatDecimal(*gpu) + " in queue " + name +
                        ", which it never exceeds; ask for at most that");
  if (const auto limit = MilliAt(quota, "limit"); limit && total > *limit)
    throw SubmitRefused(asked + " is more than project " + request.project + "'s limit of " +
                        json::FormatDecimal(*limit) + " in queue " + name);
  const Json status = queue.value("status", Json::object());
  const auto capacity = MilliAt(status, "capacity");
  if (capacity && total > *capacity)
    throw SubmitRefused(asked + " is more than the " + json::FormatDecimal(*capacity) +
                        " GPUs of queue " + name + "'s nodes");
  const auto largest = MilliAt(status, "largestNode");
  if (largest && request.gpu_milli > *largest)
    throw SubmitRefused("--gpus: " + json::FormatDecimal(request.gpu_milli) +
                        " GPUs for one replica are more than the " + json::FormatDecimal(*largest) +
                        " of queue " + name +
                        "'s largest node; ask for at most that per replica (with --replicas for "
                        "more in all)");
}

}  // namespace

SubmitTarget ResolveTarget(const SubmitRequest& request, const std::vector<Json>& projects,
                           const std::vector<Json>& queues) {
  const Json& project = FindProject(request.project, projects);
  const Json spec = project.value("spec", Json::object());
  SubmitTarget target{NamespaceIn(request, spec), ""};
  const Json& quota = QuotaIn(request, spec);
  target.queue = quota.value("queue", std::string());
  const Json* queue = Named(queues, target.queue);
  if (!queue)
    throw SubmitRefused("--queue: project " + request.project + " has a quota in queue " +
                        target.queue + ", but no Queue of that name exists (kubectl get queues)");
  CheckFits(request, quota, *queue);
  return target;
}

std::size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j < row.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row.back();
}

std::string ClosestName(const std::string& name, const std::vector<std::string>& names) {
  std::string best;
  std::size_t best_distance = 3;
  for (const auto& candidate : names) {
    const std::size_t distance = EditDistance(name, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

}  // namespace gpupool::cli
