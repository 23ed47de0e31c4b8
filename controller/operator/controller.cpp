#include "gpupool/operator/controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>

#include "gpupool/kube/errors.h"
#include "priority_classes.h"

namespace gpupool::op {
namespace {

using Clock = std::chrono::steady_clock;

template <typename T>
void Watch(kube::Informer<T>& informer, Controller& controller) {
  informer.AddHandlers({[&](const T&) { controller.Notify(); },
                        [&](const T&, const T&) { controller.Notify(); },
                        [&](const T&) { controller.Notify(); }});
}

template <typename T>
std::vector<Shared<T>> ListOf(const kube::Informer<T>& informer) {
  return informer.cache().List();
}

// Wall-clock seconds since the epoch: the time the API's timestamps are in.
EpochSeconds WallSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

Controller::Controller(kube::Client& client, kube::EventRecorder* events, ControllerOptions options)
    : client_(client),
      options_(std::move(options)),
      writer_(client, events, options_.is_leader, options_.concurrent_writes),
      engine_(options_.plan.engine) {
  namespace r = kube::resources;
  // The caches hold typed objects that never read managedFields.
  kube::ListWatchOptions lean;
  lean.drop_managed_fields = true;
  queues_ = std::make_unique<kube::Informer<QueueObject>>(client, r::kQueues, "", DecodeQueueObject,
                                                          lean);
  projects_ = std::make_unique<kube::Informer<ProjectObject>>(client, r::kProjects, "",
                                                              DecodeProjectObject, lean);
  departments_ = std::make_unique<kube::Informer<DepartmentObject>>(client, r::kDepartments, "",
                                                                    DecodeDepartmentObject, lean);
  jobs_ = std::make_unique<kube::Informer<JobObject>>(client, r::kTrainingJobs, "", DecodeJobObject,
                                                      lean);
  nodes_ =
      std::make_unique<kube::Informer<NodeObject>>(client, r::kNodes, "", DecodeNodeObject, lean);
  kube::ListWatchOptions lean_pods = lean;
  lean_pods.unread_members = {{"status", "containerStatuses"}};  // PodView reads none of them
  pods_ = std::make_unique<kube::Informer<PodView>>(client, r::kPods, "", DecodePodView, lean_pods);
  kube::ListWatchOptions gang_services = lean;
  gang_services.label_selector = kJobLabel;
  services_ = std::make_unique<kube::Informer<char>>(
      client, r::kServices, "", [](const Json&) { return 'x'; }, gang_services);
  for (const OwnerKind& kind : OwnerKinds()) {
    const auto decode = [&kind](const Json& object) { return DecodeOwnerObject(object, kind); };
    owners_.push_back(
        {std::make_unique<kube::Informer<OwnerObject>>(client, kind.resource, "", decode, lean)});
  }
  Watch(*queues_, *this);
  Watch(*projects_, *this);
  Watch(*departments_, *this);
  Watch(*jobs_, *this);
  Watch(*nodes_, *this);
  Watch(*pods_, *this);
  for (OwnerInformer& owner : owners_) Watch(*owner.informer, *this);
}

Controller::~Controller() {
  for (OwnerInformer& owner : owners_) owner.informer->Stop();
  services_->Stop();
  pods_->Stop();
  nodes_->Stop();
  jobs_->Stop();
  departments_->Stop();
  projects_->Stop();
  queues_->Stop();
}

bool Controller::Start(std::chrono::milliseconds sync_timeout, const std::atomic<bool>* stop) {
  queues_->Start();
  projects_->Start();
  departments_->Start();
  jobs_->Start();
  nodes_->Start();
  pods_->Start();
  services_->Start();
  StartOwnerInformers(stop);
  const auto deadline = Clock::now() + sync_timeout;
  while (!Synced()) {
    if ((stop && *stop) || Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

void Controller::StartOwnerInformers(const std::atomic<bool>* stop) {
  for (std::size_t i = 0; i < owners_.size() && !(stop && *stop); ++i) {
    const OwnerKind& kind = OwnerKinds()[i];
    try {
      owners_[i].served = client_.Serves(kind.resource);
    } catch (const kube::ApiError& error) {
      spdlog::warn(
          "cannot tell whether {} are served ({}); the gangs of their pods that name no "
          "pod group wait until a restart sees them",
          kind.resource.resource, error.what());
    }
    if (owners_[i].served) owners_[i].informer->Start();
  }
}

bool Controller::Synced() const {
  return queues_->HasSynced() && projects_->HasSynced() && departments_->HasSynced() &&
         jobs_->HasSynced() && nodes_->HasSynced() && pods_->HasSynced() &&
         services_->HasSynced() &&
         std::all_of(owners_.begin(), owners_.end(), [](const OwnerInformer& owner) {
           return !owner.served || owner.informer->HasSynced();
         });
}

void Controller::Notify() {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  if (!dirty_) first_event_ = now;
  dirty_ = true;
  last_event_ = now;
  wake_.notify_all();
}

ClusterView Controller::View() const {
  ClusterView view;
  view.now = WallSeconds();
  view.queues = ListOf(*queues_);
  view.projects = ListOf(*projects_);
  view.departments = ListOf(*departments_);
  view.jobs = ListOf(*jobs_);
  view.nodes = ListOf(*nodes_);
  view.pods = ListOf(*pods_);
  for (const OwnerInformer& owner : owners_) {
    if (!owner.served) continue;
    auto listed = ListOf(*owner.informer);
    view.owners.insert(view.owners.end(), listed.begin(), listed.end());
  }
  for (const auto& [key, rv] : services_->cache().Versions()) view.services.insert(key);
  if (options_.gpu_readings) view.gpu_readings = options_.gpu_readings();
  return view;
}

std::string Controller::CachedVersion(Kind kind, const std::string& key) const {
  switch (kind) {
    case Kind::kQueue:
      return queues_->cache().ResourceVersion(key);
    case Kind::kProject:
      return projects_->cache().ResourceVersion(key);
    case Kind::kDepartment:
      return departments_->cache().ResourceVersion(key);
    case Kind::kTrainingJob:
      return jobs_->cache().ResourceVersion(key);
    default:
      return pods_->cache().ResourceVersion(key);
  }
}

// The next cycle must not decide from caches that have not yet seen this
// cycle's own writes (it would admit a job twice); it waits until every changed
// object shows a new version, or cache_wait passes.
void Controller::WaitForCaches() {
  const auto deadline = Clock::now() + options_.cache_wait;
  for (const auto& [changed, before] : expected_) {
    while (CachedVersion(changed.first, changed.second) == before && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  expected_.clear();
}

// Every object the plan writes, with the version the caches hold of it now.
std::map<std::pair<Kind, std::string>, std::string> Controller::VersionsBefore(
    const Plan& plan) const {
  std::map<std::pair<Kind, std::string>, std::string> versions;
  auto add = [&](Kind kind, const std::string& ns, const std::string& name) {
    const std::string key = kube::ObjectKey(ns, name);
    versions[{kind, key}] = CachedVersion(kind, key);
  };
  for (const auto* writes : plan.StatusWrites())
    for (const auto& write : *writes) add(write.kind, write.ns, write.name);
  for (const auto& remove : plan.pod_deletes) add(Kind::kPod, remove.ns, remove.name);
  for (const auto& patch : plan.pod_patches) add(Kind::kPod, patch.ns, patch.name);
  for (const auto& release : plan.pod_releases) add(Kind::kPod, release.ns, release.name);
  for (const auto& create : plan.pod_creates) add(Kind::kPod, create.ns, create.name);
  for (const auto& pod : plan.reservation_pods)
    add(Kind::kPod, pod["metadata"].value("namespace", ""), pod["metadata"].value("name", ""));
  return versions;
}

CycleReport Controller::RunCycle() {
  CycleReport report;
  // The pods name these classes: without them every pod create is refused.
  if (options_.create_priority_classes && !priority_classes_ready_)
    priority_classes_ready_ = EnsurePriorityClasses(client_, options_.plan);
  WaitForCaches();
  const auto start = Clock::now();
  Clock::time_point last_event;
  {
    std::lock_guard lock(mutex_);
    dirty_ = false;
    last_event = last_event_;
  }
  const ClusterView view = View();
  const auto rebuilds = engine_.stats().rebuilds;
  PlanOptions plan_options = options_.plan;
  plan_options.status_writes_per_cycle = options_.status_writes_per_cycle;
  plan_options.status_turn = status_turn_;
  plan_options.gated_pods_per_cycle = options_.gated_pods_per_cycle;
  Plan plan = PlanCycle(view, plan_options, engine_);
  status_turn_ = plan.next_status_turn;
  report.deferred = plan.deferred_statuses;
  report.deferred_pods = plan.deferred_gated_pods;
  report.engine_rebuilt = engine_.stats().rebuilds != rebuilds;
  report.plan_ms = MillisSince(start);
  report.jobs = view.jobs.size();
  report.admitted = plan.decisions.admissions.size();
  report.preempted = plan.decisions.preemptions.size();
  const auto before = VersionsBefore(plan);
  const auto write_start = Clock::now();
  WriteStats stats = writer_.Apply(plan);
  report.write_ms = MillisSince(write_start);
  report.event_to_done_ms = MillisSince(last_event);
  report.writes = stats.attempted;
  report.failed = stats.failed;
  report.left_for_limit = stats.pods_left_for_limit + stats.statuses_left_for_limit;
  for (const auto& changed : stats.changed) {
    auto version = before.find(changed);
    if (version != before.end()) expected_.push_back({changed, version->second});
  }
  {
    std::lock_guard lock(mutex_);
    wake_at_ = plan.wake_at;
    // Courtesies the client's limit had no room for: again in a second or two,
    // not at once (a cycle now would find the limit as short).
    if (report.left_for_limit > 0) {
      const EpochSeconds soon = WallSeconds() + 2;
      wake_at_ = wake_at_ == 0 ? soon : std::min(wake_at_, soon);
    }
    next_cycle_at_ =
        Clock::now() +
        std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double, std::milli>(report.plan_ms * options_.pause_per_plan));
  }
  if (options_.observe_cycle) options_.observe_cycle(view, plan, stats, report);
  // What was left waits one quiet period, not a resync.
  if (report.deferred > 0 || report.deferred_pods > 0) Notify();
  return report;
}

void Controller::WaitForWork(const std::atomic<bool>& stop) {
  std::unique_lock lock(mutex_);
  const auto resync_at = Clock::now() + options_.resync;
  while (!stop) {
    const auto now = Clock::now();
    // A burst of events is batched, and the pause after the last cycle
    // (ControllerOptions::pause_per_plan) has passed.
    if (dirty_ && now >= next_cycle_at_ &&
        (now - last_event_ >= options_.quiet || now - first_event_ >= options_.batch_window))
      return;
    if (now >= resync_at) return;
    if (wake_at_ != 0 && WallSeconds() >= wake_at_) return;
    wake_.wait_for(lock, dirty_ ? options_.quiet : std::chrono::milliseconds(100));
  }
}

void Controller::Run(const std::atomic<bool>& stop) {
  while (!stop) {
    WaitForWork(stop);
    if (stop) break;
    if (options_.is_leader && !options_.is_leader()) {
      // A standby writes nothing; it stays dirty so that it acts the moment it leads.
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      Notify();
      continue;
    }
    try {
      const CycleReport report = RunCycle();
      if (options_.on_cycle) options_.on_cycle(report);
      if (report.writes > 0)
        spdlog::info(
            "cycle: {} jobs, {} admitted, {} preempted, {} writes ({} failed), plan "
            "{:.1f} ms{}, writes {:.1f} ms, {} statuses and {} gated pods left to the next "
            "cycle, {} statuses and gated pods to when the client's limit has room",
            report.jobs, report.admitted, report.preempted, report.writes, report.failed,
            report.plan_ms, report.engine_rebuilt ? " (engine rebuilt)" : "", report.write_ms,
            report.deferred, report.deferred_pods, report.left_for_limit);
    } catch (const std::exception& error) {
      spdlog::error("cycle failed: {}", error.what());
    }
  }
}

}  // namespace gpupool::op
