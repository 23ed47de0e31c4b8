#include "sandbox/nodes/remote_kubelets.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <thread>

#include "gpupool/kube/errors.h"
#include "sandbox/nodes/dcgm_exporter.h"
#include "sandbox/nodes/device_plugin.h"
#include "sandbox/nodes/kubelet.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

using Json = nlohmann::json;

constexpr char kLeaseNamespace[] = "kube-node-lease";
constexpr int kStoppedExitCode = 143;  // 128 + SIGTERM: a container stopped by its kubelet.

// Seconds an annotation asks for; `fallback` when absent or unreadable.
double Seconds(const Json& pod, const char* key, double fallback) {
  const std::string text = Annotation(pod, key);
  if (text.empty()) return fallback;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end && *end == '\0' && value >= 0 ? value : fallback;
}

std::string PhaseOf(const Json& pod) {
  return pod.value("status", Json::object()).value("phase", "Pending");
}

bool Finished(const Json& pod) {
  const std::string phase = PhaseOf(pod);
  return phase == "Succeeded" || phase == "Failed";
}

Json LeaseObject(const std::string& node, int seconds) {
  return {{"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", {{"name", node}, {"namespace", kLeaseNamespace}}},
          {"spec",
           {{"holderIdentity", node},
            {"leaseDurationSeconds", seconds},
            {"renewTime", FormatMicroTime(std::chrono::system_clock::now())}}}};
}

bool Is(const kube::ApiError& error, kube::Reason reason) { return error.reason() == reason; }

// Requests in flight at once: a real kubelet per node works on its own, so
// hundreds of nodes must not wait for each other's round trips.
constexpr size_t kRequestsInFlight = 16;

