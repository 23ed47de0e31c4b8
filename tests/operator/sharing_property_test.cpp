// Fractions next to the device plugin, at the level of the controller's plan and
// the sandbox's simulated device plugin: one node of 8 GPUs, whole-GPU jobs and
// fractions submitted and finished in random order for 1,000 steps. Each step
// runs PlanCycle until it has nothing left to write, applying its writes to an
// in-memory cluster whose kubelet binds released pods and whose device plugin
// (sandbox/nodes/device_plugin.h) gives each GPU pod devices no other live pod holds,
// admitting pods in random order.
// After every step: no physical device is given both to a whole-GPU pod and to
// fractions, the fractions on a device sum to at most 1, and every device
// fractions use is held by their reservation pod. Each cycle is planned from
// the cluster alone, as a freshly restarted controller would plan it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "gpupool/json/quantity.h"
#include "gpupool/operator/plan.h"
#include "sandbox/nodes/device_plugin.h"
#include "sandbox/nodes/kubelet.h"
#include "view_builder.h"

namespace gpupool::op {
namespace {

constexpr EpochSeconds kStart = 1'800'000'000;
constexpr int kGpus = 8;
constexpr char kNode[] = "node-0";
constexpr char kSystem[] = "gpupool-system";

std::string Key(const Json& object) {
  return object["metadata"].value("namespace", "") + "/" + object["metadata"].value("name", "");
}

class SharingWorld {
 public:
  explicit SharingWorld(unsigned seed) : random_(seed) { options_.reservation_namespace = kSystem; }

  void Submit(const std::string& gpus) {
    const std::string name = "job-" + std::to_string(next_++);
    jobs_[name] = {
        {"apiVersion", "gpupool.dev/v1alpha1"},
        {"kind", "TrainingJob"},
        {"metadata",
         {{"name", name},
          {"namespace", "ana"},
          {"uid", "uid-" + name},
          {"generation", 1},
          {"resourceVersion", "1"},
          {"creationTimestamp", FormatTime(now_)}}},
        {"spec",
         {{"queue", "build"},
          {"workloadClass", "Build"},
          {"replicas", 1},
          {"gpusPerReplica", gpus},
          {"template", {{"spec", {{"containers", {{{"name", "main"}, {"image", "x"}}}}}}}}}}};
  }

  // Ends the pod of one running job (it succeeds), if any runs.
  void FinishOne() {
    std::vector<std::string> running;
    for (const auto& [key, pod] : pods_)
      if (pod["metadata"]["labels"].contains(kJobLabel) &&
          pod["status"].value("phase", "") == "Running")
        running.push_back(key);
    if (running.empty()) return;
    pods_[running[random_() % running.size()]]["status"]["phase"] = "Succeeded";
  }

  // Cycles until the controller has nothing to write (a cluster at rest).
  void Settle() {
    for (int round = 0; round < 12; ++round) {
      now_ += 1;
      const Plan plan = PlanCycle(View(), options_);
      const bool wrote = Apply(plan);
      RunKubelet();
      ForgetFinishedJobs();
      if (!wrote) return;
    }
  }

  // "" when sound, else what is wrong.
  std::string Check() const {
    std::map<int, std::string> holder;  // Device -> the pod the device plugin gave it to.
    std::map<std::string, int> reserved;
    std::set<int> whole;
    for (const auto& [key, pod] : pods_) {
      if (Finished(pod)) continue;
      const Json annotations = pod["metadata"].value("annotations", Json::object());
      for (int device :
           sandbox::ParseDevices(annotations.value(sandbox::kVisibleDevicesAnnotation, ""))) {
        if (holder.count(device)) return "device " + std::to_string(device) + " given twice";
        holder[device] = key;
        if (pod["metadata"]["labels"].contains(kReservationLabel)) {
          reserved[sandbox::DeviceUuid(kNode, device)] = device;
        } else {
          whole.insert(device);
        }
      }
    }
    std::map<std::string, std::int64_t> shares;
    for (const auto& [key, pod] : pods_) {
      const Json annotations = pod["metadata"].value("annotations", Json::object());
      if (Finished(pod) || !annotations.contains(kDeviceAnnotation)) continue;
      const std::string device = annotations[kDeviceAnnotation];
      std::string error;
      shares[device] +=
          json::ParseMilli(annotations.value(kFractionAnnotation, ""), &error).value_or(0);
      if (!reserved.count(device)) return key + " runs on device " + device + ", not reserved";
      if (whole.count(reserved[device])) return "device " + device + " is whole and shared";
    }
    for (const auto& [device, milli] : shares)
      if (milli > 1000) return "fractions on device " + device + " sum to " + std::to_string(milli);
    return "";
  }

  // Reservation pods whose device no live fraction uses (none once settled).
  int IdleReservations() const {
    std::set<std::string> used;
    for (const auto& [key, pod] : pods_) {
      const Json annotations = pod["metadata"].value("annotations", Json::object());
      if (!Finished(pod) && annotations.contains(kDeviceAnnotation))
        used.insert(annotations[kDeviceAnnotation].get<std::string>());
    }
    int idle = 0;
    for (const auto& [key, pod] : pods_) {
      if (!pod["metadata"]["labels"].contains(kReservationLabel)) continue;
      const Json annotations = pod["metadata"].value("annotations", Json::object());
      idle += !used.count(annotations.value(sandbox::kVisibleDevicesAnnotation, "?"));
    }
    return idle;
  }

  std::size_t Jobs() const { return jobs_.size(); }
  std::mt19937& random() { return random_; }
  int running_fractions = 0, running_whole = 0;  // Most seen at once.

 private:
  static bool Finished(const Json& pod) {
    const std::string phase = pod["status"].value("phase", "Pending");
    return phase == "Succeeded" || phase == "Failed";
  }

