// Every metric family `gpupool controller` exports, in one Prometheus registry.
// Names start with gpupool_ and carry their unit; labels are bounded (queues,
// projects, workload classes, phases, reasons, verbs, codes, resources: never
// a job's name or uid).
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "gpupool/kube/observer.h"
#include "gpupool/metrics/cycle_metrics.h"
#include "gpupool/operator/controller.h"

namespace gpupool::metrics {

// The gauges of one family keyed by their label values. A key no longer
// reported has its series removed: a deleted project's series disappear.
template <typename Key>
class KeyedGauges {
 public:
  using LabelsOf = prometheus::Labels (*)(const Key&);
  KeyedGauges(prometheus::Family<prometheus::Gauge>& family, LabelsOf labels_of)
      : family_(family), labels_of_(labels_of) {}

  // Sets every key's series to `value_of(value)`.
  template <typename Value, typename ValueOf>
  void Update(const std::map<Key, Value>& values, ValueOf value_of) {
    for (auto series = series_.begin(); series != series_.end();) {
      if (values.count(series->first)) {
        ++series;
        continue;
      }
      family_.Remove(series->second);
      series = series_.erase(series);
    }
    for (const auto& [key, value] : values) {
      auto& gauge = series_[key];
      if (!gauge) gauge = &family_.Add(labels_of_(key));
      gauge->Set(static_cast<double>(value_of(value)));
    }
  }

 private:
  prometheus::Family<prometheus::Gauge>& family_;
  LabelsOf labels_of_;
  std::map<Key, prometheus::Gauge*> series_;
};

class ControllerMetrics : public kube::ClientObserver {
 public:
  explicit ControllerMetrics(const std::string& version);

  // One cycle: gauges set, counters and histograms added to.
  void RecordCycle(const CycleMetrics& cycle, const op::CycleReport& report);
  // Asked at every scrape; unset: always leading (no leader election).
  void SetLeaderSource(std::function<bool()> is_leader) { is_leader_ = std::move(is_leader); }

  void OnRequest(const kube::RequestObservation& request) override;
  void OnWatchRestart(std::string_view resource) override;

  // The text exposition format of every family (what /metrics serves).
  std::string Text();
  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }

 private:
  void RecordGpuUsage(const CycleMetrics& cycle);
  void RecordJobs(const CycleMetrics& cycle);

  std::shared_ptr<prometheus::Registry> registry_;
  std::function<bool()> is_leader_;

  KeyedGauges<QueueProject> project_guaranteed_, project_allocated_, project_over_quota_,
      project_pending_, project_utilization_;
  KeyedGauges<QueueDepartment> department_guaranteed_, department_allocated_,
      department_over_quota_;
  KeyedGauges<std::string> queue_guaranteed_, queue_allocated_, queue_capacity_;
  KeyedGauges<std::string> jobs_;
  prometheus::Family<prometheus::Counter>& admissions_;
  prometheus::Family<prometheus::Counter>& preemptions_;
  prometheus::Family<prometheus::Histogram>& queue_wait_;
  prometheus::Family<prometheus::Histogram>& cycle_duration_;
  prometheus::Histogram& plan_duration_;
  prometheus::Histogram& write_duration_;
  prometheus::Family<prometheus::Counter>& api_requests_;
  prometheus::Family<prometheus::Histogram>& api_request_duration_;
  prometheus::Family<prometheus::Counter>& watch_restarts_;
  prometheus::Gauge& leader_;
};

// Bucket bounds, in seconds.
prometheus::Histogram::BucketBoundaries QueueWaitBuckets();        // 1 s … 1 day.
prometheus::Histogram::BucketBoundaries CycleDurationBuckets();    // 1 ms … 30 s.
prometheus::Histogram::BucketBoundaries RequestDurationBuckets();  // 1 ms … 60 s.

}  // namespace gpupool::metrics
