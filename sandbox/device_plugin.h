// The simulated NVIDIA device plugin: a pod that asks for `nvidia.com/gpu: N`
// and is bound to a node gets N of that node's devices no other live pod holds,
// before its containers start, as the kubelet's device manager allocates them.
// The pod is told which in the annotation below (the value its containers'
// NVIDIA_VISIBLE_DEVICES would have: device indices, comma-separated).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace gpupool::sandbox {

inline constexpr char kVisibleDevicesAnnotation[] = "gpupool.dev/visible-devices";

// The `count` lowest indices below `gpus` that `taken` does not hold; empty when
// fewer than `count` are free.
std::vector<int> PickDevices(int64_t gpus, const std::set<int>& taken, int64_t count);
std::string FormatDevices(const std::vector<int>& devices);
// Indices of a FormatDevices text; entries that are not indices are skipped.
std::vector<int> ParseDevices(const std::string& text);

}  // namespace gpupool::sandbox
