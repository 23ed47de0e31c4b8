// Per project and per queue GPU figures: the engine's accounting after the
// cycle's decisions (the same numbers the Queue and Project statuses carry).
#include "gpu_usage.h"

#include "json_fields.h"

namespace gpupool::metrics::internal {
namespace {

double Gpus(std::int64_t milli) { return static_cast<double>(milli) / 1000.0; }

// A queue's capacity as this cycle leaves it: the status it writes, else the
// status the API holds (the capacity did not change).
double QueueCapacity(const op::QueueObject& queue,
                     const std::map<std::string, const op::StatusWrite*>& queue_writes) {
  auto write = queue_writes.find(queue.object.metadata.name);
  if (write != queue_writes.end()) {
    auto milli = MilliField(PlannedStatus(*write->second), "capacity");
    if (milli) return Gpus(*milli);
  }
  const auto& capacity = queue.object.status.capacity;
  return capacity ? Gpus(capacity->milli) : 0;
}

std::map<std::string, const op::StatusWrite*> QueueWrites(const op::Plan& plan) {
  std::map<std::string, const op::StatusWrite*> writes;
  for (const auto& write : plan.other_statuses)
    if (write.kind == op::Kind::kQueue) writes[write.name] = &write;
  return writes;
}

}  // namespace

void AddGpuUsage(const op::ClusterView& view, const op::Plan& plan, CycleMetrics& metrics) {
  for (const auto& share : plan.decisions.shares) {
    metrics.projects[{share.queue, share.project}] = {Gpus(share.quota), Gpus(share.allocated),
                                                      Gpus(share.over_quota), Gpus(share.pending)};
    QueueGpus& queue = metrics.queues[share.queue];
    queue.guaranteed += Gpus(share.quota);
    queue.allocated += Gpus(share.allocated);
  }
  for (const auto& share : plan.decisions.department_shares) {
    metrics.departments[{share.queue, share.department}] = {
        Gpus(share.quota), Gpus(share.allocated), Gpus(share.over_quota), Gpus(share.pending)};
  }
  const auto queue_writes = QueueWrites(plan);
  for (const auto& queue : view.queues)
    metrics.queues[queue->object.metadata.name].capacity = QueueCapacity(*queue, queue_writes);
}

}  // namespace gpupool::metrics::internal
