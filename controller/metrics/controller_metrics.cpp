#include "gpupool/metrics/controller_metrics.h"

#include <prometheus/text_serializer.h>

namespace gpupool::metrics {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;
using prometheus::Labels;

prometheus::Labels QueueProjectLabels(const QueueProject& key) {
  return {{"queue", key.queue}, {"project", key.project}};
}
prometheus::Labels QueueDepartmentLabels(const QueueDepartment& key) {
  return {{"queue", key.queue}, {"department", key.department}};
}
prometheus::Labels QueueLabels(const std::string& queue) { return {{"queue", queue}}; }
prometheus::Labels PhaseLabels(const std::string& phase) { return {{"phase", phase}}; }

prometheus::Family<prometheus::Gauge>& Gauges(prometheus::Registry& registry,
                                              const std::string& name, const std::string& help) {
  return BuildGauge().Name(name).Help(help).Register(registry);
}

prometheus::Family<prometheus::Counter>& Counters(prometheus::Registry& registry,
                                                  const std::string& name,
                                                  const std::string& help) {
  return BuildCounter().Name(name).Help(help).Register(registry);
}

prometheus::Family<prometheus::Histogram>& Histograms(prometheus::Registry& registry,
                                                      const std::string& name,
                                                      const std::string& help) {
  return BuildHistogram().Name(name).Help(help).Register(registry);
}

// "0" for no answer reads like a status code; say what it is.
std::string CodeLabel(int code) { return code == 0 ? "error" : std::to_string(code); }

}  // namespace

prometheus::Histogram::BucketBoundaries QueueWaitBuckets() {
  return {1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 28800, 43200, 86400};
}

prometheus::Histogram::BucketBoundaries CycleDurationBuckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
}

prometheus::Histogram::BucketBoundaries RequestDurationBuckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

ControllerMetrics::ControllerMetrics(const std::string& version)
    : registry_(std::make_shared<prometheus::Registry>()),
      project_guaranteed_(Gauges(*registry_, "gpupool_project_guaranteed_gpus",
                                 "GPUs a project's quota guarantees it in a queue."),
                          QueueProjectLabels),
      project_allocated_(Gauges(*registry_, "gpupool_project_allocated_gpus",
                                "GPUs held by a project's admitted and running jobs in a queue."),
                         QueueProjectLabels),
      project_over_quota_(Gauges(*registry_, "gpupool_project_over_quota_gpus",
                                 "Part of a project's allocated GPUs above its guarantee."),
                          QueueProjectLabels),
      project_pending_(Gauges(*registry_, "gpupool_project_pending_gpus",
                              "GPUs asked for by a project's jobs still waiting in a queue."),
                       QueueProjectLabels),
      project_utilization_(Gauges(*registry_, "gpupool_project_gpu_utilization",
                                  "Utilization (0 to 1) of the GPUs a project's running pods "
                                  "hold, as the DCGM exporter reports it."),
                           QueueProjectLabels),
      department_guaranteed_(Gauges(*registry_, "gpupool_department_guaranteed_gpus",
                                    "A department's quota in a queue."),
                             QueueDepartmentLabels),
      department_allocated_(Gauges(*registry_, "gpupool_department_allocated_gpus",
                                   "GPUs held by a department's projects' jobs in a queue."),
                            QueueDepartmentLabels),
      department_over_quota_(Gauges(*registry_, "gpupool_department_over_quota_gpus",
                                    "Part of a department's allocated GPUs above its quota."),
                             QueueDepartmentLabels),
      queue_guaranteed_(Gauges(*registry_, "gpupool_queue_guaranteed_gpus",
                               "Sum of the guarantees of a queue's projects."),
                        QueueLabels),
      queue_allocated_(Gauges(*registry_, "gpupool_queue_allocated_gpus",
                              "GPUs held by a queue's admitted and running jobs."),
                       QueueLabels),
      queue_capacity_(Gauges(*registry_, "gpupool_queue_capacity_gpus",
                             "GPUs of the ready, schedulable nodes of a queue's pool."),
                      QueueLabels),
      jobs_(Gauges(*registry_, "gpupool_jobs",
                   "Workloads (TrainingJobs and pod groups) by status phase."),
            PhaseLabels),
      admissions_(Counters(*registry_, "gpupool_admissions_total", "TrainingJobs admitted.")),
      preemptions_(Counters(*registry_, "gpupool_preemptions_total",
                            "TrainingJobs sent back to their queue while holding GPUs.")),
      queue_wait_(Histograms(*registry_, "gpupool_queue_wait_seconds",
                             "From a job's queuedTime to its first admission.")),
      cycle_duration_(Histograms(*registry_, "gpupool_cycle_duration_seconds",
                                 "Controller cycle stages: plan (read and decide), write.")),
      plan_duration_(cycle_duration_.Add({{"stage", "plan"}}, CycleDurationBuckets())),
      write_duration_(cycle_duration_.Add({{"stage", "write"}}, CycleDurationBuckets())),
      api_requests_(Counters(*registry_, "gpupool_api_requests_total",
                             "Kubernetes API request attempts (retries included), by HTTP "
                             "method and status code (error: no answer).")),
      api_request_duration_(Histograms(*registry_, "gpupool_api_request_duration_seconds",
                                       "Kubernetes API request attempts' latency.")),
      watch_restarts_(Counters(*registry_, "gpupool_watch_restarts_total",
                               "Watches started again after the first, by resource.")),
      leader_(Gauges(*registry_, "gpupool_leader",
                     "1 while this replica leads (or runs without leader election), 0 standby.")
                  .Add({})) {
  Gauges(*registry_, "gpupool_build_info", "The running gpupool's version; always 1.")
      .Add({{"version", version}})
      .Set(1);
  leader_.Set(1);
}

