#include "fair_share.h"

#include <algorithm>

namespace gpupool::engine::internal {
namespace {

// Room above quota each project can still take.
std::vector<MilliGpu> Headroom(const std::vector<ShareRequest>& requests) {
  std::vector<MilliGpu> room(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const ShareRequest& r = requests[i];
    room[i] = std::max<MilliGpu>(0, std::min(r.limit, r.demand) - r.quota);
  }
  return room;
}

}  // namespace

std::vector<MilliGpu> WaterFill(MilliGpu capacity, const std::vector<ShareRequest>& requests) {
  std::vector<MilliGpu> deserved(requests.size());
  MilliGpu idle = capacity;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    deserved[i] = requests[i].quota;
    idle -= std::min(requests[i].quota, requests[i].demand);
  }
  std::vector<MilliGpu> room = Headroom(requests);
  bool any_weight = std::any_of(requests.begin(), requests.end(),
                                [](const ShareRequest& r) { return r.weight > 0; });
  auto weight = [&](std::size_t i) { return any_weight ? requests[i].weight : 1; };
  while (idle > 0) {
    std::int64_t total = 0;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (room[i] > 0) total += weight(i);
    }
    if (total == 0) break;
    // Projects whose whole remaining room is below their share are filled first;
    // what they leave goes round again.
    bool capped = false;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (room[i] <= 0 || weight(i) == 0) continue;
      if (room[i] * total <= idle * weight(i)) {
        deserved[i] += room[i];
        idle -= room[i];
        room[i] = 0;
        capped = true;
      }
    }
    if (capped) continue;
    MilliGpu given = 0;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (room[i] <= 0 || weight(i) == 0) continue;
      MilliGpu share = idle * weight(i) / total;
      deserved[i] += share;
      room[i] -= share;
      given += share;
    }
    idle -= given;
    // Rounding leaves less than one milli per project: hand it out in order.
    for (std::size_t i = 0; i < requests.size() && idle > 0; ++i) {
      if (room[i] <= 0 || weight(i) == 0) continue;
      ++deserved[i];
      --room[i];
      --idle;
    }
    break;
  }
  return deserved;
}

}  // namespace gpupool::engine::internal
