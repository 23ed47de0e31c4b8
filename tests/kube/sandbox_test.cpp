// The kube client against the real `gpupool sandbox` process: operations on
// built-in and custom resources, kubeconfig variants, informers across cut
// streams and compaction, leader election and events.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "gpupool/json/yaml.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/event_recorder.h"
#include "gpupool/kube/informer.h"
#include "gpupool/kube/leader_election.h"
#include "sandbox_process.h"
#include "test_tls.h"
#include "test_util.h"

namespace gpupool::kube {
namespace {

using namespace gpupool::kube::testing;
using ::gpupool::sandbox::testing::SandboxProcess;
using ::testing::HasSubstr;

constexpr char kNs[] = "kube-test";

Client SandboxClient(const SandboxProcess& sandbox) {
  return Client(LoadKubeconfig({sandbox.kubeconfig()}), FastOptions());
}

void CreateNamespace(Client& client, const std::string& name) {
  try {
    client.Create(resources::kNamespaces, "",
                  {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}});
  } catch (const ApiError& e) {
    if (!IsAlreadyExists(e)) throw;
  }
}

Json Pod(const std::string& name, const std::string& app) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"labels", {{"app", app}}}}},
          {"spec",
           {{"schedulerName", "manual"},
            {"containers", Json::array({{{"name", "c"}, {"image", "busybox"}}})}}}};
}

TEST(Sandbox, BuiltInResourceOperations) {
  GPUPOOL_REQUIRE_SANDBOX();
  SandboxProcess sandbox({"--nodes", "1x8:pool=train"});
  Client client = SandboxClient(sandbox);
  CreateNamespace(client, kNs);
  for (std::string name : {"p0", "p1", "p2", "p3", "p4"})
    client.Create(resources::kPods, kNs, Pod(name, name == "p4" ? "db" : "web"));
  EXPECT_EQ(client.List(resources::kPods, kNs, {.label_selector = "app=web"}).items.size(), 4u);
  ListPage page = client.List(resources::kPods, kNs, {.limit = 2});
  EXPECT_EQ(page.items.size(), 2u);
  EXPECT_FALSE(page.continue_token.empty());
  EXPECT_EQ(client.ListAll(resources::kPods, kNs, {.limit = 2}).items.size(), 5u);

  Json pod = client.Get(resources::kPods, kNs, "p0");
  pod["metadata"]["labels"]["tier"] = "front";
  Json updated = client.Update(resources::kPods, kNs, pod);
  EXPECT_EQ(updated["metadata"]["labels"]["tier"], "front");
  try {
    client.Update(resources::kPods, kNs, pod);  // Stale resourceVersion.
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_TRUE(IsConflict(e)) << e.what();
  }
  updated["status"]["message"] = "from the client";
  EXPECT_EQ(client.UpdateStatus(resources::kPods, kNs, updated)["status"]["message"],
            "from the client");
}

