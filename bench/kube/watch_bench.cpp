// Watch events decoded and applied per second of CPU time (one thread, so one
// core; CPU time keeps the figure honest on a shared machine). The bytes of a
// watch body are fed to the decoder in 16 KiB pieces (as a socket delivers
// them), and each event is applied to an informer caching typed pods.
#include <benchmark/benchmark.h>

#include "gpupool/kube/informer.h"
#include "gpupool/operator/pod_view.h"
#include "pod_fixture.h"

namespace gpupool::kube::bench {
namespace {

constexpr int kEvents = 20'000;
constexpr int kPods = 2'000;

template <typename T>
void DecodeAndApply(benchmark::State& state, typename Informer<T>::Decode decode) {
  const std::string stream = MakeWatchStream(kEvents, kPods);
  RestConfig config;
  config.server = "http://127.0.0.1:1";  // Never contacted: the informer is fed directly.
  Client client(config);
  for (auto _ : state) {
    Informer<T> informer(client, resources::kPods, "", decode);
    informer.AddIndex("node", [](const T&) { return std::vector<std::string>{}; });
    WatchDecoder decoder;
    for (std::size_t offset = 0; offset < stream.size(); offset += 16 * 1024)
      decoder.Feed(std::string_view(stream).substr(offset, 16 * 1024),
                   [&](WatchEvent&& event) { informer.Apply(std::move(event)); });
    benchmark::DoNotOptimize(informer.cache().size());
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(stream.size()));
  state.counters["event_bytes"] = static_cast<double>(stream.size()) / kEvents;
}

void BM_WatchDecodeApplyApiPod(benchmark::State& state) {
  DecodeAndApply<api::Pod>(state, DecodeApiPod);
}
BENCHMARK(BM_WatchDecodeApplyApiPod)->Unit(benchmark::kMillisecond);

// The controller's own pod cache entry (gpupool/operator/pod_view.h).
void BM_WatchDecodeApplyPodView(benchmark::State& state) {
  DecodeAndApply<op::PodView>(state, op::DecodePodView);
}
BENCHMARK(BM_WatchDecodeApplyPodView)->Unit(benchmark::kMillisecond);

void BM_WatchDecodeApplyRawJson(benchmark::State& state) { DecodeAndApply<Json>(state, KeepJson); }
BENCHMARK(BM_WatchDecodeApplyRawJson)->Unit(benchmark::kMillisecond);

// The decoder alone (frame splitting + JSON parse), for comparison.
void BM_WatchDecodeOnly(benchmark::State& state) {
  const std::string stream = MakeWatchStream(kEvents, kPods);
  for (auto _ : state) {
    WatchDecoder decoder;
    int64_t events = 0;
    for (std::size_t offset = 0; offset < stream.size(); offset += 16 * 1024)
      decoder.Feed(std::string_view(stream).substr(offset, 16 * 1024),
                   [&](WatchEvent&&) { ++events; });
    benchmark::DoNotOptimize(events);
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
}
BENCHMARK(BM_WatchDecodeOnly)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpupool::kube::bench
