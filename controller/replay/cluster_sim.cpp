#include "gpupool/replay/cluster_sim.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include "event_queue.h"

namespace gpupool::replay {

const char* ToString(QuotaPolicy policy) {
  switch (policy) {
    case QuotaPolicy::kStatic:
      return "static";
    case QuotaPolicy::kGuaranteed:
      return "guaranteed";
    case QuotaPolicy::kPooled:
      return "pooled";
  }
  return "unknown";
}

namespace {

// A run loops only when a scheduler keeps preempting and restarting at one
// instant; real progress never needs this many cycles without time advancing.
constexpr int kMaxCyclesAtOneInstant = 1000;

std::string JobName(const SimJob& job) { return "job at line " + std::to_string(job.trace->id); }

class Simulation {
 public:
  Simulation(const std::vector<PhillyJob>& trace, const std::vector<TenantQuota>& tenants,
             const SimOptions& options, Scheduler& scheduler)
      : tenants_(tenants), options_(options), scheduler_(scheduler) {
    std::map<std::string, int> tenant_index;
    for (size_t i = 0; i < tenants.size(); ++i) tenant_index[tenants[i].tenant] = int(i);
    free_gpus_.assign(options.shape.nodes, options.shape.gpus_per_node);
    for (const auto& job : trace) {
      const auto found = tenant_index.find(job.tenant);
      if (found == tenant_index.end()) {
        throw std::invalid_argument("job at line " + std::to_string(job.id) + ": tenant \"" +
                                    job.tenant + "\" has no quota");
      }
      outcome_.jobs.push_back(Shape(job, found->second));
      events_.Push({job.arrival, EventKind::kArrival, int64_t(outcome_.jobs.size() - 1)});
      outcome_.last_arrival = std::max(outcome_.last_arrival, job.arrival);
    }
  }

  SimOutcome Run() {
    outcome_.allocated_gpus.Set(0, 0);
    while (!events_.Empty()) {
      const Event event = events_.Pop();
      switch (event.kind) {
        case EventKind::kArrival:
          Arrive(event.job);
          break;
        case EventKind::kCompletion:
          Complete(event);
          break;
        case EventKind::kCycle:
          Cycle();
          break;
      }
    }
    outcome_.makespan = events_.Now();
    return std::move(outcome_);
  }

 private:
  // Jobs larger than a node become node-sized replicas of one gang.
  SimJob Shape(const PhillyJob& job, int tenant) const {
    SimJob sim;
    sim.trace = &job;
    sim.tenant = tenant;
    const int per_node = options_.shape.gpus_per_node;
    sim.replicas = (job.gpus + per_node - 1) / per_node;
    sim.gpus_per_replica = (job.gpus + sim.replicas - 1) / sim.replicas;
    return sim;
  }

  void Arrive(int64_t index) {
    outcome_.jobs[index].state = JobState::kPending;
    pending_.insert(index);
    arrived_.push_back(index);
    RequestCycle();
  }

  void Complete(const Event& event) {
    SimJob& job = outcome_.jobs[event.job];
    if (job.state != JobState::kRunning || job.epoch != event.epoch) return;  // preempted since
    Release(event.job);
    job.state = JobState::kFinished;
    job.finish = events_.Now();
    finished_.push_back(event.job);
    RequestCycle();
  }

  void RequestCycle() {
    if (cycle_requested_) return;
    cycle_requested_ = true;
    double at = events_.Now();
    if (options_.cycle_seconds > 0)
      at = std::ceil(at / options_.cycle_seconds) * options_.cycle_seconds;
    events_.Push({at, EventKind::kCycle});
  }

