// The discrete-event simulation of a GPU cluster replaying a Philly-style job
// trace: jobs arrive, a scheduler decides each cycle which pending jobs start
// (and where) and which running jobs are preempted, jobs run for their trace
// duration and leave. The scheduler is an interface so the simulation can be
// tested on its own; the real one wraps the engine (engine_scheduler.h).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gpupool/replay/quotas.h"
#include "gpupool/replay/stats.h"
#include "gpupool/replay/traces.h"

namespace gpupool::replay {

// static: each tenant capped at its quota (as Philly ran).
// guaranteed: quota guaranteed, idle GPUs lent, over-quota work reclaimed.
// pooled: no quotas at all; every tenant's jobs share the whole cluster in arrival
//   order (larger jobs hold room as they do under the other policies) and nothing is
//   preempted. It is the reference quotas are measured against, not a policy to run.
enum class QuotaPolicy { kStatic, kGuaranteed, kPooled };
const char* ToString(QuotaPolicy policy);

struct ClusterShape {
  int nodes = 60;
  int gpus_per_node = 8;
  int TotalGpus() const { return nodes * gpus_per_node; }
};

enum class JobState { kNotArrived, kPending, kRunning, kFinished };

// One trace job and what has happened to it so far.
struct SimJob {
  const PhillyJob* trace = nullptr;
  int tenant = 0;            // index into the tenant list
  int replicas = 1;          // a gang: all replicas start together
  int gpus_per_replica = 1;  // jobs larger than a node are split into node-sized replicas
  JobState state = JobState::kNotArrived;
  double run_start = -1;  // start of the current (or last) run
  double first_start = -1;
  double finish = -1;
  int preemptions = 0;
  double gpu_seconds_lost = 0;  // work thrown away by preemptions (since the last checkpoint)
  double saved_seconds = 0;     // run time kept by checkpoints: a restart resumes from there
  uint64_t epoch = 0;           // bumped on every start, so stale completions are ignored
  std::vector<int> nodes;       // node of each replica while running

  int Gpus() const { return replicas * gpus_per_replica; }
};

// What a scheduler sees at a cycle. Pending and running hold job indices;
// pending is in arrival order (preempted jobs keep their original place).
struct ClusterView {
  double now = 0;
  QuotaPolicy policy = QuotaPolicy::kGuaranteed;
  const ClusterShape* shape = nullptr;
  const std::vector<TenantQuota>* tenants = nullptr;
  const std::vector<SimJob>* jobs = nullptr;
  const std::set<int64_t>* pending = nullptr;
  const std::set<int64_t>* running = nullptr;
  const std::vector<int>* free_gpus = nullptr;  // per node
  // Changes since the previous cycle, for schedulers that keep their own state.
  const std::vector<int64_t>* arrived = nullptr;
  const std::vector<int64_t>* finished = nullptr;
};

struct StartDecision {
  int64_t job = -1;
  std::vector<int> nodes;  // one per replica
};

struct CycleDecisions {
  std::vector<int64_t> preempt;  // applied first
  std::vector<StartDecision> start;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual CycleDecisions Decide(const ClusterView& view) = 0;
};

struct SimOptions {
  QuotaPolicy policy = QuotaPolicy::kGuaranteed;
  ClusterShape shape;
  // Scheduling cycles run on a grid of this many seconds (0: at every event time);
  // a coarser grid batches arrivals the way a controller's cycle does.
  double cycle_seconds = 0;
  // Every job checkpoints this often while it runs (0: never): a preempted job loses
  // only the time since its last checkpoint and restarts from there.
  double checkpoint_interval_seconds = 0;
};

struct SimOutcome {
  std::vector<SimJob> jobs;
  StepSeries allocated_gpus;  // GPUs held by running jobs over time
  double last_arrival = 0;
  double makespan = 0;  // time of the last event
  size_t cycles = 0;
};

// Runs the whole trace. Throws std::logic_error when the scheduler breaks an
// invariant (starts a job that is not pending, over-fills a node, preempts a job
// that is not running, or loops without letting time advance).
SimOutcome RunClusterSimulation(const std::vector<PhillyJob>& trace,
                                const std::vector<TenantQuota>& tenants, const SimOptions& options,
                                Scheduler& scheduler);

}  // namespace gpupool::replay
