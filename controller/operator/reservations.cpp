#include "reservations.h"

#include <cstdio>
#include <set>

#include "gpupool/common/stable_hash.h"
#include "priority_classes.h"

namespace gpupool::op::internal {
namespace {

constexpr std::size_t kMaxPodName = 253;

using SlotKey = std::pair<std::string, int>;

std::string HexHash(const std::string& text) {
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(StableHash(text)));
  return out;
}

bool Holds(const PodView& pod) {
  return !pod.visible_devices.empty() && !pod.node.empty() && !pod.terminating && !pod.Finished();
}

}  // namespace

std::string ReservationName(const std::string& node, int slot) {
  const std::string slot_text = std::to_string(slot);
  // A node name near the length limit leaves no room: its hash stands in for it.
  const bool fits = node.size() + slot_text.size() + 21 <= kMaxPodName;
  std::string name = "gpupool-reservation-";
  name.append(fits ? node : HexHash(node)).append("-").append(slot_text);
  return name;
}

namespace {

// Both take the same GPU (the kubelet gives an app container the devices of
// the pod's init containers): `report` writes its name to its termination
// message and exits, `hold` keeps it. A few MB, and the restricted Pod
// Security profile.
Json ReservationContainer(const CycleState& state, const char* name) {
  const Json requests = {{api::kGpuResource, "1"}, {"cpu", "10m"}, {"memory", "32Mi"}};
  const Json limits = {{api::kGpuResource, "1"}, {"memory", "64Mi"}};
  return {{"name", name},
          {"image", state.options.reservation_image},
          {"command", Json::array({"/usr/local/bin/gpupool", "reserve-device", name})},
          {"terminationMessagePolicy", "File"},
          {"resources", {{"requests", requests}, {"limits", limits}}},
          {"securityContext",
           {{"allowPrivilegeEscalation", false},
            {"readOnlyRootFilesystem", true},
            {"capabilities", {{"drop", Json::array({"ALL"})}}}}}};
}

}  // namespace

