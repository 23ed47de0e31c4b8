// API semantics checked in-process, straight on the Cluster.
#include "sandbox/cluster.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpupool/json/yaml.h"
#include "sandbox/api_error.h"
#include "sandbox/sandbox.h"
#include "sandbox_process.h"

namespace gpupool::sandbox {
namespace {

using ::testing::HasSubstr;

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override { Create("", "v1", "namespaces", "", {{"metadata", {{"name", "team"}}}}); }
  Json Create(const std::string& group, const std::string& version, const std::string& plural,
              const std::string& ns, Json object) {
    WriteOptions options;
    return cluster_.Create(*cluster_.Resource(group, version, plural), ns, std::move(object),
                           options);
  }
  Json CreatePod(const std::string& name, Json spec_extra = Json::object()) {
    Json spec = {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}};
    spec.update(spec_extra);
    return Create("", "v1", "pods", "team",
                  {{"metadata", {{"name", name}, {"labels", {{"app", "x"}}}}}, {"spec", spec}});
  }
  Json PatchPod(const std::string& name, const std::string& patch,
                PatchType type = PatchType::kStrategic) {
    WriteOptions options;
    return cluster_.Patch(*cluster_.Resource("", "v1", "pods"), "team", name, type, patch, "",
                          options);
  }
  int ErrorCode(const std::function<void()>& action) {
    try {
      action();
    } catch (const ApiError& error) {
      return error.code;
    }
    return 0;
  }

  Cluster cluster_{ClusterConfig{1000}};
};

TEST_F(ClusterTest, StaleUpdateIsAConflict) {
  const Json created = Create("", "v1", "configmaps", "team",
                              {{"metadata", {{"name", "cm"}}}, {"data", {{"a", "1"}}}});
  const auto configmaps = cluster_.Resource("", "v1", "configmaps");
  Json first = created;
  first["data"]["a"] = "2";
  WriteOptions options;
  const Json updated = cluster_.Update(*configmaps, "team", "cm", first, "", options);
  EXPECT_NE(updated["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
  Json stale = created;
  stale["data"]["a"] = "3";
  try {
    cluster_.Update(*configmaps, "team", "cm", stale, "", options);
    FAIL() << "stale update accepted";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 409);
    EXPECT_EQ(error.reason, "Conflict");
    EXPECT_EQ(StatusJson(error)["details"]["name"], "cm");
  }
  EXPECT_EQ(ErrorCode([&] {
              Create("", "v1", "configmaps", "team", {{"metadata", {{"name", "cm"}}}});
            }),
            409);
}

TEST_F(ClusterTest, SchedulingGatesMayOnlyBeRemoved) {
  const Json pod = CreatePod("gated", {{"schedulingGates", {{{"name", "gpupool.dev/admission"}}}},
                                       {"nodeSelector", {{"pool", "train"}}}});
  EXPECT_EQ(pod["status"]["conditions"][0]["reason"], "SchedulingGated");
  EXPECT_EQ(pod["status"]["conditions"][0]["status"], "False");
  // While gated: nodeSelector may gain keys, but not change existing ones.
  PatchPod("gated", R"({"spec":{"nodeSelector":{"rack":"r1"}}})");
  EXPECT_EQ(ErrorCode([&] { PatchPod("gated", R"({"spec":{"nodeSelector":{"pool":"build"}}})"); }),
            422);
  EXPECT_EQ(ErrorCode([&] {
              PatchPod("gated", R"({"spec":{"schedulingGates":[{"name":"new-gate"}]}})");
            }),
            422);
  EXPECT_EQ(ErrorCode([&] { PatchPod("gated", R"({"spec":{"restartPolicy":"Never"}})"); }), 422);
  const Json ungated = PatchPod(
      "gated",
      R"({"spec":{"schedulingGates":[{"name":"gpupool.dev/admission","$patch":"delete"}]}})");
  EXPECT_FALSE(ungated["spec"].contains("schedulingGates") &&
               !ungated["spec"]["schedulingGates"].empty());
  EXPECT_TRUE(ungated["status"]["conditions"].empty());
  // No longer gated: nodeSelector is immutable again.
  EXPECT_EQ(ErrorCode([&] { PatchPod("gated", R"({"spec":{"nodeSelector":{"zone":"z"}}})"); }),
            422);
}

TEST_F(ClusterTest, GatedNodeAffinityMayOnlyNarrow) {
  const Json term = {
      {"matchExpressions", {{{"key", "pool"}, {"operator", "In"}, {"values", {"train"}}}}}};
  const Json affinity = {
      {"nodeAffinity",
       {{"requiredDuringSchedulingIgnoredDuringExecution", {{"nodeSelectorTerms", {term}}}}}}};
  CreatePod("aff", {{"schedulingGates", {{{"name", "g"}}}}, {"affinity", affinity}});
  Json narrowed = term;
  narrowed["matchExpressions"].push_back({{"key", "rack"}, {"operator", "In"}, {"values", {"r1"}}});
  Json patch = {{"spec",
                 {{"affinity",
                   {{"nodeAffinity",
                     {{"requiredDuringSchedulingIgnoredDuringExecution",
                       {{"nodeSelectorTerms", {narrowed}}}}}}}}}}};
  PatchPod("aff", patch.dump(), PatchType::kMerge);
  patch["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
       ["nodeSelectorTerms"] = Json::array({{{"matchExpressions", Json::array()}}});
  EXPECT_EQ(ErrorCode([&] { PatchPod("aff", patch.dump(), PatchType::kMerge); }), 422);
}

TEST_F(ClusterTest, EvictionHonoursGraceAndDisruptionBudgets) {
  CreatePod("victim");
  const auto pods = cluster_.Resource("", "v1", "pods");
  cluster_.Bind("team", "victim", {{"target", {{"kind", "Node"}, {"name", "n1"}}}});
  cluster_.Mutate(
      *pods, "team", "victim",
      [](Json& pod) {
        pod["status"]["phase"] = "Running";
        return true;
      },
      "status");
  Create("policy", "v1", "poddisruptionbudgets", "team",
         {{"metadata", {{"name", "pdb"}}},
          {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "x"}}}}}}}});
  const Json eviction = {{"metadata", {{"name", "victim"}}},
                         {"deleteOptions", {{"gracePeriodSeconds", 20}}}};
  EXPECT_EQ(ErrorCode([&] { cluster_.Evict("team", "victim", eviction); }), 429);
  WriteOptions options;
  cluster_.Delete(*cluster_.Resource("policy", "v1", "poddisruptionbudgets"), "team", "pdb", {});
  cluster_.Evict("team", "victim", eviction);
  const Json pod = cluster_.Get(*pods, "team", "victim");
  EXPECT_EQ(pod["metadata"]["deletionGracePeriodSeconds"], 20);
  EXPECT_TRUE(pod["metadata"].contains("deletionTimestamp"));
  const Json missing = {{"metadata", {{"name", "missing"}}}};
  EXPECT_EQ(ErrorCode([&] { cluster_.Evict("team", "missing", missing); }), 404);
  // The body must name the pod of the URL.
  EXPECT_EQ(ErrorCode([&] { cluster_.Evict("team", "missing", eviction); }), 400);
}

