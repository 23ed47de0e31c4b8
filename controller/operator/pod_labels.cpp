#include "gpupool/operator/pod_labels.h"

#include <algorithm>

#include "gpupool/json/quantity.h"

namespace gpupool::op {

std::string PodGroupSizeProblem(const std::string& text) {
  const bool number =
      !text.empty() && text.size() <= 5 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const std::int64_t size = number ? std::stoll(text) : 0;
  if (size >= 1 && size <= kMaxPodGroupSize) return "";
  return "must be the group's number of pods, from 1 to " + std::to_string(kMaxPodGroupSize) +
         " (is \"" + text + "\")";
}

std::string WorkloadClassProblem(const std::string& text) {
  if (text.empty() || text == "Train" || text == "Build" || text == "Inference") return "";
  return "must be Train, Build or Inference (is \"" + text + "\")";
}

std::string GpuFractionProblem(const std::string& text) {
  std::string error;
  const auto milli = json::ParseMilli(text, &error);
  if (milli && *milli > 0 && *milli < 1000) return "";
  return "must be a fraction of one GPU, above 0 and below 1 (is \"" + text + "\")";
}

std::string LabelPath(const std::string& label) { return "metadata.labels[" + label + "]"; }

std::string AnnotationPath(const std::string& annotation) {
  return "metadata.annotations[" + annotation + "]";
}

}  // namespace gpupool::op
