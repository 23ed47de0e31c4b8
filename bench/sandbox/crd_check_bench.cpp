// What the sandbox's custom-resource checks (defaults, pruning, schema
// validation and CEL rules) cost the TrainingJob writes of the operator's loop:
// a job's create, as kubectl applies one, and the controller's status write
// that records it Running; with the project's own CRD.
#include <benchmark/benchmark.h>

#include <stdexcept>
#include <string>

#include "gpupool/json/yaml.h"
#include "sandbox/rules/crd.h"

namespace gpupool::sandbox {
namespace {

const ResourceType& TrainingJobs() {
  static const ResourcePtr resource = [] {
    Json crd = json::LoadYamlFile(GPUPOOL_SOURCE_DIR "/crds/trainingjobs.gpupool.dev.yaml").at(0);
    crd["metadata"]["creationTimestamp"] = "2026-11-27T03:00:00Z";
    EstablishCrd(crd);
    return ServedResources(crd).at(0);
  }();
  return *resource;
}

Json AppliedJob() {
  return Json::parse(R"({"apiVersion": "gpupool.dev/v1alpha1", "kind": "TrainingJob",
    "metadata": {"name": "bert-finetune-1", "namespace": "joe", "uid": "u-1",
                 "creationTimestamp": "2026-11-27T03:42:00Z", "generation": 1},
    "spec": {"queue": "train", "workloadClass": "Train", "gpusPerReplica": 1,
      "template": {"metadata": {"annotations": {"sandbox.gpupool.dev/run-seconds": "300"}},
        "spec": {"containers": [{"name": "trainer",
          "image": "pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime",
          "command": ["torchrun", "--standalone", "--nproc-per-node=1", "/workspace/finetune.py"],
          "args": ["--model=bert-base-uncased", "--task=sst2", "--epochs=3"],
          "resources": {"requests": {"cpu": "4", "memory": "16Gi"}}}]}}}})");
}

// The job as the controller admitted it, and then as it records it Running.
Json AdmittedJob() {
  Json job = AppliedJob();
  CheckCustomResource(TrainingJobs(), job, nullptr);
  job["status"] = Json::parse(R"({"admittedTime": "2026-11-27T03:42:00Z", "allocatedGpu": 1,
    "conditions": [{"lastTransitionTime": "2026-11-27T03:42:00Z",
      "message": "admitted on node-0", "observedGeneration": 1, "reason": "Admitted",
      "status": "True", "type": "Admitted"}],
    "observedGeneration": 1, "phase": "Admitted",
    "placement": [{"devices": [0], "node": "node-0", "replica": 0}], "project": "joe",
    "queuedTime": "2026-11-27T03:42:00Z"})");
  return job;
}

Json RunningJob(Json job) {
  job["status"]["phase"] = "Running";
  job["status"]["startTime"] = "2026-11-27T03:42:02Z";
  job["status"]["conditions"].push_back(Json::parse(R"({
    "lastTransitionTime": "2026-11-27T03:42:02Z", "message": "all 1 replicas run",
    "observedGeneration": 1, "reason": "Started", "status": "True", "type": "Running"})"));
  return job;
}

void Require(const CustomResourceCheck& check) {
  if (!check.errors.empty()) throw std::logic_error("invalid: " + check.errors[0].ToString());
}

void BM_CheckTrainingJobCreate(benchmark::State& state) {
  const ResourceType& jobs = TrainingJobs();
  const Json applied = AppliedJob();
  for (auto _ : state) {
    Json job = applied;
    Require(CheckCustomResource(jobs, job, nullptr));
    benchmark::DoNotOptimize(job);
  }
}
BENCHMARK(BM_CheckTrainingJobCreate);

void BM_CheckTrainingJobStatusWrite(benchmark::State& state) {
  const ResourceType& jobs = TrainingJobs();
  const Json admitted = AdmittedJob();
  const Json running = RunningJob(admitted);
  for (auto _ : state) {
    Json job = running;
    Require(CheckCustomResourceStatus(jobs, job, admitted));
    benchmark::DoNotOptimize(job);
  }
}
BENCHMARK(BM_CheckTrainingJobStatusWrite);

}  // namespace
}  // namespace gpupool::sandbox

BENCHMARK_MAIN();
