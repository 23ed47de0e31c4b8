// The kube client against the real `gpupool sandbox` process cutting answers
// after applying the request (--fault-drop-rate): no write is applied twice.
#include <gtest/gtest.h>

#include <set>

#include "gpupool/kube/errors.h"
#include "sandbox_process.h"
#include "test_util.h"

namespace gpupool::kube {
namespace {

using namespace gpupool::kube::testing;
using ::gpupool::sandbox::testing::SandboxProcess;

Json Ledger() {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", "ledger"},
            {"annotations", {{"gpupool.dev/creation", "ledger-1"}}},
            {"finalizers", Json::array({"gpupool.dev/start"})}}}};
}

Json AppendFinalizer(int i) {
  return Json::array({{{"op", "add"},
                       {"path", "/metadata/finalizers/-"},
                       {"value", Numbered("gpupool.dev/f", i)}}});
}

TEST(SandboxFaults, CutAnswersNeverApplyAWriteTwice) {
  GPUPOOL_REQUIRE_SANDBOX();
  SandboxProcess sandbox({"--fault-drop-rate", "0.3", "--fault-seed", "11"});
  TransportOptions options = FastOptions();
  options.max_retries = 12;  // Reads and safe writes get through a 30% drop rate.
  Client client(LoadKubeconfig({sandbox.kubeconfig()}), options);
  client.Create(resources::kConfigMaps, "default", Ledger(),
                {.identity_annotation = "gpupool.dev/creation"});
  int answered = 0, ambiguous = 0;
  for (int i = 0; i < 40; ++i) {
    try {
      client.Patch(resources::kConfigMaps, "default", "ledger", PatchType::kJson,
                   AppendFinalizer(i));
      ++answered;
    } catch (const ApiError& error) {
      ASSERT_TRUE(error.MayHaveBeenApplied()) << error.what();
      ++ambiguous;
    }
  }
  EXPECT_GT(ambiguous, 0) << "the fault injection did not cut any answer";
  Json finalizers =
      client.Get(resources::kConfigMaps, "default", "ledger")["metadata"]["finalizers"];
  std::set<std::string> distinct;
  for (const auto& finalizer : finalizers) distinct.insert(finalizer.get<std::string>());
  EXPECT_EQ(distinct.size(), finalizers.size()) << "a patch was applied twice: " << finalizers;
  EXPECT_GE(static_cast<int>(finalizers.size()) - 1, answered);
  EXPECT_LE(static_cast<int>(finalizers.size()) - 1, answered + ambiguous);
}

}  // namespace
}  // namespace gpupool::kube
