#include "preemptor.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <unordered_map>

namespace gpupool::engine::internal {

Seconds Preemptor::StartReclaim(const JobState& job) {
  spared_runtime_ = SparedRuntime(job);
  return spared_runtime_;
}

// Victims are ranked by the victim order and never take a project below its
// quota. Because the reclaiming job stays within its own quota and victims'
// projects stay at or above theirs, the victims' projects can never reclaim back:
// no loops.
std::vector<int> Preemptor::ReclaimVictims(int job, int count,
                                           const std::vector<ReclaimSource>& sources,
                                           std::size_t admissions) {
  const JobState& j = state_.jobs[job];
  MilliGpu reclaimable = 0;
  std::vector<MilliGpu>& allocated = reclaim_allocated_;
  allocated.assign(state_.projects.size(), -1);
  for (const ReclaimSource& s : sources) {
    reclaimable += s.allocated - s.quota;
    allocated[s.project] = s.allocated;
  }
  // One replica needs room on one node: victims elsewhere would only spend the
  // other projects' over-quota budget for nothing.
  if (count == 1) return ReclaimOnOneNode(job, allocated);
  if (reclaimable + state_.queues[j.queue].free < state_.JobGpu(j, count)) return {};
  const std::vector<int>& ranked = RankedReclaimCandidates(j, sources, allocated, admissions);
  // In the victim order, first the victims of departments still over their quota
  // once what this reclaim took from them is gone, then the rest; without
  // departments, one pass.
  std::vector<MilliGpu> department_taken(state_.departments.size(), 0);
  std::vector<char> chosen(ranked.size(), 0);
  bool departments_first = !state_.departments.empty();
  std::size_t at = 0;
  VictimSource next = [&]() {
    while (true) {
      if (at == ranked.size()) {
        if (!departments_first) return -1;
        departments_first = false;
        at = 0;
        continue;
      }
      std::size_t i = at++;
      if (chosen[i]) continue;
      int victim = ranked[i];
      const JobState& v = state_.jobs[victim];
      int d = state_.projects[v.project].department;
      if (departments_first &&
          (d < 0 || !state_.DepartmentOverQuota(v.queue, v.project, department_taken[d]))) {
        continue;
      }
      MilliGpu gpu = state_.JobGpu(v, static_cast<int>(v.placed.size()));
      MilliGpu quota = state_.quotas[state_.Slot(v.queue, v.project)].gpu;
      if (allocated[v.project] - gpu < quota) continue;  // Never below its quota.
      allocated[v.project] -= gpu;
      if (d >= 0) department_taken[d] += gpu;
      chosen[i] = 1;
      return victim;
    }
  };
  Accounting any = [](MilliGpu) { return true; };
  return SelectVictims(job, count, next, any);
}

// A higher-priority job of the same project and queue takes the place of the
// project's lower-priority preemptible jobs. Indexed by priority, the first
// criterion of the victim order that tells one project's jobs apart (they share a
// department): one priority at a time is ranked (once per cycle), when the ones
// before it are used up. A job that is no victim stays none for the rest of the
// cycle (admitted, stopped, or younger than the minimum runtime at the cycle's
// time), so it is left out for good.
std::vector<int> Preemptor::InProjectVictims(int job, int count, const Accounting& accounting) {
  const JobState& j = state_.jobs[job];
  const std::size_t slot = state_.Slot(j.queue, j.project);
  const auto& lower = state_.victims[slot];
  auto group = lower.begin();
  RankedGroup* ranked = nullptr;
  std::size_t at = 0;
  VictimSource next = [&]() {
    while (true) {
      for (; ranked && at < ranked->jobs.size(); ++at) {
        if (VictimAllowed(ranked->jobs[at])) return ranked->jobs[at++];
      }
      if (group == lower.end() || state_.jobs[*group].priority >= j.priority) return -1;
      const int priority = state_.jobs[*group].priority;
      auto [cached, fresh] = ranked_in_project_.try_emplace({slot, priority});
      for (; group != lower.end() && state_.jobs[*group].priority == priority; ++group) {
        if (fresh && VictimAllowed(*group)) cached->second.jobs.push_back(*group);
      }
      ranked = &cached->second;
      if (fresh) RankVictims(ranked->jobs, {});
      // Jobs stopped or started this cycle stay no victims: skip them for good.
      while (ranked->first < ranked->jobs.size() && !VictimAllowed(ranked->jobs[ranked->first])) {
        ++ranked->first;
      }
      at = ranked->first;
    }
  };
  return SelectVictims(job, count, next, accounting);
}

bool Preemptor::VictimAllowed(int index) const {
  const JobState& victim = state_.jobs[index];
  if (!victim.running || !IsPreemptible(victim.workload_class)) return false;
  if (touched_[index]) return false;
  Seconds min_runtime = state_.queues[victim.queue].spec.min_runtime_seconds;
  return state_.now - victim.start_time >= min_runtime;
}

// A reclaim victim has also run no longer than the current reclaim spares
// (reclaimMaxRuntimeSeconds, see SparedRuntime).
bool Preemptor::ReclaimAllowed(int index) const {
  if (!VictimAllowed(index)) return false;
  return spared_runtime_ <= 0 || state_.now - state_.jobs[index].start_time <= spared_runtime_;
}

// How long over-quota work may have run and still be stopped for the job: the
// queue's reclaimMaxRuntimeSeconds, unless the job's project holds less than the
// queue's immediateGuaranteePercent of its guarantee (0: no limit).
Seconds Preemptor::SparedRuntime(const JobState& j) const {
  const Queue& queue = state_.queues[j.queue].spec;
  if (queue.reclaim_max_runtime_seconds <= 0) return 0;
  std::size_t slot = state_.Slot(j.queue, j.project);
  MilliGpu immediate = state_.quotas[slot].gpu * queue.immediate_guarantee_percent / 100;
  return state_.usage[slot].gpu < immediate ? 0 : queue.reclaim_max_runtime_seconds;
}

// Other projects of the job's queue that are over quota and have preemptible work.
std::vector<Preemptor::ReclaimSource> Preemptor::ReclaimSources(const JobState& j) const {
  std::vector<ReclaimSource> sources;
  for (std::size_t p = 0; p < state_.projects.size(); ++p) {
    if (static_cast<int>(p) == j.project) continue;
    std::size_t slot = state_.Slot(j.queue, static_cast<int>(p));
    const QuotaState& quota = state_.quotas[slot];
    MilliGpu allocated = state_.usage[slot].gpu;
    if (allocated <= quota.gpu || state_.victims[slot].empty()) continue;
    sources.push_back({static_cast<int>(p), allocated, quota.gpu, state_.victims[slot].begin(),
                       state_.victims[slot].end()});
  }
  return sources;
}

// The sources' candidates for a gang, in the victim order. What they are and what
// each costs change only with an admission (which moves usage, and marks the jobs
// it admits and stops): until the next one, the gangs of a queue that reclaim with
// the same spared runtime share the ranking. The reclaiming project is never one of
// its own sources, so it is part of the key only when it is over its quota.
const std::vector<int>& Preemptor::RankedReclaimCandidates(
    const JobState& j, const std::vector<ReclaimSource>& sources,
    const std::vector<MilliGpu>& allocated, std::size_t admissions) {
  std::size_t slot = state_.Slot(j.queue, j.project);
  bool could_be_source = state_.usage[slot].gpu > state_.quotas[slot].gpu;
  RankedCandidates::Key key{admissions, j.queue, spared_runtime_, could_be_source ? j.project : -1};
  if (ranked_candidates_.valid && ranked_candidates_.key == key) return ranked_candidates_.jobs;
  std::vector<int>& candidates = ranked_candidates_.jobs;
  candidates.clear();
  for (const ReclaimSource& s : sources) {
    for (auto it = s.next; it != s.end; ++it) {
      if (ReclaimAllowed(*it)) candidates.push_back(*it);
    }
  }
  RankVictims(candidates, allocated);
  ranked_candidates_.key = key;
  ranked_candidates_.valid = true;
  return candidates;
}

// Whether over-quota work about to end by itself makes room for the job: work of
// the sources that declares its run time and ends within the queue's
// reclaimWaitSeconds (not work already past its expected end). One replica needs
// that room on one node; a gang counts it across the pool with the free GPUs. The
// wait is bounded: those end times are fixed, and room held for the job (see
// Reservations) keeps new work from taking what they free.
bool Preemptor::EndingWorkMakesRoom(int job, int count, const std::vector<ReclaimSource>& sources) {
  const JobState& j = state_.jobs[job];
  const Seconds wait = state_.queues[j.queue].spec.reclaim_wait_seconds;
  if (wait <= 0) return false;
  const std::vector<char>& member = *eligibility_.Member(j);
  std::vector<int> ending;
  MilliGpu ending_gpu = 0;
  for (const ReclaimSource& s : sources) {
    for (auto it = s.next; it != s.end; ++it) {
      const JobState& v = state_.jobs[*it];
      if (v.expected_runtime_seconds <= 0 || !v.running) continue;
      Seconds end = v.start_time + v.expected_runtime_seconds;
      if (end < state_.now || end > state_.now + wait) continue;
      ending.push_back(*it);
      for (const Placed& p : v.placed) {
        if (p.node >= 0 && member[p.node]) ending_gpu += ReplicaGpu(v);
      }
    }
  }
  if (ending.empty()) return false;
  if (count > 1) return ending_gpu + state_.queues[j.queue].free >= state_.JobGpu(j, count);
  for (int v : ending) {
    for (const Placed& p : state_.jobs[v].placed) state_.Release(state_.jobs[v], p);
  }
  bool fits = false;
  for (int n : VictimNodes(j, ending)) fits = fits || placer_.FitsOne(j, n);
  for (int v : ending) {
    for (const Placed& p : state_.jobs[v].placed) state_.Take(state_.jobs[v], p);
  }
  return fits;
}

// Candidates in the victim order. `allocated`: per project, the allocation its
// share is measured by (-1: the state's own).
void Preemptor::RankVictims(std::vector<int>& candidates, const std::vector<MilliGpu>& allocated) {
  std::vector<LoneVictim>& singles = ranking_;
  singles.assign(candidates.size(), LoneVictim{});
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const JobState& victim = state_.jobs[candidates[i]];
    singles[i].job = candidates[i];
    singles[i].cost.Add(state_, victim, ProjectOverShare(victim, allocated));
  }
  std::sort(singles.begin(), singles.end(),
            [&](const LoneVictim& a, const LoneVictim& b) { return Cheaper(a, b); });
  for (std::size_t i = 0; i < singles.size(); ++i) candidates[i] = singles[i].job;
}

