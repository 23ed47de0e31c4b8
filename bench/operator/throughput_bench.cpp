// Admission throughput end to end: one-pod TrainingJobs created at a steady
// rate through the API (default 1,000 a second for 60 s) on a cluster with room
// for all of them; a `gpupool controller` process admits each and releases its
// pod to its node. Reports the rate at which pods are released, measured by a
// watch on pods, the time from a job's create to its pod's release, and the
// sandbox's CPU at rest once every pod runs.
// Usage: throughput_bench [seconds] [jobs per second]
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "bench_cluster.h"
#include "job_watch.h"
#include "load_generator.h"
#include "release_watch.h"
#include "start_watch.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace resources = gpupool::kube::resources;

double Seconds(Clock::duration duration) { return std::chrono::duration<double>(duration).count(); }

// Pods released per second in each `width`-second window from `start`.
std::vector<double> Rates(const std::vector<Clock::time_point>& times, Clock::time_point start,
                          double width, double until) {
  std::vector<double> rates(static_cast<std::size_t>(std::ceil(until / width)), 0.0);
  for (const auto& at : times) {
    const double offset = Seconds(at - start);
    const auto index = static_cast<std::size_t>(offset / width);
    if (offset >= 0 && index < rates.size()) rates[index] += 1 / width;
  }
  return rates;
}

double Percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<std::size_t>(fraction * values.size()))];
}

// Waits until every job is recorded Running or `limit` passes: the statuses the
// controller leaves to later cycles under load must catch up. Read from a watch
// on the jobs started now (one list, then their changes), so that neither the
// load nor the wait pays for polling every job. Returns the seconds from
// `start`, or -1 when they did not.
double AllRecordedRunning(gpupool::kube::Client& client, std::size_t jobs, Clock::time_point start,
                          std::chrono::seconds limit) {
  std::mutex mutex;
  std::unordered_set<std::string> running;
  auto watch = gpupool::bench::StartWatch<gpupool::bench::JobPhase>(
      client, resources::kTrainingJobs, gpupool::bench::DecodeJobPhase, {},
      [&](const gpupool::bench::JobPhase& job) {
        std::lock_guard lock(mutex);
        if (job.phase == "Running") running.insert(job.key);
      });
  const auto count = [&] {
    std::lock_guard lock(mutex);
    return running.size();
  };
  const auto deadline = Clock::now() + limit;
  while (count() < jobs && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const double seconds = count() >= jobs ? Seconds(Clock::now() - start) : -1;
  watch->Stop();
  return seconds;
}

// The sandbox's CPU share over `span` once the load is over and every pod runs:
// what its simulated scheduler and kubelets cost at rest.
double SandboxAtRest(gpupool::bench::BenchCluster& cluster, std::chrono::seconds span) {
  const double before = cluster.SandboxUse().cpu_seconds;
  std::this_thread::sleep_for(span);
  return (cluster.SandboxUse().cpu_seconds - before) / static_cast<double>(span.count());
}

}  // namespace

int main(int argc, char** argv) {
  const int seconds = argc > 1 ? std::atoi(argv[1]) : 60;
  const int rate = argc > 2 ? std::atoi(argv[2]) : 1000;
  if (seconds < 1 || seconds > 3600 || rate < 1 || rate > 100000) {
    std::fprintf(stderr, "usage: throughput_bench [seconds 1-3600] [jobs per second 1-100000]\n");
    return 2;
  }
  const int jobs = seconds * rate;
  try {
    gpupool::bench::BenchCluster cluster(std::to_string(jobs / 8 + 1) + "x8:pool=train");
    cluster.CreateQueue("train", "train");
    cluster.CreateProject("load", "train", jobs, 0);
    cluster.StartController();
    gpupool::bench::ReleaseWatch watch(cluster.client());
    std::mutex mutex;
    std::unordered_map<std::string, Clock::time_point> created;
    std::vector<gpupool::bench::Scheduled> items;
    for (int i = 0; i < jobs; ++i) {
      const std::string name = "job-" + std::to_string(i);
      items.push_back({static_cast<double>(i) / rate, [&, name] {
                         {
                           std::lock_guard lock(mutex);
                           created["load/" + name] = Clock::now();
                         }
                         cluster.client().Create(
                             resources::kTrainingJobs, "load",
                             gpupool::bench::OneReplicaJob("load", name, "train", 1, 0, 0),
                             gpupool::bench::kAnswerUnread);
                       }});
    }
    const auto start = Clock::now();
    const auto generated = gpupool::bench::RunSchedule(std::move(items), 8);
    const auto deadline = Clock::now() + std::chrono::minutes(5);
    while (watch.Released() < static_cast<std::size_t>(jobs) - generated.failed &&
           Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const double all_released = Seconds(Clock::now() - start);
    const auto controller = cluster.ControllerUse(), sandbox = cluster.SandboxUse();
    const auto generator = gpupool::bench::UseOf(getpid());
    const auto times = watch.Times();
    std::printf("created %d jobs in %.1f s (%zu failed, latest %.0f ms late): %.0f jobs/s\n", jobs,
                generated.seconds, generated.failed, generated.max_late_ms,
                jobs / generated.seconds);
    std::printf("pods released: %zu, the last %.1f s after the first create\n", times.size(),
                all_released);
    const auto rates = Rates(times, start, 10, seconds);
    std::printf("pods released per second, 10 s windows:");
    for (double r : rates) std::printf(" %.0f", r);
    std::size_t within = 0;
    for (const auto& at : times) within += Seconds(at - start) < seconds;
    std::printf("\nsustained over the %d s of load: %.0f pods/s (target >= 1,000)\n", seconds,
                static_cast<double>(within) / seconds);
    const auto latencies = watch.Latencies(created);
    std::printf("create -> release: median %.2f s, p99 %.2f s\n", Percentile(latencies, 0.5),
                Percentile(latencies, 0.99));
    gpupool::bench::PrintUse(controller, sandbox, cluster.ControllerLog());
    std::printf("CPU seconds of this load generator and its watches: %.1f\n",
                generator.cpu_seconds);
    const double recorded =
        AllRecordedRunning(cluster.client(), static_cast<std::size_t>(jobs) - generated.failed,
                           start, std::chrono::minutes(3));
    std::printf("every job recorded Running: %.1f s after the first create%s\n", recorded,
                recorded < 0 ? " (not within 3 minutes)" : "");
    std::printf("sandbox at rest with %zu running pods: %.0f %% of a core\n", times.size(),
                100 * SandboxAtRest(cluster, std::chrono::seconds(5)));
    return times.size() + generated.failed == static_cast<std::size_t>(jobs) ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "throughput_bench: %s\n", error.what());
    return 1;
  }
}