// No API credentials: the report reaches the controller through the kubelet.
Json BuildReservationPod(const CycleState& state, const std::string& node, int slot) {
  Json spec = {
      {"nodeSelector", {{kHostnameLabel, node}}},
      {"priorityClassName", PriorityClassName(state.options, api::WorkloadClass::kBuild)},
      {"restartPolicy", "Never"},
      {"terminationGracePeriodSeconds", 0},
      {"automountServiceAccountToken", false},
      {"securityContext",
       {{"runAsNonRoot", true}, {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
      {"tolerations",
       Json::array(
           {{{"key", api::kGpuResource}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})},
      {"initContainers", Json::array({ReservationContainer(state, kReportContainer)})},
      {"containers", Json::array({ReservationContainer(state, kHoldContainer)})}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", ReservationName(node, slot)},
            {"namespace", state.options.reservation_namespace},
            {"labels",
             {{kReservationLabel, std::to_string(slot)},
              {"app.kubernetes.io/managed-by", "gpupool"}}}}},
          {"spec", spec}};
}

bool IsReservation(const CycleState& state, const PodView& pod) {
  return pod.Reservation() && pod.ns == state.options.reservation_namespace;
}

void IndexReservations(CycleState& state) {
  for (const auto& pod : state.view.pods) {
    if (!IsReservation(state, *pod)) continue;
    if (pod->pinned.empty() || pod->name != ReservationName(pod->pinned, pod->reservation_slot)) {
      state.stray_reservations.push_back(pod.get());
    } else {
      state.reservations[{pod->pinned, pod->reservation_slot}] = pod.get();
    }
  }
  RefuseBadReports(state);
}

namespace {

// The reservation pod of `slot` of `node` while it holds a device there (its
// report may still be refused); nullptr when it is gone, stopping or elsewhere.
const PodView* HoldingReservation(const CycleState& state, const std::string& node, int slot) {
  auto it = state.reservations.find({node, slot});
  if (it == state.reservations.end() || !Holds(*it->second) || it->second->node != node)
    return nullptr;
  return it->second;
}

}  // namespace

std::string SharedDevice(const CycleState& state, const std::string& node, int slot) {
  const PodView* pod = HoldingReservation(state, node, slot);
  if (!pod || state.refused_reports.count(pod)) return "";
  return pod->visible_devices;
}

std::string SharedDeviceOf(const CycleState& state, const JobRecord& job,
                           const api::ReplicaPlacement& placed) {
  if (!job.job().spec.IsFractional() || placed.devices.size() != 1) return "";
  return SharedDevice(state, placed.node, placed.devices.front());
}

namespace {

// A fraction's pod that was released to its device: it runs there until it stops.
const PodView* ReleasedFraction(const JobRecord& job, std::size_t replica) {
  if (!job.job().spec.IsFractional() || replica >= job.pods.size()) return nullptr;
  const PodView* pod = job.pods[replica];
  if (!pod || pod->gate_index >= 0 || pod->Finished() || pod->terminating) return nullptr;
  return pod;
}

// Slots fractions hold: those of holding fractional jobs, and those whose
// reservation still serves a fraction's pod that has not stopped yet.
std::set<SlotKey> WantedSlots(const CycleState& state) {
  std::set<SlotKey> wanted;
  for (const JobRecord& job : state.jobs) {
    if (job.stage != Stage::kHolding || job.stop_pods || !job.job().spec.IsFractional()) continue;
    for (const auto& placed : job.status.placement)
      if (placed.devices.size() == 1) wanted.insert({placed.node, placed.devices.front()});
  }
  std::map<std::pair<std::string, std::string>, SlotKey> by_device;
  for (const auto& [key, pod] : state.reservations)
    if (!pod->visible_devices.empty() && !state.refused_reports.count(pod))
      by_device[{key.first, pod->visible_devices}] = key;
  // A fraction's pod keeps its device's reservation until it stops, even once
  // its job is deleted (the garbage collector removes the pod later): any
  // labelled pod with a controlling owner, not only the pods of jobs in view.
  for (const auto& pod : state.view.pods) {
    if (!pod->Managed() || pod->owner_uid.empty() || pod->Finished() || pod->gpu_device.empty() ||
        pod->gates > 0)
      continue;
    auto it = by_device.find({pod->Host(), pod->gpu_device});
    if (it != by_device.end()) wanted.insert(it->second);
  }
  return wanted;
}

// Its containers run, so its report container has ended, yet it reported
// nothing: the report failed, or a version that reported otherwise made it. It
// will never report; a new one will.
bool RunsWithoutReport(const PodView& pod) {
  return pod.phase == PodPhase::kRunning && pod.visible_devices.empty();
}

void DeleteReservation(CycleState& state, const PodView& pod) {
  if (!pod.terminating) state.plan.pod_deletes.push_back({pod.ns, pod.name, pod.uid, 0, false, ""});
}

}  // namespace

std::string LostReservation(const CycleState& state, const JobRecord& job) {
  for (const auto& placed : job.status.placement) {
    const PodView* pod = ReleasedFraction(job, static_cast<std::size_t>(placed.replica));
    if (!pod || pod->gpu_device.empty() || placed.devices.size() != 1) continue;
    const PodView* reservation = HoldingReservation(state, placed.node, placed.devices.front());
    // A refused report says nothing of the device: the pod still holds the one it had.
    if (reservation && state.refused_reports.count(reservation)) continue;
    if (SharedDevice(state, placed.node, placed.devices.front()) == pod->gpu_device) continue;
    return "the reservation of device " + pod->gpu_device + " on " + placed.node + " was lost";
  }
  return "";
}

// Creates the reservation pods of slots that hold fractions and deletes those of
// slots that no longer do. A reservation about to be created takes its room on
// the node at once, so whole-GPU pods are released only where it still fits.
void PlanReservations(CycleState& state) {
  const std::set<SlotKey> wanted = WantedSlots(state);
  for (const PodView* stray : state.stray_reservations) DeleteReservation(state, *stray);
  for (const auto& [key, pod] : state.reservations) {
    if (!wanted.count(key) || pod->Finished() || RunsWithoutReport(*pod))
      DeleteReservation(state, *pod);
  }
  for (const SlotKey& key : wanted) {
    if (state.reservations.count(key) || !state.nodes.count(key.first)) continue;
    state.plan.reservation_pods.push_back(BuildReservationPod(state, key.first, key.second));
    state.node_use[key.first].gpu_milli += engine::kMilliPerGpu;
  }
}

}  // namespace gpupool::op::internal
