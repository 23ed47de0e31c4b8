// An object whose metadata.namespace is empty (protobuf bodies always carry
// the field, e.g. Helm's release ConfigMaps) takes the request's namespace,
// as on a real server; a different one is still refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sandbox_process.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::HasSubstr;

std::string ConfigMap(const std::string& ns, const std::string& value) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"release","namespace":")" +
         ns + R"("},"data":{"v":")" + value + R"("}})";
}

TEST(EmptyNamespace, IsTheRequestsNamespaceOnCreateAndUpdate) {
  SandboxProcess sandbox;
  const std::string url = "/api/v1/namespaces/default/configmaps";
  auto result = sandbox.Kubectl("create --raw " + url + " -f " +
                                sandbox.WriteFile("create.json", ConfigMap("", "1")));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr(R"("namespace":"default")"));
  result = sandbox.Kubectl("replace --raw " + url + "/release -f " +
                           sandbox.WriteFile("update.json", ConfigMap("", "2")));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl("get configmap release -n default -o jsonpath={.data.v}");
  EXPECT_EQ(result.output, "2");
  result = sandbox.Kubectl("create --raw " + url + " -f " +
                           sandbox.WriteFile("other.json", ConfigMap("kube-system", "3")));
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.output, HasSubstr("does not match the namespace sent on the request"));
}

}  // namespace
}  // namespace gpupool::sandbox::testing
