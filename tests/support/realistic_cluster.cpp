#include "realistic_cluster.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>

#include "device_placer.h"

namespace gpupool::engine::bench {
namespace {

constexpr const char* kPoolLabel = "pool";
constexpr const char* kModelLabel = "nvidia.com/gpu.product";
constexpr const char* kH100 = "NVIDIA-H100-80GB-HBM3";
constexpr const char* kA100 = "NVIDIA-A100-SXM4-80GB";
constexpr const char* kL40S = "NVIDIA-L40S";
constexpr int kNodesPerRack = 32;
constexpr Seconds kNow = 10000000;
constexpr Bytes kGiB = Bytes{1} << 30;
// Arrivals in a row that may fail to be placed before a pool is deemed full.
constexpr int kFailuresBeforeFull = 2000;

struct NodeKind {
  const char* pool;
  const char* model;
  const char* prefix;
  int gpus;
  MilliCpu cpu_milli;
  Bytes memory_bytes;
  int per_mille;  // Of the cluster's nodes.
};

constexpr NodeKind kNodeKinds[] = {
    {"train", kH100, "h100", 8, 192000, 2048 * kGiB, 400},
    {"train", kA100, "a100", 8, 128000, 1024 * kGiB, 200},
    {"research", kA100, "a100x4", 4, 64000, 512 * kGiB, 200},
    {"interactive", kL40S, "l40s", 4, 64000, 512 * kGiB, 200},
};

using Rng = std::mt19937_64;

int Draw(Rng& rng, int below) {
  return static_cast<int>(rng() % static_cast<std::uint64_t>(below));
}

std::string Numbered(const std::string& prefix, long long number, int digits) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "%0*lld", digits, number);
  return prefix + buffer;
}