  void Cycle() {
    cycle_requested_ = false;
    if (pending_.empty()) return;
    cycles_at_instant_ = last_cycle_time_ == events_.Now() ? cycles_at_instant_ + 1 : 0;
    last_cycle_time_ = events_.Now();
    if (cycles_at_instant_ > kMaxCyclesAtOneInstant) {
      throw std::logic_error(
          "scheduler made no progress: " + std::to_string(kMaxCyclesAtOneInstant) +
          " cycles at t=" + std::to_string(events_.Now()) + " s");
    }
    ++outcome_.cycles;
    const ClusterView view{events_.Now(),  options_.policy, &options_.shape, &tenants_,
                           &outcome_.jobs, &pending_,       &running_,       &free_gpus_,
                           &arrived_,      &finished_};
    const CycleDecisions decisions = scheduler_.Decide(view);
    arrived_.clear();
    finished_.clear();
    for (int64_t victim : decisions.preempt) Preempt(victim);
    for (const auto& start : decisions.start) Start(start);
    // Preemptions free GPUs that the next cycle may give to the job they were for.
    if (!decisions.preempt.empty()) RequestCycle();
  }

  void Preempt(int64_t index) {
    if (index < 0 || index >= int64_t(outcome_.jobs.size()) ||
        outcome_.jobs[index].state != JobState::kRunning) {
      throw std::logic_error("scheduler preempted job " + std::to_string(index) +
                             ", which is not running");
    }
    SimJob& job = outcome_.jobs[index];
    Release(index);
    job.state = JobState::kPending;
    ++job.preemptions;
    const double ran = events_.Now() - job.run_start;
    const double interval = options_.checkpoint_interval_seconds;
    const double saved = interval > 0 ? std::floor(ran / interval) * interval : 0;
    job.saved_seconds += saved;
    job.gpu_seconds_lost += job.Gpus() * (ran - saved);
    pending_.insert(index);
  }

  void Start(const StartDecision& start) {
    if (start.job < 0 || start.job >= int64_t(outcome_.jobs.size()) ||
        outcome_.jobs[start.job].state != JobState::kPending) {
      throw std::logic_error("scheduler started job " + std::to_string(start.job) +
                             ", which is not pending");
    }
    SimJob& job = outcome_.jobs[start.job];
    if (int(start.nodes.size()) != job.replicas) {
      throw std::logic_error(JobName(job) + ": placed " + std::to_string(start.nodes.size()) +
                             " replicas of " + std::to_string(job.replicas));
    }
    for (int node : start.nodes) {
      if (node < 0 || node >= int(free_gpus_.size()) || free_gpus_[node] < job.gpus_per_replica) {
        throw std::logic_error(JobName(job) + ": node " + std::to_string(node) +
                               " has not enough free GPUs");
      }
      free_gpus_[node] -= job.gpus_per_replica;
    }
    job.nodes = start.nodes;
    job.state = JobState::kRunning;
    job.run_start = events_.Now();
    if (job.first_start < 0) job.first_start = job.run_start;
    ++job.epoch;
    pending_.erase(start.job);
    running_.insert(start.job);
    allocated_ += job.Gpus();
    outcome_.allocated_gpus.Set(events_.Now(), allocated_);
    events_.Push({events_.Now() + job.trace->duration - job.saved_seconds, EventKind::kCompletion,
                  start.job, job.epoch});
  }

  void Release(int64_t index) {
    SimJob& job = outcome_.jobs[index];
    for (int node : job.nodes) free_gpus_[node] += job.gpus_per_replica;
    job.nodes.clear();
    running_.erase(index);
    allocated_ -= job.Gpus();
    outcome_.allocated_gpus.Set(events_.Now(), allocated_);
  }

  const std::vector<TenantQuota>& tenants_;
  const SimOptions& options_;
  Scheduler& scheduler_;
  SimOutcome outcome_;
  EventQueue events_;
  std::set<int64_t> pending_, running_;
  std::vector<int64_t> arrived_, finished_;
  std::vector<int> free_gpus_;
  int64_t allocated_ = 0;
  bool cycle_requested_ = false;
  double last_cycle_time_ = -1;
  int cycles_at_instant_ = 0;
};

}  // namespace

SimOutcome RunClusterSimulation(const std::vector<PhillyJob>& trace,
                                const std::vector<TenantQuota>& tenants, const SimOptions& options,
                                Scheduler& scheduler) {
  if (options.shape.nodes < 1 || options.shape.gpus_per_node < 1) {
    throw std::invalid_argument("the cluster needs at least 1 node with at least 1 GPU");
  }
  return Simulation(trace, tenants, options, scheduler).Run();
}

}  // namespace gpupool::replay
