// `gpupool validate` and the API server answer the same, field by field: each
// object is given to both, `kubectl apply` against `gpupool sandbox` and
// `gpupool validate`, and both must accept it or both refuse it naming the
// same fields. Rules only gpupool has (amounts finer than a milli-unit, a
// quota's limit below its gpu: docs/api.md, "Validation rules") are left out:
// the API server stores such objects and the controller flags them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "sandbox_process.h"

namespace gpupool::examples::testing {

using ::gpupool::sandbox::testing::RunCommand;
using ::gpupool::sandbox::testing::SandboxProcess;
namespace {

using ::testing::HasSubstr;

struct Case {
  const char* name;
  const char* object;               // YAML
  std::vector<const char*> fields;  // what both must name; empty: both accept
  // kubectl refuses the object before sending it, in words of its own.
  bool refused_by_kubectl = false;
};

constexpr char kJobHead[] =
    "apiVersion: gpupool.dev/v1alpha1\nkind: TrainingJob\nmetadata: {name: NAME, namespace: "
    "susan}\n";
constexpr char kTemplate[] = "  template: {spec: {containers: [{name: c, image: trainer}]}}\n";

std::string Job(const std::string& name, const std::string& spec) {
  std::string head = kJobHead;
  head.replace(head.find("NAME"), 4, name);
  return head + "spec:\n  queue: train\n" + spec + kTemplate;
}

std::vector<Case> Cases() {
  static const std::string valid = Job("valid", "  gpusPerReplica: 1\n");
  static const std::string misspelled =
      Job("misspelled", "  gpusPerReplica: 1\n  replica: 4\n  gpuMemory: 40Gi\n");
  static const std::string zero = Job("zero", "  gpusPerReplica: 1\n  replicas: 0\n");
  static const std::string gang = Job("gang", "  gpusPerReplica: 1\n  minReplicas: 3\n");
  static const std::string fraction = Job("fraction", "  gpusPerReplica: \"0.5\"\n  replicas: 2\n");
  static const std::string klass = Job("klass", "  gpusPerReplica: 1\n  workloadClass: Batch\n");
  static const std::string kind = [] {
    std::string job = Job("kind", "  gpusPerReplica: 1\n");
    return job.replace(job.find("TrainingJob"), 11, "TrainingJb");
  }();
  return {
      {"Valid", valid.c_str(), {}},
      {"MisspelledFields", misspelled.c_str(), {"spec.replica", "spec.gpuMemory"}},
      {"ZeroReplicas", zero.c_str(), {"spec.replicas"}},
      {"MinReplicasAboveReplicas", gang.c_str(), {"spec.minReplicas"}},
      {"FractionWithGang", fraction.c_str(), {"spec.gpusPerReplica"}},
      {"UnknownWorkloadClass", klass.c_str(), {"spec.workloadClass"}},
      {"MisspelledKind", kind.c_str(), {"TrainingJb"}, true},
  };
}

class ValidateAgreesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    sandbox_ = new SandboxProcess();
    auto result = sandbox_->KubectlIn("apply -f crds/", GPUPOOL_SOURCE_DIR);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    result = sandbox_->KubectlIn("wait --for=condition=Established crd --all --timeout=30s",
                                 GPUPOOL_SOURCE_DIR);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    result = sandbox_->KubectlIn("create namespace susan", GPUPOOL_SOURCE_DIR);
    ASSERT_EQ(result.exit_code, 0) << result.output;
  }
  static void TearDownTestSuite() {
    delete sandbox_;
    sandbox_ = nullptr;
  }
  static SandboxProcess* sandbox_;
};

SandboxProcess* ValidateAgreesTest::sandbox_ = nullptr;

TEST_F(ValidateAgreesTest, OnEveryCase) {
  ASSERT_NE(sandbox_, nullptr);
  for (const auto& c : Cases()) {
    SCOPED_TRACE(c.name);
    const std::string file = "/tmp/gpupool-validate-agrees-" + std::string(c.name) + ".yaml";
    std::ofstream(file) << c.object;
    const auto server = sandbox_->KubectlIn("apply -f " + file, "/");
    const auto validate = RunCommand(std::string(GPUPOOL_BINARY) + " validate " + file);
    std::remove(file.c_str());
    const bool server_refuses = server.exit_code != 0;
    const bool validate_refuses = validate.exit_code != 0;
    EXPECT_EQ(validate_refuses, !c.fields.empty()) << validate.output;
    EXPECT_EQ(server_refuses, !c.fields.empty()) << server.output;
    for (const char* field : c.fields) {
      EXPECT_THAT(validate.output, HasSubstr(field));
      if (!c.refused_by_kubectl) {
        EXPECT_THAT(server.output, HasSubstr(field));
      }
    }
  }
}

}  // namespace
}  // namespace gpupool::examples::testing
