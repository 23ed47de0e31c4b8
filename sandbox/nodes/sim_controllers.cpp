// The simulator's control loops; each works from the facts Sync() gathered
// and writes through the Cluster like any client.
#include <algorithm>
#include <sstream>

#include "sandbox/api_error.h"
#include "sandbox/nodes/device_plugin.h"
#include "sandbox/nodes/kubelet.h"
#include "sandbox/nodes/simulator.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

bool Tolerates(const Json& tolerations, const Json& taint) {
  for (const auto& toleration : tolerations) {
    const std::string key = toleration.value("key", "");
    const std::string effect = toleration.value("effect", "");
    const bool key_ok = key.empty() || key == taint.value("key", "");
    const bool effect_ok = effect.empty() || effect == taint.value("effect", "");
    const bool value_ok = toleration.value("operator", "Equal") == "Exists" ||
                          toleration.value("value", "") == taint.value("value", "");
    if (key_ok && effect_ok && value_ok) return true;
  }
  return false;
}

}  // namespace

bool Simulator::Fits(const PodFacts& pod, const NodeFacts& node, const Resources& used,
                     std::string* why) const {
  if (!node.ready || node.unschedulable)
    return *why = "node(s) were unschedulable or not ready", false;
  if (!MatchesNodeSelection(node.labels, pod.spec)) {
    return *why = "node(s) didn't match Pod's node affinity/selector", false;
  }
  for (const auto& taint : node.taints) {
    const std::string effect = taint.value("effect", "");
    if ((effect == "NoSchedule" || effect == "NoExecute") &&
        !Tolerates(pod.spec["tolerations"], taint)) {
      return *why = "node(s) had untolerated taint {" + taint.value("key", "") + "}", false;
    }
  }
  const auto& want = pod.requests;
  const auto& cap = node.allocatable;
  if (used.gpu_milli + want.gpu_milli > cap.gpu_milli)
    return *why = "Insufficient nvidia.com/gpu", false;
  if (used.cpu_milli + want.cpu_milli > cap.cpu_milli) return *why = "Insufficient cpu", false;
  if (used.memory_bytes + want.memory_bytes > cap.memory_bytes)
    return *why = "Insufficient memory", false;
  if (used.pods + 1 > cap.pods) return *why = "Too many pods", false;
  return true;
}

namespace {

bool Terminal(const PodFacts& pod) { return pod.phase == "Succeeded" || pod.phase == "Failed"; }

}  // namespace

void Simulator::Recount(PodFacts& pod) {
  if (pod.node.empty() || Terminal(pod)) return use_.Update(pod.counted, {});
  use_.Update(pod.counted, {pod.node, pod.requests, pod.devices});
}

void Simulator::Schedule() {
  std::vector<PodFacts*> pending;
  for (auto& [key, pod] : unsettled_) {
    if (pod->node.empty() && !pod->gated && !pod->deleting && !Terminal(*pod) &&
        pod->scheduler == "default-scheduler" && !pod->unschedulable_reported) {
      pending.push_back(pod);
    }
  }
  if (pending.empty()) return;
  const auto pods = cluster_.Resource("", "v1", "pods");
  for (PodFacts* pod : pending) {
    try {
      SchedulePod(pod, *pods);
    } catch (const std::exception&) {
      // A pod whose spec this scheduler cannot read (e.g. affinity values of
      // the wrong type) stays pending; it must not stop the others.
      pod->unschedulable_reported = true;
    }
  }
}

