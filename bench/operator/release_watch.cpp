#include "release_watch.h"

#include "start_watch.h"

namespace gpupool::bench {
namespace {

constexpr char kAdmissionGate[] = "gpupool.dev/admission";

PodRelease DecodeRelease(const kube::Json& pod) {
  PodRelease seen{kube::ObjectKey(kube::NamespaceOf(pod), kube::NameOf(pod))};
  const kube::Json spec = pod.value("spec", kube::Json::object());
  bool gated = false;
  for (const auto& gate : spec.value("schedulingGates", kube::Json::array()))
    gated = gated || gate.value("name", "") == kAdmissionGate;
  seen.released =
      !gated && spec.value("nodeSelector", kube::Json::object()).contains("kubernetes.io/hostname");
  return seen;
}

}  // namespace

ReleaseWatch::ReleaseWatch(kube::Client& client)
    : informer_(StartWatch<PodRelease>(client, kube::resources::kPods, DecodeRelease,
                                       {.label_selector = "gpupool.dev/job",
                                        // DecodeRelease reads the pod's name, gates and selector.
                                        .unread_members = {{"status"}, {"spec", "containers"}}},
                                       [this](const PodRelease& pod) { Observe(pod); })) {}

ReleaseWatch::~ReleaseWatch() { informer_->Stop(); }

void ReleaseWatch::Observe(const PodRelease& pod) {
  if (!pod.released) return;
  const auto now = Clock::now();
  std::lock_guard lock(mutex_);
  if (released_.emplace(pod.key, now).second) times_.push_back(now);
}

std::size_t ReleaseWatch::Released() const {
  std::lock_guard lock(mutex_);
  return released_.size();
}

std::vector<ReleaseWatch::Clock::time_point> ReleaseWatch::Times() const {
  std::lock_guard lock(mutex_);
  return times_;
}

std::vector<double> ReleaseWatch::Latencies(
    const std::unordered_map<std::string, Clock::time_point>& created) const {
  std::lock_guard lock(mutex_);
  std::vector<double> latencies;
  for (const auto& [pod, at] : released_) {
    auto job = created.find(pod.substr(0, pod.rfind('-')));
    if (job != created.end())
      latencies.push_back(std::chrono::duration<double>(at - job->second).count());
  }
  return latencies;
}

}  // namespace gpupool::bench
