// Whole-trace replay timings: the Alibaba 2023 fragmentation experiment (every
// placer over the full 130 % arrival run) and a slice of the Philly trace under
// both quota policies. Counters carry the quality figures of the same run, so a
// speed-up that costs placement quality shows in one table.
//
//   build/bench/replay/replay_bench --benchmark_counters_tabular=true
//   (traces from $GPUPOOL_TRACE_DIR, else ../shared/traces beside the checkout)
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>

#include "gpupool/replay/engine_scheduler.h"
#include "gpupool/replay/traces.h"
#include "replay/engine_placer.h"
#include "replay/fragmentation.h"

namespace gpupool::replay {
namespace {

bool HasTrace(benchmark::State& state, const std::string& relative) {
  if (std::filesystem::exists(TraceDir() + "/" + relative)) return true;
  state.SkipWithError(("trace not found: " + TraceDir() + "/" + relative).c_str());
  return false;
}

// 0: engine fragmentation-aware, 1: engine best-fit, 2: plain best-fit reference.
void BM_AlibabaFragmentation(benchmark::State& state) {
  if (!HasTrace(state, "alibaba-gpu-2023/openb_pod_list_default.csv")) return;
  const std::string dir = TraceDir() + "/alibaba-gpu-2023/";
  const auto nodes = LoadAlibabaNodes(dir + "openb_node_list_gpu_node.csv");
  const auto tasks = LoadAlibabaTasks(dir + "openb_pod_list_default.csv");
  double allocated = 0;
  for (auto _ : state) {
    std::unique_ptr<TaskPlacer> placer;
    if (state.range(0) == 2) {
      placer = std::make_unique<BestFitPlacer>();
    } else {
      const auto packing =
          state.range(0) == 0 ? engine::Packing::kFragmentationAware : engine::Packing::kBestFit;
      placer = std::make_unique<EnginePlacer>(nodes, tasks, packing, "engine");
    }
    const auto experiment = RunFragmentation(nodes, tasks, 130, 42, {placer.get()});
    allocated = experiment.runs[0].AllocatedPercent();
  }
  state.counters["allocated_pct"] = allocated;
}
BENCHMARK(BM_AlibabaFragmentation)
    ->ArgName("placer")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kSecond)
    ->Iterations(3);

// 0: static, 1: guaranteed; the first 10,000 jobs of the trace on 60 x 8 GPUs.
void BM_PhillyReplay(benchmark::State& state) {
  if (!HasTrace(state, "philly-vc/philly.csv")) return;
  auto trace = LoadPhillyTrace(TraceDir() + "/philly-vc/philly.csv");
  trace.resize(10000);
  const ClusterShape shape{60, 8};
  const auto tenants = ProportionalQuotas(trace, shape.TotalGpus());
  const QuotaPolicy policy = state.range(0) == 0 ? QuotaPolicy::kStatic : QuotaPolicy::kGuaranteed;
  size_t cycles = 0;
  for (auto _ : state) {
    EngineScheduler scheduler(shape, tenants, policy, 0);
    cycles = RunClusterSimulation(trace, tenants, {policy, shape, 60}, scheduler).cycles;
  }
  state.counters["cycles"] = static_cast<double>(cycles);
}
BENCHMARK(BM_PhillyReplay)
    ->ArgName("policy")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

}  // namespace
}  // namespace gpupool::replay

BENCHMARK_MAIN();