void Simulator::SchedulePod(PodFacts* pod, const ResourceType& pods) {
  std::map<std::string, int> reasons;
  std::string chosen;
  auto consider = [&](const std::string& name, const NodeFacts& node) {
    std::string why;
    if (Fits(*pod, node, use_.Used(name), &why)) return chosen = name, true;
    ++reasons[why];
    return false;
  };
  // A pod pinned to a node by its hostname label can only fit there (node
  // labels name their node), so that node alone is looked at.
  const Json& selector = pod->spec["nodeSelector"];
  const auto pinned = selector.find("kubernetes.io/hostname");
  auto node = pinned != selector.end() && pinned->is_string()
                  ? nodes_.find(pinned->get<std::string>())
                  : nodes_.end();
  if (node != nodes_.end() &&
      node->second.labels.value("kubernetes.io/hostname", "") == pinned->get<std::string>()) {
    if (!consider(node->first, node->second))
      reasons["node(s) didn't match Pod's node affinity/selector"] +=
          static_cast<int>(nodes_.size()) - 1;
  } else {
    for (const auto& [name, facts] : nodes_)
      if (consider(name, facts)) break;
  }
  if (chosen.empty()) {
    std::ostringstream message;
    message << "0/" << nodes_.size() << " nodes are available:";
    for (const auto& [why, count] : reasons) message << " " << count << " " << why << ".";
    cluster_.Mutate(
        pods, pod->ns, pod->name,
        [&](Json& object) {
          SetCondition(object, "PodScheduled", "False", "Unschedulable", message.str());
          return true;
        },
        "status", "kube-scheduler");
    pod->unschedulable_reported = true;  // retried when the cluster changes
    RecordFailedScheduling(*pod, message.str());
    return;
  }
  pod->failed_scheduling.clear();
  // The device plugin's choice rides on the binding: one write instead of two.
  Json binding = {{"target", {{"kind", "Node"}, {"name", chosen}}}};
  const std::vector<int> devices = FreeDevicesFor(*pod, chosen);
  if (!devices.empty())
    binding["metadata"]["annotations"][kVisibleDevicesAnnotation] = FormatDevices(chosen, devices);
  ObjectPtr stored;
  cluster_.Bind(pod->ns, pod->name, binding, &stored);
  own_writes_.insert(stored.get());
  pod->devices = devices;
  // Its kubelet sees the binding now, not one round later when the change is read back.
  pod->node = chosen;
  pod->seen_bound = SimClock::now();
  Recount(*pod);
}

void Simulator::RecordFailedScheduling(PodFacts& pod, const std::string& message) {
  if (pod.failed_scheduling == message) return;  // retries with the same reason stay quiet
  pod.failed_scheduling = message;
  const auto now = std::chrono::system_clock::now();
  const Json event = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"name", pod.name + "." + RandomSuffix(10)}, {"namespace", pod.ns}}},
      {"involvedObject",
       {{"kind", "Pod"},
        {"apiVersion", "v1"},
        {"namespace", pod.ns},
        {"name", pod.name},
        {"uid", pod.uid}}},
      {"reason", "FailedScheduling"},
      {"message", message},
      {"type", "Warning"},
      {"eventTime", FormatMicroTime(now)},
      {"action", "Scheduling"},
      {"reportingComponent", "default-scheduler"},
      {"reportingInstance", "default-scheduler-gpupool-sandbox"}};
  WriteOptions options;
  options.field_manager = "kube-scheduler";
  try {
    cluster_.Create(*cluster_.Resource("", "v1", "events"), pod.ns, event, options);
  } catch (const ApiError&) {
    // The namespace is going away: there is no one left to tell.
  }
}

namespace {

// A bound, running pod with no run time and no deletion: neither the
// scheduler nor its kubelet has anything to do until the pod changes.
bool RunsUntilDeleted(const PodFacts& pod) {
  return !pod.deleting && pod.run_seconds < 0 && !pod.node.empty() && pod.phase == "Running";
}

}  // namespace

void Simulator::Track(const std::string& key, PodFacts* pod) {
  if (!pod) {
    active_.erase(key);
    unsettled_.erase(key);
    return;
  }
  active_[key] = pod;
  if (RunsUntilDeleted(*pod)) {
    unsettled_.erase(key);
  } else {
    unsettled_[key] = pod;
  }
}

