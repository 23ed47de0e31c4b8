// What the load generator sees of its TrainingJobs, through a watch: when each
// was created, first admitted and finished, and the GPUs each held over time.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpupool/kube/client.h"
#include "gpupool/kube/informer.h"

namespace gpupool::bench {

using Clock = std::chrono::steady_clock;

struct JobPhase {
  std::string key, phase;
};

// A TrainingJob's "namespace/name" and status phase.
JobPhase DecodeJobPhase(const kube::Json& object);

struct JobTimes {
  std::string pool, kind;  // Set by the generator.
  int gpus = 0;
  Clock::time_point created{}, admitted{}, running{}, finished{};
  Clock::time_point held_since{};  // Set while the job holds its GPUs.
  double gpu_seconds = 0;          // Held GPU time so far.
  int preemptions = 0;
};

class JobWatch {
 public:
  explicit JobWatch(kube::Client& client);
  ~JobWatch();

  // The generator announces each job just before creating it.
  void Expect(const std::string& key, const std::string& pool, const std::string& kind, int gpus);
  std::size_t Finished() const;
  std::size_t Admitted() const;
  // Per pool, the GPUs its jobs' statuses held from each moment on, in order.
  std::map<std::string, std::vector<std::pair<Clock::time_point, int>>> HeldOverTime() const;
  // A copy of every job's times (held GPU time counted up to now).
  std::map<std::string, JobTimes> Snapshot() const;

 private:
  void Observe(const JobPhase& job);

  mutable std::mutex mutex_;
  std::map<std::string, JobTimes> jobs_;
  std::size_t finished_ = 0, admitted_ = 0;
  std::map<std::string, std::vector<std::pair<Clock::time_point, int>>> held_;  // By pool.
  void AddHeld(const std::string& pool, Clock::time_point at, int gpus);
  std::unique_ptr<kube::Informer<JobPhase>> informer_;
};

}  // namespace gpupool::bench
