#include "pod_group_rows.h"

#include <algorithm>
#include <cctype>

#include "gpupool/json/quantity.h"
#include "gpupool/operator/pod_view.h"

namespace gpupool::cli {
namespace {

using op::PodPhase;
using op::PodView;

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// "group/ddp", "job/sweep", "pod/notebook": a Deployment's or StatefulSet's
// replicas are each a workload of their own.
std::string WorkloadName(const PodView& pod) {
  const op::PodRequest& request = *pod.request;
  if (!request.group.empty()) return "group/" + request.group;
  const bool replica = request.owner_kind == "ReplicaSet" || request.owner_kind == "StatefulSet";
  if (!request.owner_kind.empty() && !request.owner_name.empty() && !replica)
    return Lower(request.owner_kind) + "/" + request.owner_name;
  return "pod/" + pod.name;
}

bool Live(const PodView& pod) { return !pod.terminating && !pod.Finished(); }
bool Released(const PodView& pod) { return pod.gate_index < 0 && pod.request->admission_record; }

std::string PhaseOf(const std::vector<const PodView*>& pods) {
  std::vector<const PodView*> live;
  for (const PodView* pod : pods)
    if (Live(*pod)) live.push_back(pod);
  if (live.empty()) {
    const bool failed = std::any_of(pods.begin(), pods.end(), [](const PodView* pod) {
      return pod->phase == PodPhase::kFailed;
    });
    return failed ? "Failed" : "Succeeded";
  }
  const auto released =
      std::count_if(live.begin(), live.end(), [](const PodView* pod) { return Released(*pod); });
  if (released == 0) return "Queued";
  const auto running = std::count_if(live.begin(), live.end(), [](const PodView* pod) {
    return Released(*pod) && pod->phase == PodPhase::kRunning;
  });
  return running == static_cast<std::ptrdiff_t>(live.size()) ? "Running" : "Admitted";
}

std::int64_t MilliOf(const PodView& pod) {
  if (pod.request->fraction.empty()) return pod.gpu_milli;
  std::string error;
  return json::ParseMilli(pod.request->fraction, &error).value_or(0);
}

JobRow RowOf(const std::string& name, const std::vector<const PodView*>& pods,
             const std::map<std::string, std::string>& project_of_namespace, op::EpochSeconds now) {
  const PodView& first = *pods.front();
  JobRow row;
  row.kind = "PodGroup";
  row.ns = first.ns;
  row.name = name;
  const auto project = project_of_namespace.find(first.ns);
  if (project != project_of_namespace.end()) row.project = project->second;
  row.queue = first.request->queue;
  row.workload_class = first.request->workload_class;
  row.phase = PhaseOf(pods);
  std::int64_t asked = 0, held = 0;
  for (const PodView* pod : pods) {
    if (!Live(*pod)) continue;
    asked += MilliOf(*pod);
    if (Released(*pod)) held += MilliOf(*pod);
    if (Released(*pod) && pod->request->admission_record->over_quota) row.over_quota = true;
    if (row.reason.empty()) row.reason = pod->request->admission.message;
    const std::string& created = pod->request->created;
    if (row.queued_time.empty() || created < row.queued_time) row.queued_time = created;
  }
  row.gpus = json::FormatDecimal(asked);
  if (held > 0) row.allocated = json::FormatDecimal(held);
  const auto created = op::ParseTime(row.queued_time);
  row.age_seconds = created ? std::max<op::EpochSeconds>(0, now - *created) : 0;
  return row;
}

}  // namespace

std::vector<JobRow> PodGroupRows(const nlohmann::json& pods,
                                 const std::map<std::string, std::string>& project_of_namespace,
                                 op::EpochSeconds now) {
  std::vector<PodView> views;
  views.reserve(pods.size());
  for (const auto& pod : pods) {
    PodView view = op::DecodePodView(pod);
    if (view.Asks()) views.push_back(std::move(view));
  }
  std::map<std::pair<std::string, std::string>, std::vector<const PodView*>> groups;
  for (const PodView& view : views) groups[{view.ns, WorkloadName(view)}].push_back(&view);
  std::vector<JobRow> rows;
  for (const auto& [key, members] : groups)
    rows.push_back(RowOf(key.second, members, project_of_namespace, now));
  return rows;
}

}  // namespace gpupool::cli
