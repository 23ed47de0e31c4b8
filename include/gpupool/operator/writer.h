// Carries out a Plan against the API server, in the plan's order, and never
// fails as a whole: a write the server refuses is logged and left for the next
// cycle, which decides again from what the server then holds. The writes of one
// step of the order (docs/operator.md) are independent of each other and go out
// several at a time; a step starts when the one before it has ended.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpupool/kube/client.h"
#include "gpupool/kube/event_recorder.h"
#include "gpupool/operator/plan.h"
#include "gpupool/operator/worker_pool.h"

namespace gpupool::op {

struct WriteStats {
  std::size_t attempted = 0;
  std::size_t failed = 0;
  // Left to a later cycle because the client's rate limit had less than half
  // its burst to spare: gated pods of jobs not admitted this cycle, and job
  // statuses that neither admit nor free anything (with their Events).
  std::size_t pods_left_for_limit = 0;
  std::size_t statuses_left_for_limit = 0;
  // Objects the server accepted a change to, as (kind, "namespace/name"): the
  // next cycle waits until the caches show these changes.
  std::vector<std::pair<Kind, std::string>> changed;
};

class PlanWriter {
 public:
  // `may_write` is asked before every write: a replica that stopped leading
  // writes nothing more.
  // `concurrency`: requests in flight at once within a step (at least 1).
  PlanWriter(kube::Client& client, kube::EventRecorder* events, std::function<bool()> may_write,
             int concurrency = 1);
  ~PlanWriter();

  WriteStats Apply(const Plan& plan);

 private:
  class Tally;  // One Apply's WriteStats, gathered from several threads.

  template <typename Item, typename Write>
  void Each(const std::vector<Item>& items, Write write);
  std::vector<const PodCreate*> ApplyAdmissions(const Plan& plan, Tally& tally);
  void ApplyOtherStatuses(const std::vector<StatusWrite>& writes, Tally& tally);
  void ApplyCourtesyCreates(const std::vector<const PodCreate*>& creates, Tally& tally);
  bool HasSpare();  // The client's rate limit has room for a courtesy.
  bool WriteStatus(const StatusWrite& write, Tally& tally);
  void DeletePod(const PodDelete& remove, Tally& tally);
  void CreatePod(const PodCreate& create, Tally& tally);
  // Sends the job back to its queue with Admitted=False `reason` and `message`.
  void SendBack(const PodCreate& create, const std::string& reason, const std::string& message,
                bool count_restart);
  void ReleasePod(const PodRelease& release, Tally& tally);
  void PatchPod(const PodPatch& patch, Tally& tally);
  void CreateService(const Json& service, Tally& tally);
  void CreateReservation(const Json& pod, Tally& tally);
  void RecordEvent(const EventNote& note);
  bool Allowed(Tally& tally);

  kube::Client& client_;
  kube::EventRecorder* events_;
  std::function<bool()> may_write_;
  WorkerPool pool_;
};

const kube::Resource& ResourceOf(Kind kind);

}  // namespace gpupool::op
