// Cycle step 2: what happened to each job since the last cycle, read from its
// pods, nodes and reservations: started, succeeded, failed, lost, timed out; and whether a
// waiting job may go to the engine now.
#include <algorithm>

#include "cycle_state.h"
#include "reservations.h"

namespace gpupool::op::internal {
namespace {

using api::JobPhase;

void InitStatus(CycleState& state, JobRecord& job) {
  const auto& meta = job.job().metadata;
  if (!job.project.empty()) job.status.project = job.project;
  if (!job.status.queued_time)
    job.status.queued_time =
        meta.creation_timestamp.empty() ? FormatTime(state.now) : meta.creation_timestamp;
  if (!job.status.phase) job.status.phase = JobPhase::kQueued;
  const auto& spec = job.job().spec;
  job.status.requested_gpu = json::Quantity::FromMilli(spec.gpus_per_replica.milli *
                                                       static_cast<std::int64_t>(spec.replicas));
  job.status.observed_generation = meta.generation;
}

constexpr char kSuspended[] = "Suspended";

// Why nothing may happen to the job, or "" when something may.
std::pair<std::string, std::string> IgnoredBecause(const JobRecord& job) {
  if (job.job().spec.suspend)
    return {kSuspended,
            "suspended (spec.suspend): it holds no GPUs and is out of line until resumed"};
  if (!job.source->errors.empty())
    return {"InvalidSpec", "invalid spec: " + json::JoinErrors(job.source->errors)};
  if (job.project.empty())
    return {"NoProject", "no Project owns namespace \"" + job.ns() +
                             "\": add it to a Project's spec.namespaces"};
  return {};
}

void NodesLost(CycleState& state, JobRecord& job, bool& lost) {
  for (const auto& placed : job.status.placement) {
    auto node = state.nodes.find(placed.node);
    if (node != state.nodes.end() && node->second->ready) continue;
    const std::string why = node == state.nodes.end() ? "was deleted" : "is not ready";
    Requeue(state, job, JobPhase::kQueued, "NodeLost", "node " + placed.node + " " + why);
    job.grace_seconds = 0;  // A lost node's kubelet cannot confirm the stop.
    state.Event(job, "Warning", "NodeLost", "Requeue", "node " + placed.node + " " + why);
    lost = true;
    return;
  }
}

struct PodCounts {
  std::size_t succeeded = 0, running = 0, missing = 0;
  int failed_replica = -1;
};

// The pod of a placed replica, or null when it is gone or going (deleted,
// evicted).
const PodView* PodOf(const JobRecord& job, const api::ReplicaPlacement& placed) {
  const auto index = static_cast<std::size_t>(placed.replica);
  const PodView* pod = index < job.pods.size() ? job.pods[index] : nullptr;
  return pod && pod->terminating && !pod->Finished() ? nullptr : pod;
}

// Which replica's pod went, from which node; a drain (the node cordoned, its
// pods evicted) says so.
std::string LostReplicaMessage(const CycleState& state, const JobRecord& job) {
  for (const auto& placed : job.status.placement) {
    if (PodOf(job, placed)) continue;
    std::string message = "the pod of replica " + std::to_string(placed.replica) + " on node " +
                          placed.node + " was deleted";
    const auto node = state.nodes.find(placed.node);
    if (node != state.nodes.end() && node->second->unschedulable)
      message += " (the node is cordoned: drained)";
    return message;
  }
  return "a replica's pod was deleted";
}

PodCounts CountPods(const JobRecord& job) {
  PodCounts counts;
  for (const auto& placed : job.status.placement) {
    const PodView* pod = PodOf(job, placed);
    if (!pod) {
      ++counts.missing;
    } else if (pod->phase == PodPhase::kFailed) {
      counts.failed_replica = placed.replica;
    } else if (pod->phase == PodPhase::kSucceeded) {
      ++counts.succeeded;
    } else if (pod->phase == PodPhase::kRunning) {
      ++counts.running;
    }
  }
  return counts;
}

void PodFailed(CycleState& state, JobRecord& job, int replica) {
  const auto& spec = job.job().spec;
  ++job.status.restart_count;
  const std::string what = "replica " + std::to_string(replica) + " failed";
  if (job.status.restart_count > spec.backoff_limit) {
    Finish(state, job, JobPhase::kFailed, "BackoffLimitExceeded",
           what + "; " + std::to_string(job.status.restart_count) +
               " failures exceed backoffLimit " + std::to_string(spec.backoff_limit));
    return;
  }
  const std::string message = what + "; restart " + std::to_string(job.status.restart_count) +
                              " of " + std::to_string(spec.backoff_limit);
  Requeue(state, job, JobPhase::kQueued, "PodFailed", message);
  state.Event(job, "Warning", "PodFailed", "Requeue", message);
}

bool DeadlinePassed(CycleState& state, JobRecord& job) {
  const auto& deadline = job.job().spec.active_deadline_seconds;
  if (!deadline || !job.status.start_time) return false;
  const auto start = ParseTime(*job.status.start_time);
  if (!start) return false;
  if (state.now < *start + *deadline) {
    state.Wake(*start + *deadline);
    return false;
  }
  Finish(state, job, JobPhase::kFailed, "DeadlineExceeded",
         "ran longer than activeDeadlineSeconds " + std::to_string(*deadline));
  return true;
}

void Started(CycleState& state, JobRecord& job) {
  job.status.phase = JobPhase::kRunning;
  // What the admission waited for (victims stopping) is over.
  for (auto& condition : job.status.conditions) {
    const auto waiting = condition.message.find("; waiting for");
    if (condition.type == "Admitted" && waiting != std::string::npos)
      condition.message.erase(waiting);
  }
  job.status.start_time = FormatTime(state.now);
  const std::string message =
      "all " + std::to_string(job.status.placement.size()) + " replicas run";
  SetCondition(job.status.conditions, "Running", "True", "Started", message, state.now,
               job.job().metadata.generation);
  state.Event(job, "Normal", "Started", "Start", message);
}

void StartTimedOut(CycleState& state, JobRecord& job) {
  const auto admitted = ParseTime(job.status.admitted_time.value_or(""));
  const EpochSeconds deadline = admitted.value_or(state.now) + state.options.start_timeout_seconds;
  if (state.now < deadline) {
    state.Wake(deadline);
    return;
  }
  ++job.status.restart_count;
  const std::string message = "pods not all running " +
                              std::to_string(state.options.start_timeout_seconds) +
                              " s after admission; back to the queue";
  Requeue(state, job, JobPhase::kQueued, "StartTimeout", message);
  state.Event(job, "Warning", "StartTimeout", "Requeue", message);
}

// What of the job's spec changed since its admission that its placement no
// longer fits: its GPUs per replica (other than the placement's), its class
// (over quota, where only Train runs) or its queue (another than it was
// admitted into); "" when nothing did.
std::string ShapeChange(const CycleState& state, const JobRecord& job) {
  const api::Condition* admitted = api::FindCondition(job.status.conditions, "Admitted");
  if (!admitted || admitted->observed_generation == job.job().metadata.generation) return "";
  const auto& spec = job.job().spec;
  const auto placed = static_cast<std::int64_t>(job.status.placement.size());
  if (job.status.allocated_gpu &&
      job.status.allocated_gpu->milli != spec.gpus_per_replica.milli * placed)
    return "gpusPerReplica is now " + json::FormatDecimal(spec.gpus_per_replica.milli) +
           ", it was " +
           json::FormatDecimal(job.status.allocated_gpu->milli / std::max<std::int64_t>(placed, 1));
  if (job.status.over_quota && spec.workload_class != api::WorkloadClass::kTrain)
    return std::string("workloadClass is now ") + api::WorkloadClassName(spec.workload_class) +
           ", which never runs over quota";
  if (!job.status.admitted_queue.empty() && job.status.admitted_queue != spec.queue)
    return "queue is now " + spec.queue + ", it was admitted into " + job.status.admitted_queue;
  // A status written before admittedQueue was: a placed node outside the new pool.
  const auto queue = state.queues.find(spec.queue);
  if (queue == state.queues.end()) return "";  // A missing queue requeues it anyway.
  for (const auto& replica : job.status.placement) {
    const auto node = state.nodes.find(replica.node);
    if (node != state.nodes.end() && !InPool(queue->second->object, *node->second))
      return "queue is now " + spec.queue + ", whose pool does not hold node " + replica.node;
  }
  return "";
}

void AdvanceHolding(CycleState& state, JobRecord& job) {
  bool lost = false;
  NodesLost(state, job, lost);
  if (lost) return;
  if (const std::string change = ShapeChange(state, job); !change.empty()) {
    const std::string why = "its spec changed while it held GPUs (" + change +
                            "): it waits to be admitted again with the new spec";
    Requeue(state, job, JobPhase::kQueued, "SpecChanged", why);
    StopAsPreempted(state, job);  // It may checkpoint.
    state.Event(job, "Normal", "SpecChanged", "Requeue", why);
    return;
  }
  if (const std::string why = LostReservation(state, job); !why.empty()) {
    Requeue(state, job, JobPhase::kQueued, "ReservationLost", why);
    state.Event(job, "Warning", "ReservationLost", "Requeue", why);
    return;
  }
  const PodCounts pods = CountPods(job);
  if (pods.failed_replica >= 0) return PodFailed(state, job, pods.failed_replica);
  if (pods.succeeded == job.status.placement.size()) {
    Finish(state, job, JobPhase::kSucceeded, "Succeeded", "every replica succeeded");
    return;
  }
  if (DeadlinePassed(state, job)) return;
  const bool running = job.status.phase == JobPhase::kRunning;
  if (running && pods.missing > 0) {
    const std::string message = LostReplicaMessage(state, job);
    Requeue(state, job, JobPhase::kQueued, "ReplicaLost", message);
    state.Event(job, "Warning", "ReplicaLost", "Requeue", message);
    return;
  }
  if (!running && pods.running + pods.succeeded == job.status.placement.size()) {
    Started(state, job);
  } else if (!running) {
    StartTimedOut(state, job);
  }
}

EpochSeconds Backoff(const PlanOptions& options, std::int32_t restarts) {
  EpochSeconds delay = options.backoff_seconds;
  for (std::int32_t i = 1; i < restarts && delay < options.max_backoff_seconds; ++i) delay *= 2;
  return std::min(delay, options.max_backoff_seconds);
}

// A waiting job is kept from the engine while it backs off after a failed start
// or run, or while the pod template the API refused is unchanged.
void CheckEligible(CycleState& state, JobRecord& job) {
  const api::Condition* admitted = api::FindCondition(job.status.conditions, "Admitted");
  if (!admitted || admitted->status != "False") return;
  if (admitted->reason == "PodTemplateRejected") {
    job.eligible = admitted->observed_generation != job.job().metadata.generation;
    return;
  }
  if (admitted->reason != "StartTimeout" && admitted->reason != "PodFailed" &&
      admitted->reason != "NodeLost" && admitted->reason != "ReplicaLost" &&
      admitted->reason != "ReservationLost" && admitted->reason != "PodForbidden")
    return;
  const auto since = ParseTime(admitted->last_transition_time);
  const EpochSeconds until =
      since.value_or(state.now) + Backoff(state.options, job.status.restart_count);
  if (state.now < until) {
    job.eligible = false;
    state.Wake(until);
  }
}

// A suspended job stops like a preempted one (its pods may checkpoint within
// the queue's grace period) and leaves the line; resumed, it queues anew, at
// the back of its line.
void Suspend(CycleState& state, JobRecord& job, const std::string& message) {
  if (job.status.phase == JobPhase::kSuspended) return;
  if (job.stage == Stage::kHolding) StopAsPreempted(state, job);
  Requeue(state, job, JobPhase::kSuspended, kSuspended, message);  // Its Event: step 6.
}

void ResumeIfSuspended(CycleState& state, JobRecord& job) {
  if (job.status.phase != JobPhase::kSuspended || job.job().spec.suspend) return;
  job.status.phase = JobPhase::kQueued;
  job.status.queued_time = FormatTime(state.now);
  state.Event(job, "Normal", "Resumed", "Resume", "resumed: queued again");
}

}  // namespace

void AdvanceLifecycles(CycleState& state) {
  for (JobRecord& job : state.jobs) {
    if (job.stage == Stage::kFinished) continue;
    InitStatus(state, job);
    ResumeIfSuspended(state, job);
    auto [reason, message] = IgnoredBecause(job);
    if (!reason.empty()) {
      if (reason == kSuspended) {
        Suspend(state, job, message);
      } else if (job.stage == Stage::kHolding) {
        Requeue(state, job, JobPhase::kQueued, reason, message);
      }
      job.stage = Stage::kIgnored;
      SetCondition(job.status.conditions, "Admitted", "False", reason, message, state.now,
                   job.job().metadata.generation);
      continue;
    }
    if (job.pod_group) {
      AdvancePodGroup(state, job);
      continue;
    }
    if (job.stage == Stage::kHolding) AdvanceHolding(state, job);
    if (job.stage == Stage::kWaiting) CheckEligible(state, job);
  }
}

}  // namespace gpupool::op::internal
