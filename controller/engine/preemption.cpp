// Choosing victims: reclaim from other projects' over-quota work, and in-project
// priority preemption. Both pick victims in a fixed order until the job fits, then
// drop every victim the job can do without, so the set is minimal.
#include <algorithm>
#include <limits>
#include <tuple>

#include "cycle.h"

namespace gpupool::engine::internal {
namespace {

double OverShare(MilliGpu allocated, MilliGpu deserved) {
  if (deserved > 0) return static_cast<double>(allocated) / static_cast<double>(deserved);
  return allocated > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace

bool Cycle::VictimAllowed(int index) const {
  const JobState& victim = state_.jobs[index];
  if (!victim.running || !IsPreemptible(victim.workload_class)) return false;
  if (Touched(index)) return false;
  Seconds min_runtime = state_.queues[victim.queue].spec.min_runtime_seconds;
  return state_.now - victim.start_time >= min_runtime;
}

// Other projects of the job's queue that are over quota and have preemptible work.
std::vector<Cycle::ReclaimSource> Cycle::ReclaimSources(const JobState& j) const {
  std::vector<ReclaimSource> sources;
  for (std::size_t p = 0; p < state_.projects.size(); ++p) {
    if (static_cast<int>(p) == j.project) continue;
    std::size_t slot = state_.Slot(j.queue, static_cast<int>(p));
    const QuotaState& quota = state_.quotas[slot];
    MilliGpu allocated = state_.usage[slot].gpu;
    if (allocated <= quota.gpu || state_.victims[slot].empty()) continue;
    sources.push_back({static_cast<int>(p), allocated, quota.gpu, quota.deserved,
                       state_.victims[slot].begin(), state_.victims[slot].end()});
  }
  return sources;
}

// Victims come from the project furthest over its deserved share, lowest priority
// and shortest run first, and never take a project below its quota. Because the
// reclaiming job stays within its own quota and victims' projects stay at or above
// theirs, the victims' projects can never reclaim back: no loops.
bool Cycle::TryReclaim(int job, int count) {
  const JobState& j = state_.jobs[job];
  // Within one pass, other projects' reclaimable room only shrinks: a shape that
  // found none need not search again. RetryReclaim forgets this and tries again.
  // The memo holds for every project: one that reclaims is below its quota, so its
  // own jobs are never among the candidates and all reclaimers see the same ones.
  std::uint64_t memo = MemoKey(j, count);
  if (failed_reclaims_.count(memo)) return false;
  std::vector<ReclaimSource> sources = ReclaimSources(j);
  if (sources.empty()) {
    failed_reclaims_.insert(memo);  // No project is over its quota with work to give.
    return false;
  }
  MilliGpu reclaimable = 0;
  for (const ReclaimSource& s : sources) reclaimable += s.allocated - s.quota;
  std::vector<MilliGpu> department_taken(state_.departments.size(), 0);
  // Projects of departments over their quota first, then the furthest over its share.
  auto reclaim_key = [&](const ReclaimSource& s) {
    int d = state_.projects[s.project].department;
    bool over = DepartmentOverQuota(j.queue, s.project, d < 0 ? 0 : department_taken[d]);
    return std::pair(over, OverShare(s.allocated, s.deserved));
  };
  VictimSource next = [&]() {
    while (true) {
      ReclaimSource* best = nullptr;
      for (ReclaimSource& s : sources) {
        if (s.next == s.end || s.allocated <= s.quota) continue;
        if (!best || reclaim_key(s) > reclaim_key(*best)) best = &s;
      }
      if (!best) return -1;
      int victim = *best->next++;
      const JobState& v = state_.jobs[victim];
      MilliGpu gpu = state_.JobGpu(v, static_cast<int>(v.placed.size()));
      if (!VictimAllowed(victim) || best->allocated - gpu < best->quota) continue;
      best->allocated -= gpu;
      if (int d = state_.projects[best->project].department; d >= 0) department_taken[d] += gpu;
      return victim;
    }
  };
  std::vector<int> victims;
  if (count == 1) {
    // One replica needs room on one node: victims elsewhere would only spend the
    // other projects' over-quota budget for nothing.
    std::vector<MilliGpu> allocated(state_.projects.size(), -1);
    for (const ReclaimSource& s : sources) allocated[s.project] = s.allocated;
    victims = ReclaimOnOneNode(job, allocated);
  } else if (reclaimable + state_.queues[j.queue].free >= state_.JobGpu(j, count)) {
    Accounting any = [](MilliGpu) { return true; };
    victims = SelectVictims(job, count, next, any);
  }
  // A single replica did not fit anywhere before: only the victims' node gains room.
  if (victims.empty() ||
      !FinishPreemption(job, count, std::move(victims), PreemptionReason::kReclaim, count == 1)) {
    failed_reclaims_.insert(memo);
    return false;
  }
  return true;
}

const std::vector<std::vector<int>>& Cycle::JobsByNode() {
  if (jobs_by_node_ready_) return *jobs_by_node_;
  jobs_by_node_ready_ = true;
  if (state_.tracking()) {
    jobs_by_node_ = &state_.jobs_on_node;
  } else {
    own_jobs_by_node_.assign(state_.nodes.size(), {});
    for (int j = 0; j < static_cast<int>(state_.jobs.size()); ++j) {
      if (!state_.jobs[j].running) continue;
      for (const Placed& p : state_.jobs[j].placed) {
        if (p.node >= 0) own_jobs_by_node_[p.node].push_back(j);
      }
    }
    jobs_by_node_ = &own_jobs_by_node_;
  }
  // Reclaimable work: the preemptible jobs of projects over their quota.
  reclaimable_on_node_.assign(state_.nodes.size(), 0);
  exhausted_.assign(state_.usage.size(), 0);
  for (std::size_t slot = 0; slot < state_.victims.size(); ++slot) {
    if (state_.usage[slot].gpu <= state_.quotas[slot].gpu) continue;
    for (int v : state_.victims[slot]) {
      const JobState& job = state_.jobs[v];
      for (const Placed& p : job.placed) {
        if (p.node >= 0) reclaimable_on_node_[p.node] += ReplicaGpu(job);
      }
    }
  }
  reclaim_nodes_.Resize(state_.nodes.size());
  for (int n = 0; n < static_cast<int>(state_.nodes.size()); ++n) {
    if (reclaimable_on_node_[n] > 0) reclaim_nodes_.Insert(n);
  }
  return *jobs_by_node_;
}

MilliGpu Cycle::ReplicaGpu(const JobState& job) const {
  return std::max<MilliGpu>(0, job.shape.gpu_milli);
}

bool Cycle::ReclaimableProject(const JobState& job) const {
  if (job.queue < 0 || !IsPreemptible(job.workload_class)) return false;
  std::size_t slot = state_.Slot(job.queue, job.project);
  return state_.usage[slot].gpu > state_.quotas[slot].gpu;
}

// Keeps the per-node upper bound of reclaimable GPUs in step after a job was
// preempted: its own GPUs go, and a project back at its quota offers no more.
void Cycle::ForgetReclaimable(const JobState& victim) {
  if (!jobs_by_node_ready_) return;
  for (const Placed& p : victim.placed) {
    if (p.node >= 0) LowerReclaimable(p.node, ReplicaGpu(victim));
  }
  std::size_t slot = state_.Slot(victim.queue, victim.project);
  if (exhausted_[slot] ||
      state_.usage[slot].gpu - ReplicaGpu(victim) * static_cast<MilliGpu>(victim.placed.size()) >
          state_.quotas[slot].gpu) {
    return;
  }
  exhausted_[slot] = 1;
  const JobState* self = &victim;
  for (int v : state_.victims[slot]) {
    if (&state_.jobs[v] == self) continue;
    for (const Placed& p : state_.jobs[v].placed) {
      if (p.node >= 0) LowerReclaimable(p.node, ReplicaGpu(state_.jobs[v]));
    }
  }
}

// The node where the fewest victims (then the fewest GPUs taken) make room. One
// victim cannot be beaten, and the search stops after a few nodes that work, so a
// reclaim costs about the same on a large cluster as on a small one.
std::vector<int> Cycle::ReclaimOnOneNode(int job, const std::vector<MilliGpu>& allocated) {
  constexpr int kEnoughCandidates = 8;
  const JobState& j = state_.jobs[job];
  MilliGpu need = std::max<MilliGpu>(j.shape.gpu_milli, 0);
  std::vector<int> best;
  // Fewest victims outside departments over their quota, then fewest victims, then
  // fewest GPUs taken, then the set whose most important victim (highest priority,
  // then longest run) matters least.
  std::tuple<std::size_t, std::size_t, MilliGpu, int, Seconds> best_key;
  int found = 0;
  JobsByNode();
  const std::vector<char>& member = *Member(j);
  // Only nodes holding reclaimable work can gain room. The search starts where the
  // last reclaim succeeded (and wraps), so consecutive reclaims do not rescan the
  // nodes already drained.
  auto start = reclaim_nodes_.LowerBound(reclaim_cursor_);
  for (std::size_t seen = 0; seen < reclaim_nodes_.size(); ++seen, ++start) {
    if (start == reclaim_nodes_.end()) start = reclaim_nodes_.begin();
    int n = *start;
    if (!member[n] || !NodeCouldFit(j, n, need)) continue;
    std::vector<int> victims = VictimsOnNode(job, n, allocated);
    if (victims.empty()) continue;
    ++found;
    MilliGpu gpu = 0;
    int top_priority = std::numeric_limits<int>::min();
    Seconds first_start = std::numeric_limits<Seconds>::max();
    for (int v : victims) {
      const JobState& victim = state_.jobs[v];
      gpu += state_.JobGpu(victim, static_cast<int>(victim.placed.size()));
      top_priority = std::max(top_priority, victim.priority);
      first_start = std::min(first_start, victim.start_time);
    }
    std::tuple<std::size_t, std::size_t, MilliGpu, int, Seconds> key{
        VictimsOutsideDepartmentsOverQuota(victims), victims.size(), gpu, top_priority,
        -first_start};
    if (best.empty() || key < best_key) {
      best = std::move(victims);
      best_key = key;
      reclaim_cursor_ = n;
    }
    bool unbeatable = best.size() == 1 && std::get<0>(best_key) == 0;
    if (unbeatable || found >= kEnoughCandidates) break;
  }
  return best;
}

// Cheap necessary condition: the node's free GPUs plus what its reclaimable jobs
// hold cover the request.
void Cycle::LowerReclaimable(int node, MilliGpu gpu) {
  reclaimable_on_node_[node] -= gpu;
  if (reclaimable_on_node_[node] <= 0) reclaim_nodes_.Erase(node);
}

bool Cycle::NodeCouldFit(const JobState& job, int node, MilliGpu need) {
  JobsByNode();
  const NodeState& state = state_.nodes[node];
  MilliGpu potential = reclaimable_on_node_[node] + EngineState::FreeMilli(state);
  potential -= static_cast<MilliGpu>(state.reserved_full) * kMilliPerGpu;
  (void)job;
  return potential >= need;
}

std::vector<int> Cycle::VictimsOnNode(int job, int node, const std::vector<MilliGpu>& allocated) {
  const JobState& j = state_.jobs[job];
  // Victims of departments over their quota first.
  std::vector<std::tuple<bool, double, int, Seconds, int>> candidates;
  for (int v : JobsByNode()[node]) {
    const JobState& victim = state_.jobs[v];
    if (!victim.running || victim.queue != j.queue || allocated[victim.project] < 0) continue;
    if (!VictimAllowed(v)) continue;
    const QuotaState& quota = state_.quotas[state_.Slot(victim.queue, victim.project)];
    candidates.emplace_back(!DepartmentOverQuota(victim.queue, victim.project),
                            -OverShare(allocated[victim.project], quota.deserved), victim.priority,
                            -victim.start_time, v);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<int> ordered;
  for (const auto& candidate : candidates) ordered.push_back(std::get<4>(candidate));
  // One victim is the least harm: take the first (in victim order) that is enough.
  if (int v = SingleVictim(j, node, ordered, allocated); v >= 0) return {v};
  std::vector<MilliGpu> taken(state_.projects.size(), 0);
  std::vector<int> chosen;
  bool fits = false;
  for (int v : ordered) {
    const JobState& victim = state_.jobs[v];
    MilliGpu gpu = state_.JobGpu(victim, static_cast<int>(victim.placed.size()));
    MilliGpu quota = state_.quotas[state_.Slot(victim.queue, victim.project)].gpu;
    if (allocated[victim.project] - taken[victim.project] - gpu < quota) continue;
    taken[victim.project] += gpu;
    chosen.push_back(v);
    for (const Placed& p : victim.placed) state_.Release(victim, p);
    if ((fits = placer_.FitsOne(j, node))) break;
  }
  if (fits) {
    // Minimal: give back every victim the job can do without, latest chosen first.
    for (std::size_t i = chosen.size(); i-- > 0;) {
      const JobState& victim = state_.jobs[chosen[i]];
      for (const Placed& p : victim.placed) state_.Take(victim, p);
      if (placer_.FitsOne(j, node)) {
        chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      for (const Placed& p : victim.placed) state_.Release(victim, p);
    }
  }
  for (int v : chosen) {
    for (const Placed& p : state_.jobs[v].placed) state_.Take(state_.jobs[v], p);
  }
  if (!fits) chosen.clear();
  return chosen;
}

int Cycle::SingleVictim(const JobState& job, int node, const std::vector<int>& ordered,
                        const std::vector<MilliGpu>& allocated) {
  for (int v : ordered) {
    const JobState& victim = state_.jobs[v];
    MilliGpu gpu = state_.JobGpu(victim, static_cast<int>(victim.placed.size()));
    MilliGpu quota = state_.quotas[state_.Slot(victim.queue, victim.project)].gpu;
    if (allocated[victim.project] - gpu < quota) continue;
    for (const Placed& p : victim.placed) state_.Release(victim, p);
    bool enough = placer_.FitsOne(job, node);
    for (const Placed& p : victim.placed) state_.Take(victim, p);
    if (enough) return v;
  }
  return -1;
}

// A higher-priority job of the same project and queue takes the place of the
// project's lower-priority preemptible jobs.
bool Cycle::TryInProject(int job, int count, const Accounting& accounting, char mode) {
  const JobState& j = state_.jobs[job];
  const auto& lower = state_.victims[state_.Slot(j.queue, j.project)];
  if (lower.empty() || state_.jobs[*lower.begin()].priority >= j.priority) return false;
  // The project's lower-priority jobs only become fewer, and its usage only grows,
  // until something is released: a failure stands until then.
  // One replica only fits where its victims run: a failure stands until room is
  // released on a node where the project runs.
  InProjectKey memo{MemoKey(j, count), mode, j.project, j.priority};
  std::size_t stamp = count == 1 ? ReleasesNear(j.project) : released_.size();
  auto failed = failed_in_project_.find(memo);
  if (failed != failed_in_project_.end() && failed->second == stamp) return false;
  const auto& candidates = state_.victims[state_.Slot(j.queue, j.project)];
  auto it = candidates.begin();
  VictimSource next = [&]() {
    while (it != candidates.end()) {
      int victim = *it++;
      const JobState& v = state_.jobs[victim];
      if (v.priority >= j.priority) return -1;  // Ordered by priority: none lower left.
      if (VictimAllowed(victim)) return victim;
    }
    return -1;
  };
  std::vector<int> victims = SelectVictims(job, count, next, accounting);
  if (victims.empty() ||
      !FinishPreemption(job, count, std::move(victims), PreemptionReason::kProjectPriority)) {
    failed_in_project_[memo] = stamp;
    return false;
  }
  return true;
}

// The count is kept from the first question on; before that, no project has seen
// a release it could tell apart.
std::size_t Cycle::ReleasesNear(int project) {
  if (releases_near_.empty()) releases_near_.assign(state_.projects.size(), 0);
  return releases_near_[static_cast<std::size_t>(project)];
}

void Cycle::NoteReleased(int node) {
  released_.push_back(node);
  if (releases_near_.empty() || node < 0) return;
  for (int job : JobsByNode()[node]) ++releases_near_[state_.jobs[job].project];
}

bool Cycle::FinishPreemption(int job, int count, std::vector<int> victims, PreemptionReason reason,
                             bool only_victim_nodes) {
  const JobState& j = state_.jobs[job];
  std::unordered_map<int, std::uint64_t> victim_devices;
  for (int v : victims) {
    for (const Placed& p : state_.jobs[v].placed) {
      state_.Release(state_.jobs[v], p);
      victim_devices[p.node] |= p.devices;
    }
  }
  placer_.Prefer(std::move(victim_devices));
  PlaceResult placed;
  if (only_victim_nodes) {
    placed = placer_.Place(j, count, VictimNodes(j, victims));
  } else {
    placed = placer_.Place(j, count, Eligible(j), Member(j));
  }
  placer_.Prefer({});
  for (int v : victims) {
    for (const Placed& p : state_.jobs[v].placed) state_.Take(state_.jobs[v], p);
  }
  if (placed.replicas.empty()) return false;
  Admit(job, std::move(placed.replicas), std::move(victims), reason);
  return true;
}

// The eligible nodes the victims run on, in order.
std::vector<int> Cycle::VictimNodes(const JobState& job, const std::vector<int>& victims) {
  const std::vector<char>& member = *Member(job);
  std::vector<int> nodes;
  for (int v : victims) {
    for (const Placed& p : state_.jobs[v].placed) {
      if (p.node >= 0 && member[p.node]) nodes.push_back(p.node);
    }
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

// With the victims' resources released: does the job fit? A single replica can only
// newly fit on a node a victim left, so only those are searched.
bool Cycle::FitsAfterRelease(const JobState& job, int count, const std::vector<int>& victims) {
  if (count > 1) return !placer_.Place(job, count, Eligible(job), Member(job)).replicas.empty();
  const std::vector<char>& member = *Member(job);
  for (int v : victims) {
    for (const Placed& p : state_.jobs[v].placed) {
      if (p.node >= 0 && member[p.node] && placer_.FitsOne(job, p.node)) return true;
    }
  }
  return false;
}

std::vector<int> Cycle::SelectVictims(int job, int count, const VictimSource& next,
                                      const Accounting& accounting) {
  const JobState& j = state_.jobs[job];
  auto gpu_of = [&](int v) {
    const JobState& victim = state_.jobs[v];
    return victim.project == j.project
               ? state_.JobGpu(victim, static_cast<int>(victim.placed.size()))
               : MilliGpu{0};
  };
  // A gang needs a full placement search; an upper bound of the whole-GPU replicas
  // the cluster could host (from the best-fit index, so it stays current as victims
  // are released) tells cheaply when that search cannot succeed yet.
  int per_replica = static_cast<int>(j.shape.gpu_milli / kMilliPerGpu);
  auto room_bound = [&]() -> long {
    if (count <= 1 || per_replica < 1) return count;
    long room = 0;
    const std::vector<NodeSet>& by_available = state_.ByAvailable();
    // A node with k devices available hosts k / per_replica replicas; the quotient
    // is counted up as k grows instead of divided out for every bucket.
    long replicas = 1;
    int past_multiple = 0;
    for (std::size_t k = static_cast<std::size_t>(per_replica); k < by_available.size(); ++k) {
      room += replicas * static_cast<long>(by_available[k].size());
      if (++past_multiple == per_replica) {
        past_multiple = 0;
        ++replicas;
      }
    }
    return room;
  };
  auto release = [&](int v) {
    for (const Placed& p : state_.jobs[v].placed) state_.Release(state_.jobs[v], p);
  };
  auto take = [&](int v) {
    for (const Placed& p : state_.jobs[v].placed) state_.Take(state_.jobs[v], p);
  };
  auto fits = [&](const std::vector<int>& victims, MilliGpu freed) {
    if (!accounting(freed) || room_bound() < count) return false;
    return FitsAfterRelease(j, count, victims);
  };
  // A gang whose room has not appeared after this many victims would need a mass
  // eviction; it waits instead (and keeps its reservation).
  const std::size_t max_victims = static_cast<std::size_t>(count) * 16 + 16;
  std::vector<int> chosen;
  chosen.reserve(max_victims);
  MilliGpu freed = 0;
  bool found = false;
  bool searched = false;
  for (int v = next(); v >= 0 && !found && chosen.size() < max_victims; v = next()) {
    chosen.push_back(v);
    release(v);
    freed += gpu_of(v);
    // One replica can only newly fit where the latest victim was, once earlier
    // victims' nodes were searched (they are, from the step the accounting allows).
    bool allowed = accounting(freed);
    if (count == 1 && allowed && searched) {
      found = FitsAfterRelease(j, 1, {v});
    } else {
      found = fits(chosen, freed);
    }
    searched = allowed;
  }
  if (found) {
    // Minimal: give back every victim the job can do without, latest chosen first.
    for (std::size_t i = chosen.size(); i-- > 0;) {
      int v = chosen[i];
      take(v);
      chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(i));
      if (fits(chosen, freed - gpu_of(v))) {
        freed -= gpu_of(v);
        continue;
      }
      chosen.insert(chosen.begin() + static_cast<std::ptrdiff_t>(i), v);
      release(v);
    }
  }
  for (int v : chosen) take(v);
  if (!found) chosen.clear();
  return chosen;
}

}  // namespace gpupool::engine::internal