// As on a real API server, a binding's annotations land on the pod it binds;
// annotations that are not a map of strings, or whose keys are not qualified
// names, are refused, naming the field, and the pod stays unbound.
TEST_F(ClusterTest, ABindingCarriesItsAnnotationsToThePod) {
  CreatePod("bad");
  std::string message;
  const Json target = {{"kind", "Node"}, {"name", "n1"}};
  for (const Json& annotations :
       {Json{{"gpu", 3}}, Json::array({"gpu"}), Json{{"bad key!", "0"}}}) {
    try {
      cluster_.Bind("team", "bad",
                    {{"target", target}, {"metadata", {{"annotations", annotations}}}});
      ADD_FAILURE() << annotations.dump();
    } catch (const ApiError& error) {
      EXPECT_EQ(error.code, 422);
      message += error.what();
    }
  }
  EXPECT_THAT(message, HasSubstr("metadata.annotations[gpu]: must be a string"));
  EXPECT_THAT(message, HasSubstr("metadata.annotations: must be a map of strings"));
  EXPECT_THAT(message, HasSubstr("\"bad key!\": invalid key"));
  const auto pods = cluster_.Resource("", "v1", "pods");
  EXPECT_FALSE(cluster_.Get(*pods, "team", "bad")["spec"].contains("nodeName"));

  CreatePod("good");
  cluster_.Bind("team", "good",
                {{"target", target}, {"metadata", {{"annotations", {{"devices", "0,1"}}}}}});
  const Json pod = cluster_.Get(*pods, "team", "good");
  EXPECT_EQ(pod["spec"]["nodeName"], "n1");
  EXPECT_EQ(pod["metadata"]["annotations"]["devices"], "0,1");
}

TEST_F(ClusterTest, FinalizersHoldDeletion) {
  const auto configmaps = cluster_.Resource("", "v1", "configmaps");
  Create("", "v1", "configmaps", "team",
         {{"metadata", {{"name", "held"}, {"finalizers", {"example.com/hold"}}}}});
  const Json deleting = cluster_.Delete(*configmaps, "team", "held", {});
  EXPECT_TRUE(deleting["metadata"].contains("deletionTimestamp"));
  EXPECT_NO_THROW(cluster_.Get(*configmaps, "team", "held"));
  WriteOptions options;
  cluster_.Patch(*configmaps, "team", "held", PatchType::kMerge,
                 R"({"metadata":{"finalizers":null}})", "", options);
  EXPECT_EQ(ErrorCode([&] { cluster_.Get(*configmaps, "team", "held"); }), 404);
}

