// Controller memory with a large cluster in its caches: 20,000 one-replica
// TrainingJobs, admitted and running (20,000 managed pods), beside 80,000 other
// pods that gpupool does not manage (pods of any cluster: web servers, batch
// jobs without GPUs), all created through the API. Reports the `gpupool
// controller` process's resident memory before and after.
// Usage: memory_bench [jobs] [pods in all]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "bench_cluster.h"
#include "job_watch.h"
#include "load_generator.h"

namespace {

using Clock = std::chrono::steady_clock;
using gpupool::kube::Json;
namespace resources = gpupool::kube::resources;

Json OtherPod(const std::string& ns, int index, const std::string& node) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", "web-" + std::to_string(index)},
            {"namespace", ns},
            {"labels", {{"app", "web"}, {"tier", "frontend"}}}}},
          {"spec",
           {{"nodeName", node},
            {"containers",
             {{{"name", "web"},
               {"image", "nginx:1.25"},
               {"resources", {{"requests", {{"cpu", "10m"}, {"memory", "16Mi"}}}}}}}}}}};
}

std::vector<std::string> NodeNames(gpupool::kube::Client& client) {
  std::vector<std::string> names;
  for (const Json& node : client.ListAll(resources::kNodes, "").items)
    names.push_back(node["metadata"].value("name", ""));
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  const int jobs = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int pods = argc > 2 ? std::atoi(argv[2]) : 100000;
  if (jobs < 1 || pods < jobs || pods > 1000000) {
    std::fprintf(stderr, "usage: memory_bench [jobs >= 1] [pods in all >= jobs]\n");
    return 2;
  }
  try {
    const int nodes = std::max(jobs / 8 + 1, pods / 100 + 1);
    gpupool::bench::BenchCluster cluster(std::to_string(nodes) + "x8:pool=train");
    cluster.CreateQueue("train", "train");
    cluster.CreateProject("team", "train", jobs, 0);
    cluster.CreateNamespace("web");
    cluster.StartController();
    const double before = cluster.ControllerUse().rss_mb;
    gpupool::bench::JobWatch watch(cluster.client());
    const auto names = NodeNames(cluster.client());
    std::vector<gpupool::bench::Scheduled> items;
    for (int i = 0; i < pods - jobs; ++i) {
      items.push_back({0, [&, i] {
                         cluster.client().Create(resources::kPods, "web",
                                                 OtherPod("web", i, names[i % names.size()]),
                                                 gpupool::bench::kAnswerUnread);
                       }});
    }
    for (int i = 0; i < jobs; ++i) {
      const std::string name = "job-" + std::to_string(i);
      items.push_back({0.001, [&, name] {
                         watch.Expect("team/" + name, "train", "job", 1);
                         cluster.client().Create(
                             resources::kTrainingJobs, "team",
                             gpupool::bench::OneReplicaJob("team", name, "train", 1, 0, 0),
                             gpupool::bench::kAnswerUnread);
                       }});
    }
    const auto start = Clock::now();
    const auto generated = gpupool::bench::RunSchedule(std::move(items), 8);
    const auto deadline = Clock::now() + std::chrono::minutes(10);
    while (watch.Admitted() < static_cast<std::size_t>(jobs) && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const double admitted = std::chrono::duration<double>(Clock::now() - start).count();
    // Once every job is admitted the controller still writes their Running
    // statuses for a while. Settled: the same size (within 1 MB) for 5 s in a
    // row, the caches alone; the peak is the kernel's high-water mark over the
    // whole run (the admission cycles' plans and writes included).
    double settled = 0, last = -10;
    int steady = 0;
    for (int sample = 0; sample < 90 && steady < 5; ++sample) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      const double now = cluster.ControllerUse().rss_mb;
      steady = std::abs(now - last) <= 1 ? steady + 1 : 0;
      last = settled = now;
    }
    const double peak = cluster.ControllerUse().peak_rss_mb;
    std::printf(
        "created %d pods and %d TrainingJobs in %.1f s (%zu failed); all jobs admitted "
        "after %.1f s\n",
        pods - jobs, jobs, generated.seconds, generated.failed, admitted);
    std::printf(
        "controller RSS: %.0f MB before; with %d pods and %d TrainingJobs, %.0f MB settled%s "
        "(target <= 300 MB), at most %.0f MB over the run\n",
        before, pods, jobs, settled, steady < 5 ? " (still moving after 90 s)" : "", peak);
    std::printf("sandbox RSS: %.0f MB\n", cluster.SandboxUse().rss_mb);
    return watch.Admitted() == static_cast<std::size_t>(jobs) ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "memory_bench: %s\n", error.what());
    return 1;
  }
}
