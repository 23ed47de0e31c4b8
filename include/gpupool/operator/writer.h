// Carries out a Plan against the API server, in the plan's order, and never
// fails as a whole: a write the server refuses is logged and left for the next
// cycle, which decides again from what the server then holds.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpupool/kube/client.h"
#include "gpupool/kube/event_recorder.h"
#include "gpupool/operator/plan.h"

namespace gpupool::op {

struct WriteStats {
  std::size_t attempted = 0;
  std::size_t failed = 0;
  // Objects the server accepted a change to, as (kind, "namespace/name"): the
  // next cycle waits until the caches show these changes.
  std::vector<std::pair<Kind, std::string>> changed;
};

class PlanWriter {
 public:
  // `may_write` is asked before every write: a replica that stopped leading
  // writes nothing more.
  PlanWriter(kube::Client& client, kube::EventRecorder* events, std::function<bool()> may_write);

  WriteStats Apply(const Plan& plan);

 private:
  bool WriteStatus(const StatusWrite& write, WriteStats& stats);
  void DeletePod(const PodDelete& remove, WriteStats& stats);
  void CreatePod(const PodCreate& create, WriteStats& stats);
  void RejectTemplate(const PodCreate& create, const std::string& message);
  void ReleasePod(const PodRelease& release, WriteStats& stats);
  void CreateService(const Json& service, WriteStats& stats);
  void RecordEvent(const EventNote& note);
  bool Allowed(WriteStats& stats);

  kube::Client& client_;
  kube::EventRecorder* events_;
  std::function<bool()> may_write_;
  std::set<std::string> failed_jobs_;  // This Apply: jobs whose pods must not move.
};

const kube::Resource& ResourceOf(Kind kind);

}  // namespace gpupool::op