TEST_F(ClusterTest, CustomResourcesGetStatusSemanticsAndGeneration) {
  for (const char* file : {"crds/queues.gpupool.dev.yaml"}) {
    for (auto& crd : json::LoadYamlFile(testing::SourcePath(file))) {
      Create("apiextensions.k8s.io", "v1", "customresourcedefinitions", "", crd);
    }
  }
  const auto queues = cluster_.Resource("gpupool.dev", "v1alpha1", "queues");
  Json queue = {{"apiVersion", "gpupool.dev/v1alpha1"},
                {"kind", "Queue"},
                {"metadata", {{"name", "train"}}},
                {"spec", {{"sharing", "Guaranteed"}, {"nodeSelector", {{"pool", "train"}}}}},
                {"status", {{"capacity", "99"}}}};
  Json created = Create("gpupool.dev", "v1alpha1", "queues", "", queue);
  EXPECT_FALSE(created.contains("status"));  // status is written through /status only
  EXPECT_EQ(created["metadata"]["generation"], 1);
  WriteOptions options;
  Json status = cluster_.Patch(*queues, "", "train", PatchType::kMerge,
                               R"({"status":{"capacity":"8"}})", "status", options);
  EXPECT_EQ(status["metadata"]["generation"], 1);
  EXPECT_EQ(status["status"]["capacity"], "8");
  Json spec = cluster_.Patch(
      *queues, "", "train", PatchType::kMerge,
      R"({"spec":{"nodeSelector":{"pool":"big"}},"status":{"capacity":"1"}})", "", options);
  EXPECT_EQ(spec["metadata"]["generation"], 2);
  EXPECT_EQ(spec["status"]["capacity"], "8");
}

TEST_F(ClusterTest, AWriteThroughStatusChangesStatusOnly) {
  const auto pods = cluster_.Resource("", "v1", "pods");
  const Json created = CreatePod("p");
  Json sent = created;
  sent["spec"]["containers"][0]["image"] = "other";
  sent["metadata"]["labels"]["app"] = "y";
  sent["extra"] = "dropped";
  sent["status"] = {{"phase", "Running"}};
  WriteOptions options;
  const Json updated = cluster_.Update(*pods, "team", "p", sent, "status", options);
  EXPECT_EQ(updated["status"]["phase"], "Running");
  EXPECT_EQ(updated["spec"], created["spec"]);
  EXPECT_EQ(updated["metadata"]["labels"], created["metadata"]["labels"]);
  EXPECT_FALSE(updated.contains("extra"));
  Json without_status = updated;
  without_status.erase("status");
  without_status.erase("spec");
  const Json cleared = cluster_.Update(*pods, "team", "p", without_status, "status", options);
  EXPECT_FALSE(cleared.contains("status"));
  EXPECT_EQ(cleared["spec"], created["spec"]);
}

