#include "sandbox/device_plugin.h"

#include <charconv>
#include <sstream>

namespace gpupool::sandbox {

std::vector<int> PickDevices(int64_t gpus, const std::set<int>& taken, int64_t count) {
  std::vector<int> picked;
  for (int device = 0; device < gpus && static_cast<int64_t>(picked.size()) < count; ++device)
    if (!taken.count(device)) picked.push_back(device);
  if (static_cast<int64_t>(picked.size()) < count) picked.clear();
  return picked;
}

std::string FormatDevices(const std::vector<int>& devices) {
  std::string text;
  for (int device : devices) text += (text.empty() ? "" : ",") + std::to_string(device);
  return text;
}

std::vector<int> ParseDevices(const std::string& text) {
  std::vector<int> devices;
  std::istringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    int device = -1;
    auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), device);
    if (error == std::errc() && end == item.data() + item.size() && device >= 0)
      devices.push_back(device);
  }
  return devices;
}

}  // namespace gpupool::sandbox
