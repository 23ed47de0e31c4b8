// Where replicas go: best-fit (or fragmentation-aware) whole GPUs, gangs on the
// fewest nodes inside one topology domain, fractions on shared devices first.
#pragma once

#include <tuple>
#include <unordered_map>
#include <vector>

#include "packing.h"
#include "state.h"

namespace gpupool::engine::internal {

// Nodes that could ever host one replica: in the pool, schedulable, right model,
// matching the selector, with enough devices.
// `selected`, when given: SelectorMatches for the job's queue and selector.
std::vector<int> EligibleNodes(const ClusterState& state, const JobState& job,
                               const std::vector<char>* selected = nullptr);
// Per node of the job's pool (in the pool's order): whether its labels match the job's
// node selector. Jobs of one queue and selector share it, whatever they ask besides.
std::vector<char> SelectorMatches(const ClusterState& state, const JobState& job);
// The same test for one node (after the node changed).
bool NodeEligible(const ClusterState& state, const JobState& job, int node);

enum class PlaceFailure { kNone, kCapacity, kTopology };

struct PlaceResult {
  std::vector<Placed> replicas;  // Empty on failure.
  PlaceFailure failure = PlaceFailure::kNone;
};

class Placer {
 public:
  Placer(ClusterState& state, const PackingModel& model) : state_(state), model_(model) {}

  // Finds room for `count` replicas of `job` among `nodes`, honouring reservations.
  // The state is left as it was.
  // `member`, when given, marks which nodes are in `nodes` (a whole pool): whole-GPU
  // placement then searches the best-fit index instead of every node.
  PlaceResult Place(const JobState& job, int count, const std::vector<int>& nodes,
                    const std::vector<char>* member = nullptr);

  // Whether Place would find room, without choosing it: a gang of whole GPUs fits
  // when its nodes (or, asking for one domain, those of one domain) can host its
  // replicas together, as each node's room is its own.
  bool Fits(const JobState& job, int count, const std::vector<int>& nodes,
            const std::vector<char>* member = nullptr);

  // The answer of Fits for a gang of whole GPUs, kept while its victims are released
  // and taken back one by one: each changed node's share of the room is read again
  // (Untrack before the change, Retrack after) instead of the pool's being summed
  // after every change. TrackRoom returns false for any other job (ask Fits).
  bool TrackRoom(const JobState& job, int count, const std::vector<int>& nodes,
                 const std::vector<char>* member);
  void Untrack(int node) { AddRoom(node, -1); }
  void Retrack(int node) { AddRoom(node, 1); }
  bool TrackedFits() const {
    return tracked_.domains ? tracked_.full_domains > 0 : tracked_.room >= tracked_.count;
  }
  void StopTracking() { tracked_.job = nullptr; }

  // Whether one replica fits on the node now (reservations honoured).
  bool FitsOne(const JobState& job, int node) const;
  // Whether the jobs placed next run over their quota, and their priority: room held
  // for a job of higher priority waiting over quota is kept from them too.
  void PlaceOverQuota(bool over, int priority) {
    over_quota_ = over;
    priority_ = priority;
  }
  bool over_quota() const { return over_quota_; }
  // Whether one replica would fit if the node's reservation were not there.
  bool FitsOneUnreserved(const JobState& job, int node);
  // How many replicas (at most `cap`) the node can take now.
  int Hostable(const JobState& job, int node, int cap) const;
  // Devices to take first, by node (bit i = device i): the victims' of a preemption.
  // A terminating victim holds its devices until it is gone, so its beneficiary
  // must use them rather than others, or both would count.
  void Prefer(std::unordered_map<int, std::uint64_t> devices) { preferred_ = std::move(devices); }

 private:
  bool Fraction(const JobState& job) const;
  int AvailableFull(int node) const;
  std::uint64_t LowestFree(int node, int count) const;
  double Delta(const NodeState& node, std::uint64_t mask, MilliGpu per_device, int replicas,
               const JobState& job) const;
  int BestNodeForWhole(const JobState& job, const std::vector<int>& nodes, int count) const;
  int IndexedBestNode(const JobState& job, int count, const std::vector<char>& member) const;
  bool BestFraction(const JobState& job, const std::vector<int>& nodes, Placed& out) const;
  bool BestFractionAmong(const JobState& job, const std::vector<int>& nodes, bool shared,
                         Placed& out) const;
  std::vector<Placed> WholeGang(const JobState& job, int count, const std::vector<int>& nodes);
  void NodesWithRoom(const JobState& job, const std::vector<char>& member, std::vector<int>& nodes);
  template <typename Visit>
  void ForEachNodeWithRoom(const JobState& job, const std::vector<char>& member, Visit visit);
  const std::vector<char>* member_ = nullptr;  // Of the current Place call.
  bool ignore_reservations_ = false;
  bool over_quota_ = false;
  int priority_ = 0;
  std::unordered_map<int, std::uint64_t> preferred_;
  std::uint64_t Preferred(int node) const;
  std::vector<Placed> FractionGang(const JobState& job, int count, const std::vector<int>& nodes);
  std::vector<Placed> InOneDomain(const JobState& job, int count, const std::vector<int>& nodes);
  std::vector<Placed> Anywhere(const JobState& job, int count, const std::vector<int>& nodes);

  ClusterState& state_;
  const PackingModel& model_;
  // Kept between searches so that they allocate nothing once grown: nodes with room
  // (Place), a bitset of them (NodesWithRoom), nodes grouped by domain with each
  // domain's start, and the domains ranked (InOneDomain).
  std::vector<int> with_room_;
  std::vector<std::uint64_t> room_words_;
  std::vector<int> by_domain_, domain_start_, domain_nodes_;
  std::vector<std::tuple<int, MilliGpu, int, int>> ranked_domains_;
  std::vector<int> room_;
  std::vector<int> domain_room_;  // Replicas each domain can host (Fits, TrackRoom).
  struct TrackedRoom {
    const JobState* job = nullptr;  // Null: nothing tracked.
    int count = 0;
    const std::vector<char>* member = nullptr;
    const ClusterState::Domains* domains = nullptr;  // A required domain's.
    int room = 0;          // Replicas the nodes can host, without domains.
    int full_domains = 0;  // With: domains that can host the whole gang.
  };
  TrackedRoom tracked_;
  void AddRoom(int node, int sign);
};

}  // namespace gpupool::engine::internal