// Runs task(0) ... task(count - 1) on up to kRequestsInFlight threads, the
// caller's among them; the first exception a task throws is rethrown here.
void ForEachInParallel(size_t count, const std::function<void(size_t)>& task) {
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto work = [&] {
    for (size_t i = next++; i < count; i = next++) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < std::min(count, kRequestsInFlight); ++t) helpers.emplace_back(work);
  work();
  for (auto& helper : helpers) helper.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

RemoteKubelets::RemoteKubelets(kube::Client& client, RemoteKubeletsOptions options)
    : client_(client), options_(std::move(options)) {
  for (const auto& spec : options_.nodes) nodes_[spec.name] = {&spec, NodeObject(spec)};
}

RemoteKubelets::~RemoteKubelets() {
  if (pods_) pods_->Stop();
}

RemoteKubelets::Clock::duration RemoteKubelets::Scaled(double simulated_seconds) const {
  return ScaledSeconds(simulated_seconds, options_.time_scale);
}

void RemoteKubelets::RegisterNode(const NodeSpec& spec) {
  const Json node = NodeObject(spec);
  try {
    client_.Create(kube::resources::kNodes, "", node, {.field_manager = options_.field_manager});
  } catch (const kube::ApiError& error) {
    if (!Is(error, kube::Reason::kAlreadyExists)) throw;
  }
  // A create may leave the status to the server, which also writes the node
  // meanwhile (taints): the kubelet's part is patched, whatever the version.
  client_.Patch(kube::resources::kNodes, "", spec.name, kube::PatchType::kMerge,
                {{"status", node["status"]}},
                {.field_manager = options_.field_manager, .subresource = "status"});
}

void RemoteKubelets::Register() {
  for (const auto& spec : options_.nodes) RegisterNode(spec);
  RenewLeases(Clock::now());
  pods_ =
      std::make_unique<kube::Informer<Json>>(client_, kube::resources::kPods, "", kube::KeepJson,
                                             kube::ListWatchOptions{.drop_managed_fields = true});
  pods_->Start();
  pods_->WaitForSync(std::chrono::seconds(30));
}

void RemoteKubelets::Unregister() {
  if (pods_) pods_->Stop();
  for (const auto& [name, node] : nodes_) {
    try {
      client_.Delete(kube::resources::kNodes, "", name);
      client_.Delete(kube::resources::kLeases, kLeaseNamespace, name);
    } catch (const kube::ApiError&) {
      // Already gone.
    }
  }
}

void RemoteKubelets::RenewLeases(Clock::time_point now) {
  if (now < leases_renewed_ + std::chrono::seconds(options_.lease_seconds) / 4) return;
  leases_renewed_ = now;
  std::vector<std::string> names;
  for (const auto& [name, node] : nodes_) names.push_back(name);
  ForEachInParallel(names.size(), [&](size_t i) {
    const std::string& name = names[i];
    const Json lease = LeaseObject(name, options_.lease_seconds);
    try {
      client_.Patch(kube::resources::kLeases, kLeaseNamespace, name, kube::PatchType::kMerge,
                    {{"spec", lease["spec"]}}, {.field_manager = options_.field_manager});
    } catch (const kube::ApiError& error) {
      if (!Is(error, kube::Reason::kNotFound)) return;
      try {
        client_.Create(kube::resources::kLeases, kLeaseNamespace, lease,
                       {.field_manager = options_.field_manager});
      } catch (const kube::ApiError&) {
      }
    }
  });
}

std::set<int> RemoteKubelets::TakenDevices(const std::string& node) const {
  std::set<int> taken;
  for (const auto& [uid, given] : given_) {
    if (given.node == node) taken.insert(given.devices.begin(), given.devices.end());
  }
  return taken;
}

void RemoteKubelets::WriteStatus(const Json& pod, const std::function<void(Json&)>& change) {
  Json updated = pod;
  change(updated);
  client_.UpdateStatus(kube::resources::kPods, pod["metadata"].value("namespace", ""), updated,
                       {.field_manager = options_.field_manager});
}

bool RemoteKubelets::Admit(Json& pod, const std::string& node) {
  const Json& spec = pod["spec"];
  const Node& shape = nodes_.at(node);
  if (!MatchesNodeSelection(shape.object["metadata"]["labels"], spec)) {
    WriteStatus(pod, [](Json& object) {
      MarkRejected(object, "NodeAffinity", PredicateRejection("NodeAffinity"));
    });
    return false;
  }
  const int64_t wanted = PodRequests(spec).gpu_milli / 1000;
  const std::string uid = pod["metadata"].value("uid", "");
  std::vector<int> picked;
  std::set<int> taken;
  {
    // Picked and held at once: pods of one node are admitted in parallel.
    std::lock_guard lock(mutex_);
    if (wanted == 0 || given_.count(uid)) return true;
    taken = TakenDevices(node);
    picked = PickDevices(shape.spec->gpus, taken, wanted);
    if (!picked.empty()) given_[uid] = {node, picked};
  }
  if (picked.empty()) {
    const int64_t available = shape.spec->gpus - static_cast<int64_t>(taken.size());
    const std::string message =
        "Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. "
        "Requested: " +
        std::to_string(wanted) + ", Available: " + std::to_string(std::max<int64_t>(available, 0)) +
        ", which is unexpected";
    WriteStatus(pod,
                [&](Json& object) { MarkRejected(object, "UnexpectedAdmissionError", message); });
    return false;
  }
  try {
    // The answer carries the new resourceVersion the status write needs.
    pod = client_.Patch(
        kube::resources::kPods, pod["metadata"].value("namespace", ""),
        pod["metadata"].value("name", ""), kube::PatchType::kMerge,
        {{"metadata",
          {{"annotations", {{kVisibleDevicesAnnotation, FormatDevices(node, picked)}}}}}},
        {.field_manager = options_.field_manager});
  } catch (...) {
    Release(uid);
    throw;
  }
  return true;
}

void RemoteKubelets::StepPod(Json pod, Clock::time_point now) {
  const Json metadata = pod["metadata"];
  const std::string uid = metadata.value("uid", "");
  const std::string ns = metadata.value("namespace", ""), name = metadata.value("name", "");
  const std::string node = pod["spec"].value("nodeName", "");
  PodClock* found = nullptr;
  {
    // Only this thread touches this pod's clock; the map's nodes stay put.
    std::lock_guard lock(mutex_);
    found = &clocks_[uid];
  }
  PodClock& clock = *found;
  if (clock.bound == Clock::time_point{}) clock.bound = now;
  if (metadata.contains("deletionTimestamp")) {
    if (clock.deleting == Clock::time_point{}) clock.deleting = now;
    const double grace = metadata.value("deletionGracePeriodSeconds", 0.0);
    const double stop =
        std::min(grace, Seconds(pod, "sandbox.gpupool.dev/stop-seconds", options_.stop_seconds));
    if (!Finished(pod) && now < clock.deleting + Scaled(stop)) return;
    // As a kubelet: the stopped containers' pod is terminal (Failed, their
    // SIGTERM's exit code) before its final delete, so an owner that waits for
    // it (a Job's tracking finalizer) sees it end.
    if (!Finished(pod)) {
      WriteStatus(pod, [](Json& object) { MarkFinished(object, kStoppedExitCode); });
      return;  // The final delete follows on the next step, from the terminal pod.
    }
    if (metadata.value("deletionGracePeriodSeconds", -1.0) == 0) {
      Release(uid);  // Deleted at once already; only a finalizer keeps it.
      return;
    }
    kube::DeleteOptions options;
    options.grace_period_seconds = 0;
    options.precondition_uid = uid;
    client_.Delete(kube::resources::kPods, ns, name, options);
    Release(uid);
    return;
  }
  if (Finished(pod)) {
    Release(uid);  // a finished pod's devices are free again
    return;
  }
  const std::string phase = PhaseOf(pod);
  if (phase == "Pending") {
    if (!Admit(pod, node)) return;
    if (now < clock.bound + Scaled(options_.start_seconds)) return;
    WriteStatus(pod, [&](Json& object) { MarkRunning(object, ns + "/" + name); });
    clock.running = now;
    return;
  }
  if (clock.running == Clock::time_point{}) clock.running = now;
  const std::string exit_code = Annotation(pod, "sandbox.gpupool.dev/exit-code");
  const double run = Seconds(pod, "sandbox.gpupool.dev/run-seconds", exit_code.empty() ? -1 : 0);
  if (phase == "Running" && run >= 0 && now >= clock.running + Scaled(run)) {
    WriteStatus(pod, [&](Json& object) { MarkFinished(object, std::atoi(exit_code.c_str())); });
  }
}

void RemoteKubelets::Step() {
  const auto now = Clock::now();
  RenewLeases(now);
  std::vector<std::shared_ptr<const Json>> ours;
  for (auto& pod : pods_->cache().List()) {
    if (nodes_.count((*pod)["spec"].value("nodeName", ""))) ours.push_back(std::move(pod));
  }
  ForgetGonePods(ours);
  for (const auto& pod : ours) LearnDevices(*pod, (*pod)["spec"].value("nodeName", ""));
  // Finished pods' devices are free before any pod of this round is admitted:
  // the pods step in parallel, so a new pod must not meet them still held.
  for (const auto& pod : ours) {
    if (Finished(*pod)) Release((*pod)["metadata"].value("uid", ""));
  }
  ForEachInParallel(ours.size(), [&](size_t i) {
    try {
      StepPod(*ours[i], now);
    } catch (const kube::ApiError&) {
      // A conflict or a pod gone meanwhile: the next round reads it again.
    }
  });
}

// Pods no longer on the server hold no devices and need no clock: their
// devices are free before any new pod is admitted this round.
void RemoteKubelets::ForgetGonePods(const std::vector<std::shared_ptr<const Json>>& ours) {
  std::set<std::string> live;
  for (const auto& pod : ours) live.insert((*pod)["metadata"].value("uid", ""));
  for (auto it = clocks_.begin(); it != clocks_.end();) {
    it = live.count(it->first) ? std::next(it) : clocks_.erase(it);
  }
  std::vector<std::string> gone;
  for (const auto& [uid, given] : given_) {
    if (!live.count(uid)) gone.push_back(uid);
  }
  for (const auto& uid : gone) Release(uid);
}

void RemoteKubelets::Release(const std::string& uid) {
  std::lock_guard lock(mutex_);
  given_.erase(uid);
}

// Devices named on pods this process did not admit (a restart) are held too.
void RemoteKubelets::LearnDevices(const Json& pod, const std::string& node) {
  const std::string uid = pod["metadata"].value("uid", "");
  if (given_.count(uid) || Finished(pod)) return;
  const auto devices = ParseDevices(Annotation(pod, kVisibleDevicesAnnotation));
  if (devices.empty()) return;
  given_[uid] = {node, devices};
}

std::string RemoteKubelets::DcgmPage() const {
  std::vector<Json> nodes, pods;
  for (const auto& [name, node] : nodes_) nodes.push_back(node.object);
  if (pods_) {
    for (const auto& pod : pods_->cache().List()) {
      if (nodes_.count((*pod)["spec"].value("nodeName", ""))) pods.push_back(*pod);
    }
  }
  return DcgmExposition(nodes, pods);
}

}  // namespace gpupool::sandbox
