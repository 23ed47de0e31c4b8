// What recording managedFields costs a write (TrackUpdate), on a pod as the
// operator's loop writes it: created by the controller, bound by the scheduler,
// its status written by the kubelet, and then one more status write.
#include <benchmark/benchmark.h>

#include <functional>
#include <string>

#include "sandbox/store/managed_fields.h"

namespace gpupool::sandbox {
namespace {

// The sandbox's own pods resource.
const ResourceType& Pods() {
  static const ResourcePtr pods = ResourceRegistry().Find("", "v1", "pods");
  return *pods;
}

Json CreatedPod() {
  return Json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "job-7-0", "namespace": "load", "uid": "u-7",
                 "labels": {"gpupool.dev/job": "job-7", "gpupool.dev/replica": "0"},
                 "annotations": {"gpupool.dev/placement": "node-3:0"},
                 "ownerReferences": [{"apiVersion": "gpupool.dev/v1alpha1", "kind": "TrainingJob",
                                      "name": "job-7", "uid": "j-7", "controller": true}]},
    "spec": {"schedulerName": "default-scheduler", "priorityClassName": "gpupool-train",
             "nodeSelector": {"kubernetes.io/hostname": "node-3"},
             "restartPolicy": "Never",
             "containers": [{"name": "main", "image": "trainer:1",
                             "command": ["python", "train.py"],
                             "env": [{"name": "RANK", "value": "0"}, {"name": "WORLD", "value": "1"}],
                             "resources": {"limits": {"nvidia.com/gpu": "1"},
                                           "requests": {"cpu": "1", "memory": "1Gi"}}}]},
    "status": {"phase": "Pending"}})");
}

// The pod after its create, binding and first kubelet status, with the
// managedFields those writes recorded.
Json RunningPod(const ResourceType& pods) {
  Json created = CreatedPod();
  TrackUpdate(pods, nullptr, created, "gpupool-controller", "");
  Json bound = created;
  bound["spec"]["nodeName"] = "node-3";
  TrackUpdate(pods, &created, bound, "kube-scheduler", "binding");
  Json running = bound;
  running["status"] = Json::parse(R"({"phase": "Running", "hostIP": "10.0.0.3",
      "podIP": "10.1.3.7", "startTime": "2026-11-26T12:00:00Z",
      "conditions": [{"type": "Ready", "status": "True"},
                     {"type": "PodScheduled", "status": "True"}],
      "containerStatuses": [{"name": "main", "ready": true, "restartCount": 0,
                             "state": {"running": {"startedAt": "2026-11-26T12:00:01Z"}}}]})");
  TrackUpdate(pods, &bound, running, "kubelet", "status");
  return running;
}

// Times recording one write by `manager` through `subresource` of the running
// pod changed by `change`.
void TimeWrite(benchmark::State& state, const std::function<void(Json&)>& change,
               const std::string& manager, const std::string& subresource) {
  const ResourceType& pods = Pods();
  const Json old = RunningPod(pods);
  Json changed = old;
  change(changed);
  for (auto _ : state) {
    Json object = changed;
    TrackUpdate(pods, &old, object, manager, subresource);
    benchmark::DoNotOptimize(object);
  }
}

// The controller's create of the pod: every field it sets becomes its own.
void BM_TrackPodCreate(benchmark::State& state) {
  const ResourceType& pods = Pods();
  const Json created = CreatedPod();
  for (auto _ : state) {
    Json object = created;
    TrackUpdate(pods, nullptr, object, "gpupool-controller", "");
    benchmark::DoNotOptimize(object);
  }
}
BENCHMARK(BM_TrackPodCreate);

// One more kubelet status write: the container restarted.
void BM_TrackKubeletStatusWrite(benchmark::State& state) {
  TimeWrite(
      state, [](Json& pod) { pod["status"]["containerStatuses"][0]["restartCount"] = 1; },
      "kubelet", "status");
}
BENCHMARK(BM_TrackKubeletStatusWrite);

// A label the controller adds through the main resource.
void BM_TrackControllerLabelWrite(benchmark::State& state) {
  TimeWrite(
      state, [](Json& pod) { pod["metadata"]["labels"]["gpupool.dev/idle"] = "true"; },
      "gpupool-controller", "");
}
BENCHMARK(BM_TrackControllerLabelWrite);

// The copy of the object each iteration makes, to subtract from the above.
void BM_CopyPod(benchmark::State& state) {
  const Json old = RunningPod(Pods());
  for (auto _ : state) {
    Json object = old;
    benchmark::DoNotOptimize(object);
  }
}
BENCHMARK(BM_CopyPod);

// The copy BM_TrackPodCreate makes, to subtract from it.
void BM_CopyCreatedPod(benchmark::State& state) {
  const Json created = CreatedPod();
  for (auto _ : state) {
    Json object = created;
    benchmark::DoNotOptimize(object);
  }
}
BENCHMARK(BM_CopyCreatedPod);

}  // namespace
}  // namespace gpupool::sandbox

BENCHMARK_MAIN();
