#include "sandbox/nodes/simulator.h"

#include <algorithm>
#include <stdexcept>

#include "gpupool/json/quantity.h"
#include "gpupool/json/without.h"
#include "sandbox/api_error.h"
#include "sandbox/nodes/device_plugin.h"
#include "sandbox/nodes/kubelet.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

// A pod as far as the simulator reads it: its managedFields and the status it
// does not look at (conditions, container statuses) are read past, not built.
Json ParseForFacts(const std::string& json) {
  static const std::vector<json::MemberPath> kUnread = {
      {"metadata", "managedFields"}, {"status", "conditions"}, {"status", "containerStatuses"}};
  Json pod = json::ParseWithout(json, kUnread);
  if (pod.is_discarded()) throw std::runtime_error("stored pod is not JSON");
  return pod;
}

std::string Ref(const std::string& storage, const StoredObject& object) {
  return storage + "|" + object.ns + "|" + object.name;
}

}  // namespace

Simulator::Simulator(Cluster& cluster, const SimulatorConfig& config)
    : cluster_(cluster), config_(config) {}

Simulator::~Simulator() { Stop(); }

void Simulator::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void Simulator::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

SimClock::duration Simulator::Scaled(double simulated_seconds) const {
  return ScaledSeconds(simulated_seconds, config_.time_scale);
}

