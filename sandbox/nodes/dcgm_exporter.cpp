#include "sandbox/nodes/dcgm_exporter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "sandbox/nodes/device_plugin.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

using Json = nlohmann::json;

struct PodOnGpu {
  std::string ns, name, container;
  double percent = 100;
  bool fractional = false;  // Shares its device; named by gpupool.dev/gpu-device.
};

struct NodeGpus {
  std::string name, model;
  std::vector<std::vector<PodOnGpu>> devices;
};

std::int64_t WholeGpus(const Json& spec) {
  std::int64_t sum = 0;
  for (const Json& container : spec.value("containers", Json::array())) {
    const Json resources = container.value("resources", Json::object());
    for (const char* kind : {"limits", "requests"}) {
      const Json amounts = resources.value(kind, Json::object());
      auto gpu = amounts.find("nvidia.com/gpu");
      if (gpu == amounts.end()) continue;
      sum +=
          gpu->is_number() ? gpu->get<std::int64_t>() : std::atoll(gpu->get<std::string>().c_str());
      break;
    }
  }
  return sum;
}

PodOnGpu Describe(const Json& pod) {
  PodOnGpu on;
  on.ns = pod["metadata"].value("namespace", "");
  on.name = pod["metadata"].value("name", "");
  const Json containers = pod["spec"].value("containers", Json::array());
  if (!containers.empty()) on.container = containers[0].value("name", "");
  const std::string percent = Annotation(pod, kUtilizationAnnotation);
  if (!percent.empty()) on.percent = std::clamp(std::atof(percent.c_str()), 0.0, 100.0);
  return on;
}

// The devices a pod names: its share of one (fractions), else what the device
// plugin gave it.
std::vector<int> NamedDevices(const Json& pod, bool& fractional) {
  std::vector<int> shared = ParseDevices(Annotation(pod, "gpupool.dev/gpu-device"));
  fractional = !shared.empty();
  return fractional ? shared : ParseDevices(Annotation(pod, kVisibleDevicesAnnotation));
}

// A device that fractions share is held by a pod that does no work of its own
// (a reservation): only the fractions are reported on it.
void DropHoldersOfSharedDevices(NodeGpus& node) {
  for (auto& users : node.devices) {
    const bool shared = std::any_of(users.begin(), users.end(),
                                    [](const PodOnGpu& user) { return user.fractional; });
    if (shared)
      users.erase(std::remove_if(users.begin(), users.end(),
                                 [](const PodOnGpu& user) { return !user.fractional; }),
                  users.end());
  }
}

// Pods that name their devices keep them; the others take the free ones in order.
void PlacePods(NodeGpus& node, std::vector<const Json*> pods) {
  std::sort(pods.begin(), pods.end(), [](const Json* a, const Json* b) {
    return (*a)["metadata"].value("name", "") < (*b)["metadata"].value("name", "");
  });
  std::vector<const Json*> unnamed;
  for (const Json* pod : pods) {
    bool fractional = false;
    const std::vector<int> named = NamedDevices(*pod, fractional);
    if (named.empty()) {
      unnamed.push_back(pod);
      continue;
    }
    PodOnGpu user = Describe(*pod);
    user.fractional = fractional;
    for (int device : named)
      if (device >= 0 && device < static_cast<int>(node.devices.size()))
        node.devices[device].push_back(user);
  }
  DropHoldersOfSharedDevices(node);
  std::size_t next = 0;
  for (const Json* pod : unnamed) {
    for (std::int64_t i = WholeGpus((*pod)["spec"]); i > 0; --i) {
      while (next < node.devices.size() && !node.devices[next].empty()) ++next;
      if (next == node.devices.size()) return;
      node.devices[next].push_back(Describe(*pod));
    }
  }
}

std::string QuotedLabelValue(const std::string& value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

void WriteDevice(std::ostringstream& out, const NodeGpus& node, std::size_t index) {
  const auto& pods = node.devices[index];
  double percent = 0;
  for (const auto& pod : pods) percent += pod.percent;
  percent = std::min(percent, 100.0);
  char bus[32];
  std::snprintf(bus, sizeof bus, "00000000:%02zX:00.0", index + 1);
  const std::string device_labels =
      "gpu=\"" + std::to_string(index) + "\",UUID=\"" +
      DeviceUuid(node.name, static_cast<int>(index)) + "\",pci_bus_id=\"" + bus +
      "\",device=\"nvidia" + std::to_string(index) +
      "\",modelName=" + QuotedLabelValue(node.model) + ",Hostname=" + QuotedLabelValue(node.name) +
      ",DCGM_FI_DRIVER_VERSION=\"550.54.15\"";
  auto row = [&](const PodOnGpu& pod) {
    out << "DCGM_FI_DEV_GPU_UTIL{" << device_labels
        << ",container=" << QuotedLabelValue(pod.container)
        << ",namespace=" << QuotedLabelValue(pod.ns) << ",pod=" << QuotedLabelValue(pod.name)
        << "} " << std::lround(percent) << "\n";
  };
  if (pods.empty()) row(PodOnGpu{});
  for (const auto& pod : pods) row(pod);
}

}  // namespace

std::string DcgmExposition(const std::vector<Json>& nodes, const std::vector<Json>& pods) {
  std::map<std::string, std::vector<const Json*>> pods_on;
  for (const Json& pod : pods) {
    const std::string node = pod.value("spec", Json::object()).value("nodeName", "");
    const std::string phase = pod.value("status", Json::object()).value("phase", "");
    if (!node.empty() && phase == "Running") pods_on[node].push_back(&pod);
  }
  std::ostringstream out;
  out << "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
      << "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n";
  for (const Json& object : nodes) {
    NodeGpus node;
    node.name = object["metadata"].value("name", "");
    const Json labels = object["metadata"].value("labels", Json::object());
    node.model = labels.value("nvidia.com/gpu.product", labels.value("gpu", "NVIDIA A100"));
    const Json allocatable =
        object.value("status", Json::object()).value("allocatable", Json::object());
    const Json gpus = allocatable.value("nvidia.com/gpu", Json("0"));
    const auto count =
        gpus.is_number() ? gpus.get<std::int64_t>() : std::atoll(gpus.get<std::string>().c_str());
    if (count <= 0) continue;
    node.devices.resize(static_cast<std::size_t>(std::min<std::int64_t>(count, 1024)));
    PlacePods(node, pods_on[node.name]);
    for (std::size_t i = 0; i < node.devices.size(); ++i) WriteDevice(out, node, i);
  }
  return out.str();
}

std::string DcgmExposition(Cluster& cluster) {
  auto parse_all = [&](const char* plural) {
    std::vector<Json> objects;
    for (const auto& item : cluster.List(*cluster.Resource("", "v1", plural), "", {}).items)
      objects.push_back(item->Parsed());
    return objects;
  };
  return DcgmExposition(parse_all("nodes"), parse_all("pods"));
}

}  // namespace gpupool::sandbox
