// Writes computed outside the store's lock (Cluster::WriteFromStored): a write
// that loses a race to another starts over from the newer state, so no update
// is lost and preconditions still hold.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "sandbox/api_error.h"
#include "sandbox/cluster.h"

namespace gpupool::sandbox {
namespace {

class ConcurrentWritesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteOptions options;
    cluster_.Create(*Resource("namespaces"), "", {{"metadata", {{"name", "team"}}}}, options);
    cluster_.Create(*Resource("configmaps"), "team",
                    {{"metadata", {{"name", "cm"}}}, {"data", {{"a", "1"}}}}, options);
  }
  ResourcePtr Resource(const std::string& plural) { return cluster_.Resource("", "v1", plural); }
  Json Stored() {
    return Json::parse(cluster_.GetStored(*Resource("configmaps"), "team", "cm")->json);
  }
  void Annotate(const std::string& key) {
    WriteOptions options;
    cluster_.Patch(*Resource("configmaps"), "team", "cm", PatchType::kMerge,
                   R"({"metadata":{"annotations":{")" + key + R"(":"x"}}})", "", options);
  }

  Cluster cluster_{ClusterConfig{1000}};
};

TEST_F(ConcurrentWritesTest, AWriteThatLosesARaceIsMadeAgainOnTheNewerState) {
  int calls = 0;
  const bool written = cluster_.Mutate(*Resource("configmaps"), "team", "cm", [&](Json& object) {
    // The first time, another writer stores a change while this one is computed.
    if (++calls == 1) Annotate("other");
    object["data"]["mine"] = "y";
    return true;
  });
  EXPECT_TRUE(written);
  EXPECT_EQ(calls, 2);
  const Json stored = Stored();
  EXPECT_EQ(stored["metadata"]["annotations"]["other"], "x");
  EXPECT_EQ(stored["data"]["mine"], "y");
}

TEST_F(ConcurrentWritesTest, AnObjectThatKeepsChangingIsWrittenUnderTheLockInTheEnd) {
  int calls = 0;
  cluster_.Mutate(*Resource("configmaps"), "team", "cm", [&](Json& object) {
    // Every optimistic try loses; the last call holds the lock, where writing
    // again would deadlock, so it must be the one after them.
    if (++calls <= Cluster::kOptimisticTries) Annotate("other-" + std::to_string(calls));
    object["data"]["mine"] = std::to_string(calls);
    return true;
  });
  EXPECT_EQ(calls, Cluster::kOptimisticTries + 1);
  const Json stored = Stored();
  EXPECT_EQ(stored["data"]["mine"], std::to_string(Cluster::kOptimisticTries + 1));
  EXPECT_EQ(stored["metadata"]["annotations"].size(),
            static_cast<size_t>(Cluster::kOptimisticTries));
}

TEST_F(ConcurrentWritesTest, UnconditionalPatchesFromManyThreadsAllLand) {
  constexpr int kThreads = 4, kEach = 100;
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) Annotate("t" + std::to_string(t) + "-" + std::to_string(i));
    });
  }
  for (auto& writer : writers) writer.join();
  const Json stored = Stored();
  EXPECT_EQ(stored["metadata"]["annotations"].size(), static_cast<size_t>(kThreads * kEach));
}

TEST_F(ConcurrentWritesTest, OfUpdatesFromOneVersionExactlyOneIsStored) {
  const Json base = Stored();
  constexpr int kThreads = 8;
  std::atomic<int> stored{0}, conflicts{0}, others{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      Json object = base;
      object["data"]["a"] = "v" + std::to_string(t);  // never the stored "1": no no-op
      WriteOptions options;
      try {
        cluster_.Update(*Resource("configmaps"), "team", "cm", object, "", options);
        ++stored;
      } catch (const ApiError& error) {
        ++(error.code == 409 ? conflicts : others);
      }
    });
  }
  for (auto& writer : writers) writer.join();
  EXPECT_EQ(stored, 1);
  EXPECT_EQ(conflicts, kThreads - 1);
  EXPECT_EQ(others, 0);
}

TEST_F(ConcurrentWritesTest, AWriteToAnObjectDeletedMeanwhileIsNotFound) {
  bool deleted = false;
  auto write = [&](Json& object) {
    if (!deleted) {
      deleted = true;
      cluster_.Delete(*Resource("configmaps"), "team", "cm", DeleteOptions{});
    }
    object["data"]["late"] = "y";
    return true;
  };
  EXPECT_FALSE(cluster_.Mutate(*Resource("configmaps"), "team", "cm", write));
  WriteOptions options;
  try {
    cluster_.Patch(*Resource("configmaps"), "team", "cm", PatchType::kMerge, R"({"data":{}})", "",
                   options);
    FAIL() << "a patch of a deleted object was accepted";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 404);
  }
}

// As on a real server, admission and validation come before the store: an
// invalid object is refused as Invalid even when its name is taken.
TEST_F(ConcurrentWritesTest, AnInvalidCreateIsInvalidBeforeItIsAlreadyExisting) {
  const Json valid = {{"metadata", {{"name", "p"}}},
                      {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}};
  WriteOptions options;
  cluster_.Create(*Resource("pods"), "team", valid, options);
  Json invalid = valid;
  invalid["spec"]["containers"][0].erase("image");
  try {
    cluster_.Create(*Resource("pods"), "team", invalid, options);
    FAIL() << "an invalid create was accepted";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 422) << error.what();
    EXPECT_NE(std::string(error.what()).find("spec.containers[0].image"), std::string::npos)
        << error.what();
  }
  try {
    cluster_.Create(*Resource("pods"), "team", valid, options);
    FAIL() << "a second create of one name was accepted";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 409) << error.what();
  }
}

}  // namespace
}  // namespace gpupool::sandbox
