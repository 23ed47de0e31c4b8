// Every GPU a replica's pod can hold is charged: random hostile pod templates
// (GPUs and other device resources in containers, init containers and native
// sidecars, limits without requests and requests without limits, several
// containers, dynamic resource claims, ephemeral containers) go through the
// controller's plan, and each pod it would create holds at most the devices
// its job is charged for, gpusPerReplica: no other device resource, no claim.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "gpupool/json/quantity.h"
#include "gpupool/operator/plan.h"
#include "view_builder.h"

namespace gpupool::op {
namespace {

using testing::ViewBuilder;

using testing::kNow;
constexpr int kTemplates = 2'000;

class HostileTemplates {
 public:
  explicit HostileTemplates(unsigned seed) : random_(seed) {}

  Json Template() {
    Json spec = {{"containers", Containers("main", 1 + Below(3), false)}};
    if (Below(3) == 0) spec["initContainers"] = Containers("init", 1 + Below(2), true);
    if (Below(10) == 0)
      spec["resourceClaims"] = {{{"name", "gpus"}, {"resourceClaimTemplateName", "eight"}}};
    if (Below(20) == 0) spec["ephemeralContainers"] = {{{"name", "debug"}, {"image", "x"}}};
    return {{"spec", spec}};
  }
  Json Gpus() {
    static const Json choices[] = {1, 2, 4, "0.5"};
    return choices[Below(4)];
  }

 private:
  int Below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }

  Json Resources() {
    static const char* const kNames[] = {"nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "amd.com/gpu",
                                         "cpu"};
    Json resources = Json::object();
    for (const char* kind : {"requests", "limits"}) {
      if (Below(2)) continue;
      for (const char* name : kNames)
        if (Below(3) == 0) resources[kind][name] = std::to_string(1 + Below(8));
    }
    if (Below(15) == 0) resources["claims"] = {{{"name", "gpus"}}};
    return resources;
  }
  Json Containers(const std::string& prefix, int count, bool init) {
    Json list = Json::array();
    for (int i = 0; i < count; ++i) {
      Json container = {{"name", prefix + std::to_string(i)}, {"image", "x"}};
      if (Below(4)) container["resources"] = Resources();
      if (init && Below(2)) container["restartPolicy"] = "Always";  // A native sidecar.
      list.push_back(container);
    }
    return list;
  }

  std::mt19937 random_;
};

Json Job(const Json& gpus, const Json& pod_template) {
  return {{"apiVersion", "gpupool.dev/v1alpha1"},
          {"kind", "TrainingJob"},
          {"metadata",
           {{"name", "probe"},
            {"namespace", "susan"},
            {"uid", ViewBuilder::UidOf("susan", "probe")},
            {"generation", 1},
            {"creationTimestamp", FormatTime(kNow - 10)}}},
          {"spec", {{"queue", "train"}, {"gpusPerReplica", gpus}, {"template", pod_template}}}};
}

// Device resources `pod` can be given in all (every container of every kind
// counted, the larger of request and limit), and whether it claims devices.
struct Held {
  std::int64_t gpus = 0, other_devices = 0;
  bool claims = false;
};

Held DevicesOf(const Json& pod) {
  Held held;
  const Json& spec = pod["spec"];
  held.claims = spec.contains("resourceClaims") || spec.contains("ephemeralContainers");
  for (const char* list : {"containers", "initContainers"}) {
    for (const Json& container : spec.value(list, Json::array())) {
      const Json resources = container.value("resources", Json::object());
      held.claims = held.claims || resources.contains("claims");
      std::map<std::string, std::int64_t> most;
      for (const char* kind : {"requests", "limits"}) {
        const Json amounts = resources.value(kind, Json::object());
        for (const auto& [name, amount] : amounts.items())
          most[name] = std::max(most[name], *json::ParseMilli(amount.get<std::string>(), nullptr));
      }
      for (const auto& [name, milli] : most) {
        if (name == "nvidia.com/gpu")
          held.gpus += milli / 1000;
        else if (name != "cpu" && name != "memory")
          held.other_devices += milli;
      }
    }
  }
  return held;
}

TEST(TemplateChargeProperty, NoPodHoldsADeviceItsJobIsNotChargedFor) {
  HostileTemplates hostile(20261129);
  int created = 0;
  for (int i = 0; i < kTemplates; ++i) {
    const Json gpus = hostile.Gpus();
    const Json job = Job(gpus, hostile.Template());
    ViewBuilder b(kNow);
    b.Node("node-0", 8, "train").Queue("train", "train").Project("susan", "susan", 8);
    b.RawJob(job);
    const Plan plan = PlanCycle(b.view(), {});
    const std::int64_t charged = gpus.is_number() ? gpus.get<std::int64_t>() : 0;
    for (const PodCreate& create : plan.pod_creates) {
      ++created;
      const Held held = DevicesOf(create.Pod());
      EXPECT_LE(held.gpus, charged) << job.dump();
      EXPECT_EQ(held.other_devices, 0) << job.dump();
      EXPECT_FALSE(held.claims) << job.dump();
    }
  }
  // Not every template is refused: the property is checked on pods.
  EXPECT_GT(created, kTemplates / 10);
}

}  // namespace
}  // namespace gpupool::op
