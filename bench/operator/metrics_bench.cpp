// The cost the metrics add to a controller cycle: ComputeCycleMetrics plus
// ControllerMetrics::RecordCycle on a cycle of 5,000 jobs in 500 projects,
// beside PlanCycle on the same view (the cycle itself, without its writes).
// The view: one queue of 375 nodes × 8 GPUs, 500 projects guaranteed 6 GPUs
// each, every project running 6 one-GPU jobs and 4 more waiting (gated pods).
// Two cycles: the first, which writes every job's status (the statuses the
// view starts with are partial), and the steady one after it, where the jobs
// hold the statuses the first wrote and nothing changes (planned both with a
// fresh engine and, as the controller does, with an engine kept across cycles).
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "gpupool/metrics/controller_metrics.h"
#include "gpupool/metrics/cycle_metrics.h"
#include "view_builder.h"

namespace {

using gpupool::op::ClusterView;
using gpupool::op::Plan;
using gpupool::op::testing::HoldingStatus;
using gpupool::op::testing::ViewBuilder;

constexpr int kProjects = 500, kRunningPerProject = 6, kWaitingPerProject = 4, kGpusPerNode = 8;
constexpr gpupool::op::EpochSeconds kNow = 1'800'000'000;

using Statuses = std::map<std::string, gpupool::op::Json>;  // By "namespace/name".

// The status a job starts with: `planned`'s if it has one, else `status`.
gpupool::op::Json StatusOf(const Statuses& planned, const std::string& ns, const std::string& job,
                           gpupool::op::Json status) {
  auto found = planned.find(ns + "/" + job);
  if (found == planned.end()) return status;
  gpupool::op::Json clean = gpupool::op::Json::object();
  for (const auto& [key, value] : found->second.items())
    if (!value.is_null()) clean[key] = value;
  return clean;
}

ClusterView FiveThousandJobs(const Statuses& planned = {}) {
  ViewBuilder b(kNow);
  const int nodes = kProjects * kRunningPerProject / kGpusPerNode;
  for (int node = 0; node < nodes; ++node)
    b.Node("node-" + std::to_string(node), kGpusPerNode, "train");
  b.Queue("train", "train");
  int slot = 0;
  for (int p = 0; p < kProjects; ++p) {
    const std::string project = "p" + std::to_string(p);
    b.Project(project, project, kRunningPerProject);
    for (int j = 0; j < kRunningPerProject; ++j, ++slot) {
      const std::string job = "run-" + std::to_string(j);
      const std::string node = "node-" + std::to_string(slot / kGpusPerNode);
      b.Job(
          project, job, 1, 1,
          StatusOf(planned, project, job,
                   HoldingStatus("Running", node, {slot % kGpusPerNode}, kNow - 600 + j, project)));
      b.JobPod(project, job, 0, node, "Running", false);
    }
    for (int j = 0; j < kWaitingPerProject; ++j) {
      const std::string job = "wait-" + std::to_string(j);
      b.Job(project, job, 1, 1,
            StatusOf(planned, project, job, {{"phase", "Queued"}, {"project", project}}));
      b.JobPod(project, job, 0, "", "Pending", true);
    }
  }
  return b.view();
}

const ClusterView& View() {
  static const ClusterView view = FiveThousandJobs();
  return view;
}

// The view after the first cycle's job statuses were written.
const ClusterView& SteadyView() {
  static const ClusterView view = [] {
    const Plan first = gpupool::op::PlanCycle(View(), {});
    Statuses planned;
    for (const auto* writes : first.StatusWrites())
      for (const auto& write : *writes)
        if (write.kind == gpupool::op::Kind::kTrainingJob)
          planned[write.ns + "/" + write.name] = write.patch["status"];
    return FiveThousandJobs(planned);
  }();
  return view;
}

const ClusterView& ViewOf(const benchmark::State& state) {
  return state.range(0) == 0 ? View() : SteadyView();
}

// Arg 0: the first cycle; 1: the steady cycle.
void BM_PlanCycle5000Jobs(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(gpupool::op::PlanCycle(ViewOf(state), {}));
}
BENCHMARK(BM_PlanCycle5000Jobs)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The steady cycle as the controller runs it: with an engine kept across cycles.
void BM_PlanCycleLiveEngine5000Jobs(benchmark::State& state) {
  const gpupool::op::PlanOptions options;
  gpupool::engine::LiveEngine live(options.engine);
  gpupool::op::PlanCycle(SteadyView(), options, live);
  for (auto _ : state)
    benchmark::DoNotOptimize(gpupool::op::PlanCycle(SteadyView(), options, live));
}
BENCHMARK(BM_PlanCycleLiveEngine5000Jobs)->Unit(benchmark::kMillisecond);

void BM_MetricsUpdate5000Jobs(benchmark::State& state) {
  const ClusterView& view = ViewOf(state);
  const Plan plan = gpupool::op::PlanCycle(view, {});
  const auto written = gpupool::metrics::AllWritten(plan);
  gpupool::metrics::ControllerMetrics metrics("bench");
  for (auto _ : state)
    metrics.RecordCycle(gpupool::metrics::ComputeCycleMetrics(view, plan, written), {});
  state.counters["projects"] = static_cast<double>(plan.decisions.shares.size());
  state.counters["jobs"] = static_cast<double>(view.jobs.size());
  state.counters["job_writes"] = static_cast<double>(written.changed.size());
}
BENCHMARK(BM_MetricsUpdate5000Jobs)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_MetricsScrape500Projects(benchmark::State& state) {
  const Plan plan = gpupool::op::PlanCycle(View(), {});
  gpupool::metrics::ControllerMetrics metrics("bench");
  metrics.RecordCycle(
      gpupool::metrics::ComputeCycleMetrics(View(), plan, gpupool::metrics::AllWritten(plan)), {});
  for (auto _ : state) benchmark::DoNotOptimize(metrics.Text());
}
BENCHMARK(BM_MetricsScrape500Projects)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
