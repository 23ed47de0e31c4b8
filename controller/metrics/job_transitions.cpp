// Jobs per phase, admissions, preemptions and queue waits: what the cycle's
// accepted TrainingJob status writes changed, read against the job as the
// cycle saw it.
#include "job_transitions.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "json_fields.h"

namespace gpupool::metrics::internal {
namespace {

using api::JobPhase;

constexpr JobPhase kPhases[] = {JobPhase::kQueued,    JobPhase::kAdmitted,  JobPhase::kRunning,
                                JobPhase::kPreempted, JobPhase::kSucceeded, JobPhase::kFailed,
                                JobPhase::kSuspended};

// A job's namespace and name, pointing into the view or the plan: indexing
// 5,000 jobs allocates no key strings.
struct JobName {
  std::string_view ns, name;
  bool operator==(const JobName&) const = default;
};

struct JobNameHash {
  std::size_t operator()(const JobName& job) const {
    const std::hash<std::string_view> hash;
    return hash(job.ns) * 31 + hash(job.name);
  }
};

// "namespace/name" (kube::ObjectKey) split back into its parts.
JobName NameOfKey(const std::string& key) {
  const auto slash = key.find('/');
  if (slash == std::string::npos) return {{}, key};
  const std::string_view view(key);
  return {view.substr(0, slash), view.substr(slash + 1)};
}

JobName NameOf(const op::StatusWrite& write) { return {write.ns, write.name}; }
JobName NameOf(const api::TrainingJob& job) { return {job.metadata.namespace_, job.metadata.name}; }

// The cycle's inputs indexed by job.
struct JobIndex {
  std::unordered_map<JobName, const op::JobObject*, JobNameHash> jobs;
  std::unordered_map<JobName, const op::StatusWrite*, JobNameHash> accepted_writes;
};

JobIndex IndexJobs(const op::ClusterView& view, const op::Plan& plan,
                   const op::WriteStats& written) {
  JobIndex index;
  index.jobs.reserve(view.jobs.size());
  for (const auto& job : view.jobs) index.jobs.emplace(NameOf(job->object), job.get());
  std::unordered_set<JobName, JobNameHash> accepted;
  accepted.reserve(written.changed.size());
  for (const auto& [kind, key] : written.changed)
    if (kind == op::Kind::kTrainingJob) accepted.insert(NameOfKey(key));
  for (const auto* writes : plan.StatusWrites())
    for (const auto& write : *writes)
      if (write.kind == op::Kind::kTrainingJob && accepted.count(NameOf(write)))
        index.accepted_writes.emplace(NameOf(write), &write);
  return index;
}

// The job a write accepted by the server is about; null when it was refused.
const op::JobObject* AcceptedJob(const JobIndex& index, const op::StatusWrite& write) {
  if (!index.accepted_writes.count(NameOf(write))) return nullptr;
  auto job = index.jobs.find(NameOf(write));
  return job == index.jobs.end() ? nullptr : job->second;
}

const std::string& PhaseAfterCycle(const JobIndex& index, const api::TrainingJob& job) {
  static const std::string kNone;
  auto write = index.accepted_writes.find(NameOf(job));
  if (write != index.accepted_writes.end())
    return StringField(PlannedStatus(*write->second), "phase");
  static const std::map<api::JobPhase, std::string> kNames = [] {
    std::map<api::JobPhase, std::string> names;
    for (JobPhase phase : kPhases) names[phase] = api::JobPhaseName(phase);
    return names;
  }();
  return job.status.phase ? kNames.at(*job.status.phase) : kNone;
}

// TrainingJobs and pod groups alike.
void CountPhases(const op::ClusterView& view, const op::Plan& plan, const JobIndex& index,
                 CycleMetrics& metrics) {
  for (JobPhase phase : kPhases) metrics.jobs_by_phase[api::JobPhaseName(phase)] = 0;
  for (const auto& job : view.jobs) {
    auto count = metrics.jobs_by_phase.find(PhaseAfterCycle(index, job->object));
    if (count != metrics.jobs_by_phase.end()) ++count->second;
  }
  for (const auto& [phase, groups] : plan.pod_group_phases) {
    auto count = metrics.jobs_by_phase.find(phase);
    if (count != metrics.jobs_by_phase.end()) count->second += groups;
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
    const op::JobObject* job = AcceptedJob(index, write);
    if (!job) continue;
    const op::Json& planned = PlannedStatus(write);
    const api::TrainingJob& object = job->object;
    ++metrics.admissions[{object.spec.queue, ProjectOf(planned, object),
                          api::WorkloadClassName(object.spec.workload_class)}];
    AddQueueWait(view, planned, object, metrics);
  }
}

void CountPreemptions(const op::Plan& plan, const JobIndex& index, CycleMetrics& metrics) {
  for (const auto& write : plan.releasing_statuses) {
    const op::JobObject* job = AcceptedJob(index, write);
    if (!job || !WasHolding(job->object)) continue;
    const op::Json& planned = PlannedStatus(write);
    const std::string& phase = StringField(planned, "phase");
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
  CountPhases(view, plan, index, metrics);
  CountAdmissions(view, plan, index, metrics);
  CountPreemptions(plan, index, metrics);
}

}  // namespace gpupool::metrics::internal