TEST(Sandbox, BuiltInPatchBindEvictDelete) {
  GPUPOOL_REQUIRE_SANDBOX();
  SandboxProcess sandbox({"--nodes", "1x8:pool=train"});
  Client client = SandboxClient(sandbox);
  CreateNamespace(client, kNs);
  for (std::string name : {"p1", "p2", "p3", "p4"})
    client.Create(resources::kPods, kNs, Pod(name, "web"));

  client.Patch(resources::kPods, kNs, "p1", PatchType::kMerge,
               {{"metadata", {{"labels", {{"merge", "yes"}}}}}});
  client.Patch(resources::kPods, kNs, "p1", PatchType::kJson,
               Json::array({{{"op", "add"}, {"path", "/metadata/labels/json"}, {"value", "yes"}}}));
  Json patched = client.Patch(resources::kPods, kNs, "p1", PatchType::kStrategicMerge,
                              {{"metadata", {{"labels", {{"strategic", "yes"}}}}}});
  EXPECT_EQ(patched["metadata"]["labels"]["merge"], "yes");
  EXPECT_EQ(patched["metadata"]["labels"]["json"], "yes");
  EXPECT_EQ(patched["metadata"]["labels"]["strategic"], "yes");
  // Server-side apply: the field manager owns what it applied; another
  // manager changing it conflicts unless it forces.
  const Json applied_labels = {{"apiVersion", "v1"},
                               {"kind", "Pod"},
                               {"metadata", {{"name", "p1"}, {"labels", {{"applied", "yes"}}}}}};
  EXPECT_EQ(client.Apply(resources::kPods, kNs, applied_labels,
                         "gpupool")["metadata"]["labels"]["applied"],
            "yes");
  Json changed_labels = applied_labels;
  changed_labels["metadata"]["labels"]["applied"] = "no";
  try {
    client.Apply(resources::kPods, kNs, changed_labels, "someone-else");
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_TRUE(IsConflict(e)) << e.what();
  }
  EXPECT_EQ(client.Apply(resources::kPods, kNs, changed_labels, "someone-else",
                         true)["metadata"]["labels"]["applied"],
            "no");

  std::string node = NameOf(client.List(resources::kNodes, "").items.at(0));
  client.Bind(kNs, "p2", node);
  EXPECT_EQ(client.Get(resources::kPods, kNs, "p2")["spec"]["nodeName"], node);
  client.Evict(kNs, "p3", {.grace_period_seconds = 0});
  EXPECT_TRUE(WaitFor([&] {
    try {
      Json p3 = client.Get(resources::kPods, kNs, "p3");
      return p3["metadata"].contains("deletionTimestamp");
    } catch (const ApiError& e) {
      return IsNotFound(e);
    }
  }));
  try {
    client.Delete(resources::kPods, kNs, "p4", {.precondition_uid = "not-the-uid"});
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_TRUE(IsConflict(e)) << e.what();
  }
  client.Delete(resources::kPods, kNs, "p4",
                {.propagation_policy = "Background", .grace_period_seconds = 0});
  EXPECT_TRUE(WaitFor([&] {
    try {
      client.Get(resources::kPods, kNs, "p4");
      return false;
    } catch (const ApiError& e) {
      return IsNotFound(e);
    }
  }));
}

void InstallCrds(Client& client) {
  const Resource crds{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false};
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(GPUPOOL_SOURCE_DIR) + "/crds")) {
    for (const Json& crd : json::LoadYamlFile(entry.path().string())) {
      try {
        client.Create(crds, "", crd);
      } catch (const ApiError& e) {
        if (!IsAlreadyExists(e)) throw;
      }
    }
  }
  ASSERT_TRUE(WaitFor([&] { return client.Serves(resources::kTrainingJobs); }));
}

TEST(Sandbox, CustomResourceOperations) {
  GPUPOOL_REQUIRE_SANDBOX();
  SandboxProcess sandbox;
  Client client = SandboxClient(sandbox);
  InstallCrds(client);
  for (const Json& queue :
       json::LoadYamlFile(std::string(GPUPOOL_SOURCE_DIR) + "/examples/queues.yaml"))
    client.Create(resources::kQueues, "", queue);
  ListPage queues = client.List(resources::kQueues, "");
  ASSERT_FALSE(queues.items.empty());
  std::string name = NameOf(queues.items[0]);
  Json queue = client.Get(resources::kQueues, "", name);
  EXPECT_EQ(queue["kind"], "Queue");
  Json patched = client.Patch(resources::kQueues, "", name, PatchType::kMerge,
                              {{"metadata", {{"labels", {{"owner", "kube-test"}}}}}});
  EXPECT_EQ(patched["metadata"]["labels"]["owner"], "kube-test");
  patched["status"] = {{"pendingJobs", 0}};
  client.UpdateStatus(resources::kQueues, "", patched);
  Json bad = queue;
  bad["metadata"] = {{"name", "broken"}};
  bad["spec"]["sharing"] = "Sometimes";
  try {
    client.Create(resources::kQueues, "", bad);
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_TRUE(IsInvalid(e)) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("spec.sharing"));
  }
  client.Delete(resources::kQueues, "", name);
  EXPECT_EQ(client.List(resources::kQueues, "").items.size(), queues.items.size() - 1);
}

