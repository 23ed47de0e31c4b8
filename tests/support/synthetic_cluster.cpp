#include "synthetic_cluster.h"

#include <cstdio>
#include <random>
#include <string>

namespace gpupool::engine::bench {
namespace {

std::string Named(const char* prefix, std::uint64_t index) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%s%llu", prefix, static_cast<unsigned long long>(index));
  return buffer;
}

// Packs running jobs onto nodes in order: whole-GPU jobs take free devices of the
// current node, fractions share a device; the node cursor moves on when full.
class Packer {
 public:
  explicit Packer(Snapshot& s) : s_(s), used_(s.nodes.size(), std::vector<MilliGpu>(8, 0)) {}

  bool Place(RunningJob& job) {
    for (; node_ < s_.nodes.size(); ++node_) {
      std::vector<MilliGpu>& used = used_[node_];
      if (job.shape.gpu_milli < kMilliPerGpu) {
        for (int d = 0; d < 8; ++d) {
          if (used[d] > 0 && used[d] + job.shape.gpu_milli <= kMilliPerGpu) return Put(job, {d});
        }
        for (int d = 0; d < 8; ++d) {
          if (used[d] == 0) return Put(job, {d});
        }
        continue;
      }
      std::vector<int> devices;
      for (int d = 0; d < 8 && devices.size() < std::size_t(job.shape.gpu_milli / 1000); ++d) {
        if (used[d] == 0) devices.push_back(d);
      }
      if (devices.size() == std::size_t(job.shape.gpu_milli / 1000)) return Put(job, devices);
    }
    return false;
  }

 private:
  bool Put(RunningJob& job, std::vector<int> devices) {
    for (int d : devices) used_[node_][d] += std::min(job.shape.gpu_milli, kMilliPerGpu);
    job.replicas.push_back({s_.nodes[node_].name, std::move(devices)});
    return true;
  }

  Snapshot& s_;
  std::vector<std::vector<MilliGpu>> used_;
  std::size_t node_ = 0;
};

}  // namespace

PendingJob SyntheticJob(const ClusterSpec& spec, std::uint64_t index, Seconds now) {
  std::mt19937_64 rng(spec.seed * 1000003 + index);
  PendingJob job;
  job.name = Named("pending-", index);
  job.queue = "train";
  job.project = Named("project-", rng() % static_cast<std::uint64_t>(spec.projects));
  int kind = static_cast<int>(rng() % 20);
  job.shape.gpu_milli = kind < 8    ? 1000
                        : kind < 11 ? 2000
                        : kind < 13 ? 4000
                        : kind < 15 ? 500
                                    : 8000;
  job.shape.cpu_milli = 4000;
  job.shape.memory_bytes = Bytes{16} << 30;
  if (kind >= 18) {
    job.replicas = job.min_replicas = 2;  // 2 x 8 GPUs, preferably in one rack.
    job.topology = {TopologyMode::kPreferred, "rack"};
  }
  job.workload_class = kind == 14 ? WorkloadClass::kBuild : WorkloadClass::kTrain;
  job.priority = static_cast<int>(rng() % 3);
  job.arrival_time = now;
  return job;
}

Snapshot SyntheticCluster(const ClusterSpec& spec) {
  Snapshot s;
  s.now = 1000000;
  for (int n = 0; n < spec.nodes; ++n) {
    Node node;
    node.name = Named("node-", static_cast<std::uint64_t>(n));
    node.labels = {{"rack", Named("rack-", static_cast<std::uint64_t>(n / 32))}};
    node.gpu_model = "H100";
    node.gpus = spec.gpus_per_node;
    node.cpu_milli = 128000;
    node.memory_bytes = Bytes{1024} << 30;
    s.nodes.push_back(std::move(node));
  }
  s.queues.push_back({"train", {}, Sharing::kGuaranteed, 600});
  MilliGpu capacity = MilliGpu{spec.nodes} * spec.gpus_per_node * kMilliPerGpu;
  MilliGpu quota = capacity / spec.projects / 1000 * 1000;
  for (int p = 0; p < spec.projects; ++p) {
    s.projects.push_back({Named("project-", static_cast<std::uint64_t>(p)),
                          p % 3,
                          {{"train", quota, -1, 1 + p % 4, -1, -1}}});
  }
  for (int d = 0; d < spec.departments; ++d) {
    int members = spec.projects / spec.departments + (d < spec.projects % spec.departments);
    MilliGpu department_quota = quota * members * 9 / 10;
    s.departments.push_back({Named("department-", static_cast<std::uint64_t>(d)),
                             {{"train", department_quota, department_quota * 3 / 2, 1 + d % 3}}});
  }
  for (int p = 0; spec.departments > 0 && p < spec.projects; ++p) {
    s.projects[static_cast<std::size_t>(p)].department =
        Named("department-", static_cast<std::uint64_t>(p % spec.departments));
  }
  // Running work fills about 90 % of the GPUs; its size follows from the count.
  MilliGpu per_job = capacity * 9 / 10 / spec.running;
  std::mt19937_64 rng(spec.seed);
  Packer packer(s);
  for (int i = 0; i < spec.running; ++i) {
    RunningJob job;
    job.name = Named("running-", static_cast<std::uint64_t>(i));
    job.queue = "train";
    auto projects = static_cast<std::uint64_t>(spec.projects);
    std::uint64_t p = rng() % projects;
    // Skewed: the first fifth of the projects run far more than their share.
    if (spec.skewed && rng() % 5 != 0) p %= projects / 5;
    job.project = Named("project-", p);
    job.shape.gpu_milli = per_job >= 1000 ? (rng() % 2 ? 1000 : 2000) : (rng() % 2 ? 250 : 500);
    job.shape.cpu_milli = 2000;
    job.shape.memory_bytes = Bytes{8} << 30;
    job.priority = static_cast<int>(rng() % 3);
    job.start_time = s.now - static_cast<Seconds>(rng() % 86400);
    job.arrival_time = job.start_time;
    if (packer.Place(job)) s.running.push_back(std::move(job));
  }
  for (int i = 0; i < spec.pending; ++i) {
    s.pending.push_back(SyntheticJob(spec, static_cast<std::uint64_t>(i), s.now - 100));
  }
  return s;
}

}  // namespace gpupool::engine::bench
