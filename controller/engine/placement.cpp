#include "placement.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <map>
#include <tuple>

namespace gpupool::engine::internal {
namespace {

constexpr double kEpsilon = 1e-6;

bool ModelMatches(const JobState& job, const NodeState& node) {
  if (job.gpu_models.empty()) return true;
  return std::find(job.gpu_models.begin(), job.gpu_models.end(), node.model) !=
         job.gpu_models.end();
}

std::uint64_t FreeDevices(const NodeState& node) {
  std::uint64_t mask = 0;
  for (std::size_t d = 0; d < node.used.size(); ++d) {
    if (node.used[d] == 0) mask |= std::uint64_t{1} << d;
  }
  return mask;
}

// min(cap, a / b) for b > 0, with C++ division: divides only when the quotient is
// below `cap` (fit tests ask for one replica, and rarely get less).
template <typename T>
T CappedQuotient(T a, T b, T cap) {
  return a >= cap * b ? cap : a / b;
}

// Every check but pool membership. `selected`: whether the node's labels match the
// job's selector, when already known.
bool NodeFits(const NodeState& node, const JobState& job, const bool* selected = nullptr) {
  bool need_domain = job.topology.mode == TopologyMode::kRequired && !job.topology.key.empty();
  if (!node.schedulable || !ModelMatches(job, node)) return false;
  if (static_cast<int>(node.used.size()) < DevicesPerReplica(job)) return false;
  if (selected ? !*selected : !LabelsMatch(*job.node_selector, node.labels)) return false;
  return !need_domain || node.labels.count(job.topology.key);
}

}  // namespace

std::vector<int> EligibleNodes(const ClusterState& state, const JobState& job,
                               const std::vector<char>* selected) {
  std::vector<int> out;
  if (job.queue < 0) return out;
  const std::vector<int>& pool = state.queues[job.queue].nodes;
  for (std::size_t i = 0; i < pool.size(); ++i) {
    bool matches = selected && (*selected)[i];
    if (NodeFits(state.nodes[pool[i]], job, selected ? &matches : nullptr)) out.push_back(pool[i]);
  }
  return out;
}

std::vector<char> SelectorMatches(const ClusterState& state, const JobState& job) {
  const std::vector<int>& pool = state.queues[job.queue].nodes;
  std::vector<char> matches(pool.size());
  for (std::size_t i = 0; i < pool.size(); ++i) {
    matches[i] = LabelsMatch(*job.node_selector, state.nodes[pool[i]].labels);
  }
  return matches;
}

bool NodeEligible(const ClusterState& state, const JobState& job, int n) {
  const NodeState& node = state.nodes[n];
  if (job.queue < 0 || node.removed) return false;
  bool in_pool = std::find(node.queues.begin(), node.queues.end(), job.queue) != node.queues.end();
  return in_pool && NodeFits(node, job);
}

bool Placer::Fraction(const JobState& job) const {
  return job.shape.gpu_milli > 0 && job.shape.gpu_milli < kMilliPerGpu;
}

int Placer::AvailableFull(int node) const {
  const NodeState& n = state_.nodes[node];
  if (ignore_reservations_) return n.full_free;
  bool held_from_it = over_quota_ && priority_ < n.over_priority;
  return std::max(0, n.full_free - n.reserved_full - (held_from_it ? n.reserved_over : 0));
}

bool Placer::FitsOneUnreserved(const JobState& job, int node) {
  ignore_reservations_ = true;
  bool fits = FitsOne(job, node);
  ignore_reservations_ = false;
  return fits;
}

int Placer::Hostable(const JobState& job, int node, int cap) const {
  const NodeState& n = state_.nodes[node];
  int count = cap;
  if (job.shape.cpu_milli > 0) {
    count = static_cast<int>(CappedQuotient<MilliCpu>(n.cpu_free, job.shape.cpu_milli, count));
  }
  if (job.shape.memory_bytes > 0) {
    count = static_cast<int>(CappedQuotient<Bytes>(n.memory_free, job.shape.memory_bytes, count));
  }
  if (Fraction(job)) {
    // Pieces of the job's size, counted until there are enough.
    MilliGpu pieces = AvailableFull(node) * (kMilliPerGpu / job.shape.gpu_milli);
    for (std::size_t d = 0; d < n.used.size() && pieces < count; ++d) {
      if (n.used[d] > 0) pieces += DeviceFree(n.used[d]) / job.shape.gpu_milli;
    }
    count = static_cast<int>(std::min<MilliGpu>(count, pieces));
  } else if (int g = DevicesPerReplica(job); g > 0) {
    count = CappedQuotient(AvailableFull(node), g, count);
  }
  return std::max(0, count);
}

bool Placer::FitsOne(const JobState& job, int node) const { return Hostable(job, node, 1) > 0; }

std::uint64_t Placer::Preferred(int node) const {
  if (preferred_.empty()) return 0;
  auto it = preferred_.find(node);
  return it == preferred_.end() ? 0 : it->second;
}

// Free devices, preferred ones first, then lowest index first.
std::uint64_t Placer::LowestFree(int node, int count) const {
  const NodeState& n = state_.nodes[node];
  std::uint64_t mask = 0;
  std::uint64_t preferred = Preferred(node);
  for (bool only_preferred : {preferred != 0, false}) {
    for (std::size_t d = 0; d < n.used.size() && count > 0; ++d) {
      if (n.used[d] != 0 || (mask >> d & 1)) continue;
      if (only_preferred && !(preferred >> d & 1)) continue;
      mask |= std::uint64_t{1} << d;
      --count;
    }
  }
  return mask;
}

double Placer::Delta(const NodeState& node, std::uint64_t mask, MilliGpu per_device, int replicas,
                     const JobState& job) const {
  double after = model_.WasteAfter(node, mask, per_device, job.shape.cpu_milli * replicas,
                                   job.shape.memory_bytes * replicas);
  return after - model_.Waste(node);
}

// The node that takes `count` replicas and leaves the least waste (or, for best-fit,
// the fewest whole devices free), so large holes stay open for large jobs.
int Placer::BestNodeForWhole(const JobState& job, const std::vector<int>& nodes, int count) const {
  int best = -1;
  std::tuple<double, int, MilliCpu, int> best_key;
  int g = DevicesPerReplica(job);
  bool aware = state_.options.packing == Packing::kFragmentationAware && !model_.empty();
  for (int n : nodes) {
    if (Hostable(job, n, count) < count) continue;
    const NodeState& node = state_.nodes[n];
    double delta = 0;
    if (aware) delta = Delta(node, LowestFree(n, g * count), kMilliPerGpu, count, job);
    std::tuple<double, int, MilliCpu, int> key{delta, AvailableFull(n) - g * count,
                                               node.cpu_free - job.shape.cpu_milli * count, n};
    if (best < 0 || std::get<0>(key) < std::get<0>(best_key) - kEpsilon ||
        (std::get<0>(key) <= std::get<0>(best_key) + kEpsilon &&
         std::tie(std::get<1>(key), std::get<2>(key), std::get<3>(key)) <
             std::tie(std::get<1>(best_key), std::get<2>(best_key), std::get<3>(best_key)))) {
      best = n;
      best_key = key;
    }
  }
  return best;
}

// Best-fit first: the nodes with the fewest available whole devices that still
// hold the replicas; the packing score then chooses among the first few of them.
int Placer::IndexedBestNode(const JobState& job, int count, const std::vector<char>& member) const {
  constexpr std::size_t kCandidates = 32;
  int need = DevicesPerReplica(job) * count;
  std::vector<int> candidates;
  const std::vector<NodeSet>& by_available = state_.ByAvailable();
  for (int k = need; k < static_cast<int>(by_available.size()); ++k) {
    for (int n : by_available[k]) {
      if (!member[n] || Hostable(job, n, count) < count) continue;
      candidates.push_back(n);
      if (candidates.size() >= kCandidates) break;
    }
    if (candidates.size() >= kCandidates) break;
  }
  return BestNodeForWhole(job, candidates, count);
}

std::vector<Placed> Placer::WholeGang(const JobState& job, int count,
                                      const std::vector<int>& nodes) {
  std::vector<std::pair<int, int>> chosen;  // node, replicas
  int single = member_ && nodes.size() > 64 ? IndexedBestNode(job, count, *member_)
                                            : BestNodeForWhole(job, nodes, count);
  if (int n = single; n >= 0) {
    chosen.emplace_back(n, count);
  } else if (count == 1) {
    return {};  // No node holds one replica.
  } else {
    // Fewest nodes: take the roomiest nodes until the rest fits on one, then the
    // tightest node that holds the rest.
    std::vector<std::pair<int, int>> room;
    for (int n : nodes) {
      if (int h = Hostable(job, n, count); h > 0) room.emplace_back(-h, n);
    }
    std::sort(room.begin(), room.end());
    int remaining = count;
    for (std::size_t i = 0; i < room.size() && remaining > 0; ++i) {
      if (-room[i].first >= remaining) {
        std::vector<int> rest;
        for (std::size_t j = i; j < room.size(); ++j) rest.push_back(room[j].second);
        int n = BestNodeForWhole(job, rest, remaining);
        chosen.emplace_back(n, remaining);
        remaining = 0;
      } else {
        chosen.emplace_back(room[i].second, -room[i].first);
        remaining += room[i].first;
      }
    }
    if (remaining > 0) return {};
  }
  std::vector<Placed> placed;
  int g = DevicesPerReplica(job);
  for (auto [n, replicas] : chosen) {
    for (int r = 0; r < replicas; ++r) {
      placed.push_back({n, LowestFree(n, g)});
      state_.Take(job, placed.back());
    }
  }
  for (const Placed& p : placed) state_.Release(job, p);
  return placed;
}

// One fractional replica: an already-shared device if any fits, otherwise a free
// one; among those, the least added waste (or the tightest device for best-fit).
bool Placer::BestFraction(const JobState& job, const std::vector<int>& nodes, Placed& out) const {
  bool indexed = member_ && nodes.size() > 64;
  for (bool shared : {true, false}) {
    if (!indexed) {
      if (BestFractionAmong(job, nodes, shared, out)) return true;
      continue;
    }
    // A whole pool: shared devices live on the few nodes of the shared index; a
    // free device is taken best-fit, from the nodes with the fewest available.
    std::vector<int> candidates;
    if (shared) {
      for (int n : state_.SharedNodes()) {
        if ((*member_)[n]) candidates.push_back(n);
      }
    } else {
      const std::vector<NodeSet>& by_available = state_.ByAvailable();
      for (std::size_t k = 1; k < by_available.size() && candidates.size() < 32; ++k) {
        for (int n : by_available[k]) {
          if ((*member_)[n] && FitsOne(job, n)) candidates.push_back(n);
          if (candidates.size() >= 32) break;
        }
      }
    }
    if (BestFractionAmong(job, candidates, shared, out)) return true;
  }
  return false;
}

// One fractional replica: among `nodes`, on an already-shared device (or a free
// one), the least added waste (or the tightest device for best-fit).
bool Placer::BestFractionAmong(const JobState& job, const std::vector<int>& nodes, bool shared,
                               Placed& out) const {
  bool aware = state_.options.packing == Packing::kFragmentationAware && !model_.empty();
  MilliGpu m = job.shape.gpu_milli;
  bool found = false;
  std::tuple<double, MilliGpu, int, int> best_key;
  for (int n : nodes) {
    const NodeState& node = state_.nodes[n];
    if (node.cpu_free < job.shape.cpu_milli || node.memory_free < job.shape.memory_bytes) {
      continue;
    }
    if (!shared && AvailableFull(n) == 0) continue;
    double before = aware ? model_.Waste(node) : 0;
    std::int32_t last_used = -1;
    // A fresh device: one a victim left, if any.
    std::uint64_t preferred = shared ? 0 : Preferred(n) & FreeDevices(node);
    for (std::size_t d = 0; d < node.used.size(); ++d) {
      std::int32_t used = node.used[d];
      bool candidate = shared ? used > 0 && used + m <= kMilliPerGpu : used == 0;
      if (preferred != 0 && !(preferred >> d & 1)) continue;
      if (!candidate || used == last_used) continue;  // Same usage, same outcome.
      last_used = used;
      std::uint64_t mask = std::uint64_t{1} << d;
      double delta =
          aware ? model_.WasteAfter(node, mask, m, job.shape.cpu_milli, job.shape.memory_bytes) -
                      before
                : 0;
      std::tuple<double, MilliGpu, int, int> key{delta, kMilliPerGpu - used - m, AvailableFull(n),
                                                 n};
      bool better =
          !found || delta < std::get<0>(best_key) - kEpsilon ||
          (delta <= std::get<0>(best_key) + kEpsilon &&
           std::tie(std::get<1>(key), std::get<2>(key), std::get<3>(key)) <
               std::tie(std::get<1>(best_key), std::get<2>(best_key), std::get<3>(best_key)));
      if (better) {
        found = true;
        best_key = key;
        out = {n, mask};
      }
    }
  }
  return found;
}

std::vector<Placed> Placer::FractionGang(const JobState& job, int count,
                                         const std::vector<int>& nodes) {
  std::vector<Placed> placed;
  for (int r = 0; r < count; ++r) {
    Placed p;
    if (!BestFraction(job, nodes, p)) break;
    placed.push_back(p);
    state_.Take(job, p);
  }
  for (const Placed& p : placed) state_.Release(job, p);
  if (static_cast<int>(placed.size()) < count) return {};
  return placed;
}

std::vector<Placed> Placer::Anywhere(const JobState& job, int count,
                                     const std::vector<int>& nodes) {
  return Fraction(job) ? FractionGang(job, count, nodes) : WholeGang(job, count, nodes);
}

// The domain that holds the whole gang on the fewest nodes, then the tightest one,
// then the first by name.
std::vector<Placed> Placer::InOneDomain(const JobState& job, int count,
                                        const std::vector<int>& nodes) {
  const ClusterState::Domains& domains = state_.DomainsFor(job.topology.key);
  // The nodes grouped by domain, in their order within each (a counting sort).
  const std::size_t domain_count = domains.names.size();
  domain_start_.assign(domain_count + 1, 0);
  for (int n : nodes) {
    if (domains.of_node[n] >= 0) ++domain_start_[domains.of_node[n] + 1];
  }
  for (std::size_t d = 0; d < domain_count; ++d) domain_start_[d + 1] += domain_start_[d];
  by_domain_.resize(domain_start_[domain_count]);
  domain_nodes_.assign(domain_start_.begin(), domain_start_.end() - 1);  // Next free slot.
  for (int n : nodes) {
    if (int d = domains.of_node[n]; d >= 0) by_domain_[domain_nodes_[d]++] = n;
  }
  ranked_domains_.clear();
  for (std::size_t d = 0; d < domain_count; ++d) {
    room_.clear();
    MilliGpu free = 0;
    int total = 0;
    for (int i = domain_start_[d]; i < domain_start_[d + 1]; ++i) {
      int n = by_domain_[i];
      int h = Hostable(job, n, count);
      if (h == 0) continue;
      room_.push_back(h);
      total += h;
      free += ClusterState::FreeMilli(state_.nodes[n]);
    }
    if (total < count) continue;
    std::sort(room_.rbegin(), room_.rend());
    int covered = 0;
    int needed = 0;
    while (covered < count) covered += room_[needed++];
    ranked_domains_.emplace_back(needed, free, domains.name_rank[d], static_cast<int>(d));
  }
  std::sort(ranked_domains_.begin(), ranked_domains_.end());
  for (const auto& entry : ranked_domains_) {
    int d = std::get<3>(entry);
    domain_nodes_.assign(by_domain_.begin() + domain_start_[d],
                         by_domain_.begin() + domain_start_[d + 1]);
    std::vector<Placed> placed = Anywhere(job, count, domain_nodes_);
    if (!placed.empty()) return placed;
  }
  return {};
}

// A whole pool, for a gang of whole GPUs: only nodes with room for one replica
// matter, and the best-fit index lists them without looking at every node: the
// buckets of enough available devices, merged as bitsets, read in node order.
// `visit` returns true to stop early.
template <typename Visit>
void Placer::ForEachNodeWithRoom(const JobState& job, const std::vector<char>& member,
                                 Visit visit) {
  room_words_.assign(room_words_.size(), 0);
  const std::vector<NodeSet>& by_available = state_.ByAvailable();
  for (std::size_t k = static_cast<std::size_t>(DevicesPerReplica(job)); k < by_available.size();
       ++k) {
    if (!by_available[k].empty()) by_available[k].OrInto(room_words_);
  }
  for (std::size_t w = 0; w < room_words_.size(); ++w) {
    for (std::uint64_t bits = room_words_[w]; bits != 0; bits &= bits - 1) {
      int n = static_cast<int>(w * 64) + std::countr_zero(bits);
      if (member[n] && visit(n)) return;
    }
  }
}

void Placer::NodesWithRoom(const JobState& job, const std::vector<char>& member,
                           std::vector<int>& nodes) {
  nodes.clear();
  ForEachNodeWithRoom(job, member, [&](int n) {
    nodes.push_back(n);
    return false;
  });
}

bool Placer::Fits(const JobState& job, int count, const std::vector<int>& all_nodes,
                  const std::vector<char>* member) {
  if (count <= 1 || Fraction(job) || DevicesPerReplica(job) == 0) {
    return !Place(job, count, all_nodes, member).replicas.empty();
  }
  // Only a required domain can make room that exists elsewhere useless: a preferred
  // one that holds the gang is part of the room anywhere.
  const ClusterState::Domains* domains = nullptr;
  if (job.topology.mode == TopologyMode::kRequired && !job.topology.key.empty()) {
    domains = &state_.DomainsFor(job.topology.key);
    domain_room_.assign(domains->names.size(), 0);
  }
  int room = 0;
  auto enough = [&](int n) {  // Adds the node's room; true once the gang fits.
    if (!domains) return (room += Hostable(job, n, count)) >= count;
    int d = domains->of_node[n];
    return d >= 0 && (domain_room_[d] += Hostable(job, n, count)) >= count;
  };
  // As Place: the whole pool is read from the best-fit index.
  if (member && all_nodes.size() > 64) {
    bool fits = false;
    ForEachNodeWithRoom(job, *member, [&](int n) { return fits = enough(n); });
    return fits;
  }
  return std::any_of(all_nodes.begin(), all_nodes.end(), enough);
}

bool Placer::TrackRoom(const JobState& job, int count, const std::vector<int>& nodes,
                       const std::vector<char>* member) {
  tracked_ = {};
  if (count <= 1 || Fraction(job) || DevicesPerReplica(job) == 0 || !member) return false;
  tracked_.count = count;
  tracked_.member = member;
  if (job.topology.mode == TopologyMode::kRequired && !job.topology.key.empty()) {
    tracked_.domains = &state_.DomainsFor(job.topology.key);
    domain_room_.assign(tracked_.domains->names.size(), 0);
  }
  tracked_.job = &job;
  // Nodes without room for one replica add nothing: the index lists the others.
  if (nodes.size() > 64) {
    ForEachNodeWithRoom(job, *member, [&](int n) {
      AddRoom(n, 1);
      return false;
    });
  } else {
    for (int n : nodes) AddRoom(n, 1);
  }
  return true;
}

void Placer::AddRoom(int node, int sign) {
  if (!tracked_.job || node < 0 || !(*tracked_.member)[node]) return;
  int room = sign * Hostable(*tracked_.job, node, tracked_.count);
  if (!tracked_.domains) {
    tracked_.room += room;
    return;
  }
  int d = tracked_.domains->of_node[node];
  if (d < 0) return;
  bool full = domain_room_[d] >= tracked_.count;
  domain_room_[d] += room;
  tracked_.full_domains += (domain_room_[d] >= tracked_.count) - full;
}

PlaceResult Placer::Place(const JobState& job, int count, const std::vector<int>& all_nodes,
                          const std::vector<char>* member) {
  member_ = member;
  PlaceResult result;
  if (count <= 0) return result;
  bool indexed =
      member && all_nodes.size() > 64 && count > 1 && DevicesPerReplica(job) > 0 && !Fraction(job);
  if (indexed) NodesWithRoom(job, *member, with_room_);
  const std::vector<int>& nodes = indexed ? with_room_ : all_nodes;
  bool domain = job.topology.mode != TopologyMode::kNone && !job.topology.key.empty() && count > 1;
  if (domain) {
    result.replicas = InOneDomain(job, count, nodes);
    if (!result.replicas.empty()) return result;
    if (job.topology.mode == TopologyMode::kRequired) {
      bool anywhere = !Anywhere(job, count, nodes).empty();
      result.failure = anywhere ? PlaceFailure::kTopology : PlaceFailure::kCapacity;
      return result;
    }
  }
  result.replicas = Anywhere(job, count, nodes);
  if (result.replicas.empty()) result.failure = PlaceFailure::kCapacity;
  return result;
}

}  // namespace gpupool::engine::internal