// One step of a pod's kubelet; returns true when the pod freed its resources.
bool Simulator::StepPod(const ResourceType& pods, const std::string& key, PodFacts& pod,
                        SimClock::time_point now) {
  if (pod.deleting) {
    // The container stops after its own stop time, or is killed at the end of the grace period.
    const double wanted = pod.stop_seconds >= 0 ? pod.stop_seconds : config_.stop_seconds;
    const double stop = std::min<double>(static_cast<double>(pod.grace), wanted);
    if (now < pod.seen_deleting + Scaled(stop)) return false;
    DeleteOptions options;
    options.grace_seconds = 0;
    try {
      cluster_.Delete(pods, pod.ns, pod.name, options);
    } catch (const ApiError&) {
    }
    return true;
  }
  // The kubelet's own admission: a pod created bound to the node (spec.nodeName,
  // which no scheduler checked) that the node does not match is rejected.
  const auto node = nodes_.find(pod.node);
  if (pod.phase == "Pending" && node != nodes_.end() &&
      !MatchesNodeSelection(node->second.labels, pod.spec)) {
    const bool written = cluster_.Mutate(
        pods, pod.ns, pod.name,
        [&](Json& object) {
          MarkRejected(object, "NodeAffinity", PredicateRejection("NodeAffinity"));
          return true;
        },
        "status", "kubelet");
    if (written) pod.phase = "Failed";
    return written;
  }
  const bool waits_for_devices = pod.requests.gpu_milli >= 1000 && pod.devices.empty();
  if (pod.phase == "Pending" && !waits_for_devices &&
      now >= pod.seen_bound + Scaled(config_.start_seconds)) {
    ObjectPtr stored;
    const bool written = cluster_.Mutate(
        pods, pod.ns, pod.name,
        [&](Json& object) {
          MarkRunning(object, key);
          return true;
        },
        "status", "kubelet", &stored);
    if (stored) own_writes_.insert(stored.get());
    if (written) {  // The run's clock starts with the write, not when it is read back.
      pod.phase = "Running";
      pod.seen_running = now;
    }
    return false;
  }
  if (pod.phase == "Running" && pod.run_seconds >= 0 &&
      now >= pod.seen_running + Scaled(pod.run_seconds)) {
    cluster_.Mutate(
        pods, pod.ns, pod.name,
        [&](Json& object) {
          MarkFinished(object, pod.exit_code);
          return true;
        },
        "status", "kubelet");
    return true;
  }
  return false;
}

// Devices stay taken until their pod is gone or finished.
std::vector<int> Simulator::FreeDevicesFor(const PodFacts& pod, const std::string& node) const {
  auto facts = nodes_.find(node);
  if (facts == nodes_.end() || pod.requests.gpu_milli < 1000) return {};
  return PickDevices(facts->second.allocatable.gpu_milli / 1000, use_.Devices(node),
                     pod.requests.gpu_milli / 1000);
}

void Simulator::AllocateDevices(const ResourceType& pods) {
  std::vector<PodFacts*> waiting;
  for (auto& [key, pod] : unsettled_) {
    if (pod->node.empty() || pod->deleting || pod->phase != "Pending" ||
        pod->requests.gpu_milli < 1000 || !pod->devices.empty())
      continue;
    waiting.push_back(pod);
  }
  for (PodFacts* pod : waiting) {
    const auto picked = FreeDevicesFor(*pod, pod->node);
    if (picked.empty()) continue;  // Held until a pod on the node lets devices go.
    const bool written = cluster_.Mutate(
        pods, pod->ns, pod->name,
        [&](Json& object) {
          object["metadata"]["annotations"][kVisibleDevicesAnnotation] =
              FormatDevices(pod->node, picked);
          return true;
        },
        "", "kubelet");
    if (!written) continue;
    pod->devices = picked;
    Recount(*pod);
  }
}

void Simulator::RunKubelets() {
  const auto pods = cluster_.Resource("", "v1", "pods");
  const auto now = SimClock::now();
  AllocateDevices(*pods);
  bool freed = false;
  std::vector<std::string> settled;
  for (auto& [key, pod] : unsettled_) {
    if (pod->node.empty()) continue;
    auto node = nodes_.find(pod->node);
    if (node != nodes_.end() && !node->second.ready) continue;  // a NotReady kubelet is silent
    freed = StepPod(*pods, key, *pod, now) || freed;
    if (RunsUntilDeleted(*pod)) settled.push_back(key);
  }
  for (const auto& key : settled) unsettled_.erase(key);
  // Freed resources may let waiting pods fit: retry them.
  if (freed) {
    for (auto& [key, pod] : unsettled_) pod->unschedulable_reported = false;
  }
}

}  // namespace gpupool::sandbox