TEST(Sandbox, KubeconfigVariants) {
  GPUPOOL_REQUIRE_SANDBOX();
  SandboxProcess sandbox;
  RestConfig base = LoadKubeconfig({sandbox.kubeconfig()});
  ASSERT_FALSE(base.ca_pem.empty());
  EXPECT_NO_THROW(Client(base, FastOptions()).List(resources::kNamespaces, ""));

  WriteFile(sandbox.dir() + "/ca.crt", base.ca_pem);
  std::string with_file = sandbox.dir() + "/kubeconfig-ca-file";
  WriteFile(with_file, "current-context: x\nclusters: [{name: c, cluster: {server: '" +
                           base.server +
                           "', certificate-authority: ca.crt}}]\n"
                           "users: [{name: u, user: {token: " +
                           sandbox.token() +
                           "}}]\n"
                           "contexts: [{name: x, context: {cluster: c, user: u}}]\n");
  EXPECT_NO_THROW(
      Client(LoadKubeconfig({with_file}), FastOptions()).List(resources::kNamespaces, ""));

  RestConfig bad_ca = base;
  bad_ca.ca_pem = MakeTlsFiles(sandbox.dir(), {"127.0.0.1"}).other_ca_pem;
  try {
    Client(bad_ca, FastOptions()).List(resources::kNamespaces, "");
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::kTlsFailed);
    EXPECT_THAT(e.what(), HasSubstr("TLS failure"));
  }
  RestConfig bad_token = base;
  bad_token.token = "wrong";
  try {
    Client(bad_token, FastOptions()).List(resources::kNamespaces, "");
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::kUnauthorized) << e.what();
  }
  WriteFile(sandbox.dir() + "/token", sandbox.token());
  RestConfig token_file = base;
  token_file.token.clear();
  token_file.token_file = sandbox.dir() + "/token";
  EXPECT_NO_THROW(Client(token_file, FastOptions()).List(resources::kNamespaces, ""));
}

