// Conditions and the two ways a job leaves its devices: back to the queue, or done.
#include "cycle_state.h"

namespace gpupool::op::internal {

void SetCondition(std::vector<api::Condition>& conditions, const std::string& type,
                  const std::string& status, const std::string& reason, const std::string& message,
                  EpochSeconds now, std::int64_t generation) {
  for (auto& condition : conditions) {
    if (condition.type != type) continue;
    if (condition.status != status) condition.last_transition_time = FormatTime(now);
    condition.status = status;
    condition.reason = reason;
    condition.message = message;
    condition.observed_generation = generation;
    return;
  }
  conditions.push_back({type, status, reason, message, FormatTime(now), generation});
}

namespace {

void ReleasePlacement(JobRecord& job) {
  job.status.placement.clear();
  job.status.allocated_gpu.reset();
  job.status.admitted_queue.clear();
  job.status.over_quota = false;
  job.status.gpu_utilization_percent.reset();
  job.frees_devices = true;
  job.stop_pods = true;
}

}  // namespace

void Requeue(CycleState& state, JobRecord& job, api::JobPhase phase, const std::string& reason,
             const std::string& message) {
  const std::int64_t generation = job.job().metadata.generation;
  ReleasePlacement(job);
  job.status.phase = phase;
  job.stage = Stage::kWaiting;
  SetCondition(job.status.conditions, "Admitted", "False", reason, message, state.now, generation);
  if (api::FindCondition(job.status.conditions, "Running"))
    SetCondition(job.status.conditions, "Running", "False", reason, message, state.now, generation);
}

void StopAsPreempted(const CycleState& state, JobRecord& job) {
  job.evict = true;
  const auto queue = state.queues.find(job.job().spec.queue);
  if (queue != state.queues.end())
    job.grace_seconds = queue->second->object.spec.preemption.grace_period_seconds;
}

void Finish(CycleState& state, JobRecord& job, api::JobPhase phase, const std::string& reason,
            const std::string& message) {
  const std::int64_t generation = job.job().metadata.generation;
  ReleasePlacement(job);
  job.status.phase = phase;
  job.status.completion_time = FormatTime(state.now);
  job.stage = Stage::kFinished;
  SetCondition(job.status.conditions, "Finished", "True", reason, message, state.now, generation);
  SetCondition(job.status.conditions, "Running", "False", reason, message, state.now, generation);
  SetCondition(job.status.conditions, "Admitted", "False", "Finished", message, state.now,
               generation);
  state.Event(job, phase == api::JobPhase::kSucceeded ? "Normal" : "Warning", reason, "Finish",
              message);
}

}  // namespace gpupool::op::internal
