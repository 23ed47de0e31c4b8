// The compact view of a Pod that the controller's pod informer caches: only what
// scheduling and a job's lifecycle need, so 100,000 pods cost well under 2 KB each.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "gpupool/api/training_job.h"

namespace gpupool::op {

// Labels and annotations of the pod contract (docs/operator.md).
inline constexpr char kJobLabel[] = "gpupool.dev/job";
inline constexpr char kProjectLabel[] = "gpupool.dev/project";
inline constexpr char kQueueLabel[] = "gpupool.dev/queue";
inline constexpr char kReplicaLabel[] = "gpupool.dev/replica";
inline constexpr char kAdmissionGate[] = "gpupool.dev/admission";
inline constexpr char kDeviceAnnotation[] = "gpupool.dev/gpu-device";
inline constexpr char kFractionAnnotation[] = "gpupool.dev/gpu-fraction";
inline constexpr char kWorldSizeAnnotation[] = "gpupool.dev/world-size";
// Set on the pods of a Build session whose queue's idle policy (action Annotate)
// found its GPUs idle too long: the time they became idle.
inline constexpr char kIdleSinceAnnotation[] = "gpupool.dev/idle-since";
inline constexpr char kHostnameLabel[] = "kubernetes.io/hostname";
// Pods of other owners (docs/workloads.md): a pod carrying kQueueLabel and no
// kJobLabel asks gpupool to schedule it. Pods naming one kPodGroupLabel form one
// gang of kPodGroupSizeLabel pods; kFractionAnnotation asks for part of a GPU.
// When released, each pod carries its gang's admission (kAdmissionAnnotation: the
// TrainingJob status fields admittedTime, admittedQueue, overQuota and placement,
// as JSON) and its own replica slot (kReplicaLabel); kAdmittedCondition tells
// why it waits.
inline constexpr char kPodGroupLabel[] = "gpupool.dev/pod-group";
inline constexpr char kPodGroupSizeLabel[] = "gpupool.dev/pod-group-size";
inline constexpr char kWorkloadClassLabel[] = "gpupool.dev/workload-class";
inline constexpr char kAdmissionAnnotation[] = "gpupool.dev/admission";
inline constexpr char kAdmittedCondition[] = "gpupool.dev/Admitted";
// A reservation pod (docs/operator.md, "Fractions"): it holds one device of its
// node from the device plugin for the fractions the engine put on device slot
// `kReservationLabel` of that node. Its init container `kReportContainer`
// reports the device it was given (its NVIDIA_VISIBLE_DEVICES) as its
// termination message, which only the kubelet writes into the pod's status;
// its container `kHoldContainer` holds that device.
inline constexpr char kReservationLabel[] = "gpupool.dev/gpu-reservation";
inline constexpr char kReportContainer[] = "report";
inline constexpr char kHoldContainer[] = "hold";

enum class PodPhase : std::uint8_t { kPending, kRunning, kSucceeded, kFailed, kUnknown };

// gpupool's condition on a pod of another owner, as last written.
struct PodAdmission {
  std::string status, reason, message;
};

// What a pod of another owner asks for (docs/workloads.md); all empty for the others.
struct PodRequest {
  std::string queue;           // kQueueLabel.
  std::string group;           // kPodGroupLabel.
  std::string group_size;      // kPodGroupSizeLabel, as written.
  std::string workload_class;  // kWorkloadClassLabel, as written.
  std::string fraction;        // kFractionAnnotation, as written.
  std::string owner_kind;      // The controlling owner's kind, apiVersion and name.
  std::string owner_api_version, owner_name;
  // kAdmissionAnnotation, set at its release, decoded once here rather than
  // every cycle; empty when absent or unreadable.
  std::optional<api::TrainingJobStatus> admission_record;
  std::string created;                               // metadata.creationTimestamp.
  PodAdmission admission;                            // kAdmittedCondition.
  std::map<std::string, std::string> node_selector;  // spec.nodeSelector.
  bool has_annotations = false;  // metadata.annotations is there (a patch adds to it).
};

struct PodView {
  std::string ns, name, uid;
  std::string job;        // kJobLabel: empty for pods gpupool does not manage.
  std::string owner_uid;  // The controlling owner's uid.
  std::string node;       // spec.nodeName: where it is bound.
  std::string pinned;     // spec.nodeSelector[kubernetes.io/hostname].
  std::int64_t gpu_milli = 0;
  std::int32_t replica = -1;           // kReplicaLabel; -1 when absent or not a number.
  std::int32_t reservation_slot = -1;  // kReservationLabel; -1 when not a reservation pod.
  std::string gpu_device;              // kDeviceAnnotation: a fraction's device.
  // What the device plugin gave a reservation pod: the termination message of
  // its init container kReportContainer, once that exited 0.
  std::string visible_devices;
  std::int32_t gate_index = -1;  // Index of kAdmissionGate in spec.schedulingGates.
  std::int32_t gates = 0;        // Scheduling gates of any name.
  PodPhase phase = PodPhase::kPending;
  bool ready = false;        // The Ready condition is True.
  bool terminating = false;  // metadata.deletionTimestamp is set.
  bool has_node_selector = false;
  bool idle_flagged = false;  // Carries kIdleSinceAnnotation.
  // Set only for a pod that asks gpupool to schedule it (Asks()).
  std::shared_ptr<const PodRequest> request;

  bool Managed() const { return !job.empty(); }
  // A pod of another owner that asks gpupool to schedule it.
  bool Asks() const { return request != nullptr; }
  bool Reservation() const { return reservation_slot >= 0 && job.empty(); }
  bool Finished() const { return phase == PodPhase::kSucceeded || phase == PodPhase::kFailed; }
  // Where its devices are, or will be once the scheduler binds it: "" when gated.
  const std::string& Host() const { return node.empty() && gates == 0 ? pinned : node; }
};

// A pod spec's milli-GPUs as the scheduler counts them: the sum over its
// containers, or the largest init container's when that is more.
std::int64_t PodSpecGpuMilli(const nlohmann::json& spec);
PodView DecodePodView(const nlohmann::json& object);

}  // namespace gpupool::op
