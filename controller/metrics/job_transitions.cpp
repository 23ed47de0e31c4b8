// Jobs per phase, admissions, preemptions and queue waits: what the cycle's
// accepted TrainingJob status writes changed, read against the job as the
// cycle saw it.
#include "job_transitions.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "gpupool/kube/cache.h"
#include "json_fields.h"

namespace gpupool::metrics::internal {
namespace {

using api::JobPhase;

constexpr JobPhase kPhases[] = {JobPhase::kQueued,    JobPhase::kAdmitted,  JobPhase::kRunning,
                                JobPhase::kPreempted, JobPhase::kSucceeded, JobPhase::kFailed};

// The cycle's inputs indexed by job key ("namespace/name").
struct JobIndex {
  std::unordered_map<std::string, const op::JobObject*> jobs;
  std::unordered_map<std::string, const op::StatusWrite*> accepted_writes;
};

std::string KeyOf(const op::StatusWrite& write) { return kube::ObjectKey(write.ns, write.name); }

JobIndex IndexJobs(const op::ClusterView& view, const op::Plan& plan,
                   const op::WriteStats& written) {
  JobIndex index;
  index.jobs.reserve(view.jobs.size());
  for (const auto& job : view.jobs) {
    const auto& meta = job->object.metadata;
    index.jobs.emplace(kube::ObjectKey(meta.namespace_, meta.name), job.get());
  }
  std::unordered_set<std::string> accepted;
  for (const auto& [kind, key] : written.changed)
    if (kind == op::Kind::kTrainingJob) accepted.insert(key);
  for (const auto* writes :
       {&plan.releasing_statuses, &plan.admission_statuses, &plan.other_statuses})
    for (const auto& write : *writes)
      if (write.kind == op::Kind::kTrainingJob && accepted.count(KeyOf(write)))
        index.accepted_writes.emplace(KeyOf(write), &write);
  return index;
}

const op::JobObject* FindJob(const JobIndex& index, const op::StatusWrite& write) {
  auto job = index.jobs.find(KeyOf(write));
  return job == index.jobs.end() ? nullptr : job->second;
}

std::string PhaseAfterCycle(const JobIndex& index, const std::string& key,
                            const api::TrainingJob& job) {
  auto write = index.accepted_writes.find(key);
  if (write != index.accepted_writes.end())
    return StringField(PlannedStatus(*write->second), "phase");
  return job.status.phase ? api::JobPhaseName(*job.status.phase) : "";
}

void CountPhases(const JobIndex& index, CycleMetrics& metrics) {
  for (JobPhase phase : kPhases) metrics.jobs_by_phase[api::JobPhaseName(phase)] = 0;
  for (const auto& [key, job] : index.jobs) {
    auto count = metrics.jobs_by_phase.find(PhaseAfterCycle(index, key, job->object));
    if (count != metrics.jobs_by_phase.end()) ++count->second;
  }
}

std::string ProjectOf(const op::Json& planned, const api::TrainingJob& job) {
  std::string project = StringField(planned, "project");
  return project.empty() ? job.status.project : project;
}

bool WasHolding(const api::TrainingJob& job) {
  return job.status.phase == JobPhase::kAdmitted || job.status.phase == JobPhase::kRunning;
}

// Submit to admission, for a job admitted for the first time (a resumed job
// keeps its original queuedTime, its place in line, which would count its runs).
void AddQueueWait(const op::ClusterView& view, const op::Json& planned, const api::TrainingJob& job,
                  CycleMetrics& metrics) {
  if (job.status.preemption_count > 0 || job.status.restart_count > 0) return;
  std::string queued = StringField(planned, "queuedTime");
  if (queued.empty()) queued = job.status.queued_time.value_or(job.metadata.creation_timestamp);
  const auto queued_at = op::ParseTime(queued);
  if (!queued_at) return;
  const auto admitted_at = op::ParseTime(StringField(planned, "admittedTime")).value_or(view.now);
  metrics.queue_waits.push_back(
      {ProjectOf(planned, job), api::WorkloadClassName(job.spec.workload_class),
       static_cast<double>(std::max<op::EpochSeconds>(0, admitted_at - *queued_at))});
}

void CountAdmissions(const op::ClusterView& view, const op::Plan& plan, const JobIndex& index,
                     CycleMetrics& metrics) {
  for (const auto& write : plan.admission_statuses) {
    const op::JobObject* job = FindJob(index, write);
    if (!job || !index.accepted_writes.count(KeyOf(write))) continue;
    const op::Json& planned = PlannedStatus(write);
    const api::TrainingJob& object = job->object;
    ++metrics.admissions[{object.spec.queue, ProjectOf(planned, object),
                          api::WorkloadClassName(object.spec.workload_class)}];
    AddQueueWait(view, planned, object, metrics);
  }
}

void CountPreemptions(const op::Plan& plan, const JobIndex& index, CycleMetrics& metrics) {
  for (const auto& write : plan.releasing_statuses) {
    const op::JobObject* job = FindJob(index, write);
    if (!job || !WasHolding(job->object) || !index.accepted_writes.count(KeyOf(write))) continue;
    const op::Json& planned = PlannedStatus(write);
    const std::string phase = StringField(planned, "phase");
    if (phase != "Queued" && phase != "Preempted") continue;
    const std::string reason = PreemptionReasonLabel(ConditionReason(planned, "Admitted"));
    if (reason.empty()) continue;
    ++metrics.preemptions[{job->object.spec.queue, ProjectOf(planned, job->object), reason}];
  }
}

}  // namespace

void AddJobTransitions(const op::ClusterView& view, const op::Plan& plan,
                       const op::WriteStats& written, CycleMetrics& metrics) {
  const JobIndex index = IndexJobs(view, plan, written);
  CountPhases(index, metrics);
  CountAdmissions(view, plan, index, metrics);
  CountPreemptions(plan, index, metrics);
}

}  // namespace gpupool::metrics::internal
