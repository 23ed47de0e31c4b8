// Cycle step 2b: the GPU utilization of holding jobs, from the last DCGM
// reading, into their status; and each queue's idle policy applied to its
// running Build sessions. The readings are an input like the caches: without
// them (no exporter, or a broken one) no job is released or flagged.
#include <cmath>
#include <cstdlib>

#include "cycle_state.h"
#include "job_utilization.h"

namespace gpupool::op::internal {
namespace {

constexpr char kIdle[] = "Idle";
constexpr char kIdleTimeout[] = "IdleTimeout";
// Status writes follow a reading only when it moves this far (or to or from 0),
// so a cluster of busy jobs is not rewritten on every scrape.
constexpr std::int32_t kUtilizationStep = 5;

void RecordUtilization(JobRecord& job, std::optional<JobUtilization> measured) {
  auto& written = job.status.gpu_utilization_percent;
  if (!measured) {
    written.reset();
    return;
  }
  const auto percent = static_cast<std::int32_t>(std::lround(measured->mean_percent));
  if (!written || std::abs(*written - percent) >= kUtilizationStep ||
      (*written == 0) != (percent == 0))
    written = percent;
}

void SetIdle(CycleState& state, JobRecord& job, const std::string& status,
             const std::string& reason, const std::string& message) {
  SetCondition(job.status.conditions, kIdle, status, reason, message, state.now,
               job.job().metadata.generation);
}

void RemoveIdle(JobRecord& job) {
  auto& conditions = job.status.conditions;
  std::erase_if(conditions, [](const api::Condition& c) { return c.type == kIdle; });
}

void FlagPods(CycleState& state, JobRecord& job, const std::string& since, bool flag) {
  for (const PodView* pod : job.pods) {
    if (!pod || pod->idle_flagged == flag) continue;
    const Json value = flag ? Json(since) : Json(nullptr);
    state.plan.pod_patches.push_back(
        {pod->ns, pod->name, {{"metadata", {{"annotations", {{kIdleSinceAnnotation, value}}}}}}});
  }
}

void ActOnIdle(CycleState& state, JobRecord& job, const api::IdlePolicy& policy) {
  const api::Condition* idle = api::FindCondition(job.status.conditions, kIdle);
  const std::string since = idle->last_transition_time;
  const std::string message =
      "every GPU below " + std::to_string(policy.utilization_below_percent) + "% since " + since +
      ", longer than forSeconds " + std::to_string(policy.for_seconds);
  if (policy.action == api::IdleAction::kPreempt) {
    SetIdle(state, job, "True", kIdleTimeout, message);
    Finish(state, job, api::JobPhase::kFailed, kIdleTimeout, message + ": released");
    return;
  }
  if (idle->reason != kIdleTimeout) {
    SetIdle(state, job, "True", kIdleTimeout, message);
    state.Event(job, "Warning", kIdleTimeout, "Annotate", message);
  }
  FlagPods(state, job, since, true);
}

void ApplyIdlePolicy(CycleState& state, JobRecord& job, const api::IdlePolicy& policy,
                     const utilization::Readings* readings,
                     const std::optional<JobUtilization>& measured) {
  if (!readings) {
    SetIdle(state, job, "Unknown", "MetricsUnavailable",
            "the controller scrapes no DCGM exporter (--gpu-metrics-url): the idle policy "
            "cannot act");
    return;
  }
  if (!readings->available) {
    SetIdle(state, job, "Unknown", "MetricsUnavailable",
            "no GPU utilization readings: the idle policy waits for them");
    return;
  }
  if (!measured || !measured->complete) {
    SetIdle(state, job, "Unknown", "NoReading",
            "the DCGM exporter reports no GPU of some of the job's running pods");
    return;
  }
  const std::string threshold = std::to_string(policy.utilization_below_percent) + "%";
  if (measured->max_percent >= policy.utilization_below_percent) {
    SetIdle(state, job, "False", "Busy", "a GPU is at or above " + threshold + " utilization");
    FlagPods(state, job, "", false);
    return;
  }
  const api::Condition* idle = api::FindCondition(job.status.conditions, kIdle);
  if (!idle || idle->status != "True")
    SetIdle(state, job, "True", "BelowThreshold", "every GPU below " + threshold + " utilization");
  idle = api::FindCondition(job.status.conditions, kIdle);
  const EpochSeconds since = ParseTime(idle->last_transition_time).value_or(state.now);
  if (state.now < since + policy.for_seconds) {
    state.Wake(since + policy.for_seconds);
    return;
  }
  ActOnIdle(state, job, policy);
}

const api::IdlePolicy* IdlePolicyOf(const CycleState& state, const JobRecord& job) {
  if (job.job().spec.workload_class != api::WorkloadClass::kBuild) return nullptr;
  auto queue = state.queues.find(job.job().spec.queue);
  if (queue == state.queues.end() || !queue->second->object.spec.idle) return nullptr;
  return &*queue->second->object.spec.idle;
}

}  // namespace

void PlanUtilization(CycleState& state) {
  const utilization::Readings* readings = state.view.gpu_readings.get();
  const bool available = readings && readings->available;
  // Before its first scrape a (re)started controller knows nothing new: what the
  // statuses say (utilization, the idle clock) stays as it is.
  const bool not_yet_read = readings && !readings->available && readings->read_at == 0;
  for (JobRecord& job : state.jobs) {
    if (job.stage != Stage::kHolding) {
      job.status.gpu_utilization_percent.reset();
      // A requeued session starts its idle time afresh when it runs again.
      if (job.stage == Stage::kWaiting) RemoveIdle(job);
      continue;
    }
    if (not_yet_read) continue;
    std::optional<JobUtilization> measured;
    if (available) measured = UtilizationOf(*readings, job.pods);
    RecordUtilization(job, measured);
    const api::IdlePolicy* policy = IdlePolicyOf(state, job);
    if (!policy) {
      RemoveIdle(job);
      FlagPods(state, job, "", false);
    } else if (job.status.phase == api::JobPhase::kRunning) {
      ApplyIdlePolicy(state, job, *policy, readings, measured);
    }
  }
}

}  // namespace gpupool::op::internal
