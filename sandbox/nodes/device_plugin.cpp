#include "sandbox/nodes/device_plugin.h"

#include <charconv>
#include <cstdio>
#include <optional>
#include <sstream>

#include "gpupool/common/stable_hash.h"

namespace gpupool::sandbox {
namespace {

// The index a device's name carries: the name itself, or a UUID's fourth group.
std::optional<int> IndexOf(const std::string& item) {
  std::string digits = item;
  int base = 10;
  if (item.rfind("GPU-", 0) == 0) {
    constexpr std::size_t kFourthGroup = 4 + 8 + 1 + 4 + 1 + 4 + 1;
    if (item.size() != kFourthGroup + 4 + 1 + 12 || item[kFourthGroup + 4] != '-') return {};
    digits = item.substr(kFourthGroup, 4);
    base = 16;
  }
  int index = -1;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index, base);
  if (error != std::errc() || end != digits.data() + digits.size() || index < 0) return {};
  return index;
}

}  // namespace

std::vector<int> PickDevices(int64_t gpus, const std::set<int>& taken, int64_t count) {
  std::vector<int> picked;
  for (int device = 0; device < gpus && static_cast<int64_t>(picked.size()) < count; ++device)
    if (!taken.count(device)) picked.push_back(device);
  if (static_cast<int64_t>(picked.size()) < count) picked.clear();
  return picked;
}

std::string DeviceUuid(const std::string& node, int index) {
  const std::uint64_t hash = StableHash(node + "/" + std::to_string(index));
  char text[48];
  std::snprintf(text, sizeof text, "GPU-%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hash >> 32), static_cast<unsigned>(hash >> 16) & 0xffff,
                static_cast<unsigned>(hash) & 0xffff, static_cast<unsigned>(index & 0xffff),
                static_cast<unsigned long long>(hash & 0xffffffffffffull));
  return text;
}

std::string FormatDevices(const std::string& node, const std::vector<int>& devices) {
  std::string text;
  for (int device : devices) text += (text.empty() ? "" : ",") + DeviceUuid(node, device);
  return text;
}

std::vector<int> ParseDevices(const std::string& text) {
  std::vector<int> devices;
  std::istringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (auto index = IndexOf(item)) devices.push_back(*index);
  }
  return devices;
}

}  // namespace gpupool::sandbox