void ControllerMetrics::RecordCycle(const CycleMetrics& cycle, const op::CycleReport& report) {
  RecordGpuUsage(cycle);
  RecordJobs(cycle);
  plan_duration_.Observe(report.plan_ms / 1000.0);
  write_duration_.Observe(report.write_ms / 1000.0);
}

void ControllerMetrics::RecordGpuUsage(const CycleMetrics& cycle) {
  project_guaranteed_.Update(cycle.projects, [](const ProjectGpus& p) { return p.guaranteed; });
  project_allocated_.Update(cycle.projects, [](const ProjectGpus& p) { return p.allocated; });
  project_over_quota_.Update(cycle.projects, [](const ProjectGpus& p) { return p.over_quota; });
  project_pending_.Update(cycle.projects, [](const ProjectGpus& p) { return p.pending; });
  department_guaranteed_.Update(cycle.departments,
                                [](const ProjectGpus& d) { return d.guaranteed; });
  department_allocated_.Update(cycle.departments, [](const ProjectGpus& d) { return d.allocated; });
  department_over_quota_.Update(cycle.departments,
                                [](const ProjectGpus& d) { return d.over_quota; });
  project_utilization_.Update(cycle.utilization, [](double ratio) { return ratio; });
  queue_guaranteed_.Update(cycle.queues, [](const QueueGpus& q) { return q.guaranteed; });
  queue_allocated_.Update(cycle.queues, [](const QueueGpus& q) { return q.allocated; });
  queue_capacity_.Update(cycle.queues, [](const QueueGpus& q) { return q.capacity; });
}

void ControllerMetrics::RecordJobs(const CycleMetrics& cycle) {
  jobs_.Update(cycle.jobs_by_phase, [](std::int64_t count) { return count; });
  for (const auto& [key, count] : cycle.admissions)
    admissions_
        .Add({{"queue", key.queue}, {"project", key.project}, {"workload_class", key.detail}})
        .Increment(static_cast<double>(count));
  for (const auto& [key, count] : cycle.preemptions)
    preemptions_.Add({{"queue", key.queue}, {"project", key.project}, {"reason", key.detail}})
        .Increment(static_cast<double>(count));
  for (const auto& wait : cycle.queue_waits)
    queue_wait_
        .Add({{"project", wait.project}, {"workload_class", wait.workload_class}},
             QueueWaitBuckets())
        .Observe(wait.seconds);
}

void ControllerMetrics::OnRequest(const kube::RequestObservation& request) {
  const std::string verb(request.verb);
  api_requests_.Add({{"verb", verb}, {"code", CodeLabel(request.code)}}).Increment();
  api_request_duration_.Add({{"verb", verb}}, RequestDurationBuckets()).Observe(request.seconds);
}

void ControllerMetrics::OnWatchRestart(std::string_view resource) {
  watch_restarts_.Add({{"resource", std::string(resource)}}).Increment();
}

std::string ControllerMetrics::Text() {
  leader_.Set(!is_leader_ || is_leader_() ? 1 : 0);
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace gpupool::metrics
