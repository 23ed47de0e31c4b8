#include "gpupool/utilization/readings.h"

namespace gpupool::utilization {

void Readings::Add(GpuReading reading) {
  if (!reading.pod.empty()) by_pod[reading.ns + "/" + reading.pod].push_back(gpus.size());
  for (const std::string* name : {&reading.gpu, &reading.uuid})
    if (!name->empty()) by_device.emplace(reading.node + "/" + *name, gpus.size());
  gpus.push_back(std::move(reading));
}

const std::vector<std::size_t>* Readings::OfPod(const std::string& ns,
                                                const std::string& pod) const {
  auto it = by_pod.find(ns + "/" + pod);
  return it == by_pod.end() ? nullptr : &it->second;
}

const GpuReading* Readings::OfDevice(const std::string& node, const std::string& device) const {
  auto it = by_device.find(node + "/" + device);
  return it == by_device.end() ? nullptr : &gpus[it->second];
}

}  // namespace gpupool::utilization
