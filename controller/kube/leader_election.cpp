#include "gpupool/kube/leader_election.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>

#include "callback_worker.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/watch.h"

namespace gpupool::kube {
namespace {

std::string FormatUtc(bool micros) {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  std::string out = text;
  if (micros) {
    auto us =
        std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()) % 1'000'000;
    char fraction[12];
    std::snprintf(fraction, sizeof(fraction), ".%06lld", static_cast<long long>(us.count()));
    out += fraction;
  }
  return out + "Z";
}

// Up to 20% extra so candidates that started together drift apart.
Millis Jittered(Millis base) {
  thread_local std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<int64_t> extra(0, base.count() / 5);
  return base + Millis(extra(random));
}

}  // namespace

std::string NowMicroTime() { return FormatUtc(true); }
std::string NowTime() { return FormatUtc(false); }

LeaderElector::LeaderElector(Client& client, LeaderElectionConfig config)
    : client_(client),
      config_(std::move(config)),
      started_callbacks_(std::make_unique<CallbackWorker>("leader election: on_started_leading")),
      stopped_callbacks_(std::make_unique<CallbackWorker>("leader election: on_stopped_leading")) {
  if (config_.lease_name.empty() || config_.lease_namespace.empty() || config_.identity.empty())
    throw std::invalid_argument("leader election: lease name, namespace and identity are required");
  if (!(config_.retry_period < config_.renew_deadline &&
        config_.renew_deadline < config_.lease_duration))
    throw std::invalid_argument(
        "leader election: need retry period < renew deadline < lease duration");
}

LeaderElector::~LeaderElector() { Stop(); }

uint64_t LeaderElector::callback_failures() const {
  return started_callbacks_->failures() + stopped_callbacks_->failures();
}

void LeaderElector::Start() {
  thread_ = std::thread([this] { Run(); });
}

void LeaderElector::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  FinishCallbacks();
}

void LeaderElector::FinishCallbacks() {
  // One budget for both: on_stopped_leading was queued last, so it is waited
  // for with whatever on_started_leading left of the wait.
  auto deadline = Clock::now() + config_.callback_stop_wait;
  stopped_callbacks_->Finish(config_.callback_stop_wait);
  auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now());
  started_callbacks_->Finish(std::max(left, Millis(0)));
}

void LeaderElector::ReportStartedLeading() {
  if (config_.on_started_leading)
    started_ticket_ = started_callbacks_->Post(config_.on_started_leading);
}

void LeaderElector::Abandon() {
  release_on_stop_ = false;
  Stop();
}

bool LeaderElector::IsLeader() const {
  std::lock_guard lock(mutex_);
  return leading_ && Clock::now() - last_renew_ < config_.renew_deadline;
}

std::string LeaderElector::observed_holder() const {
  std::lock_guard lock(mutex_);
  return observed_holder_;
}

void LeaderElector::Run() {
  while (!stop_) {
    if (!TryAcquireOrRenew()) {
      SleepUnlessStopped(stop_, Jittered(config_.retry_period));
      continue;
    }
    spdlog::info("leader election: {} leads {}/{}", config_.identity, config_.lease_namespace,
                 config_.lease_name);
    ReportStartedLeading();
    while (!stop_ && RenewUntilDeadline()) SleepUnlessStopped(stop_, config_.retry_period);
    bool released = stop_ && release_on_stop_;
    if (released) Release();
    BecomeFollower();
    if (!released && !stop_)
      spdlog::warn("leader election: {} could not renew within {} ms; stopped leading",
                   config_.identity, config_.renew_deadline.count());
  }
}

void LeaderElector::BecomeFollower() {
  {
    std::lock_guard lock(mutex_);
    if (!leading_) return;
    leading_ = false;
  }
  // A term whose start was never reported ends unreported too.
  bool start_withdrawn = started_ticket_ != 0 && started_callbacks_->Withdraw(started_ticket_);
  started_ticket_ = 0;
  if (!start_withdrawn && config_.on_stopped_leading)
    stopped_callbacks_->Post(config_.on_stopped_leading);
}

