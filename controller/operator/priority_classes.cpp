#include "priority_classes.h"

#include <spdlog/spdlog.h>

#include <cctype>

#include "gpupool/kube/errors.h"

namespace gpupool::op {
namespace {

const kube::Resource kPriorityClasses{"scheduling.k8s.io", "v1", "priorityclasses", false};

struct ClassSpec {
  api::WorkloadClass workload_class;
  int value;
  const char* description;
};

constexpr ClassSpec kClasses[] = {
    {api::WorkloadClass::kTrain, 1000, "gpupool Train jobs: may run over quota and be preempted"},
    {api::WorkloadClass::kBuild, 2000, "gpupool Build sessions: within quota, never preempted"},
    {api::WorkloadClass::kInference, 2000, "gpupool Inference: within quota, never preempted"},
};

}  // namespace

std::string PriorityClassName(const PlanOptions& options, api::WorkloadClass workload_class) {
  std::string name = api::WorkloadClassName(workload_class);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return options.priority_class_prefix + name;
}

bool EnsurePriorityClasses(kube::Client& client, const PlanOptions& options) {
  bool ok = true;
  for (const ClassSpec& spec : kClasses) {
    const std::string name = PriorityClassName(options, spec.workload_class);
    const Json object = {
        {"apiVersion", "scheduling.k8s.io/v1"},
        {"kind", "PriorityClass"},
        {"metadata", {{"name", name}, {"labels", {{"app.kubernetes.io/managed-by", "gpupool"}}}}},
        {"value", spec.value},
        {"preemptionPolicy", "Never"},
        {"globalDefault", false},
        {"description", spec.description}};
    try {
      client.Create(kPriorityClasses, "", object);
      spdlog::info("created PriorityClass {}", name);
    } catch (const kube::ApiError& error) {
      if (kube::IsAlreadyExists(error)) continue;
      if (error.reason() == kube::Reason::kForbidden) {
        // Not ours to create (the installation made them, and granted no
        // create): asking again every cycle would only be refused again.
        spdlog::warn(
            "not allowed to create PriorityClass {}: taken to exist; pods naming it are refused "
            "if it does not ({})",
            name, error.what());
        continue;
      }
      spdlog::warn("create PriorityClass {}: {}", name, error.what());
      ok = false;
    }
  }
  return ok;
}

}  // namespace gpupool::op
