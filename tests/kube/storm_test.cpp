// Fault injection: many random writes while watch streams are cut at random
// and history is compacted (forcing 410s). Afterwards every informer's cache,
// and the state rebuilt from its handlers alone, must equal the server's.
#include <gtest/gtest.h>

#include <random>

#include "gpupool/kube/informer.h"
#include "test_util.h"

namespace gpupool::kube {
namespace {

using namespace gpupool::kube::testing;

constexpr int kWrites = 10'000;

// The state an observer rebuilds from handler calls alone, checking that no
// change is applied twice or out of order.
struct HandlerMirror {
  std::mutex mutex;
  std::map<std::string, int64_t> versions;
  int violations = 0;

  InformerHandlers<Json> Handlers() {
    auto key = [](const Json& o) { return ObjectKey(NamespaceOf(o), NameOf(o)); };
    auto rv = [](const Json& o) { return std::stoll(ResourceVersionOf(o)); };
    return {[=, this](const Json& o) {
              std::lock_guard lock(mutex);
              if (!versions.emplace(key(o), rv(o)).second) ++violations;
            },
            [=, this](const Json& old_object, const Json& o) {
              std::lock_guard lock(mutex);
              auto it = versions.find(key(o));
              if (it == versions.end() || it->second != rv(old_object) || rv(o) <= it->second)
                ++violations;
              versions[key(o)] = rv(o);
            },
            [=, this](const Json& o) {
              std::lock_guard lock(mutex);
              if (versions.erase(key(o)) != 1) ++violations;
            }};
  }
  std::map<std::string, std::string> Snapshot() {
    std::lock_guard lock(mutex);
    std::map<std::string, std::string> out;
    for (const auto& [key, rv] : versions) out[key] = std::to_string(rv);
    return out;
  }
};

void RandomWrites(Client& client, int count, uint32_t seed) {
  std::mt19937 random(seed);
  std::map<std::string, bool> exists;
  const char* namespaces[] = {"a", "b", "c"};
  for (int i = 0; i < count; ++i) {
    std::string ns = namespaces[random() % 3];
    std::string name = Numbered("pod-", static_cast<int>(random() % 60));
    bool& present = exists[ns + "/" + name];
    if (!present) {
      client.Create(resources::kPods, ns,
                    {{"metadata", {{"name", name}}}, {"spec", {{"nodeName", "n1"}}}});
      present = true;
    } else if (random() % 10 < 7) {
      client.Patch(resources::kPods, ns, name, PatchType::kMerge,
                   {{"metadata", {{"labels", {{"write", std::to_string(i)}}}}}});
    } else {
      client.Delete(resources::kPods, ns, name);
      present = false;
    }
  }
}

TEST(Storm, CachesEqualServerAfterCutStreamsAndForcedGone) {
  FakeApiServer server;
  server.CutWatchesRandomly(40, 7);
  Client client(PlainConfig(server), FastOptions());
  ListWatchOptions options;
  options.page_size = 25;
  options.backoff = {Millis(1), Millis(10)};
  const std::vector<std::string> scopes = {"", "a", "b"};
  std::vector<std::unique_ptr<Informer<Json>>> informers;
  std::vector<std::unique_ptr<HandlerMirror>> mirrors;
  for (const auto& ns : scopes) {
    informers.push_back(
        std::make_unique<Informer<Json>>(client, resources::kPods, ns, KeepJson, options));
    mirrors.push_back(std::make_unique<HandlerMirror>());
    informers.back()->AddHandlers(mirrors.back()->Handlers());
    informers.back()->Start();
  }
  for (auto& informer : informers) ASSERT_TRUE(informer->WaitForSync(Millis(5'000)));

  std::atomic<bool> writing{true};
  std::thread faults([&] {
    for (int round = 1; writing; ++round) {
      std::this_thread::sleep_for(Millis(25));
      server.CutWatches();
      if (round % 3 == 0) server.Compact();
    }
  });
  RandomWrites(client, kWrites, 42);
  writing = false;
  faults.join();

  for (std::size_t i = 0; i < scopes.size(); ++i) {
    auto expected = ServerPodVersions(server, scopes[i]);
    EXPECT_TRUE(
        WaitFor([&] { return informers[i]->cache().Versions() == expected; }, Millis(20'000)))
        << "informer for namespace \"" << scopes[i] << "\"";
    EXPECT_EQ(mirrors[i]->Snapshot(), expected) << "handlers of \"" << scopes[i] << "\"";
    EXPECT_EQ(mirrors[i]->violations, 0);
  }
  uint64_t gone = 0, watches = 0;
  for (auto& informer : informers) {
    gone += informer->reflector().stats().gone;
    watches += informer->reflector().stats().watches;
  }
  EXPECT_GT(gone, 0u) << "the run should have forced re-lists";
  EXPECT_GT(watches, 30u) << "the run should have cut many streams";
  RecordProperty("gone", std::to_string(gone));
  RecordProperty("watches", std::to_string(watches));
  for (auto& informer : informers) informer->Stop();
}

}  // namespace
}  // namespace gpupool::kube
