// What one scheduling cycle decided. Every pending job of the snapshot appears
// exactly once, either in `admissions` or in `waiting`; every victim in `preemptions`
// is a running job of the snapshot.
#pragma once

#include <string>
#include <vector>

#include "gpupool/engine/snapshot.h"

namespace gpupool::engine {

struct Admission {
  std::string job;
  std::vector<ReplicaPlacement> replicas;  // min_replicas..replicas entries.
  // Admitted beyond the project's quota. Which of the project's jobs its status
  // shows over quota is Decisions::over_quota, decided at the cycle's end.
  bool over_quota = false;
  // Victims (names, also listed in `preemptions`) whose resources this admission
  // uses: the operator releases the job's pods once these have stopped.
  std::vector<std::string> waits_for;
  // With victims, what the job waits for, for its status until they have stopped:
  // "waiting for 2 GPUs being reclaimed from project bob". Empty otherwise.
  std::string message;
};

enum class PreemptionReason {
  kReclaim,          // Another project takes back its guaranteed quota.
  kProjectPriority,  // A higher-priority job of the same project.
};

struct Preemption {
  std::string victim;
  PreemptionReason reason = PreemptionReason::kReclaim;
  std::string beneficiary;  // The admitted job that needs the room.
  std::string message;      // e.g. "reclaimed by project joe (below its quota of 2 GPUs)"
};

// Why a job waits, as a category (for metrics and tests) and as a sentence a
// person can act on (for status conditions and Events).
enum class WaitCode {
  kUnknownQueue,      // The queue does not exist.
  kInvalidRequest,    // e.g. 1.5 GPUs per replica, or min_replicas > replicas.
  kQuota,             // Fixed quota, or non-preemptible work beyond its quota.
  kLimit,             // The project's (or its department's) limit in a Guaranteed queue.
  kExceedsLimit,      // The job alone needs more than that limit: it waits for a change.
  kNoMatchingNodes,   // No node of the pool could ever host it (model, selector, size).
  kTopology,          // No single topology domain has room for the gang.
  kCapacity,          // The pool has no room now; it waits its turn.
  kReservedForOther,  // Room is held for an older, larger job of the same pool.
};

struct Waiting {
  std::string job;
  WaitCode code = WaitCode::kCapacity;
  std::string message;
};

// Accounting per project and queue after this cycle's decisions.
struct ProjectShare {
  std::string project;
  std::string queue;
  MilliGpu quota = 0;
  MilliGpu deserved = 0;   // Quota plus its water-filled share of idle capacity.
  MilliGpu allocated = 0;  // Running plus admitted, minus preempted.
  // GPUs of its jobs shown over quota (Decisions::over_quota): at least `allocated`
  // less `quota`, unless work that is never preempted holds more than the quota.
  MilliGpu over_quota = 0;
  MilliGpu pending = 0;  // GPUs asked for by jobs still waiting.
};

// Accounting per department and queue after this cycle's decisions: its projects'
// amounts summed, against the department's own quota.
struct DepartmentShare {
  std::string department;
  std::string queue;
  MilliGpu quota = 0;       // The department's quota (its projects' guarantees fit in it).
  MilliGpu deserved = 0;    // Quota plus its share of idle capacity across departments.
  MilliGpu allocated = 0;   // Its projects' allocations.
  MilliGpu over_quota = 0;  // Part of `allocated` above the department's quota.
  MilliGpu pending = 0;
};

// A running job's standing after a cycle: shown over its project's quota or within.
struct Standing {
  std::string job;
  bool over_quota = false;
};

struct Decisions {
  std::vector<Admission> admissions;
  std::vector<Preemption> preemptions;
  std::vector<Waiting> waiting;
  std::vector<ProjectShare> shares;
  std::vector<DepartmentShare> department_shares;  // Empty without departments.
  // Running jobs whose standing this cycle set or changed, every job it admitted
  // among them, by name: within each project, the jobs the victim order takes first
  // are shown over its quota (docs/scheduling.md, "Over quota"). A running job not
  // listed keeps the standing it was last given (RunningJob::over_quota).
  std::vector<Standing> standing;
};

const char* ToString(WaitCode code);
const char* ToString(PreemptionReason reason);

}  // namespace gpupool::engine
