#include "reasons.h"

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <string_view>

namespace gpupool::engine::internal {
namespace {

const QuotaState& QuotaOf(const ClusterState& state, const JobState& job) {
  return state.quotas[state.Slot(job.queue, job.project)];
}

const Usage& UsageOf(const ClusterState& state, const JobState& job) {
  return state.usage[state.Slot(job.queue, job.project)];
}

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// The parts one after the other, in one allocation: thousands of waiting jobs get a
// sentence each cycle.
std::string Concat(std::initializer_list<std::string_view> parts) {
  std::size_t size = 0;
  for (std::string_view part : parts) size += part.size();
  std::string out;
  out.reserve(size);
  for (std::string_view part : parts) out += part;
  return out;
}

MilliGpu FreeGpus(const ClusterState& state, int queue) {
  return std::max<MilliGpu>(0, state.queues[queue].free);
}

// When the project's quota was scaled into its department's: which level set the
// number the sentence gives. Empty otherwise.
std::string ScaledBy(const ClusterState& state, const JobState& job) {
  const QuotaState& quota = QuotaOf(state, job);
  const DepartmentQuotaState* department = state.DepartmentQuotaOf(job.queue, job.project);
  if (!department || quota.gpu >= quota.gpu_spec) return {};
  return " (department " + state.projects[job.project].department_name + "'s quota of " +
         FormatGpus(department->gpu) + " scales its " + FormatGpus(quota.gpu_spec) + " down)";
}

}  // namespace

// Thousands of waiting jobs get a sentence each cycle: the usual amounts are written
// without printf, the same text as "%g" gives for them (at most six significant
// digits: whole numbers, and fractions below 1,000 GPUs with at most three decimals).
std::string FormatGpus(MilliGpu milli) {
  if (milli % kMilliPerGpu == 0) {
    MilliGpu whole = milli / kMilliPerGpu;
    return std::to_string(whole) + (whole == 1 ? " GPU" : " GPUs");
  }
  const char* unit = milli < kMilliPerGpu ? " GPU" : " GPUs";
  if (milli > -1000000 && milli < 1000000) {
    MilliGpu magnitude = milli < 0 ? -milli : milli;
    std::string out = milli < 0 ? "-" : "";
    out += std::to_string(magnitude / kMilliPerGpu);
    out += '.';
    MilliGpu decimals = magnitude % kMilliPerGpu;
    for (MilliGpu digit = 100; decimals > 0; digit /= 10) {
      out += static_cast<char>('0' + decimals / digit);
      decimals %= digit;
    }
    return out + unit;
  }
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%g%s", static_cast<double>(milli) / kMilliPerGpu, unit);
  return buffer;
}

std::string DescribeRequest(const JobState& job, int replicas) {
  if (replicas == 1) return FormatGpus(job.shape.gpu_milli);
  return std::to_string(replicas) + " replicas of " + FormatGpus(job.shape.gpu_milli);
}

std::string InvalidRequestReason(const JobState& job) {
  MilliGpu g = job.shape.gpu_milli;
  if (g < 0 || (g > kMilliPerGpu && g % kMilliPerGpu != 0)) {
    return "gpusPerReplica " + FormatGpus(g) +
           " is neither a fraction below 1 nor a whole number of GPUs";
  }
  if (job.replicas < 1 || job.min_replicas < 1) return "replicas and minReplicas must be >= 1";
  if (job.min_replicas > job.replicas) {
    return "minReplicas " + std::to_string(job.min_replicas) + " is more than replicas " +
           std::to_string(job.replicas);
  }
  if (job.shape.cpu_milli < 0 || job.shape.memory_bytes < 0) {
    return "cpu and memory requests must be >= 0";
  }
  return {};
}

std::string NoMatchingNodesReason(const ClusterState& state, const JobState& job) {
  std::string out = "no schedulable node of queue " + Quoted(state.queues[job.queue].spec.name) +
                    " can ever hold one replica of " + FormatGpus(job.shape.gpu_milli);
  if (!job.gpu_models.empty()) {
    out += " of model";
    for (const std::string& model : job.gpu_models) out += " " + model;
  }
  if (!job.node_selector->empty()) out += " matching its node selector";
  if (job.topology.mode == TopologyMode::kRequired) out += " labelled " + job.topology.key;
  return out;
}

std::string FixedQuotaReason(const ClusterState& state, const JobState& job, int replicas) {
  return Concat({"project ", job.project_name, " is at its fixed quota of ",
                 FormatGpus(QuotaOf(state, job).gpu), ScaledBy(state, job), " in queue ",
                 job.queue_name, " (uses ", FormatGpus(UsageOf(state, job).gpu),
                 ", this job needs ", FormatGpus(job.shape.gpu_milli * replicas), ")"});
}

std::string NonPreemptibleQuotaReason(const ClusterState& state, const JobState& job,
                                      int replicas) {
  return Concat({ToString(job.workload_class), " jobs run only within quota: project ",
                 job.project_name, " uses ", FormatGpus(UsageOf(state, job).gpu), " of its ",
                 FormatGpus(QuotaOf(state, job).gpu), ScaledBy(state, job), " in queue ",
                 job.queue_name, ", this job needs ", FormatGpus(job.shape.gpu_milli * replicas)});
}

// A project without a limit of its own is bounded by its pool: the message says
// which, so that nobody looks for a limit that was never set.
std::string LimitReason(const ClusterState& state, const JobState& job, int replicas) {
  const QuotaState& quota = QuotaOf(state, job);
  const std::string uses = FormatGpus(UsageOf(state, job).gpu);
  const std::string needs = FormatGpus(job.shape.gpu_milli * replicas);
  if (quota.limit_spec < 0) {
    return Concat({"project ", job.project_name, " uses ", uses, " of the ",
                   FormatGpus(quota.limit), " of queue ", job.queue_name,
                   "'s pool (it has no limit of its own), this job needs ", needs});
  }
  return Concat({"project ", job.project_name, " is at its limit of ", FormatGpus(quota.limit),
                 " in queue ", job.queue_name, " (uses ", uses, ", this job needs ", needs, ")"});
}

std::string DepartmentLimitReason(const ClusterState& state, const JobState& job, int replicas) {
  const ProjectState& project = state.projects[job.project];
  const DepartmentQuotaState& department = *state.DepartmentQuotaOf(job.queue, job.project);
  return Concat({"department ", project.department_name, " is at its limit of ",
                 FormatGpus(department.limit), " in queue ", job.queue_name, " (its projects use ",
                 FormatGpus(department.used + department.stopping), ", this job of project ",
                 job.project_name, " needs ", FormatGpus(job.shape.gpu_milli * replicas), ")"});
}

std::string ExceedsLimitReason(const ClusterState& state, const JobState& job, int replicas,
                               bool department) {
  const std::string whose = department ? "department " + state.projects[job.project].department_name
                                       : "project " + job.project_name;
  const MilliGpu limit = department ? state.DepartmentQuotaOf(job.queue, job.project)->limit
                                    : QuotaOf(state, job).limit;
  const std::string need = FormatGpus(job.shape.gpu_milli * replicas);
  // Without a limit of its own, a project's is its pool's capacity: say so.
  const MilliGpu capacity = state.queues[static_cast<std::size_t>(job.queue)].capacity;
  if (limit >= capacity) {
    return Concat({"this job needs ", need, ", more than the pool of queue ", job.queue_name,
                   " has (", FormatGpus(capacity),
                   "): it cannot start until the pool grows or it asks for fewer"});
  }
  return Concat({"this job needs ", need, ", more than the limit of ", whose, " in queue ",
                 job.queue_name, " (", FormatGpus(limit),
                 "): it cannot start until the limit is raised or it asks for fewer"});
}

std::string TopologyReason(const JobState& job, int replicas) {
  return "no single " + job.topology.key + " domain has room for " +
         DescribeRequest(job, replicas) + " (the pool as a whole has)";
}

std::string CapacityReason(const ClusterState& state, const JobState& job, int replicas,
                           MilliGpu held_for_it) {
  std::string out = "queue " + job.queue_name + " has no room for " +
                    DescribeRequest(job, replicas) + " now (" +
                    FormatGpus(FreeGpus(state, job.queue)) + " free, none where it fits)";
  if (held_for_it > 0) {
    out += "; " + FormatGpus(held_for_it) + " are held for it so smaller jobs cannot overtake it";
  }
  return out;
}

std::string ReservedForOtherReason(const JobState& job, const JobState& holder, bool over_quota) {
  return "the free GPUs where " + DescribeRequest(job, job.min_replicas) +
         " would fit are held for job " + holder.name + " of project " + holder.project_name +
         (over_quota ? ", which is first in line over its quota and waits for room"
                     : ", which is within its quota and waits for room");
}

std::string ReclaimMessage(const ClusterState& state, const JobState& beneficiary) {
  return Concat({"reclaimed by project ", beneficiary.project_name, " (below its quota of ",
                 FormatGpus(QuotaOf(state, beneficiary).gpu), " in queue ", beneficiary.queue_name,
                 ") for job ", beneficiary.name});
}

std::string WaitsForMessage(const ClusterState& state, const std::vector<int>& victims,
                            PreemptionReason reason) {
  MilliGpu total = 0;
  bool one_project = true;
  for (int v : victims) {
    const JobState& victim = state.jobs[v];
    total += state.JobGpu(victim, static_cast<int>(victim.placed.size()));
    one_project = one_project && victim.project == state.jobs[victims[0]].project;
  }
  std::string out = "waiting for " + FormatGpus(total);
  if (reason == PreemptionReason::kProjectPriority) {
    return out + " of its project's lower-priority jobs being preempted";
  }
  if (one_project) {
    return out + " being reclaimed from project " + state.jobs[victims[0]].project_name;
  }
  std::map<std::string, MilliGpu> by_project;  // Ordered: the sentence is stable.
  for (int v : victims) {
    const JobState& victim = state.jobs[v];
    by_project[victim.project_name] += state.JobGpu(victim, static_cast<int>(victim.placed.size()));
  }
  out += " being reclaimed from projects";
  const char* separator = " ";
  for (const auto& [project, gpu] : by_project) {
    out += separator + project + " (" + FormatGpus(gpu) + ")";
    separator = ", ";
  }
  return out;
}

std::string InProjectMessage(const JobState& beneficiary) {
  return "preempted by job " + beneficiary.name + " of the same project, priority " +
         std::to_string(beneficiary.priority);
}

}  // namespace gpupool::engine::internal