void Simulator::Loop() {
  while (!stop_) {
    try {
      Sync();
      SyncNodeReadiness();
      Schedule();
      RunKubelets();
      CollectGarbage();
      FinishNamespaces();
    } catch (const std::exception&) {
      // A write lost a race with a client (e.g. the object was deleted):
      // the next round works from the newer state.
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void Simulator::Sync() {
  std::vector<ChangeEvent> events;
  {
    auto& store = cluster_.store();
    auto lock = store.Lock();
    if (!store.FeedOpen()) {
      lock.unlock();
      return ListAll();
    }
    events = store.TakeFeed();
  }
  for (const auto& event : events) Observe(event);
}

// The first round: every stored object, as an informer lists, and from then
// on every change through the store's feed.
void Simulator::ListAll() {
  std::vector<ChangeEvent> all;
  {
    auto& store = cluster_.store();
    auto lock = store.Lock();
    store.OpenFeed();
    for (const auto& resource : cluster_.resources().All()) {
      const std::string key = StorageKey(*resource);
      for (const auto& [name, object] : store.Objects(key)) {
        all.push_back({object->rv, EventType::kAdded, key, object, nullptr});
      }
    }
  }
  for (const auto& event : all) Observe(event);
  for (const auto& [uid, refs] : dependents_) {
    if (!live_uids_.count(uid)) deleted_owners_.insert(uid);
  }
}

void Simulator::Observe(const ChangeEvent& event) {
  if (event.resource == "/pods") ObservePod(event);
  if (event.resource == "/nodes") ObserveNode(event);
  ObserveOwnership(event);
  const auto& object = *event.object;
  if (event.resource == "/namespaces" && event.type != EventType::kDeleted && object.deleting) {
    terminating_namespaces_.insert(object.name);
  }
}

void Simulator::ObservePod(const ChangeEvent& event) {
  const auto& object = *event.object;
  const std::string key = ObjectKey(object.ns, object.name);
  if (event.type == EventType::kDeleted) {
    Track(key, nullptr);
    auto gone = pods_.find(key);
    if (gone != pods_.end()) use_.Update(gone->second.counted, {});
    pods_.erase(key);
    return;
  }
  if (own_writes_.erase(&object)) return;
  const Json pod = ParseForFacts(object.json);
  auto& facts = pods_[key];
  const auto now = SimClock::now();
  const Json& spec = pod["spec"];
  const std::string node = spec.value("nodeName", "");
  const std::string phase = pod.value("status", Json::object()).value("phase", "Pending");
  if (!node.empty() && facts.node.empty()) facts.seen_bound = now;
  // A pod runs once: its clock started with its kubelet's write, or starts now.
  if (phase == "Running" && facts.seen_running == SimClock::time_point{}) facts.seen_running = now;
  const bool deleting = pod["metadata"].contains("deletionTimestamp");
  if (deleting && !facts.deleting) facts.seen_deleting = now;
  facts.ns = object.ns;
  facts.name = object.name;
  facts.uid = object.uid;
  facts.node = node;
  facts.phase = phase;
  facts.deleting = deleting;
  facts.grace = pod["metadata"].value("deletionGracePeriodSeconds", 0);
  facts.scheduler = spec.value("schedulerName", "default-scheduler");
  facts.gated = !spec.value("schedulingGates", Json::array()).empty();
  facts.requests = PodRequests(spec);
  facts.spec = Json{{"nodeSelector", spec.value("nodeSelector", Json::object())},
                    {"affinity", spec.value("affinity", Json::object())},
                    {"tolerations", spec.value("tolerations", Json::array())}};
  const Json annotations = pod["metadata"].value("annotations", Json::object());
  const std::string run = annotations.value("sandbox.gpupool.dev/run-seconds", "");
  const std::string exit_code = annotations.value("sandbox.gpupool.dev/exit-code", "");
  facts.run_seconds = run.empty() ? (exit_code.empty() ? -1 : 0) : std::atof(run.c_str());
  facts.exit_code = exit_code.empty() ? 0 : std::atoi(exit_code.c_str());
  const std::string stop = annotations.value("sandbox.gpupool.dev/stop-seconds", "");
  facts.stop_seconds = stop.empty() ? -1 : std::atof(stop.c_str());
  facts.devices = ParseDevices(annotations.value(kVisibleDevicesAnnotation, ""));
  const bool finished = phase == "Succeeded" || phase == "Failed";
  Recount(facts);
  Track(key, finished && !deleting ? nullptr : &facts);
}

void Simulator::ObserveNode(const ChangeEvent& event) {
  const auto& object = *event.object;
  // Any node change may make waiting pods schedulable: retry them all.
  for (auto& [key, pod] : unsettled_) pod->unschedulable_reported = false;
  if (event.type == EventType::kDeleted) {
    nodes_.erase(object.name);
    return;
  }
  const Json node = object.Parsed();
  auto& facts = nodes_[object.name];
  facts.labels = node["metadata"].value("labels", Json::object());
  facts.taints = node.value("spec", Json::object()).value("taints", Json::array());
  facts.unschedulable = node.value("spec", Json::object()).value("unschedulable", false);
  const Json allocatable =
      node.value("status", Json::object()).value("allocatable", Json::object());
  facts.allocatable.cpu_milli = Milli(allocatable.value("cpu", Json("0")));
  facts.allocatable.memory_bytes = Milli(allocatable.value("memory", Json("0"))) / 1000;
  facts.allocatable.gpu_milli = Milli(allocatable.value("nvidia.com/gpu", Json("0")));
  facts.allocatable.pods = Milli(allocatable.value("pods", Json("110"))) / 1000;
  facts.ready = false;
  for (const auto& condition :
       node.value("status", Json::object()).value("conditions", Json::array())) {
    if (condition.value("type", "") == "Ready")
      facts.ready = condition.value("status", "") == "True";
  }
  facts.wants_not_ready = node["metadata"]
                              .value("annotations", Json::object())
                              .value("sandbox.gpupool.dev/not-ready", "") == "true";
}

void Simulator::ObserveOwnership(const ChangeEvent& event) {
  const auto& object = *event.object;
  const bool deleted = event.type == EventType::kDeleted;
  // Most changes keep the owners (a status write): the dependents stay filed.
  const bool same_owners =
      !deleted && event.previous && event.previous->owner_uids == object.owner_uids;
  const std::string ref = same_owners ? "" : Ref(event.resource, object);
  if (event.previous && !same_owners) {
    for (const auto& owner : event.previous->owner_uids) dependents_[owner].erase(ref);
  }
  if (deleted) {
    live_uids_.erase(object.uid);
    finalizing_.erase(object.uid);
    if (dependents_.count(object.uid) && !dependents_[object.uid].empty()) {
      deleted_owners_.insert(object.uid);
    }
    return;
  }
  live_uids_.insert(object.uid);
  if (!same_owners) {
    for (const auto& owner : object.owner_uids) dependents_[owner].insert(ref);
  }
  if (object.deleting && object.finalizes_dependents) {
    finalizing_[object.uid] = Ref(event.resource, object);
  }
}

ResourcePtr Simulator::ResourceFor(const std::string& storage_key) {
  for (const auto& resource : cluster_.resources().All()) {
    if (StorageKey(*resource) == storage_key) return resource;
  }
  return nullptr;
}

}  // namespace gpupool::sandbox
