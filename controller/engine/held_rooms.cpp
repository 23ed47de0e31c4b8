#include "held_rooms.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace gpupool::engine::internal {

void HeldRooms::StartFull() {
  for (int n = 0; n < static_cast<int>(state_.nodes.size()); ++n) {
    NodeState& node = state_.nodes[n];
    node.reserve_target = 0;
    node.over_target = 0;
    node.over_priority = 0;
    node.reserved_over = 0;
    if (node.reserved_full != 0) state_.SetReserved(n, 0);
  }
  reserved_in_slot_.assign(state_.quotas.size(), 0);
  holder_of_queue_.assign(state_.queues.size(), -1);
  over_quota_holder_.assign(state_.queues.size(), -1);
}

bool HeldRooms::MayHold(const JobState& job, bool in_quota) const {
  if (job.shape.gpu_milli < kMilliPerGpu || !state_.options.reserve_for_blocked_jobs) return false;
  return !(reserved_in_slot_[state_.Slot(job.queue, job.project)] & Kind(in_quota));
}

MilliGpu HeldRooms::Hold(int job, bool in_quota) {
  const JobState& j = state_.jobs[job];
  reserved_in_slot_[state_.Slot(j.queue, j.project)] |= Kind(in_quota);
  if (!in_quota && over_quota_holder_[j.queue] < 0) over_quota_holder_[j.queue] = job;
  MilliGpu held = Reserve(job, j.min_replicas, !in_quota);
  if (in_quota && holder_of_queue_[j.queue] < 0 && held > 0) holder_of_queue_[j.queue] = job;
  return held;
}

// Over quota, room held against lower priority is open to higher: an over-quota
// holder keeps out only over-quota jobs of lower priority.
HeldRooms::Holder HeldRooms::Ahead(const JobState& job, bool in_quota) const {
  Holder holder{holder_of_queue_[job.queue], false};
  if (int over = over_quota_holder_[job.queue];
      holder.job < 0 && !in_quota && over >= 0 && state_.jobs[over].priority > job.priority) {
    holder = {over, true};
  }
  return holder;
}

// For a job that requires one topology domain: the eligible domain with the most
// whole devices available (`of_node` set to the node -> domain table), else -1.
int HeldRooms::RoomiestDomain(const JobState& job, const std::vector<int>*& of_node) {
  of_node = nullptr;
  if (job.topology.mode != TopologyMode::kRequired || job.topology.key.empty()) return -1;
  const ClusterState::Domains& domains = state_.DomainsFor(job.topology.key);
  std::vector<int> available(domains.names.size(), 0);
  for (int n : eligibility_.Nodes(job)) {
    if (domains.of_node[n] >= 0) available[domains.of_node[n]] += state_.Available(n);
  }
  if (available.empty()) return -1;
  of_node = &domains.of_node;
  return static_cast<int>(std::max_element(available.begin(), available.end()) - available.begin());
}

int HeldRooms::Holdable(int node, bool over_quota) const {
  const NodeState& n = state_.nodes[node];
  return std::max(0, n.full_free - n.reserved_full - (over_quota ? n.reserved_over : 0));
}

// Holds, on the nodes with the most room, the free whole devices the job will use
// once running work there ends; later jobs of lower rank cannot take them (over
// quota: later over-quota jobs of lower priority). The room is remembered with
// whether it was short.
MilliGpu HeldRooms::Reserve(int job, int count, bool over_quota) {
  ++changes_;
  const JobState& j = state_.jobs[job];
  int per_replica = static_cast<int>(j.shape.gpu_milli / kMilliPerGpu);
  const std::vector<char>& member = *eligibility_.Member(j);
  // A gang that must share one topology domain holds room in one: the roomiest.
  const std::vector<int>* domain_of = nullptr;
  int domain = RoomiestDomain(j, domain_of);
  // Eligible nodes by available devices, most first (then by name order), until
  // they hold every replica on devices no other room counts on.
  // In quota, rooms held over quota are not counted: in-quota work may take them.
  auto open = [&](int n) {
    const NodeState& node = state_.nodes[n];
    int counted = node.reserve_target + (over_quota ? node.over_target : 0);
    return std::max(0, ClusterState::UsableDevices(node) - counted);
  };
  std::vector<int> ranked;
  int covered = 0;
  const std::vector<NodeSet>& by_available = state_.ByAvailable();
  for (int k = static_cast<int>(by_available.size()) - 1; k >= 0 && covered < count; --k) {
    for (int n : by_available[k]) {
      if (!member[n] || (domain_of && (*domain_of)[n] != domain)) continue;
      if (open(n) < per_replica) continue;
      ranked.push_back(n);
      covered += open(n) / per_replica;
      if (covered >= count) break;
    }
  }
  HeldRoom room{job, over_quota, false, {}};
  MilliGpu held = 0;
  int remaining = count;
  for (int n : ranked) {
    NodeState& node = state_.nodes[n];
    int replicas = std::min(remaining, open(n) / per_replica);
    if (replicas <= 0) continue;
    int devices = replicas * per_replica;
    int hold = std::min(Holdable(n, over_quota), devices);
    if (node.reserve_target == 0 && node.over_target == 0) reserved_nodes_.push_back(n);  // Once.
    if (over_quota) {
      node.over_priority =
          node.over_target == 0 ? j.priority : std::max(node.over_priority, j.priority);
      node.over_target += devices;
      node.reserved_over += hold;
    } else {
      node.reserve_target += devices;
      state_.SetReserved(n, node.reserved_full + hold);
    }
    room.devices.emplace_back(n, devices);
    room.short_when_held = room.short_when_held || hold < devices;
    held += hold * kMilliPerGpu;
    remaining -= replicas;
  }
  // Room that can never hold the job is not waited for.
  if (remaining > 0) room.short_when_held = false;
  rooms_.push_back(std::move(room));
  return held;
}

