// `gpupool validate` and the API server answer the same, field by field, on
// every backend: each object goes to the server (a server-side dry run through
// kubectl, nothing stored) and to `gpupool validate`; both must accept it or
// both refuse it naming the same fields. On a real control plane the answer is
// the real kube-apiserver's, so the CRDs' schemas and CEL rules are checked
// against the oracle, not against the validator they share with the sandbox.
// Rules only gpupool has (amounts finer than a milli-unit, a quota's limit
// below its gpu: docs/api.md, "Validation rules") are left out: the API server
// stores such objects and the controller flags them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "crd_install.h"
#include "sandbox_process.h"
#include "test_cluster.h"

namespace gpupool::backends::testing {
namespace {

using ::gpupool::sandbox::testing::RunCommand;
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

using ValidateAgreesOnBackend = CrdBackendTest;

TEST_P(ValidateAgreesOnBackend, OnEveryCase) {
  for (const auto& c : Cases()) {
    SCOPED_TRACE(c.name);
    const std::string file = cluster_->dir() + "/validate-agrees-" + c.name + ".yaml";
    { std::ofstream(file) << c.object; }
    const auto server = cluster_->Kubectl("create --dry-run=server -f " + file);
    const auto validate = RunCommand(std::string(GPUPOOL_BINARY) + " validate " + file);
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

INSTANTIATE_TEST_SUITE_P(All, ValidateAgreesOnBackend, ::testing::ValuesIn(Backends()),
                         [](const auto& info) { return BackendTestName(info.param); });

}  // namespace
}  // namespace gpupool::backends::testing
