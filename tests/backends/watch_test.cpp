// Watches as real servers answer them: a watch of custom resources from a
// resourceVersion older than their CRD (older than the server's watch cache
// for them) is 410 Expired, never a replay of the objects as ADDED.
#include <gtest/gtest.h>

#include "crd_install.h"
#include "test_cluster.h"
#include "test_objects.h"

namespace gpupool::backends::testing {
namespace {

using WatchOnBackend = CrdBackendTest;

TEST_P(WatchOnBackend, ACustomResourceWatchFromBeforeItsCrdIsExpired) {
  const std::string jobs = "/apis/gpupool.dev/v1alpha1/namespaces/susan/trainingjobs";
  Json job = api::testing::ValidTrainingJob();
  job["metadata"]["name"] = "watched-from-the-past";
  auto client = cluster_->Http();
  const auto created = client->Post(jobs, job.dump(), "application/json");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201) << created->body;
  const auto watch = client->Get(jobs + "?watch=true&resourceVersion=1&timeoutSeconds=2");
  client->Delete(jobs + "/watched-from-the-past");
  ASSERT_TRUE(watch);
  EXPECT_EQ(watch->body.find("\"ADDED\""), std::string::npos) << watch->body;
  // A 410 answer, or (as a watch cache answers) an ERROR event carrying 410 Expired.
  const bool expired =
      watch->status == 410 || (watch->body.find("\"ERROR\"") != std::string::npos &&
                               watch->body.find("410") != std::string::npos);
  EXPECT_TRUE(expired) << watch->status << ": " << watch->body;
}

INSTANTIATE_TEST_SUITE_P(All, WatchOnBackend, ::testing::ValuesIn(Backends()),
                         [](const auto& info) { return BackendTestName(info.param); });

}  // namespace
}  // namespace gpupool::backends::testing
