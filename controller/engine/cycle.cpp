#include "cycle.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "fair_share.h"
#include "quota_standing.h"

namespace gpupool::engine::internal {
namespace {

// Puts `key` in place of the least key of a min-heap (std::greater order): one sift
// down instead of a pop and a push.
template <typename Key>
void ReplaceLeast(std::vector<Key>& heap, Key key) {
  std::size_t at = 0;
  for (std::size_t child = 1; child < heap.size(); child = 2 * at + 1) {
    if (child + 1 < heap.size() && heap[child + 1] < heap[child]) ++child;
    if (!(heap[child] < key)) break;
    heap[at] = std::move(heap[child]);
    at = child;
  }
  heap[at] = std::move(key);
}

double Ratio(std::int64_t allocated, std::int64_t deserved) {
  if (deserved > 0) return static_cast<double>(allocated) / static_cast<double>(deserved);
  return allocated > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace

Cycle::Cycle(ClusterState& state, const PackingModel* model)
    : state_(state),
      own_model_(model ? PackingModel({}) : PackingModel::For(state)),
      model_(model ? *model : own_model_),
      placer_(state_, model_),
      eligibility_(state_),
      touched_(state_.jobs.size(), 0),
      held_rooms_(state_, eligibility_),
      preemptor_(state_, placer_, eligibility_, touched_) {}

Decisions Cycle::Run() {
  held_rooms_.StartFull();
  state_.limited_slots.clear();
  over_quota_admitted_.assign(state_.queues.size(), 0);
  // Every pending job ends in one of these: grown once, not entry by entry.
  decisions_.waiting.reserve(state_.pending_count);
  waiting_jobs_.reserve(state_.pending_count);
  ComputeDeserved();
  MarkUnknownStanding();
  for (int job : state_.invalid_pending) {
    Wait(job, WaitCode::kUnknownQueue,
         "queue \"" + state_.jobs[job].queue_name + "\" does not exist");
  }
  std::vector<std::vector<int>> lists = CollectPending();
  RunPass(lists, true);
  RunPass(lists, false);
  Finish();
  held_rooms_.Remember();
  return std::move(decisions_);
}

void Cycle::MarkUnknownStanding() {
  if (!state_.standing_unknown) return;
  state_.standing_changes.all = true;
  standing_changed_ = MarkQuotaStanding(state_);
  state_.standing_unknown = false;
}

// Marks the standing after this cycle's decisions (a full cycle marks every slot:
// time alone moves the order) and lists the jobs it set or changed, with every job
// admitted.
void Cycle::ReportStanding() {
  if (!incremental_) state_.standing_changes.all = true;
  std::vector<int> jobs = MarkQuotaStanding(state_);
  jobs.insert(jobs.end(), standing_changed_.begin(), standing_changed_.end());
  for (const Admission& admission : decisions_.admissions) {
    jobs.push_back(state_.job_index.Find(admission.job));
  }
  std::sort(jobs.begin(), jobs.end());
  jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
  for (int job : jobs) {
    if (job < 0) continue;
    const JobState& j = state_.jobs[job];
    if (j.alive && j.running) decisions_.standing.push_back({j.name, j.over_quota});
  }
  std::sort(decisions_.standing.begin(), decisions_.standing.end(),
            [](const Standing& a, const Standing& b) { return a.job < b.job; });
}

void Cycle::Finish() {
  RetryReclaim();
  WriteCapacityReasons();
  NoteReclaimWaits();
  // Jobs admitted by the last reclaim attempt left an emptied waiting entry.
  std::erase_if(decisions_.waiting, [](const Waiting& w) { return w.job.empty(); });
  // What the statuses show from now on, and the next cycle's reclaims go by.
  ReportStanding();
  RecordShares();
}

// The over-quota pass may have pushed projects above quota that were below it when
// an in-quota job looked for victims; such a job tries once more, so it is never
// left blocked by over-quota work.
void Cycle::RetryReclaim() {
  failed_reclaims_.clear();
  spared_memos_.clear();
  preemptor_.Recount();  // Projects may be over quota again.
  for (auto [job, index, released_then] : retry_reclaim_) {
    const JobState& j = state_.jobs[job];
    const Queue& queue = state_.queues[j.queue].spec;
    if (queue.sharing != Sharing::kGuaranteed || !queue.reclaim) continue;
    // Nothing new to take from: nobody went over quota and nothing was released.
    if (!over_quota_admitted_[j.queue] && released_.size() == released_then) continue;
    if (!WithinQuota(j, j.min_replicas, 0) || !TryReclaim(job, j.min_replicas)) continue;
    decisions_.waiting[index].job.clear();
  }
}

void Cycle::ComputeDeserved() {
  std::size_t projects = state_.projects.size();
  for (std::size_t q = 0; q < state_.queues.size(); ++q) {
    std::vector<ShareRequest> requests(projects);
    for (std::size_t p = 0; p < projects; ++p) {
      std::size_t slot = state_.Slot(static_cast<int>(q), static_cast<int>(p));
      const QuotaState& quota = state_.quotas[slot];
      const Usage& usage = state_.usage[slot];
      MilliGpu demand = usage.gpu + usage.stopping_gpu + usage.pending_gpu;
      requests[p] = {quota.gpu, quota.limit, demand, quota.weight};
    }
    bool fixed = state_.queues[q].spec.sharing == Sharing::kFixed;
    std::vector<MilliGpu> deserved;
    if (!fixed) deserved = ShareOut(static_cast<int>(q), requests);
    for (std::size_t p = 0; p < projects; ++p) {
      QuotaState& quota = state_.quotas[state_.Slot(static_cast<int>(q), static_cast<int>(p))];
      quota.deserved = fixed ? quota.gpu : deserved[p];
    }
  }
}

// Without departments, one level; with them, departments first (see WaterFillNested),
// taken in the order of their names so that the shares do not depend on the order
// departments were created in.
std::vector<MilliGpu> Cycle::ShareOut(int q, const std::vector<ShareRequest>& requests) const {
  MilliGpu capacity = state_.queues[q].capacity;
  if (state_.departments.empty()) return WaterFill(capacity, requests);
  std::vector<int> by_name;
  for (int d = 0; d < static_cast<int>(state_.departments.size()); ++d) {
    if (!state_.departments[d].removed) by_name.push_back(d);
  }
  std::sort(by_name.begin(), by_name.end(), [&](int a, int b) {
    return state_.departments[a].spec.name < state_.departments[b].spec.name;
  });
  std::vector<int> group_of_department(state_.departments.size(), -1);
  std::vector<ShareGroup> groups;
  for (int d : by_name) {
    const DepartmentQuotaState& department = state_.department_quotas[state_.DepartmentSlot(q, d)];
    group_of_department[d] = static_cast<int>(groups.size());
    groups.push_back({department.gpu, department.limit, department.weight});
  }
  std::vector<int> group_of(requests.size(), -1);
  for (std::size_t p = 0; p < requests.size(); ++p) {
    int d = state_.projects[p].department;
    if (d >= 0) group_of[p] = group_of_department[d];
  }
  return WaterFillNested(capacity, requests, group_of, groups);
}

double Cycle::DominantShare(std::size_t slot) const {
  const QuotaState& quota = state_.quotas[slot];
  const Usage& usage = state_.usage[slot];
  double share = Ratio(usage.gpu, quota.deserved);
  if (quota.cpu > 0) share = std::max(share, Ratio(usage.cpu, quota.cpu));
  if (quota.memory > 0) share = std::max(share, Ratio(usage.memory, quota.memory));
  return share;
}

std::vector<std::vector<int>> Cycle::CollectPending() {
  std::vector<std::vector<int>> lists(state_.pending.size());
  for (std::size_t slot = 0; slot < lists.size(); ++slot) {
    lists[slot].assign(state_.pending[slot].begin(), state_.pending[slot].end());
  }
  return lists;
}

// Projects take turns: the best project (priority, then lowest dominant share) offers
// its best job (priority, then arrival); its share is re-read after every decision.
void Cycle::RunPass(std::vector<std::vector<int>>& lists, bool in_quota) {
  using Key = std::tuple<int, int, double, int, Seconds, std::size_t>;
  std::vector<int> project_priority(lists.size());
  for (std::size_t slot = 0; slot < lists.size(); ++slot) {
    project_priority[slot] = state_.projects[slot % state_.projects.size()].priority;
  }
  // Over quota, projects whose department has quota left borrow it first.
  bool by_department = !in_quota && !state_.departments.empty();
  auto key_of = [&](std::size_t slot, std::size_t cursor) {
    const JobState& head = state_.jobs[lists[slot][cursor]];
    int tier = by_department && DepartmentBelowQuota(slot) ? 0 : 1;
    return Key{tier,           -project_priority[slot], DominantShare(slot),
               -head.priority, head.arrival_time,       slot};
  };
  // A min-heap with one key per slot that has jobs left; keys differ in the slot,
  // so the least key, and the order slots take turns, is unique.
  std::vector<Key> heap;
  std::vector<std::size_t> cursor(lists.size(), 0);
  std::vector<std::vector<int>> deferred(lists.size());
  for (std::size_t slot = 0; slot < lists.size(); ++slot) {
    if (!lists[slot].empty()) heap.push_back(key_of(slot, 0));
  }
  std::make_heap(heap.begin(), heap.end(), std::greater<>());
  auto drop_least = [&]() {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    heap.pop_back();
  };
  while (!heap.empty()) {
    std::size_t slot = std::get<5>(heap.front());
    if (cursor[slot] >= lists[slot].size()) {
      drop_least();
      continue;
    }
    Key now = key_of(slot, cursor[slot]);
    if (now != heap.front()) {  // Its share changed since: it waits its new turn.
      ReplaceLeast(heap, now);
      continue;
    }
    int job = lists[slot][cursor[slot]++];
    Outcome outcome = SkipIncremental(job) ? Outcome{} : Attempt(job, in_quota);
    if (outcome.defer) deferred[slot].push_back(job);
    if (outcome.admitted && incremental_) QueueSuccessor(lists[slot], cursor[slot], job);
    if (cursor[slot] < lists[slot].size()) {
      ReplaceLeast(heap, key_of(slot, cursor[slot]));
    } else {
      drop_least();
    }
  }
  lists = std::move(deferred);
}

}  // namespace gpupool::engine::internal
