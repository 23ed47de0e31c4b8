// Reading a DCGM exporter page: a cluster of 8-GPU nodes, each device with the
// exporter's default counters (19 families besides DCGM_FI_DEV_GPU_UTIL), every
// series labelled as dcgm-exporter labels it, half of the devices used by a pod.
#include <benchmark/benchmark.h>

#include <string>

#include "utilization/prometheus_text.h"

namespace {

constexpr int kGpusPerNode = 8;
constexpr const char* kOtherFamilies[] = {"DCGM_FI_DEV_SM_CLOCK",
                                          "DCGM_FI_DEV_MEM_CLOCK",
                                          "DCGM_FI_DEV_MEMORY_TEMP",
                                          "DCGM_FI_DEV_GPU_TEMP",
                                          "DCGM_FI_DEV_POWER_USAGE",
                                          "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
                                          "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
                                          "DCGM_FI_DEV_MEM_COPY_UTIL",
                                          "DCGM_FI_DEV_ENC_UTIL",
                                          "DCGM_FI_DEV_DEC_UTIL",
                                          "DCGM_FI_DEV_XID_ERRORS",
                                          "DCGM_FI_DEV_FB_FREE",
                                          "DCGM_FI_DEV_FB_USED",
                                          "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
                                          "DCGM_FI_DEV_VGPU_LICENSE_STATUS",
                                          "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
                                          "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
                                          "DCGM_FI_DEV_ROW_REMAP_FAILURE",
                                          "DCGM_FI_PROF_GR_ENGINE_ACTIVE"};

std::string Labels(int node, int gpu) {
  const bool used = gpu % 2 == 0;
  const std::string pod = used ? "job-" + std::to_string(node * kGpusPerNode + gpu) + "-0" : "";
  return "{gpu=\"" + std::to_string(gpu) + "\",UUID=\"GPU-" + std::to_string(node) + "-" +
         std::to_string(gpu) + "-5f1c6b9e-3a1d\",pci_bus_id=\"00000000:0" + std::to_string(gpu) +
         ":00.0\",device=\"nvidia" + std::to_string(gpu) +
         "\",modelName=\"NVIDIA A100-SXM4-80GB\",Hostname=\"gpu-node-" + std::to_string(node) +
         "\",DCGM_FI_DRIVER_VERSION=\"550.54.15\",container=\"" + (used ? "main" : "") +
         "\",namespace=\"" + (used ? "team-a" : "") + "\",pod=\"" + pod + "\"}";
}

std::string Page(int nodes) {
  std::string page;
  auto family = [&](const char* name, const char* value) {
    page += std::string("# HELP ") + name + " help text.\n# TYPE " + name + " gauge\n";
    for (int node = 0; node < nodes; ++node)
      for (int gpu = 0; gpu < kGpusPerNode; ++gpu)
        page += std::string(name) + Labels(node, gpu) + " " + value + "\n";
  };
  for (const char* name : kOtherFamilies) family(name, "1410");
  family("DCGM_FI_DEV_GPU_UTIL", "37");
  return page;
}

void BM_ReadingsFromExporterPage(benchmark::State& state) {
  const std::string page = Page(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto readings = gpupool::utilization::ReadingsFromText(page, 0);
    benchmark::DoNotOptimize(readings);
  }
  state.counters["page_MiB"] = static_cast<double>(page.size()) / (1 << 20);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * page.size()));
}
BENCHMARK(BM_ReadingsFromExporterPage)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
