// The PriorityClasses gpupool's pods name: Build and Inference above Train, none
// of them allowed to preempt (gpupool alone decides who stops).
#pragma once

#include "gpupool/kube/client.h"
#include "gpupool/operator/plan.h"

namespace gpupool::op {

// "gpupool-train", "gpupool-build", "gpupool-inference" (with the default prefix).
std::string PriorityClassName(const PlanOptions& options, api::WorkloadClass workload_class);

// Creates the classes that are missing; returns false if the server refused one
// for a reason that may pass (a Forbidden answer does not: it is not retried).
bool EnsurePriorityClasses(kube::Client& client, const PlanOptions& options);

}  // namespace gpupool::op