// Retries renewal every retry period until it works or the deadline passes.
bool LeaderElector::RenewUntilDeadline() {
  for (;;) {
    if (stop_) return false;
    if (TryAcquireOrRenew()) return true;
    {
      std::lock_guard lock(mutex_);
      if (Clock::now() - last_renew_ >= config_.renew_deadline) return false;
    }
    SleepUnlessStopped(stop_, config_.retry_period / 2);
  }
}

void LeaderElector::MarkRenewed(Clock::time_point attempt_started) {
  std::lock_guard lock(mutex_);
  leading_ = true;
  last_renew_ = attempt_started;
  observed_holder_ = config_.identity;
}

// Records what the lease says; true while another holder's lease has not
// gone a whole lease duration (of our own clock) without changing.
bool LeaderElector::HeldByOther(const Json& spec, Clock::time_point attempt_started,
                                int default_seconds) {
  std::string holder = spec.value("holderIdentity", "");
  std::string record = holder + "|" + spec.value("renewTime", "") + "|" +
                       std::to_string(spec.value("leaseTransitions", 0));
  std::lock_guard lock(mutex_);
  if (record != observed_record_) {
    observed_record_ = record;
    observed_at_ = attempt_started;
    observed_holder_ = holder;
    observed_duration_ = std::chrono::seconds(spec.value("leaseDurationSeconds", default_seconds));
  }
  bool other = !holder.empty() && holder != config_.identity;
  return other && attempt_started < observed_at_ + observed_duration_;
}

bool LeaderElector::TryAcquireOrRenew() {
  auto attempt_started = Clock::now();
  std::string now = NowMicroTime();
  int duration_seconds = static_cast<int>((config_.lease_duration.count() + 999) / 1000);
  try {
    Json lease;
    try {
      lease = client_.Get(resources::kLeases, config_.lease_namespace, config_.lease_name);
    } catch (const ApiError& error) {
      if (!IsNotFound(error)) throw;
      Json spec = {{"holderIdentity", config_.identity},
                   {"leaseDurationSeconds", duration_seconds},
                   {"acquireTime", now},
                   {"renewTime", now},
                   {"leaseTransitions", 0}};
      Json fresh = {
          {"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", {{"name", config_.lease_name}, {"namespace", config_.lease_namespace}}},
          {"spec", spec}};
      client_.Create(resources::kLeases, config_.lease_namespace, fresh);
      MarkRenewed(attempt_started);
      return true;
    }
    Json spec = lease.value("spec", Json::object());
    if (HeldByOther(spec, attempt_started, duration_seconds)) return false;
    if (spec.value("holderIdentity", "") != config_.identity) {
      spec["acquireTime"] = now;
      spec["leaseTransitions"] = spec.value("leaseTransitions", 0) + 1;
    }
    spec["holderIdentity"] = config_.identity;
    spec["leaseDurationSeconds"] = duration_seconds;
    spec["renewTime"] = now;
    lease["spec"] = spec;
    // The resourceVersion in `lease` makes this a compare-and-swap: if another
    // candidate wrote first, we get a Conflict and stay a follower.
    client_.Update(resources::kLeases, config_.lease_namespace, lease);
    MarkRenewed(attempt_started);
    return true;
  } catch (const ApiError& error) {
    spdlog::debug("leader election: {}: {}", config_.identity, error.what());
    return false;
  } catch (const Json::exception& error) {
    // A Lease with fields of the wrong type: whose it is cannot be told, so
    // leading is never assumed from it.
    spdlog::warn("leader election: {}: malformed lease {}/{}: {}", config_.identity,
                 config_.lease_namespace, config_.lease_name, error.what());
    return false;
  }
}

void LeaderElector::Release() {
  try {
    Json lease = client_.Get(resources::kLeases, config_.lease_namespace, config_.lease_name);
    if (lease["spec"].value("holderIdentity", "") != config_.identity) return;
    lease["spec"]["holderIdentity"] = "";
    lease["spec"]["leaseDurationSeconds"] = 1;
    lease["spec"]["renewTime"] = NowMicroTime();
    client_.Update(resources::kLeases, config_.lease_namespace, lease);
    spdlog::info("leader election: {} released {}/{}", config_.identity, config_.lease_namespace,
                 config_.lease_name);
  } catch (const std::exception& error) {
    spdlog::warn("leader election: {} could not release the lease: {}", config_.identity,
                 error.what());
  }
}

}  // namespace gpupool::kube