// The shape of a Kubernetes uid: 36 characters, 8-4-4-4-12 hex digits.
std::string Uid(Rng& rng) {
  char buffer[40];
  std::uint64_t a = rng(), b = rng();
  std::snprintf(
      buffer, sizeof buffer, "%08llx-%04llx-%04llx-%04llx-%012llx",
      static_cast<unsigned long long>(a >> 32), static_cast<unsigned long long>((a >> 16) & 0xffff),
      static_cast<unsigned long long>(a & 0xffff), static_cast<unsigned long long>(b >> 48),
      static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buffer;
}

void AddNodes(const RealisticSpec& spec, Snapshot& s) {
  int placed = 0;
  for (std::size_t k = 0; k < std::size(kNodeKinds); ++k) {
    const NodeKind& kind = kNodeKinds[k];
    int count =
        k + 1 == std::size(kNodeKinds) ? spec.nodes - placed : spec.nodes * kind.per_mille / 1000;
    for (int i = 0; i < count; ++i) {
      Node node;
      node.name = Numbered(std::string(kind.prefix) + "-node-", i, 5);
      std::string rack = Numbered(std::string(kind.prefix) + "-rack-", i / kNodesPerRack, 3);
      node.labels = {{kPoolLabel, kind.pool},
                     {kModelLabel, kind.model},
                     {"rack", rack},
                     {"topology.kubernetes.io/zone", Numbered("zone-", i / kNodesPerRack % 3, 1)},
                     {"kubernetes.io/hostname", node.name}};
      node.gpu_model = kind.model;
      node.gpus = kind.gpus;
      node.cpu_milli = kind.cpu_milli;
      node.memory_bytes = kind.memory_bytes;
      s.nodes.push_back(std::move(node));
    }
    placed += count;
  }
}

void AddQueues(Snapshot& s) {
  s.queues.push_back({"train", {{kPoolLabel, "train"}}, Sharing::kGuaranteed, 600});
  Queue research{"research", {{kPoolLabel, "research"}}, Sharing::kGuaranteed, 0};
  research.reclaim_wait_seconds = 300;
  s.queues.push_back(std::move(research));
  s.queues.push_back({"interactive", {{kPoolLabel, "interactive"}}, Sharing::kFixed, 0});
}

bool HasQuotaIn(int project, const std::string& queue) {
  if (queue == "train") return project % 5 != 4;
  if (queue == "research") return project % 2 == 0;
  return project % 3 == 0;
}

MilliGpu PoolCapacity(const Snapshot& s, const std::string& pool) {
  MilliGpu sum = 0;
  for (const Node& node : s.nodes) {
    if (node.labels.at(kPoolLabel) == pool) sum += MilliGpu{node.gpus} * kMilliPerGpu;
  }
  return sum;
}

// Guarantees in proportion to uneven weights, whole GPUs, together the pool's size.
void AddProjects(const RealisticSpec& spec, Rng& rng, Snapshot& s) {
  std::vector<int> weight(static_cast<std::size_t>(spec.projects));
  for (int& w : weight) w = 1 + Draw(rng, 16);
  for (int p = 0; p < spec.projects; ++p) {
    s.projects.push_back({Numbered("team-", p, 3), p % 3, {}, ""});
  }
  for (const Queue& queue : s.queues) {
    std::vector<int> members;
    long long total_weight = 0;
    for (int p = 0; p < spec.projects; ++p) {
      if (!HasQuotaIn(p, queue.name)) continue;
      members.push_back(p);
      total_weight += weight[static_cast<std::size_t>(p)];
    }
    long long gpus = PoolCapacity(s, queue.name) / kMilliPerGpu;
    std::vector<long long> quota;
    long long given = 0;
    for (int p : members) {
      quota.push_back(gpus * weight[static_cast<std::size_t>(p)] / std::max(1LL, total_weight));
      given += quota.back();
    }
    for (std::size_t i = 0; given < gpus && !quota.empty(); i = (i + 1) % quota.size(), ++given) {
      ++quota[i];
    }
    for (std::size_t i = 0; i < members.size(); ++i) {
      int p = members[i];
      MilliGpu guarantee = quota[i] * kMilliPerGpu;
      MilliGpu limit = p % 7 == 0 ? 2 * guarantee : -1;
      s.projects[static_cast<std::size_t>(p)].quotas.push_back(
          {queue.name, guarantee, limit, 1 + p % 4, -1, -1});
    }
  }
}

void AddDepartments(const RealisticSpec& spec, Snapshot& s) {
  for (int d = 0; d < spec.departments; ++d) {
    Department department{Numbered("dept-", d, 2), {}};
    for (const Queue& queue : s.queues) {
      MilliGpu sum = 0;
      for (int p = d; p < spec.projects; p += spec.departments) {
        for (const ProjectQuota& q : s.projects[static_cast<std::size_t>(p)].quotas) {
          if (q.queue == queue.name) sum += q.gpu;
        }
      }
      MilliGpu quota = sum * 9 / 10 / kMilliPerGpu * kMilliPerGpu;
      if (quota > 0) department.quotas.push_back({queue.name, quota, quota * 3 / 2, 1 + d % 3});
    }
    s.departments.push_back(std::move(department));
  }
  for (int p = 0; spec.departments > 0 && p < spec.projects; ++p) {
    s.projects[static_cast<std::size_t>(p)].department = Numbered("dept-", p % spec.departments, 2);
  }
}

// What one arrival asks for, before it is placed or left waiting.
struct Arrival {
  std::string queue;
  int project = 0;
  ReplicaShape shape;
  int replicas = 1;
  TopologyRequest topology;
  std::string model;  // Empty: any model of the pool.
  WorkloadClass workload_class = WorkloadClass::kTrain;
};

int GangOf8GpuReplicas(Rng& rng) {
  int r = Draw(rng, 20);
  return r < 10 ? 2 : r < 16 ? 4 : r < 19 ? 8 : 16;
}

// GPUs per replica and replicas, by pool: counts of jobs, not of GPUs.
void DrawSize(Rng& rng, Arrival& a) {
  int r = Draw(rng, 100);
  auto set = [&](MilliGpu milli, int replicas) {
    a.shape.gpu_milli = milli;
    a.replicas = replicas;
  };
  if (a.queue == "train") {
    if (r < 5) return set(500, 1);
    if (r < 40) return set(1000, 1);
    if (r < 55) return set(2000, 1);
    if (r < 67) return set(4000, 1);
    if (r < 80) return set(8000, 1);
    if (r < 92) return set(8000, GangOf8GpuReplicas(rng));
    return set(4000, 2 + Draw(rng, 3));
  }
  if (a.queue == "research") {
    if (r < 8) return set(250, 1);
    if (r < 15) return set(500, 1);
    if (r < 50) return set(1000, 1);
    if (r < 70) return set(2000, 1);
    if (r < 85) return set(4000, 1);
    const int gangs[] = {2, 4, 8};
    return set(4000, gangs[Draw(rng, 3)]);
  }
  if (r < 25) return set(250, 1);
  if (r < 45) return set(500, 1);
  if (r < 80) return set(1000, 1);
  if (r < 92) return set(2000, 1);
  return set(4000, 1);
}

// A replica's cpu and memory follow its GPUs: 12 cores and 96 GiB per whole GPU.
void SizeCpuAndMemory(ReplicaShape& shape) {
  shape.cpu_milli = shape.gpu_milli * 12;
  shape.memory_bytes = shape.gpu_milli * 96 * kGiB / kMilliPerGpu;
  if (shape.gpu_milli < kMilliPerGpu) {
    shape.cpu_milli = shape.gpu_milli * 8;
    shape.memory_bytes = shape.gpu_milli * 32 * kGiB / kMilliPerGpu;
  }
}

void DrawPlacementWishes(Rng& rng, Arrival& a) {
  if (a.queue == "train") {
    int model = Draw(rng, 100);
    a.model = model < 35 ? kH100 : model < 50 ? kA100 : "";
  }
  if (a.replicas > 1) {
    int r = Draw(rng, 20);
    if (a.queue == "train" && r < 17) {
      a.topology = {r < 12 ? TopologyMode::kPreferred : TopologyMode::kRequired, "rack"};
    } else if (a.queue == "research" && r < 10) {
      a.topology = {TopologyMode::kPreferred, "rack"};
    }
  }
  if (a.queue == "interactive") {
    int r = Draw(rng, 10);
    a.workload_class = r < 5   ? WorkloadClass::kBuild
                       : r < 7 ? WorkloadClass::kInference
                               : WorkloadClass::kTrain;
  }
}

// Draws the project of an arrival in proportion to weights over a queue's members.
class ProjectDraw {
 public:
  void Add(int project, std::int64_t weight) {
    total_ += weight;
    projects_.push_back(project);
    cumulative_.push_back(total_);
  }
  int Next(Rng& rng) const {
    auto at = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(total_));
    auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), at);
    return projects_[static_cast<std::size_t>(it - cumulative_.begin())];
  }

 private:
  std::vector<int> projects_;
  std::vector<std::int64_t> cumulative_;
  std::int64_t total_ = 0;
};

