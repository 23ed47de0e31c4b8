#include "view_builder.h"

namespace gpupool::op::testing {

ViewBuilder& ViewBuilder::Node(const std::string& name, int gpus, const std::string& pool,
                               bool ready) {
  NodeObject node;
  node.name = name;
  node.labels = {{"pool", pool}, {"kubernetes.io/hostname", name}};
  node.gpus = gpus;
  node.cpu_milli = 64'000;
  node.memory_bytes = 512LL << 30;
  node.ready = ready;
  view_.nodes.push_back(std::make_shared<const NodeObject>(node));
  return *this;
}

ViewBuilder& ViewBuilder::Cordon(const std::string& name) {
  for (auto& node : view_.nodes) {
    if (node->name != name) continue;
    auto cordoned = std::make_shared<NodeObject>(*node);
    cordoned->unschedulable = true;
    node = cordoned;
  }
  return *this;
}

ViewBuilder& ViewBuilder::GpuReadings(utilization::SharedReadings readings) {
  view_.gpu_readings = std::move(readings);
  return *this;
}

ViewBuilder& ViewBuilder::Queue(const std::string& name, const std::string& pool,
                                const std::string& sharing, const Json& idle) {
  Json object = {{"apiVersion", "gpupool.dev/v1alpha1"},
                 {"kind", "Queue"},
                 {"metadata", {{"name", name}, {"uid", "uid-" + name}, {"generation", 1}}},
                 {"spec", {{"sharing", sharing}, {"nodeSelector", {{"pool", pool}}}}}};
  if (!idle.is_null()) object["spec"]["idle"] = idle;
  view_.queues.push_back(std::make_shared<const QueueObject>(DecodeQueueObject(object)));
  return *this;
}

ViewBuilder& ViewBuilder::Project(const std::string& name, const std::string& ns, int gpu,
                                  const std::string& queue) {
  const Json object = {
      {"apiVersion", "gpupool.dev/v1alpha1"},
      {"kind", "Project"},
      {"metadata", {{"name", name}, {"uid", "uid-" + name}, {"generation", 1}}},
      {"spec", {{"namespaces", {ns}}, {"quotas", {{{"queue", queue}, {"gpu", gpu}}}}}}};
  view_.projects.push_back(std::make_shared<const ProjectObject>(DecodeProjectObject(object)));
  return *this;
}

ViewBuilder& ViewBuilder::Department(const std::string& name, int gpu, int limit,
                                     const std::string& queue) {
  Json quota = {{"queue", queue}, {"gpu", gpu}};
  if (limit >= 0) quota["limit"] = limit;
  const Json object = {{"apiVersion", "gpupool.dev/v1alpha1"},
                       {"kind", "Department"},
                       {"metadata", {{"name", name}, {"uid", "uid-" + name}, {"generation", 1}}},
                       {"spec", {{"quotas", {quota}}}}};
  view_.departments.push_back(
      std::make_shared<const DepartmentObject>(DecodeDepartmentObject(object)));
  return *this;
}

namespace {

// Rewrites, through `edit`, the JSON of each object named `name` in `objects`,
// decoding it again with `decode`.
template <typename Object, typename Decode, typename Edit>
void EditObject(std::vector<std::shared_ptr<const Object>>& objects, const std::string& name,
                Decode decode, Edit edit) {
  for (auto& shared : objects) {
    if (shared->object.metadata.name != name) continue;
    Json object = api::ToJson(shared->object);
    edit(object);
    shared = std::make_shared<const Object>(decode(object));
  }
}

}  // namespace

ViewBuilder& ViewBuilder::ProjectCreatedAt(const std::string& project, EpochSeconds when) {
  EditObject(view_.projects, project, DecodeProjectObject,
             [&](Json& object) { object["metadata"]["creationTimestamp"] = FormatTime(when); });
  return *this;
}

ViewBuilder& ViewBuilder::QueueCreatedAt(const std::string& queue, EpochSeconds when) {
  EditObject(view_.queues, queue, DecodeQueueObject,
             [&](Json& object) { object["metadata"]["creationTimestamp"] = FormatTime(when); });
  return *this;
}

namespace {

void SetReady(Json& object, const std::string& reason) {
  object["status"]["conditions"] = {{{"type", "Ready"},
                                     {"status", reason == "Valid" ? "True" : "False"},
                                     {"reason", reason},
                                     {"message", reason}}};
}

}  // namespace

ViewBuilder& ViewBuilder::ProjectReadyAs(const std::string& project, const std::string& reason) {
  EditObject(view_.projects, project, DecodeProjectObject,
             [&](Json& object) { SetReady(object, reason); });
  return *this;
}

ViewBuilder& ViewBuilder::QueueReadyAs(const std::string& queue, const std::string& reason) {
  EditObject(view_.queues, queue, DecodeQueueObject,
             [&](Json& object) { SetReady(object, reason); });
  return *this;
}

ViewBuilder& ViewBuilder::InDepartment(const std::string& project, const std::string& department) {
  EditObject(view_.projects, project, DecodeProjectObject,
             [&](Json& object) { object["spec"]["department"] = department; });
  return *this;
}

ViewBuilder& ViewBuilder::Job(const std::string& ns, const std::string& name, int replicas,
                              const Json& gpus, const Json& status, const std::string& queue) {
  Json object = {
      {"apiVersion", "gpupool.dev/v1alpha1"},
      {"kind", "TrainingJob"},
      {"metadata",
       {{"name", name},
        {"namespace", ns},
        {"uid", UidOf(ns, name)},
        {"generation", 1},
        {"resourceVersion", "7"},
        {"creationTimestamp", FormatTime(view_.now - 60)}}},
      {"spec",
       {{"queue", queue},
        {"replicas", replicas},
        {"gpusPerReplica", gpus},
        {"template", {{"spec", {{"containers", {{{"name", "main"}, {"image", "trainer"}}}}}}}}}}};
  if (!status.is_null()) object["status"] = status;
  return RawJob(object);
}

ViewBuilder& ViewBuilder::RawJob(const Json& object) {
  view_.jobs.push_back(std::make_shared<const JobObject>(DecodeJobObject(object)));
  return *this;
}

ViewBuilder& ViewBuilder::JobPod(const std::string& ns, const std::string& job, int replica,
                                 const std::string& node, const std::string& phase, bool gated,
                                 int gpus, bool terminating) {
  PodView pod;
  pod.ns = ns;
  pod.name = job + "-" + std::to_string(replica);
  pod.uid = "pod-" + pod.name;
  pod.job = job;
  pod.owner_uid = UidOf(ns, job);
  pod.replica = replica;
  pod.gpu_milli = gpus * 1000;
  pod.gate_index = gated ? 0 : -1;
  pod.gates = gated ? 1 : 0;
  pod.has_node_selector = !gated;
  pod.pinned = gated ? "" : node;
  pod.node = gated ? "" : node;
  pod.phase = phase == "Running"     ? PodPhase::kRunning
              : phase == "Succeeded" ? PodPhase::kSucceeded
              : phase == "Failed"    ? PodPhase::kFailed
                                     : PodPhase::kPending;
  pod.terminating = terminating;
  view_.pods.push_back(std::make_shared<const PodView>(pod));
  return *this;
}

ViewBuilder& ViewBuilder::FractionPod(const std::string& ns, const std::string& job,
                                      const std::string& node, const std::string& device) {
  JobPod(ns, job, 0, node, "Running", false, 0);
  PodView pod = *view_.pods.back();
  pod.gpu_device = device;
  view_.pods.back() = std::make_shared<const PodView>(pod);
  return *this;
}

ViewBuilder& ViewBuilder::ReservationPod(const std::string& ns, const std::string& node, int slot,
                                         const std::string& visible_devices, bool bound,
                                         bool terminating) {
  PodView pod;
  pod.ns = ns;
  pod.name = "gpupool-reservation-" + node + "-" + std::to_string(slot);
  pod.uid = "pod-" + pod.name;
  pod.reservation_slot = slot;
  pod.pinned = node;
  pod.has_node_selector = true;
  pod.node = bound ? node : "";
  pod.gpu_milli = 1000;
  pod.visible_devices = visible_devices;
  pod.phase = bound && !visible_devices.empty() ? PodPhase::kRunning : PodPhase::kPending;
  pod.terminating = terminating;
  view_.pods.push_back(std::make_shared<const PodView>(pod));
  return *this;
}

ViewBuilder& ViewBuilder::SetPodPhase(const std::string& ns, const std::string& name,
                                      PodPhase phase) {
  for (auto& pod : view_.pods) {
    if (pod->ns != ns || pod->name != name) continue;
    auto changed = std::make_shared<PodView>(*pod);
    changed->phase = phase;
    pod = changed;
  }
  return *this;
}

ViewBuilder& ViewBuilder::ForeignPod(const std::string& ns, const std::string& name,
                                     const std::string& node, int gpus,
                                     const std::string& job_label) {
  PodView pod;
  pod.ns = ns;
  pod.name = name;
  pod.job = job_label;
  pod.uid = "pod-" + name;
  pod.node = node;
  pod.gpu_milli = gpus * 1000;
  pod.phase = PodPhase::kRunning;
  view_.pods.push_back(std::make_shared<const PodView>(pod));
  return *this;
}

ViewBuilder& ViewBuilder::RawPod(const Json& object) {
  view_.pods.push_back(std::make_shared<const PodView>(DecodePodView(object)));
  return *this;
}

ViewBuilder& ViewBuilder::BatchJob(const std::string& ns, const std::string& uid, int parallelism,
                                   int completions, EpochSeconds created) {
  Json job = {{"metadata", {{"name", uid}, {"namespace", ns}, {"uid", uid}}},
              {"spec", {{"parallelism", parallelism}}}};
  if (created > 0) job["metadata"]["creationTimestamp"] = FormatTime(created);
  if (completions >= 0) job["spec"]["completions"] = completions;
  return Owner("Job", job);
}

ViewBuilder& ViewBuilder::Owner(const std::string& kind, const Json& object) {
  for (const OwnerKind& known : OwnerKinds())
    if (known.kind == kind)
      view_.owners.push_back(std::make_shared<const OwnerObject>(DecodeOwnerObject(object, known)));
  return *this;
}

Json HoldingStatus(const std::string& phase, const std::string& node, std::vector<int> devices,
                   EpochSeconds admitted, const std::string& project) {
  return {{"phase", phase},
          {"project", project},
          {"queuedTime", FormatTime(admitted - 10)},
          {"admittedTime", FormatTime(admitted)},
          {"allocatedGpu", static_cast<int>(devices.size())},
          {"placement", {{{"replica", 0}, {"node", node}, {"devices", devices}}}}};
}

}  // namespace gpupool::op::testing
