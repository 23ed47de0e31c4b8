// The numbers one controller cycle exports, as a pure function of what the
// cycle read (ClusterView), decided (Plan) and got written (WriteStats): every
// figure is table-testable without an API server or an HTTP endpoint.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpupool/operator/cluster_view.h"
#include "gpupool/operator/plan.h"
#include "gpupool/operator/writer.h"

namespace gpupool::metrics {

// GPUs as doubles: half GPUs exist.
struct ProjectGpus {
  double guaranteed = 0, allocated = 0, over_quota = 0, pending = 0;
  bool operator==(const ProjectGpus&) const = default;
};

struct QueueGpus {
  double guaranteed = 0, allocated = 0, capacity = 0;
  bool operator==(const QueueGpus&) const = default;
};

struct QueueProject {
  std::string queue, project;
  auto operator<=>(const QueueProject&) const = default;
};

struct QueueDepartment {
  std::string queue, department;
  auto operator<=>(const QueueDepartment&) const = default;
};

// `detail` is the workload class of an admission or the reason of a preemption.
struct QueueProjectDetail {
  std::string queue, project, detail;
  auto operator<=>(const QueueProjectDetail&) const = default;
};

struct QueueWait {
  std::string project, workload_class;
  double seconds = 0;
  bool operator==(const QueueWait&) const = default;
};

struct CycleMetrics {
  std::map<QueueProject, ProjectGpus> projects;
  std::map<QueueDepartment, ProjectGpus> departments;  // Its projects' GPUs, against its quota.
  std::map<std::string, QueueGpus> queues;
  std::map<std::string, std::int64_t> jobs_by_phase;       // Every phase, zeros included.
  std::map<QueueProjectDetail, std::int64_t> admissions;   // detail: workload class.
  std::map<QueueProjectDetail, std::int64_t> preemptions;  // detail: a PreemptionReason value.
  std::vector<QueueWait> queue_waits;                      // Jobs admitted for the first time.
  // Utilization (0..1) of the GPUs a project's running pods hold, weighted by
  // their GPUs; only projects with readings.
  std::map<QueueProject, double> utilization;
};

// The bounded set of preemption reasons: a job sent back to its queue while
// holding GPUs, by the engine (reclaim, priority) or by the controller.
namespace preemption_reason {
inline constexpr char kReclaim[] = "reclaim";
inline constexpr char kPriority[] = "priority";
inline constexpr char kNodeLost[] = "node_lost";
inline constexpr char kReplicaLost[] = "replica_lost";
inline constexpr char kReservationLost[] = "reservation_lost";
inline constexpr char kStartTimeout[] = "start_timeout";
inline constexpr char kPlacementConflict[] = "placement_conflict";
inline constexpr char kQueueDeleted[] = "queue_deleted";
inline constexpr char kOther[] = "other";
}  // namespace preemption_reason

// The status `reason` of a requeue (the Admitted condition's) as a metric label.
std::string PreemptionReasonLabel(const std::string& condition_reason);

// Admissions, preemptions and waits count only the status writes the server
// accepted (`written.changed`): a refused write is planned again next cycle
// and counted then.
CycleMetrics ComputeCycleMetrics(const op::ClusterView& view, const op::Plan& plan,
                                 const op::WriteStats& written);

// Every planned write accepted, for callers (tests, benchmarks) without a server.
op::WriteStats AllWritten(const op::Plan& plan);

}  // namespace gpupool::metrics