// The room held by the last cycles stands; a project that holds none in a queue (in
// quota, or over it) may hold room for a job that waits now.
void HeldRooms::Continue() {
  rooms_ = std::move(state_.held_rooms);  // Given back by Remember.
  // A job that runs (or stops) since, started without this engine's cycles (a live
  // cluster's state): its room is held for nobody.
  std::erase_if(rooms_, [&](const HeldRoom& room) {
    const JobState& j = state_.jobs[room.job];
    if (j.alive && !j.running && !j.terminating) return false;
    state_.Unhold(room);
    return true;
  });
  holder_of_queue_.assign(state_.queues.size(), -1);
  over_quota_holder_.assign(state_.queues.size(), -1);
  reserved_in_slot_.assign(state_.quotas.size(), 0);
  for (const HeldRoom& room : rooms_) {
    const JobState& holder = state_.jobs[room.job];
    reserved_in_slot_[state_.Slot(holder.queue, holder.project)] |= Kind(!room.over_quota);
    int& first = FirstHolder(holder.queue, room.over_quota);
    if (first < 0) first = room.job;
    for (auto [n, devices] : room.devices) reserved_nodes_.push_back(n);  // Repeats are harmless.
  }
}

// Devices freed where room is held for a blocked job are held for it too, as a full
// cycle would hold them: smaller jobs do not slip into them.
void HeldRooms::HoldFreed(const std::vector<int>& released_now) {
  for (int n : released_now) {
    NodeState& node = state_.nodes[n];
    int hold = std::min(node.reserve_target, node.full_free);
    if (node.reserve_target > 0 && hold > node.reserved_full) state_.SetReserved(n, hold);
    if (node.over_target > 0) {
      node.reserved_over =
          std::min(node.over_target, std::max(0, node.full_free - node.reserved_full));
    }
  }
}

std::vector<int> HeldRooms::Drop(int job) {
  auto it = std::find_if(rooms_.begin(), rooms_.end(),
                         [job](const HeldRoom& room) { return room.job == job; });
  if (it == rooms_.end()) return {};
  HeldRoom room = std::move(*it);
  rooms_.erase(it);
  ++changes_;
  state_.Unhold(room);
  std::vector<int> opened;
  for (auto [n, devices] : room.devices) {
    const NodeState& node = state_.nodes[n];
    if (node.reserve_target == 0 && node.over_target == 0) std::erase(reserved_nodes_, n);
    opened.push_back(n);
  }
  const JobState& j = state_.jobs[job];
  reserved_in_slot_[state_.Slot(j.queue, j.project)] &= ~Kind(!room.over_quota);
  // The queue's first holder of that kind, if it was this job, is the next one.
  int& first = FirstHolder(j.queue, room.over_quota);
  if (first != job) return opened;
  first = -1;
  for (const HeldRoom& other : rooms_) {
    if (other.over_quota == room.over_quota && state_.jobs[other.job].queue == j.queue) {
      first = other.job;
      break;
    }
  }
  return opened;
}

std::vector<int> HeldRooms::MarkFreed(const std::vector<int>& released_now,
                                      const std::vector<char>& touched) {
  auto released = [&](std::pair<int, int> held) {
    return std::binary_search(released_now.begin(), released_now.end(), held.first);
  };
  auto free = [&](std::pair<int, int> held) {
    const NodeState& node = state_.nodes[held.first];  // Every room there complete.
    return !node.removed && node.full_free >= node.reserve_target + node.over_target;
  };
  std::vector<int> jobs;
  for (const HeldRoom& room : rooms_) {
    if (!room.short_when_held || touched[static_cast<std::size_t>(room.job)]) continue;
    if (!std::any_of(room.devices.begin(), room.devices.end(), released) ||
        !std::all_of(room.devices.begin(), room.devices.end(), free)) {
      continue;
    }
    freed_.insert(room.job);
    jobs.push_back(room.job);
  }
  return jobs;
}

// A job whose room was freed looks through it when it is tried where that room
// was held: in quota (its first pass), or over quota (the second).
bool HeldRooms::TakeFreed(int job, bool in_quota) {
  auto freed = freed_.find(job);
  if (freed == freed_.end()) return false;
  auto room =
      std::find_if(rooms_.begin(), rooms_.end(), [job](const HeldRoom& r) { return r.job == job; });
  if (room != rooms_.end() && in_quota && room->over_quota) return false;
  freed_.erase(freed);
  return true;
}

}  // namespace gpupool::engine::internal
