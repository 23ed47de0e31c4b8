// The device a reservation pod reports (docs/operator.md, "Fractions next to
// the device plugin"), checked before anything is decided from it.
#include <algorithm>
#include <cctype>

#include "reservations.h"

namespace gpupool::op::internal {
namespace {

bool IsDecimal(const std::string& text) {
  return !text.empty() && text.size() <= 4 &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// "GPU-…" or "MIG-…": letters, digits, '-' and '/' (older MIG names).
bool IsDeviceUuid(const std::string& text) {
  if (text.size() < 5 || text.size() > 128) return false;
  if (text.compare(0, 4, "GPU-") != 0 && text.compare(0, 4, "MIG-") != 0) return false;
  return std::all_of(text.begin() + 4, text.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '/'; });
}

// Why a reservation's report cannot name the device it holds ("" when it can):
// it must be one device of its node, by index below the node's GPU count or by
// UUID. "all", lists and anything else are refused.
std::string BadDeviceReport(const std::string& report, const NodeObject* node) {
  if (IsDecimal(report)) {
    if (node && std::stoi(report) < node->gpus) return "";
    return "device index " + report + " is not one of its node's " +
           std::to_string(node ? node->gpus : 0) + " GPUs";
  }
  if (IsDeviceUuid(report)) return "";
  std::string why = "\"";
  why.append(report, 0, 64).append("\" is not one device (an index or a GPU-/MIG- UUID)");
  return why;
}

}  // namespace

// Fractions are never told a refused report, and nothing is decided from it.
void RefuseBadReports(CycleState& state) {
  std::map<std::pair<std::string, std::string>, int> reports;
  for (const auto& [key, pod] : state.reservations)
    if (!pod->visible_devices.empty()) ++reports[{key.first, pod->visible_devices}];
  for (const auto& [key, pod] : state.reservations) {
    if (pod->visible_devices.empty()) continue;
    auto node = state.nodes.find(key.first);
    std::string why =
        BadDeviceReport(pod->visible_devices, node == state.nodes.end() ? nullptr : node->second);
    if (why.empty() && reports[{key.first, pod->visible_devices}] > 1)
      why =
          "device " + pod->visible_devices + " is reported by another reservation of the node too";
    if (why.empty()) continue;
    state.refused_reports.insert(pod);
    state.plan.events.push_back({Kind::kPod, pod->ns, pod->name, pod->uid, "Warning",
                                 "DeviceReportRefused", "Reserve",
                                 "the device its init container " + std::string(kReportContainer) +
                                     " reported is refused: " + why});
  }
}

}  // namespace gpupool::op::internal
