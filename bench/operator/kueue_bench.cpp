// Kueue's baseline scheduling benchmark (test/performance/scheduler), through
// gpupool: 5 Guaranteed queues, each a pool of 6 nodes × 20 GPUs; 6 projects per
// pool, each guaranteed 20 GPUs with a limit of 120; per project 350 small jobs
// (1 GPU, 200 ms, priority 50, one every 100 ms), 100 medium (5 GPUs, 500 ms,
// priority 100, every 500 ms) and 50 large (20 GPUs, 1 s, priority 200, every
// 1.2 s): 15,000 one-replica TrainingJobs created through the API by this load
// generator while a `gpupool controller` process schedules them on a `gpupool
// sandbox` process whose simulated pods run for those times; or on a real
// control plane (kube-apiserver, etcd, kube-scheduler, kube-controller-manager)
// whose nodes `gpupool simulate-nodes` plays, reporting each process's CPU.
// Usage: kueue_bench [scale] [version]   (scale 0 < s ≤ 1 multiplies the job
// counts, 1: Kueue's; version: a real control plane's folder, e.g. v1.32.13)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>

#include "bench_cluster.h"
#include "job_watch.h"
#include "load_generator.h"

namespace {

using gpupool::bench::Clock;
using gpupool::bench::JobTimes;
namespace resources = gpupool::kube::resources;

constexpr int kPools = 5, kProjectsPerPool = 6, kNodesPerPool = 6, kGpusPerNode = 20;

struct JobClass {
  const char* name;
  int count, gpus, priority;
  double every_seconds, run_seconds;
};
constexpr JobClass kClasses[] = {{"small", 350, 1, 50, 0.1, 0.2},
                                 {"medium", 100, 5, 100, 0.5, 0.5},
                                 {"large", 50, 20, 200, 1.2, 1.0}};

std::string Pool(int pool) { return "pool-" + std::to_string(pool); }

std::string Nodes() {
  std::string nodes;
  for (int pool = 0; pool < kPools; ++pool) {
    if (pool) nodes += ";";
    nodes +=
        std::to_string(kNodesPerPool) + "x" + std::to_string(kGpusPerNode) + ":pool=" + Pool(pool);
  }
  return nodes;
}

std::vector<gpupool::bench::Scheduled> Schedule(gpupool::bench::BenchCluster& cluster,
                                                gpupool::bench::JobWatch& watch, double scale) {
  std::vector<gpupool::bench::Scheduled> items;
  for (int pool = 0; pool < kPools; ++pool) {
    for (int p = 0; p < kProjectsPerPool; ++p) {
      const std::string ns = Pool(pool) + "-team-" + std::to_string(p);
      for (const JobClass& kind : kClasses) {
        const int count = std::max(1, static_cast<int>(kind.count * scale));
        for (int i = 0; i < count; ++i) {
          const std::string name = std::string(kind.name) + "-" + std::to_string(i);
          items.push_back({i * kind.every_seconds, [&cluster, &watch, ns, name, pool, kind] {
                             watch.Expect(ns + "/" + name, Pool(pool), kind.name, kind.gpus);
                             cluster.client().Create(
                                 resources::kTrainingJobs, ns,
                                 gpupool::bench::OneReplicaJob(ns, name, Pool(pool), kind.gpus,
                                                               kind.priority, kind.run_seconds),
                                 gpupool::bench::kAnswerUnread);
                           }});
        }
      }
    }
  }
  return items;
}

double Seconds(Clock::duration duration) { return std::chrono::duration<double>(duration).count(); }

void Report(const std::map<std::string, JobTimes>& jobs, Clock::time_point start) {
  Clock::time_point end = start;
  std::map<std::string, double> gpu_seconds;
  std::map<std::string, std::pair<double, int>> admission;  // per class: sum, count
  std::map<std::string, std::pair<double, int>> held;       // admitted -> finished
  std::map<std::string, std::pair<double, int>> starting;   // admitted -> Running
  int preemptions = 0, unfinished = 0;
  for (const auto& [key, job] : jobs) {
    if (job.finished == Clock::time_point{}) ++unfinished;
    end = std::max(end, job.finished);
    gpu_seconds[job.pool] += job.gpu_seconds;
    preemptions += job.preemptions;
    if (job.admitted != Clock::time_point{}) {
      auto& [sum, count] = admission[job.kind];
      sum += Seconds(job.admitted - job.created);
      ++count;
    }
    if (job.admitted != Clock::time_point{} && job.finished != Clock::time_point{}) {
      auto& [sum, count] = held[job.kind];
      sum += Seconds(job.finished - job.admitted);
      ++count;
    }
    if (job.admitted != Clock::time_point{} && job.running != Clock::time_point{}) {
      auto& [sum, count] = starting[job.kind];
      sum += Seconds(job.running - job.admitted);
      ++count;
    }
  }
  const double wall = Seconds(end - start);
  std::printf("jobs %zu, unfinished %d, preemptions %d\n", jobs.size(), unfinished, preemptions);
  std::printf("wall time, first create to last finish: %.1f s (Kueue: 351 s; bound ~66 s)\n", wall);
  double total = 0;
  for (const auto& [pool, seconds] : gpu_seconds) {
    const double usage = seconds / (kNodesPerPool * kGpusPerNode * wall);
    total += usage;
    std::printf("  %s GPU usage over the run: %.1f %%\n", pool.c_str(), 100 * usage);
  }
  std::printf("mean GPU usage: %.1f %% (Kueue: 58.7 %%)\n",
              100 * total / static_cast<double>(gpu_seconds.size()));
  // Held is not busy: a job holds its GPUs from its admission until its end is
  // recorded. The jobs' own run time over the same capacity and wall:
  double work = 0;
  for (const auto& [key, job] : jobs)
    for (const JobClass& kind : kClasses)
      if (job.kind == kind.name) work += kind.gpus * kind.run_seconds;
  std::printf("GPU time the jobs ran / capacity over the run: %.1f %%\n",
              100 * work / (kPools * kNodesPerPool * kGpusPerNode * wall));
  const std::map<std::string, double> kueue = {{"small", 215}, {"medium", 76.8}, {"large", 6.7}};
  for (const auto& [kind, sum_count] : admission)
    std::printf("mean time to admission, %s: %.2f s (Kueue: %.1f s)\n", kind.c_str(),
                sum_count.first / sum_count.second, kueue.at(kind));
  for (const JobClass& kind : kClasses) {
    const auto& [sum, count] = held[kind.name];
    const auto& [to_run, runs] = starting[kind.name];
    if (count && runs)
      std::printf(
          "mean time held, admission to recorded end, %s: %.2f s (runs %.1f s; %.2f s "
          "until recorded Running)\n",
          kind.name, sum / count, kind.run_seconds, to_run / runs);
  }
}

// Statuses overlap for a moment: a cycle records a finished job's end after
// the admissions into its devices. Per pool, the most GPUs held at once, and
// the usage counting no more GPUs than the pool has at any moment.
void ReportHeldOverTime(
    const std::map<std::string, std::vector<std::pair<Clock::time_point, int>>>& held,
    Clock::time_point start) {
  const int capacity = kNodesPerPool * kGpusPerNode;
  double total = 0;
  for (const auto& [pool, series] : held) {
    int peak = 0;
    double gpu_seconds = 0;
    for (std::size_t i = 0; i + 1 < series.size(); ++i) {
      peak = std::max(peak, series[i].second);
      gpu_seconds +=
          std::min(series[i].second, capacity) * Seconds(series[i + 1].first - series[i].first);
    }
    const double wall = series.empty() ? 0 : Seconds(series.back().first - start);
    const double usage = wall > 0 ? gpu_seconds / (capacity * wall) : 0;
    total += usage;
    std::printf("  %s: at most %d GPUs recorded held at once (has %d); usage at most %d: %.1f %%\n",
                pool.c_str(), peak, capacity, capacity, 100 * usage);
  }
  std::printf("mean GPU usage, at most the pool's GPUs at any moment: %.1f %%\n",
              held.empty() ? 0 : 100 * total / static_cast<double>(held.size()));
}

}  // namespace