MilliGpu QuotaIn(const Project& project, const std::string& queue) {
  for (const ProjectQuota& q : project.quotas) {
    if (q.queue == queue) return q.gpu;
  }
  return 0;
}

// Running work: each project's share follows its guarantee times a factor of 0.4-1.6
// of its own, so some projects borrow and some are below their guarantee. Waiting
// work: in proportion to the guarantees.
ProjectDraw DrawFor(const Snapshot& s, const std::string& queue, Rng* usage) {
  ProjectDraw draw;
  for (int p = 0; p < static_cast<int>(s.projects.size()); ++p) {
    MilliGpu quota = QuotaIn(s.projects[static_cast<std::size_t>(p)], queue);
    if (quota <= 0) continue;
    std::int64_t factor = usage ? 40 + Draw(*usage, 121) : 100;
    draw.Add(p, quota / kMilliPerGpu * factor);
  }
  return draw;
}

Arrival NextArrival(const std::string& queue, const ProjectDraw& projects, Rng& rng) {
  Arrival a;
  a.queue = queue;
  a.project = projects.Next(rng);
  DrawSize(rng, a);
  SizeCpuAndMemory(a.shape);
  DrawPlacementWishes(rng, a);
  return a;
}

template <typename Job>
Job JobFor(const Snapshot& s, const Arrival& a, long long index, Rng& rng) {
  Job job;
  const std::string& project = s.projects[static_cast<std::size_t>(a.project)].name;
  job.name = Numbered(project + "/" + a.queue + "-", index, 7);
  job.uid = Uid(rng);
  job.queue = a.queue;
  job.project = project;
  job.workload_class = a.workload_class;
  job.priority = Draw(rng, 3);
  job.shape = a.shape;
  job.checkpoint_interval_seconds = Draw(rng, 2) == 0 ? 1800 : 0;
  return job;
}

PendingJob Waiting(const Snapshot& s, const Arrival& a, long long index, Rng& rng) {
  auto job = JobFor<PendingJob>(s, a, index, rng);
  job.replicas = job.min_replicas = a.replicas;
  job.topology = a.topology;
  if (!a.model.empty()) job.node_selector = {{kModelLabel, a.model}};
  job.arrival_time = kNow - Draw(rng, 7200);
  return job;
}

RunningJob Started(const Snapshot& s, const Arrival& a, long long index, Rng& rng) {
  auto job = JobFor<RunningJob>(s, a, index, rng);
  job.start_time = kNow - Draw(rng, 3 * 86400);
  job.arrival_time = job.start_time - Draw(rng, 3600);
  job.min_replicas = job.max_replicas = a.replicas;
  if (Draw(rng, 3) == 0) job.expected_runtime_seconds = kNow - job.start_time + Draw(rng, 86400);
  return job;
}

// Fills one pool to `fill` of its GPUs with arrivals placed where they fit.
class PoolFiller {
 public:
  PoolFiller(RealisticCluster& cluster, DevicePlacer& placer, Rng& rng, long long& next_index)
      : cluster_(cluster), s_(cluster.snapshot), placer_(placer), rng_(rng), index_(next_index) {}

