// Informer memory per cached pod: heap bytes in use (mallinfo2) after an
// informer has cached N distinct pods, minus before, divided by N. Measured
// for the compact typed pod and, for comparison, for the retained JSON DOM.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include "gpupool/kube/informer.h"
#include "gpupool/operator/pod_view.h"
#include "pod_fixture.h"

namespace gpupool::kube::bench {
namespace {

size_t HeapInUse() {
  malloc_trim(0);
  return mallinfo2().uordblks;
}

template <typename T>
void CacheMemory(benchmark::State& state, typename Informer<T>::Decode decode) {
  const int pods = static_cast<int>(state.range(0));
  RestConfig config;
  config.server = "http://127.0.0.1:1";
  Client client(config);
  double per_pod = 0;
  for (auto _ : state) {
    auto informer = std::make_unique<Informer<T>>(client, resources::kPods, "", decode);
    informer->AddIndex("job", [](const T&) { return std::vector<std::string>{}; });
    size_t before = HeapInUse();
    // Each pod's JSON exists only while it is applied, as when it arrives in
    // a watch event; what stays is what the informer keeps.
    for (int i = 0; i < pods; ++i) informer->Apply({EventType::kAdded, MakePod(i, 1000 + i)});
    size_t after = HeapInUse();
    per_pod = (static_cast<double>(after) - static_cast<double>(before)) / pods;
    state.PauseTiming();
    informer.reset();
    state.ResumeTiming();
  }
  state.counters["bytes_per_pod"] = per_pod;
}

void BM_InformerMemoryApiPod(benchmark::State& state) {
  CacheMemory<api::Pod>(state, DecodeApiPod);
}
BENCHMARK(BM_InformerMemoryApiPod)->Arg(100'000)->Iterations(1)->Unit(benchmark::kMillisecond);

// The controller's own pod cache entry (gpupool/operator/pod_view.h).
void BM_InformerMemoryPodView(benchmark::State& state) {
  CacheMemory<op::PodView>(state, op::DecodePodView);
}
BENCHMARK(BM_InformerMemoryPodView)->Arg(100'000)->Iterations(1)->Unit(benchmark::kMillisecond);

// What the informer itself costs per object: key, resourceVersion, map and
// namespace-index nodes, shared_ptr control block (the object is one byte).
void BM_InformerMemoryOverheadOnly(benchmark::State& state) {
  CacheMemory<char>(state, [](const Json&) { return 'x'; });
}
BENCHMARK(BM_InformerMemoryOverheadOnly)
    ->Arg(100'000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

void BM_InformerMemoryRawJson(benchmark::State& state) { CacheMemory<Json>(state, KeepJson); }
BENCHMARK(BM_InformerMemoryRawJson)->Arg(100'000)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpupool::kube::bench
