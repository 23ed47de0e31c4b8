#include "test_objects.h"

#include <algorithm>
#include <filesystem>

namespace gpupool::api::testing {

Json ValidTrainingJob() {
  return Json::parse(R"({
    "apiVersion": "gpupool.dev/v1alpha1", "kind": "TrainingJob",
    "metadata": {"name": "resnet", "namespace": "susan"},
    "spec": {"queue": "train", "replicas": 2, "gpusPerReplica": 1,
             "template": {"spec": {"containers": [{"name": "main", "image": "trainer"}]}}}})");
}

Json ValidProject() {
  return Json::parse(R"({
    "apiVersion": "gpupool.dev/v1alpha1", "kind": "Project",
    "metadata": {"name": "susan"},
    "spec": {"namespaces": ["susan"], "priority": 1, "department": "research",
             "quotas": [{"queue": "train", "gpu": 2},
                        {"queue": "build", "gpu": "0.5", "limit": 1}]}})");
}

Json ValidDepartment() {
  return Json::parse(R"({
    "apiVersion": "gpupool.dev/v1alpha1", "kind": "Department",
    "metadata": {"name": "research"},
    "spec": {"quotas": [{"queue": "train", "gpu": 32, "limit": 48, "overQuotaWeight": 2},
                        {"queue": "build", "gpu": "1.5"}]}})");
}

Json ValidQueue() {
  return Json::parse(R"({
    "apiVersion": "gpupool.dev/v1alpha1", "kind": "Queue",
    "metadata": {"name": "train"},
    "spec": {"sharing": "Guaranteed", "nodeSelector": {"pool": "train"},
             "preemption": {"minRuntimeSeconds": 60, "gracePeriodSeconds": 30},
             "idle": {"utilizationBelowPercent": 5, "forSeconds": 1800, "action": "Preempt"}}})");
}

std::string SourcePath(const std::string& relative) {
  return std::string(GPUPOOL_SOURCE_DIR) + "/" + relative;
}

std::vector<std::string> YamlFilesIn(const std::string& relative_dir) {
  std::vector<std::string> files;
  const auto dir = SourcePath(relative_dir);
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace gpupool::api::testing
