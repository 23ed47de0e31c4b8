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

std::vector<MilliGpu> WaterFillNested(MilliGpu capacity, const std::vector<ShareRequest>& requests,
                                      const std::vector<int>& group_of,
                                      const std::vector<ShareGroup>& groups) {
  // The upper level: one entry per group, then one per request outside any group.
  // A group asks for what its members ask for, and can hold no more than they may.
  std::vector<ShareRequest> upper(groups.size());
  std::vector<std::vector<std::size_t>> members(groups.size());
  std::vector<std::size_t> entry(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (group_of[i] < 0) {
      entry[i] = upper.size();
      upper.push_back(requests[i]);
      continue;
    }
    entry[i] = static_cast<std::size_t>(group_of[i]);
    members[entry[i]].push_back(i);
    upper[entry[i]].demand += std::min(requests[i].demand, requests[i].limit);
    upper[entry[i]].limit += requests[i].limit;
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    ShareRequest& u = upper[g];
    if (groups[g].limit >= 0) u.limit = std::min(u.limit, groups[g].limit);
    u.quota = groups[g].quota;
    u.limit = std::max(u.limit, u.quota);
    u.weight = groups[g].weight;
  }
  std::vector<MilliGpu> upper_deserved = WaterFill(capacity, upper);
  std::vector<MilliGpu> deserved(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (group_of[i] < 0) deserved[i] = upper_deserved[entry[i]];
  }
  std::vector<ShareRequest> inner;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    inner.clear();
    for (std::size_t i : members[g]) inner.push_back(requests[i]);
    std::vector<MilliGpu> shares = WaterFill(upper_deserved[g], inner);
    for (std::size_t k = 0; k < members[g].size(); ++k) deserved[members[g][k]] = shares[k];
  }
  return deserved;
}

}  // namespace gpupool::engine::internal