TEST_F(ClusterTest, AnUpdateThatChangesNothingKeepsTheVersion) {
  const Json created =
      Create("", "v1", "configmaps", "team",
             {{"metadata", {{"name", "cm"}, {"labels", {{"a", "1"}}}}}, {"data", {{"a", "1"}}}});
  const auto configmaps = cluster_.Resource("", "v1", "configmaps");
  WriteOptions options;
  options.field_manager = "test";
  const Json same = cluster_.Update(*configmaps, "team", "cm", created, "", options);
  EXPECT_EQ(same["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
  Json relabelled = created;
  relabelled["metadata"]["labels"]["a"] = "2";
  const Json changed = cluster_.Update(*configmaps, "team", "cm", relabelled, "", options);
  EXPECT_NE(changed["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
  Json unversioned = changed;
  unversioned["metadata"].erase("resourceVersion");
  const Json again = cluster_.Update(*configmaps, "team", "cm", unversioned, "", options);
  EXPECT_EQ(again["metadata"]["resourceVersion"], changed["metadata"]["resourceVersion"]);
}

TEST_F(ClusterTest, PodsTakeTheirPriorityClassValue) {
  Create("scheduling.k8s.io", "v1", "priorityclasses", "",
         {{"metadata", {{"name", "gpupool-train"}}}, {"value", 1000}});
  const Json pod = CreatePod("prio", {{"priorityClassName", "gpupool-train"}});
  EXPECT_EQ(pod["spec"]["priority"], 1000);
  EXPECT_EQ(ErrorCode([&] { CreatePod("missing", {{"priorityClassName", "nope"}}); }), 403);
}

TEST_F(ClusterTest, PodsWithoutAClassOrDefaultGetPriorityZero) {
  const Json pod = CreatePod("plain");
  EXPECT_EQ(pod["spec"]["priority"], 0);
  EXPECT_EQ(pod["spec"]["preemptionPolicy"], "PreemptLowerPriority");
  EXPECT_FALSE(pod["spec"].contains("priorityClassName"));
  EXPECT_EQ(cluster_.Get(*cluster_.Resource("", "v1", "pods"), "team", "plain")["spec"]["priority"],
            0);
  // A pod may send the priority the plugin computes, and no other.
  EXPECT_EQ(CreatePod("same", {{"priority", 0}})["spec"]["priority"], 0);
  EXPECT_EQ(ErrorCode([&] { CreatePod("other", {{"priority", 5}}); }), 403);
  EXPECT_EQ(ErrorCode([&] { CreatePod("never", {{"preemptionPolicy", "Never"}}); }), 403);
}

TEST_F(ClusterTest, PodsMaySendOnlyTheirClassPriority) {
  Create("scheduling.k8s.io", "v1", "priorityclasses", "",
         {{"metadata", {{"name", "high"}}}, {"value", 1000}});
  const auto classes = cluster_.Resource("scheduling.k8s.io", "v1", "priorityclasses");
  EXPECT_EQ(cluster_.Get(*classes, "", "high")["preemptionPolicy"], "PreemptLowerPriority");
  const Json pod = CreatePod("sent", {{"priorityClassName", "high"}, {"priority", 1000}});
  EXPECT_EQ(pod["spec"]["preemptionPolicy"], "PreemptLowerPriority");
  try {
    CreatePod("low", {{"priorityClassName", "high"}, {"priority", 1}});
    ADD_FAILURE();
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 403);
    EXPECT_NE(std::string(error.what())
                  .find("the integer value of priority (1) must not be "
                        "provided in pod spec; priority admission "
                        "controller computed 1000"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(ClusterTest, PodsWithoutAClassTakeTheGlobalDefault) {
  Create("scheduling.k8s.io", "v1", "priorityclasses", "",
         {{"metadata", {{"name", "a-other"}}},
          {"value", 5},
          {"description", "\"globalDefault\":true is not this class"}});
  Create("scheduling.k8s.io", "v1", "priorityclasses", "",
         {{"metadata", {{"name", "b-default"}}},
          {"value", 70},
          {"globalDefault", true},
          {"preemptionPolicy", "Never"}});
  const Json pod = CreatePod("after", Json::object());
  EXPECT_EQ(pod["spec"]["priorityClassName"], "b-default");
  EXPECT_EQ(pod["spec"]["priority"], 70);
  EXPECT_EQ(pod["spec"]["preemptionPolicy"], "Never");
  EXPECT_EQ(CreatePod("named", {{"priorityClassName", "a-other"}})["spec"]["priority"], 5);
}

// A real server serves a list's next page for minutes of writes (until etcd
// compacts) and resumes watches from its watch cache of up to 102,400 changes;
// a busy cluster's informers relist at once when it serves neither.
TEST(ClusterHistoryTest, APageOfAListSurvivesTenThousandWritesByDefault) {
  Cluster cluster{ClusterConfig{}};
  EXPECT_EQ(ParseOptions({}).history_window, 102400u);
  const auto configmaps = cluster.Resource("", "v1", "configmaps");
  WriteOptions options;
  cluster.Create(*cluster.Resource("", "v1", "namespaces"), "", {{"metadata", {{"name", "team"}}}},
                 options);
  for (const char* name : {"a", "b", "c"}) {
    cluster.Create(*configmaps, "team", {{"metadata", {{"name", name}}}}, options);
  }
  ListOptions first_page;
  first_page.limit = 1;
  const ListResult first = cluster.List(*configmaps, "team", first_page);
  ASSERT_FALSE(first.continue_token.empty());
  for (int i = 0; i < 12000; ++i) {
    cluster.Patch(*configmaps, "team", "c", PatchType::kMerge,
                  R"({"data":{"n":")" + std::to_string(i) + R"("}})", "", options);
  }
  ListOptions next_page;
  next_page.continue_token = first.continue_token;
  const ListResult rest = cluster.List(*configmaps, "team", next_page);
  ASSERT_EQ(rest.items.size(), 2u);
  EXPECT_EQ(rest.rv, first.rv);  // the same snapshot: c as it was before the writes
  EXPECT_EQ(Json::parse(rest.items[1]->json).count("data"), 0u);
}

}  // namespace
}  // namespace gpupool::sandbox
