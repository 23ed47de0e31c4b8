#include "gpupool/engine/decisions.h"
#include "gpupool/engine/snapshot.h"

namespace gpupool::engine {

const char* ToString(Sharing sharing) {
  return sharing == Sharing::kFixed ? "Fixed" : "Guaranteed";
}

const char* ToString(WorkloadClass workload_class) {
  switch (workload_class) {
    case WorkloadClass::kTrain:
      return "Train";
    case WorkloadClass::kBuild:
      return "Build";
    case WorkloadClass::kInference:
      return "Inference";
  }
  return "Unknown";
}

bool IsPreemptible(WorkloadClass workload_class) { return workload_class == WorkloadClass::kTrain; }

const char* ToString(WaitCode code) {
  switch (code) {
    case WaitCode::kUnknownQueue:
      return "UnknownQueue";
    case WaitCode::kInvalidRequest:
      return "InvalidRequest";
    case WaitCode::kQuota:
      return "Quota";
    case WaitCode::kLimit:
      return "Limit";
    case WaitCode::kExceedsLimit:
      return "ExceedsLimit";
    case WaitCode::kNoMatchingNodes:
      return "NoMatchingNodes";
    case WaitCode::kTopology:
      return "Topology";
    case WaitCode::kCapacity:
      return "Capacity";
    case WaitCode::kReservedForOther:
      return "ReservedForOther";
  }
  return "Unknown";
}

const char* ToString(PreemptionReason reason) {
  return reason == PreemptionReason::kReclaim ? "Reclaim" : "ProjectPriority";
}

}  // namespace gpupool::engine
