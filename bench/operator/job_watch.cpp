#include "job_watch.h"

#include "start_watch.h"

namespace gpupool::bench {
namespace {

bool Holds(const std::string& phase) { return phase == "Admitted" || phase == "Running"; }
bool Done(const std::string& phase) { return phase == "Succeeded" || phase == "Failed"; }

double Seconds(Clock::duration duration) { return std::chrono::duration<double>(duration).count(); }

}  // namespace

JobPhase DecodeJobPhase(const kube::Json& object) {
  return {kube::ObjectKey(kube::NamespaceOf(object), kube::NameOf(object)),
          object.value("status", kube::Json::object()).value("phase", "")};
}

JobWatch::JobWatch(kube::Client& client)
    : informer_(StartWatch<JobPhase>(client, kube::resources::kTrainingJobs, DecodeJobPhase, {},
                                     [this](const JobPhase& job) { Observe(job); })) {}

JobWatch::~JobWatch() { informer_->Stop(); }

void JobWatch::Expect(const std::string& key, const std::string& pool, const std::string& kind,
                      int gpus) {
  std::lock_guard lock(mutex_);
  auto& job = jobs_[key];
  job.pool = pool;
  job.kind = kind;
  job.gpus = gpus;
  job.created = Clock::now();
}

void JobWatch::Observe(const JobPhase& seen) {
  const auto now = Clock::now();
  std::lock_guard lock(mutex_);
  auto it = jobs_.find(seen.key);
  if (it == jobs_.end() || it->second.finished != Clock::time_point{}) return;
  JobTimes& job = it->second;
  const bool holding = job.held_since != Clock::time_point{};
  if (Holds(seen.phase) && !holding) {
    job.held_since = now;
    AddHeld(job.pool, now, job.gpus);
    if (job.admitted == Clock::time_point{}) {
      job.admitted = now;
      ++admitted_;
    } else {
      ++job.preemptions;
    }
  }
  if (!Holds(seen.phase) && holding) {
    AddHeld(job.pool, now, -job.gpus);
    job.gpu_seconds += job.gpus * Seconds(now - job.held_since);
    job.held_since = {};
  }
  if (seen.phase == "Running" && job.running == Clock::time_point{}) job.running = now;
  if (Done(seen.phase)) {
    job.finished = now;
    ++finished_;
  }
}

std::size_t JobWatch::Finished() const {
  std::lock_guard lock(mutex_);
  return finished_;
}

void JobWatch::AddHeld(const std::string& pool, Clock::time_point at, int gpus) {
  auto& series = held_[pool];
  series.push_back({at, (series.empty() ? 0 : series.back().second) + gpus});
}

std::map<std::string, std::vector<std::pair<Clock::time_point, int>>> JobWatch::HeldOverTime()
    const {
  std::lock_guard lock(mutex_);
  return held_;
}

std::size_t JobWatch::Admitted() const {
  std::lock_guard lock(mutex_);
  return admitted_;
}

std::map<std::string, JobTimes> JobWatch::Snapshot() const {
  const auto now = Clock::now();
  std::lock_guard lock(mutex_);
  auto copy = jobs_;
  for (auto& [key, job] : copy) {
    if (job.held_since != Clock::time_point{})
      job.gpu_seconds += job.gpus * Seconds(now - job.held_since);
  }
  return copy;
}

}  // namespace gpupool::bench
