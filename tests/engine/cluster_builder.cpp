#include "cluster_builder.h"

#include <algorithm>
#include <cstdio>

namespace gpupool::engine::testing {

ClusterBuilder& ClusterBuilder::Nodes(int count, int gpus, const std::string& prefix, Labels labels,
                                      const std::string& model) {
  for (int i = 0; i < count; ++i) {
    Node node;
    node.name = prefix + "-" + std::to_string(i);
    node.labels = labels;
    node.gpu_model = model;
    node.gpus = gpus;
    node.cpu_milli = 128000;
    node.memory_bytes = Bytes{1} << 40;
    snapshot_.nodes.push_back(std::move(node));
  }
  return *this;
}

ClusterBuilder& ClusterBuilder::AddQueue(const std::string& name, Sharing sharing, Labels selector,
                                         Seconds min_runtime) {
  Queue queue;
  queue.name = name;
  queue.sharing = sharing;
  queue.node_selector = std::move(selector);
  queue.min_runtime_seconds = min_runtime;
  snapshot_.queues.push_back(std::move(queue));
  return *this;
}

ClusterBuilder& ClusterBuilder::AddProject(const std::string& name, const std::string& queue,
                                           MilliGpu quota, int priority, MilliGpu limit,
                                           std::int64_t weight) {
  auto it = std::find_if(snapshot_.projects.begin(), snapshot_.projects.end(),
                         [&](const Project& p) { return p.name == name; });
  if (it == snapshot_.projects.end()) {
    snapshot_.projects.push_back({name, priority, {}});
    it = snapshot_.projects.end() - 1;
  }
  ProjectQuota q;
  q.queue = queue;
  q.gpu = quota;
  q.limit = limit;
  q.over_quota_weight = weight;
  it->quotas.push_back(q);
  return *this;
}

ClusterBuilder& ClusterBuilder::AddDepartment(const std::string& name, const std::string& queue,
                                              MilliGpu quota, MilliGpu limit, std::int64_t weight) {
  auto it = std::find_if(snapshot_.departments.begin(), snapshot_.departments.end(),
                         [&](const Department& d) { return d.name == name; });
  if (it == snapshot_.departments.end()) {
    snapshot_.departments.push_back({name, {}});
    it = snapshot_.departments.end() - 1;
  }
  it->quotas.push_back({queue, quota, limit, weight});
  return *this;
}

ClusterBuilder& ClusterBuilder::InDepartment(const std::string& project,
                                             const std::string& department) {
  for (Project& p : snapshot_.projects) {
    if (p.name == project) p.department = department;
  }
  return *this;
}

PendingJob& ClusterBuilder::Submit(const std::string& name, const std::string& queue,
                                   const std::string& project, MilliGpu gpus_per_replica,
                                   int replicas, WorkloadClass workload_class, int priority) {
  snapshot_.pending.push_back(Job(name, queue, project, gpus_per_replica, replicas, workload_class,
                                  priority, next_arrival_++));
  return snapshot_.pending.back();
}

std::string Named(const char* prefix, long long number) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%s%lld", prefix, number);
  return buffer;
}

PendingJob Job(const std::string& name, const std::string& queue, const std::string& project,
               MilliGpu gpus_per_replica, int replicas, WorkloadClass workload_class, int priority,
               Seconds arrival) {
  PendingJob job;
  job.name = name;
  job.queue = queue;
  job.project = project;
  job.shape.gpu_milli = gpus_per_replica;
  job.replicas = replicas;
  job.min_replicas = replicas;
  job.workload_class = workload_class;
  job.priority = priority;
  job.arrival_time = arrival;
  return job;
}

const Admission* FindAdmission(const Decisions& decisions, const std::string& job) {
  for (const Admission& a : decisions.admissions) {
    if (a.job == job) return &a;
  }
  return nullptr;
}

const Waiting* FindWaiting(const Decisions& decisions, const std::string& job) {
  for (const Waiting& w : decisions.waiting) {
    if (w.job == job) return &w;
  }
  return nullptr;
}

std::vector<std::string> Victims(const Decisions& decisions) {
  std::vector<std::string> out;
  for (const Preemption& p : decisions.preemptions) out.push_back(p.victim);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Admitted(const Decisions& decisions) {
  std::vector<std::string> out;
  for (const Admission& a : decisions.admissions) out.push_back(a.job);
  std::sort(out.begin(), out.end());
  return out;
}

const ProjectShare* FindShare(const Decisions& decisions, const std::string& project,
                              const std::string& queue) {
  for (const ProjectShare& s : decisions.shares) {
    if (s.project == project && s.queue == queue) return &s;
  }
  return nullptr;
}

const DepartmentShare* FindDepartmentShare(const Decisions& decisions,
                                           const std::string& department,
                                           const std::string& queue) {
  for (const DepartmentShare& s : decisions.department_shares) {
    if (s.department == department && s.queue == queue) return &s;
  }
  return nullptr;
}

MilliGpu Allocated(const Engine& engine, const std::string& project, const std::string& queue) {
  MilliGpu total = 0;
  for (const RunningJob& job : engine.ToSnapshot().running) {
    if (job.project == project && job.queue == queue) {
      total += job.shape.gpu_milli * static_cast<MilliGpu>(job.replicas.size());
    }
  }
  return total;
}

Options Incremental() {
  Options options;
  options.full_cycle_interval_seconds = 3600;
  return options;
}

}  // namespace gpupool::engine::testing