// 10,000 random writes to ConfigMaps while the sandbox cuts every watch,
// compacts its history and keeps little of it (so resumes meet 410s);
// afterwards each informer's cache equals a fresh list.
TEST(Sandbox, InformersSurviveCutStreamsAndForcedGone) {
  GPUPOOL_REQUIRE_SANDBOX();
  SandboxProcess sandbox(
      {"--fault-watch-cut", "0.2", "--fault-compact", "0.3", "--watch-history", "50"});
  Client client = SandboxClient(sandbox);
  CreateNamespace(client, kNs);
  ListWatchOptions options;
  options.page_size = 50;
  // Reconnecting takes 20-40 ms, long enough for more writes than the
  // sandbox keeps in history: most resumes after a cut must re-list.
  options.backoff = {Millis(40), Millis(80)};
  Informer<Json> in_namespace(client, resources::kConfigMaps, kNs, KeepJson, options);
  Informer<Json> everywhere(client, resources::kConfigMaps, "", KeepJson, options);
  for (auto* informer : {&in_namespace, &everywhere}) {
    informer->Start();
    ASSERT_TRUE(informer->WaitForSync(Millis(10'000)));
  }
  std::mt19937 random(3);
  std::map<std::string, bool> exists;
  for (int i = 0; i < 10'000; ++i) {
    // Pauses let the informers fall behind a compaction now and then.
    if (i % 250 == 249) std::this_thread::sleep_for(Millis(25));
    std::string name = Numbered("cm-", static_cast<int>(random() % 40));
    if (!exists[name]) {
      client.Create(resources::kConfigMaps, kNs,
                    {{"metadata", {{"name", name}}}, {"data", {{"i", "0"}}}});
      exists[name] = true;
    } else if (random() % 4) {
      client.Patch(resources::kConfigMaps, kNs, name, PatchType::kMerge,
                   {{"data", {{"i", std::to_string(i)}}}});
    } else {
      client.Delete(resources::kConfigMaps, kNs, name);
      exists[name] = false;
    }
  }
  uint64_t gone = 0, watches = 0;
  for (auto [informer, ns] :
       {std::pair{&in_namespace, std::string(kNs)}, std::pair{&everywhere, std::string()}}) {
    std::map<std::string, std::string> expected;
    for (const auto& item : client.ListAll(resources::kConfigMaps, ns).items)
      expected[ObjectKey(NamespaceOf(item), NameOf(item))] = ResourceVersionOf(item);
    EXPECT_TRUE(WaitFor([&] { return informer->cache().Versions() == expected; }, Millis(20'000)))
        << "informer for namespace \"" << ns << "\"";
    gone += informer->reflector().stats().gone;
    watches += informer->reflector().stats().watches;
    informer->Stop();
  }
  EXPECT_GT(watches, 6u) << "streams should have been cut";
  EXPECT_GT(gone, 0u) << "resumes should have met 410s";
  RecordProperty("watches", std::to_string(watches));
  RecordProperty("gone", std::to_string(gone));
}

TEST(Sandbox, LeaderElectionWithTwoCandidates) {
  GPUPOOL_REQUIRE_SANDBOX();
  SandboxProcess sandbox;
  Client client_a = SandboxClient(sandbox), client_b = SandboxClient(sandbox);
  auto candidate = [](const std::string& identity) {
    LeaderElectionConfig config;
    config.lease_namespace = "default";
    config.lease_name = "gpupool-controller";
    config.identity = identity;
    config.lease_duration = Millis(1'000);
    config.renew_deadline = Millis(600);
    config.retry_period = Millis(150);
    return config;
  };
  LeaderElector a(client_a, candidate("a")), b(client_b, candidate("b"));
  std::atomic<bool> done{false};
  std::atomic<int> overlaps{0};
  std::thread monitor([&] {
    while (!done) {
      if (a.IsLeader() && b.IsLeader()) ++overlaps;
      std::this_thread::sleep_for(Millis(1));
    }
  });
  a.Start();
  ASSERT_TRUE(WaitFor([&] { return a.IsLeader(); }));
  b.Start();
  std::this_thread::sleep_for(Millis(1'500));
  EXPECT_FALSE(b.IsLeader());
  a.Abandon();
  auto killed = Clock::now();
  EXPECT_TRUE(WaitFor([&] { return b.IsLeader(); }, Millis(4'000)));
  // Lease + 2.5 retry periods, plus slack for a loaded machine's scheduling.
  EXPECT_LE(Clock::now() - killed, Millis(1'000 + 150 * 5 / 2 + 400));
  b.Stop();
  done = true;
  monitor.join();
  EXPECT_EQ(overlaps.load(), 0);
  Json lease = client_a.Get(resources::kLeases, "default", "gpupool-controller");
  EXPECT_EQ(lease["spec"].value("holderIdentity", "?"), "") << "b released on clean shutdown";
}

TEST(Sandbox, EventRecorderAggregatesOnEventsV1) {
  GPUPOOL_REQUIRE_SANDBOX();
  SandboxProcess sandbox;
  Client client = SandboxClient(sandbox);
  EventRecorder recorder(client, {.reporting_instance = "test"});
  ObjectReference node{"v1", "Node", "", "gpu-node-1", ""};
  for (int i = 0; i < 4; ++i)
    recorder.Record(node, "Warning", "NoCapacity", "Place", "all 8 GPUs allocated");
  ASSERT_TRUE(recorder.Flush(Millis(5'000)));
  auto events = client.List(resources::kEvents, "default").items;
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["series"]["count"], 4);
  EXPECT_EQ(events[0]["regarding"]["name"], "gpu-node-1");
  EXPECT_TRUE(recorder.stats().using_events_v1);
}

}  // namespace
}  // namespace gpupool::kube
