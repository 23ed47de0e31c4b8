// The values a pod opts into gpupool with (docs/workloads.md), each checked on
// its own: what the admission webhook refuses at creation and what the
// controller reports on a pod group that slipped past it. Each returns "" when
// the value is good, else the sentence that follows the field's name.
#pragma once

#include <cstdint>
#include <string>

namespace gpupool::op {

inline constexpr std::int32_t kMaxPodGroupSize = 4096;

// The gpupool.dev/pod-group-size label: the group's number of pods.
std::string PodGroupSizeProblem(const std::string& text);
// The gpupool.dev/workload-class label: Train, Build or Inference ("" for the default).
std::string WorkloadClassProblem(const std::string& text);
// The gpupool.dev/gpu-fraction annotation: part of one GPU, above 0 and below 1.
std::string GpuFractionProblem(const std::string& text);

// "metadata.labels[NAME]" and "metadata.annotations[NAME]".
std::string LabelPath(const std::string& label);
std::string AnnotationPath(const std::string& annotation);

}  // namespace gpupool::op