  void Fill(const Queue& queue, double fill) {
    ProjectDraw projects = DrawFor(s_, queue.name, &rng_);
    auto target =
        static_cast<MilliGpu>(std::ceil(fill * static_cast<double>(placer_.Capacity(queue.name))));
    std::vector<MilliGpu> fixed_used(s_.projects.size(), 0);
    for (int failures = 0;
         placer_.Allocated(queue.name) < target && failures < kFailuresBeforeFull;) {
      Arrival a = NextArrival(queue.name, projects, rng_);
      if (queue.sharing != Sharing::kFixed) a.workload_class = WorkloadClass::kTrain;
      MilliGpu total = a.shape.gpu_milli * a.replicas;
      MilliGpu& used = fixed_used[static_cast<std::size_t>(a.project)];
      bool in_quota =
          queue.sharing != Sharing::kFixed ||
          used + total <= QuotaIn(s_.projects[static_cast<std::size_t>(a.project)], queue.name);
      RunningJob job = Started(s_, a, index_++, rng_);
      std::vector<int> groups = placer_.Groups(queue.name, a.model);
      if (in_quota && placer_.Place(job, a.replicas, groups, a.topology)) {
        used += total;
        s_.running.push_back(std::move(job));
        failures = 0;
      } else {
        s_.pending.push_back(Waiting(s_, a, index_ - 1, rng_));
        ++cluster_.unplaced;
        ++failures;
      }
    }
    cluster_.pools.push_back(
        {queue.name, placer_.Capacity(queue.name), placer_.Allocated(queue.name)});
  }

 private:
  RealisticCluster& cluster_;
  Snapshot& s_;
  DevicePlacer& placer_;
  Rng& rng_;
  long long& index_;
};

void CheckSpec(const RealisticSpec& spec) {
  auto fail = [](const std::string& message) { throw std::invalid_argument(message); };
  if (spec.nodes < 5)
    fail("nodes: must be at least 5 (one of each kind), got " + std::to_string(spec.nodes));
  if (!(spec.fill >= 0.70 && spec.fill <= 0.95)) {
    fail("fill: must be between 0.70 and 0.95, got " + std::to_string(spec.fill));
  }
  if (spec.projects < 15)
    fail("projects: must be at least 15, got " + std::to_string(spec.projects));
  if (spec.departments < 0 || spec.departments > spec.projects) {
    fail("departments: must be between 0 and projects, got " + std::to_string(spec.departments));
  }
  if (spec.pending_per_node < 0) {
    fail("pending_per_node: must be at least 0, got " + std::to_string(spec.pending_per_node));
  }
}

}  // namespace

double RealisticCluster::Fill() const {
  MilliGpu capacity = 0, allocated = 0;
  for (const PoolFill& pool : pools) {
    capacity += pool.capacity;
    allocated += pool.allocated;
  }
  return capacity > 0 ? static_cast<double>(allocated) / static_cast<double>(capacity) : 0;
}

RealisticCluster BuildRealisticCluster(const RealisticSpec& spec) {
  CheckSpec(spec);
  RealisticCluster cluster;
  Snapshot& s = cluster.snapshot;
  s.now = kNow;
  Rng rng(spec.seed);
  AddNodes(spec, s);
  AddQueues(s);
  AddProjects(spec, rng, s);
  AddDepartments(spec, s);
  DevicePlacer placer(s.nodes, kPoolLabel);
  long long index = 0;
  PoolFiller filler(cluster, placer, rng, index);
  for (const Queue& queue : s.queues) filler.Fill(queue, spec.fill);
  std::vector<ProjectDraw> waiting;
  for (const Queue& queue : s.queues) waiting.push_back(DrawFor(s, queue.name, nullptr));
  for (long long i = 0; i < static_cast<long long>(spec.pending_per_node) * spec.nodes; ++i) {
    int r = Draw(rng, 10);
    std::size_t q = r < 6 ? 0 : r < 8 ? 1 : 2;  // In proportion to the pools' nodes.
    Arrival a = NextArrival(s.queues[q].name, waiting[q], rng);
    if (s.queues[q].sharing != Sharing::kFixed && Draw(rng, 20) == 0) {
      a.workload_class = WorkloadClass::kBuild;
    }
    s.pending.push_back(Waiting(s, a, index++, rng));
  }
  return cluster;
}

std::string FillShortfall(const RealisticCluster& cluster, double fill) {
  std::string out;
  for (const PoolFill& pool : cluster.pools) {
    double share = static_cast<double>(pool.allocated) / static_cast<double>(pool.capacity);
    if (share >= fill) continue;
    char buffer[160];
    std::snprintf(buffer, sizeof buffer,
                  "%spool %s holds %.1f %% of its GPUs, below the stated %.1f %%",
                  out.empty() ? "" : "; ", pool.queue.c_str(), 100 * share, 100 * fill);
    out += buffer;
  }
  return out;
}

}  // namespace gpupool::engine::bench
