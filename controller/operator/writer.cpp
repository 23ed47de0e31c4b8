#include "gpupool/operator/writer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "gpupool/kube/cache.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/leader_election.h"

namespace gpupool::op {
namespace {

// Errors that say the pod itself is wrong, so repeating it cannot help. A
// Forbidden answer is not one of them: it comes from RBAC, quotas or a missing
// PriorityClass, which change without the job changing.
bool Refused(const kube::ApiError& error) {
  const auto reason = error.reason();
  return reason == kube::Reason::kInvalid || reason == kube::Reason::kBadRequest;
}

// A Forbidden answer that is not RBAC refusing the controller itself (RBAC
// says what the user "cannot create"): an admission plugin forbade this pod,
// for a ServiceAccount that does not exist, a missing PriorityClass, a
// namespace's ResourceQuota or PodSecurity level. It may pass later without the
// job changing, so the job waits a back-off, not a new spec.
bool ForbiddenByAdmission(const kube::ApiError& error) {
  return error.reason() == kube::Reason::kForbidden &&
         std::string_view(error.what()).find("cannot create resource") == std::string_view::npos;
}

}  // namespace

const kube::Resource& ResourceOf(Kind kind) {
  switch (kind) {
    case Kind::kQueue:
      return kube::resources::kQueues;
    case Kind::kProject:
      return kube::resources::kProjects;
    case Kind::kTrainingJob:
      return kube::resources::kTrainingJobs;
    case Kind::kDepartment:
      return kube::resources::kDepartments;
    default:
      return kube::resources::kPods;
  }
}

class PlanWriter::Tally {
 public:
  void Attempted() {
    std::lock_guard lock(mutex_);
    ++stats_.attempted;
  }
  void Changed(Kind kind, std::string key) {
    std::lock_guard lock(mutex_);
    stats_.changed.emplace_back(kind, std::move(key));
  }
  void Failed() {
    std::lock_guard lock(mutex_);
    ++stats_.failed;
  }
  void PodLeftForLimit() {
    std::lock_guard lock(mutex_);
    ++stats_.pods_left_for_limit;
  }
  void StatusLeftForLimit(std::string job_key) {
    std::lock_guard lock(mutex_);
    ++stats_.statuses_left_for_limit;
    unwritten_statuses_.insert(std::move(job_key));
  }
  void StatusFailed(std::string key) {
    std::lock_guard lock(mutex_);
    unwritten_statuses_.insert(std::move(key));
  }
  // The job's status was left for the limit, or failed: so are its Events.
  bool StatusUnwritten(const std::string& job_key) const {
    std::lock_guard lock(mutex_);
    return unwritten_statuses_.count(job_key) > 0;
  }
  // The job's pods must not move in the rest of this Apply.
  void HoldJob(const std::string& job_key) {
    std::lock_guard lock(mutex_);
    held_jobs_.insert(job_key);
  }
  bool Held(const std::string& job_key) const {
    std::lock_guard lock(mutex_);
    return held_jobs_.count(job_key) > 0;
  }
  WriteStats Take() {
    std::lock_guard lock(mutex_);
    return std::move(stats_);
  }

