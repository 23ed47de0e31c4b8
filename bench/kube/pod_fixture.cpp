#include "pod_fixture.h"

namespace gpupool::kube::bench {

nlohmann::json MakePod(int index, int resource_version) {
  std::string job = "sweep-" + std::to_string(index / 8);
  std::string name = job + "-worker-" + std::to_string(index % 8);
  using Json = nlohmann::json;
  Json condition = {{"type", "Ready"},
                    {"status", "True"},
                    {"lastProbeTime", nullptr},
                    {"lastTransitionTime", "2026-11-20T10:00:00Z"}};
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"namespace", "team-" + std::to_string(index % 20)},
        {"uid", "3f1c2a9e-0000-4000-8000-" + std::to_string(100000000000 + index)},
        {"resourceVersion", std::to_string(resource_version)},
        {"creationTimestamp", "2026-11-20T10:00:00Z"},
        {"labels", {{"gpupool.dev/job", job}, {"gpupool.dev/queue", "train"}, {"app", "trainer"}}},
        {"annotations", {{"gpupool.dev/device", "0"}}},
        {"ownerReferences", Json::array({{{"apiVersion", "gpupool.dev/v1alpha1"},
                                          {"kind", "TrainingJob"},
                                          {"name", job},
                                          {"uid", "7a7a7a7a-1111-4222-8333-444455556666"},
                                          {"controller", true},
                                          {"blockOwnerDeletion", true}}})}}},
      {"spec",
       {{"nodeName", "gpu-node-" + std::to_string(index % 500)},
        {"schedulerName", "default-scheduler"},
        {"priorityClassName", "gpupool-train"},
        {"restartPolicy", "Never"},
        {"containers",
         Json::array(
             {{{"name", "trainer"},
               {"image", "registry.example.com/ml/trainer:2.3.1"},
               {"command", Json::array({"python", "train.py", "--epochs=30"})},
               {"env", Json::array({{{"name", "WORLD_SIZE"}, {"value", "8"}},
                                    {{"name", "RANK"}, {"value", std::to_string(index % 8)}},
                                    {{"name", "MASTER_ADDR"}, {"value", job + "-0." + job}}})},
               {"resources",
                {{"requests", {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "1"}}},
                 {"limits", {{"nvidia.com/gpu", "1"}}}}}}})},
        {"tolerations",
         Json::array(
             {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})},
        {"nodeSelector", {{"gpupool.dev/pool", "train"}}}}},
      {"status",
       {{"phase", "Running"},
        {"podIP", "10.1.2.3"},
        {"startTime", "2026-11-20T10:00:05Z"},
        {"conditions", Json::array({condition, condition, condition})}}}};
}

std::string MakeWatchStream(int count, int distinct_pods) {
  std::string stream;
  for (int i = 0; i < count; ++i) {
    nlohmann::json event = {{"type", i < distinct_pods ? "ADDED" : "MODIFIED"},
                            {"object", MakePod(i % distinct_pods, 1000 + i)}};
    stream += event.dump();
    stream += '\n';
  }
  return stream;
}

api::Pod DecodeApiPod(const nlohmann::json& object) {
  json::FieldErrors errors;
  return api::DecodePod(object, errors);
}

}  // namespace gpupool::kube::bench
