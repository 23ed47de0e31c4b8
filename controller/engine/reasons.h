// Sentences for waiting jobs and preemptions: what blocks the job, in numbers.
#pragma once

#include <string>
#include <vector>

#include "state.h"

namespace gpupool::engine::internal {

std::string FormatGpus(MilliGpu milli);                          // "1 GPU", "2 GPUs", "0.5 GPU".
std::string DescribeRequest(const JobState& job, int replicas);  // "4 replicas of 8 GPUs"

std::string InvalidRequestReason(const JobState& job);  // Empty when the request is valid.
std::string NoMatchingNodesReason(const ClusterState& state, const JobState& job);
std::string FixedQuotaReason(const ClusterState& state, const JobState& job, int replicas);
std::string NonPreemptibleQuotaReason(const ClusterState& state, const JobState& job, int replicas);
std::string LimitReason(const ClusterState& state, const JobState& job, int replicas);
// "department research is at its limit of 32 GPUs in queue train (...)"
std::string DepartmentLimitReason(const ClusterState& state, const JobState& job, int replicas);
// "this job needs 16 GPUs, more than the limit of project susan in queue train
// (8 GPUs): it cannot start until the limit is raised or it asks for fewer"
std::string ExceedsLimitReason(const ClusterState& state, const JobState& job, int replicas,
                               bool department);
std::string TopologyReason(const JobState& job, int replicas);
std::string CapacityReason(const ClusterState& state, const JobState& job, int replicas,
                           MilliGpu held_for_it);
// `over_quota`: the room is held for a job waiting over its quota.
std::string ReservedForOtherReason(const JobState& job, const JobState& holder, bool over_quota);
std::string ReclaimMessage(const ClusterState& state, const JobState& beneficiary);
// What an admitted job waits for while its victims stop.
std::string WaitsForMessage(const ClusterState& state, const std::vector<int>& victims,
                            PreemptionReason reason);
std::string InProjectMessage(const JobState& beneficiary);

}  // namespace gpupool::engine::internal