 private:
  mutable std::mutex mutex_;
  WriteStats stats_;
  std::set<std::string> held_jobs_;
  std::set<std::string> unwritten_statuses_;
};

PlanWriter::PlanWriter(kube::Client& client, kube::EventRecorder* events,
                       std::function<bool()> may_write, int concurrency)
    : client_(client),
      events_(events),
      may_write_(std::move(may_write)),
      pool_(std::max(1, concurrency)) {}

PlanWriter::~PlanWriter() = default;

bool PlanWriter::Allowed(Tally& tally) {
  if (may_write_ && !may_write_()) return false;
  tally.Attempted();
  return true;
}

template <typename Item, typename Write>
void PlanWriter::Each(const std::vector<Item>& items, Write write) {
  pool_.ForEach(items.size(), [&](std::size_t i) { write(items[i]); });
}

namespace {

// The admissions of one cycle in groups of jobs: each group's statuses, and the
// pod creates and releases of its jobs. The last group has no statuses: the
// pods of jobs admitted in earlier cycles. The gated pods of jobs this cycle
// does not admit are courtesies: they only show a waiting job's pods (or hold
// an admitted job's place until its room is free), and wait for the rest (as
// do the job statuses that neither admit nor free anything).
struct AdmissionGroup {
  std::vector<const StatusWrite*> statuses;
  std::vector<const PodCreate*> creates;
  std::vector<const PodRelease*> releases;
};

struct GroupedAdmissions {
  std::vector<AdmissionGroup> groups;
  std::vector<const PodCreate*> courtesy_creates;
};

GroupedAdmissions GroupAdmissions(const Plan& plan, std::size_t jobs_per_group) {
  const std::size_t count = plan.admission_statuses.size();
  GroupedAdmissions grouped;
  auto& groups = grouped.groups;
  groups.resize((count + jobs_per_group - 1) / jobs_per_group + 1);
  std::unordered_map<std::string, std::size_t> group_of;
  for (std::size_t i = 0; i < count; ++i) {
    const StatusWrite& write = plan.admission_statuses[i];
    groups[i / jobs_per_group].statuses.push_back(&write);
    group_of.emplace(kube::ObjectKey(write.ns, write.name), i / jobs_per_group);
  }
  auto group = [&](const std::string& job_key) -> AdmissionGroup& {
    auto it = group_of.find(job_key);
    return groups[it == group_of.end() ? groups.size() - 1 : it->second];
  };
  for (const PodCreate& create : plan.pod_creates) {
    if (create.gated && !group_of.count(create.job_key)) {
      grouped.courtesy_creates.push_back(&create);
    } else {
      group(create.job_key).creates.push_back(&create);
    }
  }
  for (const PodRelease& release : plan.pod_releases)
    group(release.job_key).releases.push_back(&release);
  return grouped;
}

// Courtesy writes take only what the client's rate limit has to spare: while
// less than this share of its burst is left, the next cycle's admissions and
// releases would wait behind them.
constexpr double kCourtesyHeadroom = 0.5;

}  // namespace

// A large cycle's first pods go out while later admissions are still being
// recorded; each job's pods still follow its own status.
// Returns the courtesy creates, for after every other write.
std::vector<const PodCreate*> PlanWriter::ApplyAdmissions(const Plan& plan, Tally& tally) {
  const std::size_t jobs_per_group = std::max<std::size_t>(64, 8 * pool_.threads());
  GroupedAdmissions grouped = GroupAdmissions(plan, jobs_per_group);
  for (const AdmissionGroup& group : grouped.groups) {
    Each(group.statuses, [&](const StatusWrite* write) {
      if (!WriteStatus(*write, tally)) tally.HoldJob(kube::ObjectKey(write->ns, write->name));
    });
    Each(group.creates, [&](const PodCreate* create) { CreatePod(*create, tally); });
    Each(group.releases, [&](const PodRelease* release) { ReleasePod(*release, tally); });
  }
  return std::move(grouped.courtesy_creates);
}

bool PlanWriter::HasSpare() { return client_.transport().RateLimitHeadroom() >= kCourtesyHeadroom; }

void PlanWriter::ApplyOtherStatuses(const std::vector<StatusWrite>& writes, Tally& tally) {
  Each(writes, [&](const StatusWrite& write) {
    if (write.courtesy && !HasSpare())
      return tally.StatusLeftForLimit(kube::ObjectKey(write.ns, write.name));
    WriteStatus(write, tally);
  });
}

void PlanWriter::ApplyCourtesyCreates(const std::vector<const PodCreate*>& creates, Tally& tally) {
  Each(creates, [&](const PodCreate* create) {
    if (!HasSpare()) return tally.PodLeftForLimit();
    CreatePod(*create, tally);
  });
}

// Writes in order of what they do: free devices, admit and release, record
// what ended; then, from what the client's limit has to spare, what only
// informs (Queue, Project and Department statuses always).
WriteStats PlanWriter::Apply(const Plan& plan) {
  Tally tally;
  // A job whose release was not recorded keeps its pods: the next cycle
  // decides again from what the API holds, rather than find them gone. Not a
  // victim's: a reclaim never waits on a status its tenant can keep changing.
  Each(plan.releasing_statuses, [&](const StatusWrite& write) {
    if (!WriteStatus(write, tally)) tally.HoldJob(kube::ObjectKey(write.ns, write.name));
  });
  Each(plan.pod_deletes, [&](const PodDelete& remove) { DeletePod(remove, tally); });
  Each(plan.services, [&](const Json& service) { CreateService(service, tally); });
  Each(plan.reservation_pods, [&](const Json& pod) { CreateReservation(pod, tally); });
  const auto courtesy_creates = ApplyAdmissions(plan, tally);
  Each(plan.finished_statuses, [&](const StatusWrite& write) { WriteStatus(write, tally); });
  ApplyOtherStatuses(plan.other_statuses, tally);
  Each(plan.pod_patches, [&](const PodPatch& patch) { PatchPod(patch, tally); });
  ApplyCourtesyCreates(courtesy_creates, tally);
  for (const auto& note : plan.events) {
    if (note.kind == Kind::kTrainingJob &&
        tally.StatusUnwritten(kube::ObjectKey(note.ns, note.name)))
      continue;
    RecordEvent(note);
  }
  return tally.Take();
}

bool PlanWriter::WriteStatus(const StatusWrite& write, Tally& tally) {
  const std::string key = kube::ObjectKey(write.ns, write.name);
  if (!Allowed(tally)) return false;
  // The writer acts on what its watches see, never on a write's answer.
  kube::PatchOptions options{.subresource = "status", .ignore_answer = true};
  try {
    client_.Patch(ResourceOf(write.kind), write.ns, write.name, kube::PatchType::kMerge,
                  write.patch, options);
    tally.Changed(write.kind, key);
    return true;
  } catch (const kube::ApiError& error) {
    tally.Failed();
    tally.StatusFailed(key);
    // A conflict means the object moved on since the cycle read it: the next
    // cycle decides again from the newer version.
    auto level = kube::IsConflict(error) ? spdlog::level::debug : spdlog::level::warn;
    spdlog::log(level, "status of {}: {}", key, kube::Describe(error));
    return false;
  }
}

void PlanWriter::DeletePod(const PodDelete& remove, Tally& tally) {
  if (!remove.evict && !remove.job_key.empty() && tally.Held(remove.job_key)) return;
  if (!Allowed(tally)) return;
  kube::DeleteOptions options;
  options.precondition_uid = remove.uid;
  options.grace_period_seconds = remove.grace_period_seconds;
  try {
    if (remove.evict) {
      client_.Evict(remove.ns, remove.name, options);
    } else {
      client_.Delete(kube::resources::kPods, remove.ns, remove.name, options);
    }
    tally.Changed(Kind::kPod, kube::ObjectKey(remove.ns, remove.name));
  } catch (const kube::ApiError& error) {
    if (kube::IsNotFound(error)) return;
    tally.Failed();
    spdlog::warn("{} pod {}: {}", remove.evict ? "evict" : "delete",
                 kube::ObjectKey(remove.ns, remove.name), kube::Describe(error));
  }
}

void PlanWriter::CreatePod(const PodCreate& create, Tally& tally) {
  if (tally.Held(create.job_key) || !Allowed(tally)) return;
  const std::string& ns = create.ns;
  const std::string& name = create.name;
  try {
    client_.CreateEncoded(kube::resources::kPods, ns, create.body);
    tally.Changed(Kind::kPod, kube::ObjectKey(ns, name));
  } catch (const kube::ApiError& error) {
    if (kube::IsAlreadyExists(error)) return;  // A repeat of our own create.
    tally.Failed();
    tally.HoldJob(create.job_key);
    spdlog::warn("create pod {}: {}", kube::ObjectKey(ns, name), kube::Describe(error));
    if (Refused(error)) {
      SendBack(create, "PodTemplateRejected",
               "the API server refused the job's pod: " + kube::ServerSays(error), false);
    } else if (ForbiddenByAdmission(error)) {
      SendBack(create, "PodForbidden",
               "the API server forbade the job's pod: " + kube::ServerSays(error), true);
    }
  }
}

// The API refused or forbade the job's pod: the job goes back to its queue,
// unadmitted, and says why (docs/operator.md, "Bad input"). A refused pod
// waits until the spec changes; a forbidden one for a back-off, which a counted
// restart lengthens.
void PlanWriter::SendBack(const PodCreate& create, const std::string& reason,
                          const std::string& text, bool count_restart) {
  const auto slash = create.job_key.find('/');
  const std::string ns = create.job_key.substr(0, slash);
  const std::string name = create.job_key.substr(slash + 1);
  Json patch = {{"status",
                 {{"phase", "Queued"},
                  {"placement", nullptr},
                  {"allocatedGpu", nullptr},
                  {"overQuota", nullptr},
                  {"conditions", Json::array({{{"type", "Admitted"},
                                               {"status", "False"},
                                               {"reason", reason},
                                               {"message", text},
                                               {"lastTransitionTime", kube::NowTime()},
                                               {"observedGeneration", create.job_generation}}})}}}};
  if (count_restart) patch["status"]["restartCount"] = create.job_restarts + 1;
  kube::PatchOptions options;
  options.subresource = "status";
  try {
    const Json job = client_.Patch(kube::resources::kTrainingJobs, ns, name,
                                   kube::PatchType::kMerge, patch, options);
    RecordEvent({Kind::kTrainingJob, ns, name, job["metadata"].value("uid", ""), "Warning", reason,
                 "CreatePod", text});
  } catch (const kube::ApiError& error) {
    spdlog::warn("status of {}: {}", create.job_key, kube::Describe(error));
  }
}

void PlanWriter::ReleasePod(const PodRelease& release, Tally& tally) {
  if (tally.Held(release.job_key) || !Allowed(tally)) return;
  try {
    client_.Patch(kube::resources::kPods, release.ns, release.name, kube::PatchType::kJson,
                  release.patch, {.ignore_answer = true});
    tally.Changed(Kind::kPod, kube::ObjectKey(release.ns, release.name));
  } catch (const kube::ApiError& error) {
    tally.Failed();
    // A failed test (422) means the pod was replaced or already released.
    spdlog::info("release pod {}: {}", kube::ObjectKey(release.ns, release.name),
                 kube::Describe(error));
  }
}

void PlanWriter::PatchPod(const PodPatch& patch, Tally& tally) {
  if (!Allowed(tally)) return;
  try {
    client_.Patch(kube::resources::kPods, patch.ns, patch.name,
                  patch.status ? kube::PatchType::kStrategicMerge : kube::PatchType::kMerge,
                  patch.patch,
                  {.subresource = patch.status ? "status" : "", .ignore_answer = true});
    tally.Changed(Kind::kPod, kube::ObjectKey(patch.ns, patch.name));
  } catch (const kube::ApiError& error) {
    if (kube::IsNotFound(error)) return;
    tally.Failed();
    spdlog::warn("patch pod {}: {}", kube::ObjectKey(patch.ns, patch.name), kube::Describe(error));
  }
}

void PlanWriter::CreateService(const Json& service, Tally& tally) {
  if (!Allowed(tally)) return;
  const std::string ns = service["metadata"].value("namespace", "");
  try {
    client_.Create(kube::resources::kServices, ns, service, {.ignore_answer = true});
  } catch (const kube::ApiError& error) {
    if (kube::IsAlreadyExists(error)) return;
    tally.Failed();
    spdlog::warn("create service {}/{}: {}", ns, service["metadata"].value("name", ""),
                 kube::Describe(error));
  }
}

void PlanWriter::CreateReservation(const Json& pod, Tally& tally) {
  if (!Allowed(tally)) return;
  const std::string ns = pod["metadata"].value("namespace", "");
  const std::string name = pod["metadata"].value("name", "");
  try {
    client_.Create(kube::resources::kPods, ns, pod, {.ignore_answer = true});
    tally.Changed(Kind::kPod, kube::ObjectKey(ns, name));
  } catch (const kube::ApiError& error) {
    if (kube::IsAlreadyExists(error)) return;
    tally.Failed();
    spdlog::warn("create reservation pod {}/{}: {}", ns, name, kube::Describe(error));
  }
}

void PlanWriter::RecordEvent(const EventNote& note) {
  if (!events_ || (may_write_ && !may_write_())) return;
  kube::ObjectReference object;
  object.api_version = note.kind == Kind::kPod ? "v1" : api::kApiVersion;
  object.kind = note.kind == Kind::kQueue        ? "Queue"
                : note.kind == Kind::kProject    ? "Project"
                : note.kind == Kind::kDepartment ? "Department"
                : note.kind == Kind::kPod        ? "Pod"
                                                 : "TrainingJob";
  if (!note.object_kind.empty()) {
    object.api_version = note.api_version;
    object.kind = note.object_kind;
  }
  object.ns = note.ns;
  object.name = note.name;
  object.uid = note.uid;
  events_->Record(object, note.type, note.reason, note.action, note.message);
}

}  // namespace gpupool::op
