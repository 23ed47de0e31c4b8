// A controller cycle's planning (PlanCycle, without its writes) in the steady
// state of `throughput_bench`: one queue of 7,501 nodes × 8 GPUs, one project,
// 60,000 one-pod jobs running with the statuses the controller wrote for them,
// and `new` jobs just created (no status, no pod) that the cycle admits. The
// engine is kept across cycles, as the controller keeps it; each iteration
// plans the same view, so the new jobs are admitted again every time. The same
// with bare pods that ask gpupool to schedule them (docs/workloads.md) in place
// of TrainingJobs: 60,000 released and running, `new` gated.
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "view_builder.h"

namespace {

using gpupool::op::ClusterView;
using gpupool::op::Json;
using gpupool::op::testing::HoldingStatus;
using gpupool::op::testing::ViewBuilder;

constexpr int kRunning = 60'000, kGpusPerNode = 8;
constexpr gpupool::op::EpochSeconds kNow = 1'800'000'000;

using Statuses = std::map<std::string, Json>;  // By job name.

ClusterView ThroughputView(int new_jobs, const Statuses& written) {
  ViewBuilder b(kNow);
  const int nodes = (kRunning + new_jobs) / kGpusPerNode + 1;
  for (int node = 0; node < nodes; ++node)
    b.Node("node-" + std::to_string(node), kGpusPerNode, "train");
  b.Queue("train", "train");
  b.Project("load", "load", kRunning + new_jobs);
  for (int j = 0; j < kRunning; ++j) {
    const std::string job = "job-" + std::to_string(j);
    const std::string node = "node-" + std::to_string(j / kGpusPerNode);
    auto found = written.find(job);
    const Json status = found != written.end()
                            ? found->second
                            : HoldingStatus("Running", node, {j % kGpusPerNode}, kNow - 60, "load");
    b.Job("load", job, 1, 1, status);
    b.JobPod("load", job, 0, node, "Running", false);
  }
  for (int j = 0; j < new_jobs; ++j) b.Job("load", "new-" + std::to_string(j), 1, 1);
  return b.view();
}

// The running jobs' statuses once the controller has written them.
Statuses WrittenStatuses() {
  const gpupool::op::Plan first = gpupool::op::PlanCycle(ThroughputView(0, {}), {});
  Statuses written;
  for (const auto* writes : first.StatusWrites()) {
    for (const auto& write : *writes) {
      if (write.kind != gpupool::op::Kind::kTrainingJob) continue;
      Json status = Json::object();
      for (const auto& [key, value] : write.patch["status"].items())
        if (!value.is_null()) status[key] = value;
      written[write.name] = status;
    }
  }
  return written;
}

// Plans `view` once to settle an engine kept across cycles, then once per
// iteration; returns the first cycle's plan.
gpupool::op::Plan PlanEveryIteration(benchmark::State& state, const ClusterView& view) {
  const gpupool::op::PlanOptions options;
  gpupool::engine::LiveEngine live(options.engine);
  gpupool::op::Plan first = gpupool::op::PlanCycle(view, options, live);
  for (auto _ : state) benchmark::DoNotOptimize(gpupool::op::PlanCycle(view, options, live));
  return first;
}

void BM_PlanCycle60000RunningJobs(benchmark::State& state) {
  static const Statuses written = WrittenStatuses();
  PlanEveryIteration(state, ThroughputView(static_cast<int>(state.range(0)), written));
}
BENCHMARK(BM_PlanCycle60000RunningJobs)
    ->ArgName("new")
    ->Arg(0)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);

// A pod of another owner that asks gpupool to schedule it (docs/workloads.md),
// released to device `device` of `node` as the controller releases it; or, with
// `node` empty, just created (gated).
Json AskingPod(const std::string& name, const std::string& node, int device) {
  Json pod = {{"metadata",
               {{"name", name},
                {"namespace", "load"},
                {"uid", "uid-" + name},
                {"creationTimestamp", gpupool::op::FormatTime(kNow - 120)},
                {"labels", {{gpupool::op::kQueueLabel, "train"}}}}},
              {"spec",
               {{"containers",
                 {{{"name", "main"}, {"resources", {{"limits", {{"nvidia.com/gpu", 1}}}}}}}}}},
              {"status", {{"phase", "Pending"}}}};
  if (node.empty()) {
    pod["spec"]["schedulingGates"] = {{{"name", gpupool::op::kAdmissionGate}}};
    return pod;
  }
  const Json record = {{"admittedQueue", "train"},
                       {"admittedTime", gpupool::op::FormatTime(kNow - 60)},
                       {"placement", {{{"replica", 0}, {"node", node}, {"devices", {device}}}}}};
  pod["metadata"]["labels"][gpupool::op::kReplicaLabel] = "0";
  pod["metadata"]["annotations"] = {{gpupool::op::kAdmissionAnnotation, record.dump()}};
  pod["spec"]["nodeName"] = node;
  pod["spec"]["nodeSelector"] = {{gpupool::op::kHostnameLabel, node}};
  pod["status"] = {{"phase", "Running"},
                   {"conditions",
                    {{{"type", gpupool::op::kAdmittedCondition},
                      {"status", "True"},
                      {"reason", "Admitted"},
                      {"message", "admitted on " + node}}}}};
  return pod;
}

// The same cluster as ThroughputView, its workloads bare pods instead of TrainingJobs.
ClusterView PodsView(int new_pods) {
  ViewBuilder b(kNow);
  const int nodes = (kRunning + new_pods) / kGpusPerNode + 1;
  for (int node = 0; node < nodes; ++node)
    b.Node("node-" + std::to_string(node), kGpusPerNode, "train");
  b.Queue("train", "train");
  b.Project("load", "load", kRunning + new_pods);
  for (int j = 0; j < kRunning; ++j)
    b.RawPod(AskingPod("pod-" + std::to_string(j), "node-" + std::to_string(j / kGpusPerNode),
                       j % kGpusPerNode));
  for (int j = 0; j < new_pods; ++j) b.RawPod(AskingPod("new-" + std::to_string(j), "", 0));
  return b.view();
}

void BM_PlanCycle60000RunningPods(benchmark::State& state) {
  const gpupool::op::Plan first =
      PlanEveryIteration(state, PodsView(static_cast<int>(state.range(0))));
  // What a cycle writes: the new pods' releases and conditions, nothing for the running ones.
  state.counters["releases"] = static_cast<double>(first.pod_releases.size());
  state.counters["pod_patches"] = static_cast<double>(first.pod_patches.size());
}
BENCHMARK(BM_PlanCycle60000RunningPods)
    ->ArgName("new")
    ->Arg(0)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