int main(int argc, char** argv) {
  const double scale = argc > 1 ? std::atof(argv[1]) : 1.0;
  const std::string backend = argc > 2 ? argv[2] : "sandbox";
  if (!(scale > 0 && scale <= 1) || argc > 3) {
    std::fprintf(stderr, "usage: kueue_bench [scale in (0, 1]] [version, e.g. v1.32.13]\n");
    return 2;
  }
  try {
    gpupool::bench::BenchCluster cluster(Nodes(), backend);
    for (int pool = 0; pool < kPools; ++pool) {
      cluster.CreateQueue(Pool(pool), Pool(pool));
      for (int p = 0; p < kProjectsPerPool; ++p)
        cluster.CreateProject(Pool(pool) + "-team-" + std::to_string(p), Pool(pool), 20, 120);
    }
    cluster.StartController();
    gpupool::bench::JobWatch watch(cluster.client());
    auto items = Schedule(cluster, watch, scale);
    const std::size_t total = items.size();
    const auto server_before = cluster.ServerUse();  // A control plane's start-up is not the run's.
    const auto start = Clock::now();
    const auto generated = gpupool::bench::RunSchedule(std::move(items), 8);
    std::printf("created %zu jobs in %.1f s (%zu failed, latest %.0f ms late)\n", total,
                generated.seconds, generated.failed, generated.max_late_ms);
    const auto deadline = start + std::chrono::minutes(15);
    while (watch.Finished() < total - generated.failed && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto controller = cluster.ControllerUse();
    auto server = cluster.ServerUse();
    if (backend != "sandbox")
      for (std::size_t i = 0; i < server.size() && i < server_before.size(); ++i)
        server[i].second.cpu_seconds -= server_before[i].second.cpu_seconds;
    Report(watch.Snapshot(), start);
    ReportHeldOverTime(watch.HeldOverTime(), start);
    if (backend == "sandbox")
      gpupool::bench::PrintUse(controller, server.front().second, cluster.ControllerLog());
    else
      gpupool::bench::PrintUse(controller, server, cluster.ControllerLog());
    return watch.Finished() + generated.failed == total ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kueue_bench: %s\n", error.what());
    return 1;
  }
}
