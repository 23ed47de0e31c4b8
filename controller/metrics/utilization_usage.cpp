// Per project GPU utilization: the DCGM readings of its running pods, each pod
// weighted by the GPUs its job gives a replica, so a project's figure reads
// against its allocated GPUs. A pod counts through its owner reference to its
// job, never through the labels a tenant can set on any pod.
#include <unordered_map>

#include "gpu_usage.h"

namespace gpupool::metrics::internal {
namespace {

struct JobShare {
  QueueProject key;
  double gpus_per_pod = 0;
  std::string uid;  // A pod is the job's when its controlling owner is this UID.
};

std::unordered_map<std::string, JobShare> HoldingJobs(const op::ClusterView& view) {
  std::unordered_map<std::string, JobShare> jobs;
  for (const auto& job : view.jobs) {
    const api::TrainingJob& object = job->object;
    if (object.status.project.empty() || object.status.placement.empty()) continue;
    jobs[object.metadata.namespace_ + "/" + object.metadata.name] = {
        {object.spec.queue, object.status.project},
        static_cast<double>(object.spec.gpus_per_replica.milli) / 1000.0,
        object.metadata.uid};
  }
  return jobs;
}

}  // namespace

void AddUtilization(const op::ClusterView& view, CycleMetrics& metrics) {
  const utilization::Readings* readings = view.gpu_readings.get();
  if (!readings || !readings->available) return;
  const auto jobs = HoldingJobs(view);
  std::map<QueueProject, std::pair<double, double>> busy_and_gpus;
  for (const auto& pod : view.pods) {
    if (!pod->Managed() || pod->phase != op::PodPhase::kRunning) continue;
    const auto* indexes = readings->OfPod(pod->ns, pod->name);
    auto job = jobs.find(pod->ns + "/" + pod->job);
    if (!indexes || indexes->empty() || job == jobs.end() || pod->owner_uid != job->second.uid)
      continue;
    double percent = 0;
    for (std::size_t index : *indexes) percent += readings->gpus[index].percent;
    percent /= static_cast<double>(indexes->size());
    auto& [busy, gpus] = busy_and_gpus[job->second.key];
    busy += job->second.gpus_per_pod * percent / 100.0;
    gpus += job->second.gpus_per_pod;
  }
  for (const auto& [key, value] : busy_and_gpus)
    if (value.second > 0) metrics.utilization[key] = value.first / value.second;
}

}  // namespace gpupool::metrics::internal
