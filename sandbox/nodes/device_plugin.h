// The simulated NVIDIA device plugin: a pod that asks for `nvidia.com/gpu: N`
// and is bound to a node gets N of that node's devices no other live pod holds,
// before its containers start, as the kubelet's device manager allocates them.
// The pod is told which in the annotation below, by the devices' UUIDs, as the
// real plugin names them in NVIDIA_VISIBLE_DEVICES (comma-separated).
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
// The UUID of device `index` of `node` ("GPU-xxxxxxxx-xxxx-xxxx-IIII-xxxxxxxxxxxx"),
// stable across runs; its fourth group is the index, in hex.
std::string DeviceUuid(const std::string& node, int index);
// The devices of `node` as the annotation names them: their UUIDs.
std::string FormatDevices(const std::string& node, const std::vector<int>& devices);
// The indices a FormatDevices text names (plain indices are read too); other
// entries are skipped.
std::vector<int> ParseDevices(const std::string& text);

}  // namespace gpupool::sandbox
