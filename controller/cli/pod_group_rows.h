// Pods of other owners (docs/workloads.md) as `gpupool list` shows them: one
// row per workload, grouped as far as the pods themselves tell: the pods
// naming one gpupool.dev/pod-group ("group/NAME"), the pods of one controlling
// owner such as a batch Job or a PyTorchJob ("job/NAME", "pytorchjob/NAME"),
// or a pod alone ("pod/NAME", a Deployment's replica too). The pods of a
// JobSet or an MPIJob show as their Jobs; the controller counts them as one gang.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "job_rows.h"

namespace gpupool::cli {

// `pods`, an array as the API lists them (those not asking gpupool are
// skipped); `project_of_namespace` names each namespace's Project.
std::vector<JobRow> PodGroupRows(const nlohmann::json& pods,
                                 const std::map<std::string, std::string>& project_of_namespace,
                                 op::EpochSeconds now);

}  // namespace gpupool::cli