bool Preemptor::Cheaper(const VictimCost& a, const VictimCost& b) const {
  return state_.options.victim_policy == VictimPolicy::kFewestVictims
             ? FewerVictimsFirst(state_, a, b)
             : CheaperToStop(state_, a, b);
}

bool Preemptor::Cheaper(const LoneVictim& a, const LoneVictim& b) const {
  return state_.options.victim_policy == VictimPolicy::kFewestVictims
             ? FewerVictimsFirst(state_, a, b)
             : CheaperToStop(state_, a, b);
}

double Preemptor::ProjectOverShare(const JobState& victim,
                                   const std::vector<MilliGpu>& allocated) const {
  std::size_t slot = state_.Slot(victim.queue, victim.project);
  MilliGpu project_allocated = allocated.empty() || allocated[victim.project] < 0
                                   ? state_.usage[slot].gpu
                                   : allocated[victim.project];
  return OverShare(project_allocated, state_.quotas[slot].deserved);
}

const std::vector<std::vector<int>>& Preemptor::JobsByNode() {
  if (jobs_by_node_ready_) return *jobs_by_node_;
  jobs_by_node_ready_ = true;
  if (state_.tracking()) {
    jobs_by_node_ = &state_.jobs_on_node;
  } else {
    own_jobs_by_node_.resize(state_.nodes.size());
    for (std::vector<int>& on_node : own_jobs_by_node_) on_node.clear();
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

MilliGpu Preemptor::ReplicaGpu(const JobState& job) {
  return std::max<MilliGpu>(0, job.shape.gpu_milli);
}

bool Preemptor::ReclaimableProject(const JobState& job) const {
  if (job.queue < 0 || !IsPreemptible(job.workload_class)) return false;
  std::size_t slot = state_.Slot(job.queue, job.project);
  return state_.usage[slot].gpu > state_.quotas[slot].gpu;
}

// Keeps the per-node upper bound of reclaimable GPUs in step after a job was
// preempted: its own GPUs go, and a project back at its quota offers no more.
void Preemptor::Forget(const JobState& victim) {
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

// The cheapest victim set, by the victim order, among the nodes where victims could
// make room. At most kReclaimNodesCompared nodes whose free and reclaimable GPUs
// could hold the job are looked at, starting at the node of the last reclaim (and
// wrapping), so a reclaim costs about the same on a large cluster as on a small one;
// a pool with fewer such nodes gets the cheapest set of the pool. A node that cannot
// beat the best set so far (CannotBeat) is not searched.
std::vector<int> Preemptor::ReclaimOnOneNode(int job, const std::vector<MilliGpu>& allocated) {
  const JobState& j = state_.jobs[job];
  MilliGpu need = std::max<MilliGpu>(j.shape.gpu_milli, 0);
  VictimCost best;
  int best_node = -1;
  int compared = 0;
  const bool fewest_victims = state_.options.victim_policy == VictimPolicy::kFewestVictims;
  JobsByNode();
  const std::vector<char>& member = *eligibility_.Member(j);
  // Only nodes holding reclaimable work can gain room.
  auto start = reclaim_nodes_.LowerBound(reclaim_cursor_);
  for (std::size_t seen = 0; seen < reclaim_nodes_.size(); ++seen, ++start) {
    if (start == reclaim_nodes_.end()) start = reclaim_nodes_.begin();
    int n = *start;
    if (!member[n] || !NodeCouldFit(j, n, need)) continue;
    if (fewest_victims || best.empty() || !CannotBeat(j, n, allocated, best)) {
      VictimCost cost = CheapestOnNode(job, n, allocated);
      if (!cost.empty() && (best.empty() || Cheaper(cost, best))) {
        best = std::move(cost);
        best_node = n;
      }
      // The earlier rule's shortcut: one victim shown over quota, of a department
      // over its quota if there are departments.
      if (fewest_victims && best.jobs.size() == 1 && !best.cost.outside_departments_over_quota &&
          !best.cost.some_within_quota) {
        break;
      }
    }
    if (++compared >= (fewest_victims ? kFewestVictimsNodesCompared : kReclaimNodesCompared)) break;
  }
  if (best_node >= 0) reclaim_cursor_ = best_node;
  return best.jobs;
}

void Preemptor::LowerReclaimable(int node, MilliGpu gpu) {
  reclaimable_on_node_[node] -= gpu;
  if (reclaimable_on_node_[node] <= 0) reclaim_nodes_.Erase(node);
}

// Cheap necessary condition: the node's free GPUs plus what its reclaimable jobs
// hold cover the request.
bool Preemptor::NodeCouldFit(const JobState& job, int node, MilliGpu need) {
  JobsByNode();
  const NodeState& state = state_.nodes[node];
  MilliGpu potential = reclaimable_on_node_[node] + ClusterState::FreeMilli(state);
  potential -= static_cast<MilliGpu>(state.reserved_full) * kMilliPerGpu;
  (void)job;
  return potential >= need;
}

// Whether no set of the node's candidates can be cheaper than `best` by criteria 1
// to 4 of the victim order. A set is all of departments over their quota (or all
// shown over quota) only if its candidates are, and if `best` is, only such
// candidates can beat it; criteria 1 and 2 make one rank, compared first. A set's
// top priority is at least the lowest candidate priority p; a set at p holds only
// candidates of p, and destroys at least the work of the cheapest of them alone,
// and at least the GPUs the node lacks times the fewest seconds any of them has run
// since its last checkpoint.
bool Preemptor::CannotBeat(const JobState& j, int node, const std::vector<MilliGpu>& allocated,
                           const VictimCost& best) {
  const bool departments = !state_.departments.empty();
  auto rank = [](bool outside_departments, bool within_quota) {
    return (outside_departments ? 2 : 0) + (within_quota ? 1 : 0);
  };
  const int best_rank = rank(best.cost.outside_departments_over_quota, best.cost.some_within_quota);
  bool any = false;
  int priority = 0;
  std::int64_t work = 0;
  Seconds fewest_seconds = 0;
  for (int v : JobsByNode()[node]) {
    const JobState& victim = state_.jobs[v];
    if (!victim.running || victim.queue != j.queue || allocated[victim.project] < 0) continue;
    if (!ReclaimAllowed(v)) continue;
    const bool outside = departments && !state_.DepartmentOverQuota(victim.queue, victim.project);
    const int candidate_rank = rank(outside, !victim.over_quota);
    if (candidate_rank < best_rank) return false;  // A set of such candidates is cheaper.
    if (candidate_rank > best_rank) continue;      // Would make a set dearer than `best`.
    Seconds seconds = SinceCheckpoint(victim, state_.now);
    std::int64_t lost = state_.JobGpu(victim, static_cast<int>(victim.placed.size())) * seconds;
    if (!any || victim.priority < priority) {
      priority = victim.priority;
      work = lost;
      fewest_seconds = seconds;
      any = true;
    } else if (victim.priority == priority) {
      work = std::min(work, lost);
      fewest_seconds = std::min(fewest_seconds, seconds);
    }
  }
  if (!any) return true;
  const NodeState& n = state_.nodes[node];
  MilliGpu lacking = std::max<MilliGpu>(j.shape.gpu_milli, 0) - ClusterState::FreeMilli(n);
  work = std::max(work, std::max<MilliGpu>(lacking, 0) * fewest_seconds);
  return std::tie(priority, work) > std::tie(best.cost.top_priority, best.cost.work_lost);
}

// The cheaper of two sets that make room for the job on the node: the first single
// victim that is enough, and the victims taken in the victim order until the job
// fits, less every one it can do without. Empty: no room can be made there.
VictimCost Preemptor::CheapestOnNode(int job, int node, const std::vector<MilliGpu>& allocated) {
  const JobState& j = state_.jobs[job];
  std::vector<int>& ordered = node_candidates_;
  ordered.clear();
  for (int v : JobsByNode()[node]) {
    const JobState& victim = state_.jobs[v];
    if (!victim.running || victim.queue != j.queue || allocated[victim.project] < 0) continue;
    if (ReclaimAllowed(v)) ordered.push_back(v);
  }
  std::sort(ordered.begin(), ordered.end());  // A job is listed once per replica.
  ordered.erase(std::unique(ordered.begin(), ordered.end()), ordered.end());
  RankVictims(ordered, allocated);
  auto cost_of = [&](const std::vector<int>& victims) {
    VictimCost cost;
    for (int v : victims) cost.Add(state_, v, ProjectOverShare(state_.jobs[v], allocated));
    return cost;
  };
  VictimCost taken = cost_of(VictimsInOrder(j, node, ordered, allocated));
  int single = SingleVictim(j, node, ordered, allocated);
  if (single < 0) return taken;
  VictimCost alone = cost_of({single});
  return taken.empty() || Cheaper(alone, taken) ? alone : taken;
}

std::vector<int> Preemptor::VictimsInOrder(const JobState& j, int node,
                                           const std::vector<int>& ordered,
                                           const std::vector<MilliGpu>& allocated) {
  std::vector<MilliGpu>& taken = victim_taken_;
  taken.resize(state_.projects.size(), 0);
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
  for (int v : ordered) taken[state_.jobs[v].project] = 0;
  if (!fits) chosen.clear();
  return chosen;
}

// The first victim, in the given order, that alone makes room for the job.
int Preemptor::SingleVictim(const JobState& job, int node, const std::vector<int>& ordered,
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

bool Preemptor::HasLowerPriorityWork(const JobState& job) const {
  const auto& lower = state_.victims[state_.Slot(job.queue, job.project)];
  return !lower.empty() && state_.jobs[*lower.begin()].priority < job.priority;
}

// The eligible nodes the victims run on, in order.
std::vector<int> Preemptor::VictimNodes(const JobState& job, const std::vector<int>& victims) {
  const std::vector<char>& member = *eligibility_.Member(job);
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
bool Preemptor::FitsAfterRelease(const JobState& job, int count, const std::vector<int>& victims) {
  if (count > 1) return placer_.Fits(job, count, eligibility_.Nodes(job), eligibility_.Member(job));
  const std::vector<char>& member = *eligibility_.Member(job);
  for (int v : victims) {
    for (const Placed& p : state_.jobs[v].placed) {
      if (p.node >= 0 && member[p.node] && placer_.FitsOne(job, p.node)) return true;
    }
  }
  return false;
}

std::vector<int> Preemptor::SelectVictims(int job, int count, const VictimSource& next,
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
  // A gang's room is summed once, then kept as victims are released and taken back.
  bool tracking = false;
  auto release = [&](int v) {
    for (const Placed& p : state_.jobs[v].placed) {
      if (tracking) placer_.Untrack(p.node);
      state_.Release(state_.jobs[v], p);
      if (tracking) placer_.Retrack(p.node);
    }
  };
  auto take = [&](int v) {
    for (const Placed& p : state_.jobs[v].placed) {
      if (tracking) placer_.Untrack(p.node);
      state_.Take(state_.jobs[v], p);
      if (tracking) placer_.Retrack(p.node);
    }
  };
  auto fits = [&](const std::vector<int>& victims, MilliGpu freed) {
    if (!accounting(freed) || room_bound() < count) return false;
    if (count > 1 && !tracking)
      tracking = placer_.TrackRoom(j, count, eligibility_.Nodes(j), eligibility_.Member(j));
    return tracking ? placer_.TrackedFits() : FitsAfterRelease(j, count, victims);
  };
  // A gang whose room has not appeared after this many victims would need a mass
  // eviction; it waits instead (and keeps its reservation).
  const std::size_t max_victims = GangVictimCap(count);
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
  tracking = false;
  placer_.StopTracking();
  for (int v : chosen) take(v);
  if (!found) chosen.clear();
  return chosen;
}

}  // namespace gpupool::engine::internal