  ClusterView View() const {
    testing::ViewBuilder b(now_);
    b.Node(kNode, kGpus, "build").Queue("build", "build");
    b.Project("ana", "ana", kGpus, "build");
    ClusterView view = b.view();
    for (const auto& [name, job] : jobs_)
      view.jobs.push_back(std::make_shared<const JobObject>(DecodeJobObject(job)));
    for (const auto& [key, pod] : pods_)
      view.pods.push_back(std::make_shared<const PodView>(DecodePodView(pod)));
    return view;
  }

  void AddPod(Json pod) {
    const std::string key = Key(pod);
    if (pods_.count(key)) return;  // AlreadyExists
    pod["metadata"]["uid"] = "pod-uid-" + std::to_string(next_++);
    pod["status"] = {{"phase", "Pending"}};
    pods_[key] = std::move(pod);
  }

  bool Apply(const Plan& plan) {
    for (const auto* writes : plan.StatusWrites())
      for (const StatusWrite& write : *writes)
        if (write.kind == Kind::kTrainingJob && jobs_.count(write.name))
          jobs_[write.name]["status"].merge_patch(write.patch["status"]);
    for (const PodDelete& remove : plan.pod_deletes) pods_.erase(remove.ns + "/" + remove.name);
    for (const Json& pod : plan.reservation_pods) AddPod(pod);
    for (const PodCreate& create : plan.pod_creates) AddPod(create.Pod());
    for (const PodRelease& release : plan.pod_releases) {
      auto it = pods_.find(release.ns + "/" + release.name);
      if (it != pods_.end()) it->second = it->second.patch(release.patch);
    }
    return !plan.pod_deletes.empty() || !plan.reservation_pods.empty() ||
           !plan.pod_creates.empty() || !plan.pod_releases.empty() ||
           !plan.admission_statuses.empty() || !plan.releasing_statuses.empty();
  }

  // Binds released pods where the node has room (as kube-scheduler would), lets
  // the device plugin give GPU pods their devices, and starts them.
  void RunKubelet() {
    std::int64_t used = 0;
    std::set<int> taken;
    for (const auto& [key, pod] : pods_) {
      if (Finished(pod) || !pod["spec"].contains("nodeName")) continue;
      used += DecodePodView(pod).gpu_milli;
      const Json annotations = pod["metadata"].value("annotations", Json::object());
      for (int d : sandbox::ParseDevices(annotations.value(sandbox::kVisibleDevicesAnnotation, "")))
        taken.insert(d);
    }
    // The kubelet admits pods in no particular order, so the devices the device
    // plugin gives follow no order the engine's device slots follow either.
    std::vector<Json*> waiting;
    for (auto& [key, pod] : pods_) waiting.push_back(&pod);
    std::shuffle(waiting.begin(), waiting.end(), random_);
    for (Json* waiting_pod : waiting) {
      Json& pod = *waiting_pod;
      const PodView view = DecodePodView(pod);
      if (view.gates > 0 || !view.node.empty() || view.pinned != kNode || Finished(pod)) continue;
      if (used + view.gpu_milli > kGpus * 1000) continue;
      if (view.gpu_milli > 0) {
        const auto devices = sandbox::PickDevices(kGpus, taken, view.gpu_milli / 1000);
        if (devices.empty()) continue;
        taken.insert(devices.begin(), devices.end());
        pod["metadata"]["annotations"][sandbox::kVisibleDevicesAnnotation] =
            sandbox::FormatDevices(kNode, devices);
      }
      used += view.gpu_milli;
      pod["spec"]["nodeName"] = kNode;
      sandbox::MarkRunning(pod, Key(pod));  // A reservation's report is its init container's.
    }
    int fractions = 0, whole = 0;
    for (const auto& [key, pod] : pods_) {
      if (pod["status"].value("phase", "") != "Running" ||
          !pod["metadata"]["labels"].contains(kJobLabel))
        continue;
      DecodePodView(pod).gpu_milli > 0 ? ++whole : ++fractions;
    }
    running_fractions = std::max(running_fractions, fractions);
    running_whole = std::max(running_whole, whole);
  }

  // A finished job is deleted with its pods (as its owner reference deletes them).
  void ForgetFinishedJobs() {
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      const std::string phase = it->second.value("status", Json::object()).value("phase", "");
      if (phase != "Succeeded" && phase != "Failed") {
        ++it;
        continue;
      }
      std::erase_if(pods_, [&](const auto& entry) {
        return entry.second["metadata"]["labels"].value(kJobLabel, "") == it->first;
      });
      it = jobs_.erase(it);
    }
  }

  std::mt19937 random_;
  PlanOptions options_;
  EpochSeconds now_ = kStart;
  int next_ = 0;
  std::map<std::string, Json> jobs_;
  std::map<std::string, Json> pods_;  // "namespace/name"
};

TEST(SharingProperty, WholeGpusAndFractionsNeverShareADeviceOver1000RandomSteps) {
  const std::vector<std::string> sizes = {"1", "2", "1", "0.5", "0.25", "0.5", "0.75", "0.3"};
  SharingWorld world(20261125);
  for (int step = 0; step < 1000; ++step) {
    if (world.random()() % 100 < 55 && world.Jobs() < 24) {
      world.Submit(sizes[world.random()() % sizes.size()]);
    } else {
      world.FinishOne();
    }
    world.Settle();
    const std::string problem = world.Check();
    ASSERT_EQ(problem, "") << "step " << step;
    ASSERT_EQ(world.IdleReservations(), 0) << "step " << step;
  }
  // The mix really happened: whole GPUs and fractions ran side by side.
  EXPECT_GE(world.running_fractions, 3);
  EXPECT_GE(world.running_whole, 2);
}

}  // namespace
}  // namespace gpupool::op
