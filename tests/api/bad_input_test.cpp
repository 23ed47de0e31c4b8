// Bad objects, each rejected with the field path a user must fix, both by our
// validator and (where the schema can express it) by the CRD's own schema.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpupool/api/openapi_schema.h"
#include "gpupool/api/validate.h"
#include "gpupool/api/yaml.h"
#include "test_objects.h"

namespace gpupool::api {
namespace {

using testing::ValidDepartment;
using testing::ValidProject;
using testing::ValidQueue;
using testing::ValidTrainingJob;

// Who else rejects the input: the CRD's OpenAPI schema, or only the CRD's CEL
// rules / the API server's metadata checks (which our schema validator skips),
// or no one: the server stores it, and the controller flags it InvalidSpec.
enum class AlsoRejectedBy { kSchema, kCelRule, kServerOnly, kNoOne };

struct BadInput {
  const char* name;
  Json (*base)();
  const char* patch;  // JSON Patch applied to the valid base object
  const char* path;
  const char* message;
  AlsoRejectedBy also;
};

std::ostream& operator<<(std::ostream& out, const BadInput& input) { return out << input.name; }

const BadInput kBadInputs[] = {
    {"NegativeGpus", ValidTrainingJob,
     R"([{"op":"replace","path":"/spec/gpusPerReplica","value":"-1"}])", "spec.gpusPerReplica",
     "must be > 0", AlsoRejectedBy::kSchema},
    {"NonNumericGpus", ValidTrainingJob,
     R"([{"op":"replace","path":"/spec/gpusPerReplica","value":"abc"}])", "spec.gpusPerReplica",
     "must be a quantity", AlsoRejectedBy::kSchema},
    {"FractionAboveOne", ValidTrainingJob,
     R"([{"op":"replace","path":"/spec/replicas","value":1},{"op":"replace","path":"/spec/gpusPerReplica","value":"1.5"}])",
     "spec.gpusPerReplica", "fractional gpusPerReplica must be below 1", AlsoRejectedBy::kCelRule},
    {"FractionWithGang", ValidTrainingJob,
     R"([{"op":"replace","path":"/spec/gpusPerReplica","value":"0.5"}])", "spec.gpusPerReplica",
     "needs replicas: 1", AlsoRejectedBy::kCelRule},
    {"ZeroGpus", ValidTrainingJob, R"([{"op":"replace","path":"/spec/gpusPerReplica","value":0}])",
     "spec.gpusPerReplica", "must be > 0", AlsoRejectedBy::kCelRule},
    {"UnquotedFraction", ValidTrainingJob,
     R"([{"op":"replace","path":"/spec/replicas","value":1},{"op":"replace","path":"/spec/gpusPerReplica","value":0.5}])",
     "spec.gpusPerReplica", "write fractions quoted", AlsoRejectedBy::kSchema},
    {"MoreGpusThanANode", ValidTrainingJob,
     R"([{"op":"replace","path":"/spec/gpusPerReplica","value":"1e15"}])", "spec.gpusPerReplica",
     "must be <= 64", AlsoRejectedBy::kServerOnly},
    {"BooleanGpus", ValidTrainingJob,
     R"([{"op":"replace","path":"/spec/gpusPerReplica","value":true}])", "spec.gpusPerReplica",
     "got boolean", AlsoRejectedBy::kSchema},
    {"FinerThanMilliGpus", ValidTrainingJob,
     R"([{"op":"replace","path":"/spec/replicas","value":1},{"op":"replace","path":"/spec/gpusPerReplica","value":"0.0001"}])",
     "spec.gpusPerReplica", "at most 3 decimals", AlsoRejectedBy::kServerOnly},
    {"MissingGpus", ValidTrainingJob, R"([{"op":"remove","path":"/spec/gpusPerReplica"}])",
     "spec.gpusPerReplica", "is required", AlsoRejectedBy::kSchema},
    {"MinReplicasAboveReplicas", ValidTrainingJob,
     R"([{"op":"add","path":"/spec/minReplicas","value":3}])", "spec.minReplicas",
     "must be <= replicas", AlsoRejectedBy::kCelRule},
    {"ZeroReplicas", ValidTrainingJob, R"([{"op":"replace","path":"/spec/replicas","value":0}])",
     "spec.replicas", "must be >= 1", AlsoRejectedBy::kSchema},
    {"ReplicasAsWord", ValidTrainingJob,
     R"([{"op":"replace","path":"/spec/replicas","value":"two"}])", "spec.replicas",
     "must be an integer", AlsoRejectedBy::kSchema},
    {"ZeroMinReplicas", ValidTrainingJob, R"([{"op":"add","path":"/spec/minReplicas","value":0}])",
     "spec.minReplicas", "must be >= 1", AlsoRejectedBy::kSchema},
    {"MissingTemplate", ValidTrainingJob, R"([{"op":"remove","path":"/spec/template"}])",
     "spec.template", "is required", AlsoRejectedBy::kSchema},
    {"NoContainers", ValidTrainingJob,
     R"([{"op":"replace","path":"/spec/template/spec/containers","value":[]}])",
     "spec.template.spec.containers", "at least 1", AlsoRejectedBy::kSchema},
    {"ContainerNotObject", ValidTrainingJob,
     R"([{"op":"replace","path":"/spec/template/spec/containers/0","value":"nginx"}])",
     "spec.template.spec.containers[0]", "must be an object", AlsoRejectedBy::kSchema},
    {"MissingQueue", ValidTrainingJob, R"([{"op":"remove","path":"/spec/queue"}])", "spec.queue",
     "is required", AlsoRejectedBy::kSchema},
    {"EmptyQueue", ValidTrainingJob, R"([{"op":"replace","path":"/spec/queue","value":""}])",
     "spec.queue", "must not be empty", AlsoRejectedBy::kSchema},
    {"UnknownWorkloadClass", ValidTrainingJob,
     R"([{"op":"add","path":"/spec/workloadClass","value":"Batch"}])", "spec.workloadClass",
     "must be one of Train, Build, Inference", AlsoRejectedBy::kSchema},
    {"TopologyWithoutKey", ValidTrainingJob,
     R"([{"op":"add","path":"/spec/topology","value":{"mode":"Required"}}])", "spec.topology.key",
     "is required", AlsoRejectedBy::kSchema},
    {"UnknownTopologyMode", ValidTrainingJob,
     R"([{"op":"add","path":"/spec/topology","value":{"key":"rack","mode":"Sometimes"}}])",
     "spec.topology.mode", "must be one of Required, Preferred", AlsoRejectedBy::kSchema},
    {"NegativeBackoff", ValidTrainingJob,
     R"([{"op":"add","path":"/spec/backoffLimit","value":-1}])", "spec.backoffLimit",
     "must be >= 0", AlsoRejectedBy::kSchema},
    {"ZeroDeadline", ValidTrainingJob,
     R"([{"op":"add","path":"/spec/activeDeadlineSeconds","value":0}])",
     "spec.activeDeadlineSeconds", "must be >= 1", AlsoRejectedBy::kSchema},
    {"ZeroCheckpointInterval", ValidTrainingJob,
     R"([{"op":"add","path":"/spec/checkpointIntervalSeconds","value":0}])",
     "spec.checkpointIntervalSeconds", "must be >= 1", AlsoRejectedBy::kSchema},
    {"TextCheckpointInterval", ValidTrainingJob,
     R"([{"op":"add","path":"/spec/checkpointIntervalSeconds","value":"1h"}])",
     "spec.checkpointIntervalSeconds", "must be an integer", AlsoRejectedBy::kSchema},
    {"NegativeExpectedRuntime", ValidTrainingJob,
     R"([{"op":"add","path":"/spec/expectedRuntimeSeconds","value":-60}])",
     "spec.expectedRuntimeSeconds", "must be >= 1", AlsoRejectedBy::kSchema},
    {"FractionalPriority", ValidTrainingJob,
     R"([{"op":"add","path":"/spec/priority","value":1.5}])", "spec.priority",
     "must be an integer, got number", AlsoRejectedBy::kSchema},
    {"PriorityBeyondInt32", ValidTrainingJob,
     R"([{"op":"add","path":"/spec/priority","value":3000000000}])", "spec.priority", "32-bit",
     AlsoRejectedBy::kSchema},
    {"SpecNotObject", ValidTrainingJob, R"([{"op":"replace","path":"/spec","value":"x"}])", "spec",
     "must be an object", AlsoRejectedBy::kSchema},
    {"UnknownPhase", ValidTrainingJob,
     R"([{"op":"add","path":"/status","value":{"phase":"Done"}}])", "status.phase",
     "must be one of", AlsoRejectedBy::kSchema},
    {"BadName", ValidTrainingJob,
     R"([{"op":"replace","path":"/metadata/name","value":"Bad_Name"}])", "metadata.name",
     "RFC 1123", AlsoRejectedBy::kServerOnly},
    {"NameBeyondALabelValue", ValidTrainingJob,
     R"([{"op":"replace","path":"/metadata/name","value":"a-training-job-name-of-sixty-four-characters-that-labels-refusex"}])",
     "metadata.name", "at most 63 characters", AlsoRejectedBy::kNoOne},
    {"GangNamedWithADot", ValidTrainingJob,
     R"([{"op":"replace","path":"/metadata/name","value":"bert.large"}])", "metadata.name",
     "RFC 1035 label", AlsoRejectedBy::kNoOne},
    {"GangNameWithoutRoomForReplicaNumbers", ValidTrainingJob,
     R"([{"op":"replace","path":"/metadata/name","value":"a-gang-whose-name-leaves-no-room-for-its-replica-numbers-abcde"}])",
     "metadata.name", "the name may have at most 61 characters, it has 62", AlsoRejectedBy::kNoOne},
    {"TemplateBoundToANode", ValidTrainingJob,
     R"([{"op":"add","path":"/spec/template/spec/nodeName","value":"node-1"}])",
     "spec.template.spec.nodeName", "must not be set", AlsoRejectedBy::kNoOne},
    {"GangNamedWithADigitFirst", ValidTrainingJob,
     R"([{"op":"replace","path":"/metadata/name","value":"1st-run"}])", "metadata.name",
     "starting with a letter", AlsoRejectedBy::kNoOne},
    {"WrongApiVersion", ValidTrainingJob,
     R"([{"op":"replace","path":"/apiVersion","value":"gpupool.dev/v1"}])", "apiVersion",
     "must be gpupool.dev/v1alpha1", AlsoRejectedBy::kServerOnly},
    {"NegativeQuota", ValidProject,
     R"([{"op":"replace","path":"/spec/quotas/1/gpu","value":"-1"}])", "spec.quotas[1].gpu",
     "must be >= 0", AlsoRejectedBy::kSchema},
    {"LimitBelowQuota", ValidProject,
     R"([{"op":"replace","path":"/spec/quotas/1/limit","value":"0.25"}])", "spec.quotas[1].limit",
     "must be >= gpu", AlsoRejectedBy::kCelRule},
    {"NonNumericQuota", ValidProject,
     R"([{"op":"replace","path":"/spec/quotas/0/gpu","value":"lots"}])", "spec.quotas[0].gpu",
     "must be a quantity", AlsoRejectedBy::kSchema},
    {"MissingQuotaGpu", ValidProject, R"([{"op":"remove","path":"/spec/quotas/0/gpu"}])",
     "spec.quotas[0].gpu", "is required", AlsoRejectedBy::kSchema},
    {"DuplicateQuotaQueue", ValidProject,
     R"([{"op":"replace","path":"/spec/quotas/1/queue","value":"train"}])", "spec.quotas[1].queue",
     "duplicate quota", AlsoRejectedBy::kSchema},
    {"NegativeWeight", ValidProject,
     R"([{"op":"add","path":"/spec/quotas/0/overQuotaWeight","value":-1}])",
     "spec.quotas[0].overQuotaWeight", "must be >= 0", AlsoRejectedBy::kSchema},
    {"NoNamespaces", ValidProject, R"([{"op":"replace","path":"/spec/namespaces","value":[]}])",
     "spec.namespaces", "at least one", AlsoRejectedBy::kSchema},
    {"MissingNamespaces", ValidProject, R"([{"op":"remove","path":"/spec/namespaces"}])",
     "spec.namespaces", "is required", AlsoRejectedBy::kSchema},
    {"BadNamespace", ValidProject,
     R"([{"op":"replace","path":"/spec/namespaces/0","value":"Susan"}])", "spec.namespaces[0]",
     "RFC 1123 label", AlsoRejectedBy::kSchema},
    {"QuotasNotList", ValidProject,
     R"([{"op":"replace","path":"/spec/quotas","value":{"train":2}}])", "spec.quotas",
     "must be an array", AlsoRejectedBy::kSchema},
    {"UnknownSharing", ValidQueue, R"([{"op":"replace","path":"/spec/sharing","value":"Shared"}])",
     "spec.sharing", "must be one of Fixed, Guaranteed", AlsoRejectedBy::kSchema},
    {"NegativeMinRuntime", ValidQueue,
     R"([{"op":"replace","path":"/spec/preemption/minRuntimeSeconds","value":-5}])",
     "spec.preemption.minRuntimeSeconds", "must be >= 0", AlsoRejectedBy::kSchema},
    {"NegativeReclaimWait", ValidQueue,
     R"([{"op":"add","path":"/spec/preemption/reclaimWaitSeconds","value":-1}])",
     "spec.preemption.reclaimWaitSeconds", "must be >= 0", AlsoRejectedBy::kSchema},
    {"NegativeReclaimMaxRuntime", ValidQueue,
     R"([{"op":"add","path":"/spec/preemption/reclaimMaxRuntimeSeconds","value":-60}])",
     "spec.preemption.reclaimMaxRuntimeSeconds", "must be >= 0", AlsoRejectedBy::kSchema},
    {"ImmediateGuaranteeAbove100", ValidQueue,
     R"([{"op":"add","path":"/spec/preemption/immediateGuaranteePercent","value":101}])",
     "spec.preemption.immediateGuaranteePercent", "must be <= 100", AlsoRejectedBy::kSchema},
    {"NegativeImmediateGuarantee", ValidQueue,
     R"([{"op":"add","path":"/spec/preemption/immediateGuaranteePercent","value":-1}])",
     "spec.preemption.immediateGuaranteePercent", "must be >= 0", AlsoRejectedBy::kSchema},
    {"ReclaimMaxRuntimeAsDuration", ValidQueue,
     R"([{"op":"add","path":"/spec/preemption/reclaimMaxRuntimeSeconds","value":"1h"}])",
     "spec.preemption.reclaimMaxRuntimeSeconds", "must be an integer", AlsoRejectedBy::kSchema},
    {"GraceAsDuration", ValidQueue,
     R"([{"op":"replace","path":"/spec/preemption/gracePeriodSeconds","value":"30s"}])",
     "spec.preemption.gracePeriodSeconds", "must be an integer", AlsoRejectedBy::kSchema},
    {"NodeSelectorValueNotString", ValidQueue,
     R"([{"op":"replace","path":"/spec/nodeSelector/pool","value":1}])", "spec.nodeSelector.pool",
     "must be a string", AlsoRejectedBy::kSchema},
    {"NodeSelectorNotMap", ValidQueue,
     R"([{"op":"replace","path":"/spec/nodeSelector","value":["pool=train"]}])",
     "spec.nodeSelector", "must be an object", AlsoRejectedBy::kSchema},
    {"BadDepartmentName", ValidProject,
     R"([{"op":"replace","path":"/spec/department","value":"Research Lab"}])", "spec.department",
     "must be a Department name", AlsoRejectedBy::kSchema},
    {"DepartmentNotString", ValidProject,
     R"([{"op":"replace","path":"/spec/department","value":7}])", "spec.department",
     "must be a string", AlsoRejectedBy::kSchema},
    {"NegativeDepartmentQuota", ValidDepartment,
     R"([{"op":"replace","path":"/spec/quotas/0/gpu","value":"-8"}])", "spec.quotas[0].gpu",
     "must be >= 0", AlsoRejectedBy::kSchema},
    {"DepartmentLimitBelowQuota", ValidDepartment,
     R"([{"op":"replace","path":"/spec/quotas/0/limit","value":16}])", "spec.quotas[0].limit",
     "must be >= gpu", AlsoRejectedBy::kCelRule},
    {"NonNumericDepartmentQuota", ValidDepartment,
     R"([{"op":"replace","path":"/spec/quotas/1/gpu","value":"many"}])", "spec.quotas[1].gpu",
     "must be a quantity", AlsoRejectedBy::kSchema},
    {"MissingDepartmentQuotaQueue", ValidDepartment,
     R"([{"op":"remove","path":"/spec/quotas/1/queue"}])", "spec.quotas[1].queue", "is required",
     AlsoRejectedBy::kSchema},
    {"EmptyDepartmentQuotaQueue", ValidDepartment,
     R"([{"op":"replace","path":"/spec/quotas/1/queue","value":""}])", "spec.quotas[1].queue",
     "must not be empty", AlsoRejectedBy::kSchema},
    {"DuplicateDepartmentQuotaQueue", ValidDepartment,
     R"([{"op":"replace","path":"/spec/quotas/1/queue","value":"train"}])", "spec.quotas[1].queue",
     "duplicate quota", AlsoRejectedBy::kSchema},
    {"NegativeDepartmentWeight", ValidDepartment,
     R"([{"op":"replace","path":"/spec/quotas/0/overQuotaWeight","value":-2}])",
     "spec.quotas[0].overQuotaWeight", "must be >= 0", AlsoRejectedBy::kSchema},
    {"DepartmentQuotasNotList", ValidDepartment,
     R"([{"op":"replace","path":"/spec/quotas","value":{"train":8}}])", "spec.quotas",
     "must be an array", AlsoRejectedBy::kSchema},
    {"BadDepartmentObjectName", ValidDepartment,
     R"([{"op":"replace","path":"/metadata/name","value":"R&D"}])", "metadata.name", "RFC 1123",
     AlsoRejectedBy::kServerOnly},
    {"IdlePercentAboveHundred", ValidQueue,
     R"([{"op":"replace","path":"/spec/idle/utilizationBelowPercent","value":101}])",
     "spec.idle.utilizationBelowPercent", "must be <= 100", AlsoRejectedBy::kSchema},
    {"IdlePercentZero", ValidQueue,
     R"([{"op":"replace","path":"/spec/idle/utilizationBelowPercent","value":0}])",
     "spec.idle.utilizationBelowPercent", "must be >= 1", AlsoRejectedBy::kSchema},
    {"IdlePercentAsString", ValidQueue,
     R"([{"op":"replace","path":"/spec/idle/utilizationBelowPercent","value":"5%"}])",
     "spec.idle.utilizationBelowPercent", "must be an integer", AlsoRejectedBy::kSchema},
    {"IdleForZeroSeconds", ValidQueue,
     R"([{"op":"replace","path":"/spec/idle/forSeconds","value":0}])", "spec.idle.forSeconds",
     "must be >= 1", AlsoRejectedBy::kSchema},
    {"IdleWithoutForSeconds", ValidQueue, R"([{"op":"remove","path":"/spec/idle/forSeconds"}])",
     "spec.idle.forSeconds", "required", AlsoRejectedBy::kSchema},
    {"IdleUnknownAction", ValidQueue,
     R"([{"op":"replace","path":"/spec/idle/action","value":"Delete"}])", "spec.idle.action",
     "must be one of Preempt, Annotate", AlsoRejectedBy::kSchema},
    {"IdleNotObject", ValidQueue, R"([{"op":"replace","path":"/spec/idle","value":true}])",
     "spec.idle", "must be an object", AlsoRejectedBy::kSchema},
};

class BadInputTest : public ::testing::TestWithParam<BadInput> {
 protected:
  Json Object() const { return GetParam().base().patch(Json::parse(GetParam().patch)); }
};

TEST(BadInputs, AtLeastThirtyCases) { EXPECT_GE(std::size(kBadInputs), 30u); }

TEST(BadInputs, BaseObjectsAreValid) {
  for (auto base : {ValidTrainingJob, ValidProject, ValidQueue, ValidDepartment}) {
    EXPECT_EQ(JoinErrors(ValidateObject(base())), "");
  }
}

TEST_P(BadInputTest, OurValidatorNamesTheField) {
  auto errors = ValidateObject(Object());
  bool found = false;
  for (const auto& error : errors) {
    if (error.path == GetParam().path &&
        error.message.find(GetParam().message) != std::string::npos) {
      found = true;
    }
  }
  EXPECT_TRUE(found) << "expected \"" << GetParam().path << ": ..." << GetParam().message
                     << "...\", got: " << JoinErrors(errors);
}

Json CrdSchemaFor(const std::string& kind) {
  const std::string file = kind == "Queue"        ? "crds/queues.gpupool.dev.yaml"
                           : kind == "Project"    ? "crds/projects.gpupool.dev.yaml"
                           : kind == "Department" ? "crds/departments.gpupool.dev.yaml"
                                                  : "crds/trainingjobs.gpupool.dev.yaml";
  auto documents = LoadYamlFile(testing::SourcePath(file));
  return documents.at(0)["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
}

TEST_P(BadInputTest, CrdSchemaAgreesWhereItCan) {
  Json object = Object();
  Json schema = CrdSchemaFor(object.value("kind", ""));
  ApplyDefaults(schema, object);
  auto errors = ValidateAgainstSchema(schema, object);
  if (GetParam().also != AlsoRejectedBy::kSchema) {
    // Only CEL or the server reject these; the schema alone must let them pass,
    // otherwise the case belongs to the other group.
    EXPECT_EQ(JoinErrors(errors), "");
    return;
  }
  // The schema may name the enclosing list item (duplicates are reported there).
  const std::string expected = GetParam().path;
  bool found = false;
  for (const auto& error : errors) {
    const bool prefix = expected.rfind(error.path, 0) == 0 &&
                        (expected.size() == error.path.size() ||
                         expected[error.path.size()] == '.' || expected[error.path.size()] == '[');
    found = found || (!error.path.empty() && prefix);
  }
  EXPECT_TRUE(found) << "schema errors: " << JoinErrors(errors);
}

// A refused amount is reported once: the cross-field rules do not judge the
// stand-in 0 that an unreadable amount leaves behind.
TEST(BadInputs, AnUnreadableGpuAmountGetsExactlyOneError) {
  for (const Json& amount : {Json("0.0001"), Json(0.5), Json("abc"), Json(true)}) {
    Json job = ValidTrainingJob();
    job["spec"]["replicas"] = 1;
    job["spec"]["gpusPerReplica"] = amount;
    auto errors = ValidateObject(job);
    ASSERT_EQ(errors.size(), 1u) << amount << ": " << JoinErrors(errors);
    EXPECT_EQ(errors[0].path, "spec.gpusPerReplica");
  }
}

// "spec.quotas[1].gpu" -> "spec.quotas[].gpu": a rule applies to every item.
std::string WithoutIndexes(const std::string& path) {
  std::string result;
  bool in_index = false;
  for (char c : path) {
    if (c == ']') in_index = false;
    if (!in_index) result += c;
    if (c == '[') in_index = true;
  }
  return result;
}

// The field paths of every CEL rule in `schema`, each rule's fieldPath
// resolved against the node that carries it.
void CollectCelRulePaths(const Json& schema, const std::string& path,
                         std::vector<std::string>& paths) {
  for (const auto& rule : schema.value("x-kubernetes-validations", Json::array())) {
    std::string field = rule.value("fieldPath", "");
    // fieldPath is relative to the node: ".minReplicas".
    paths.push_back(field.empty() ? path : Child(path, field.substr(1)));
  }
  const Json properties = schema.value("properties", Json::object());
  for (const auto& [name, child] : properties.items()) {
    CollectCelRulePaths(child, Child(path, name), paths);
  }
  if (schema.contains("items")) CollectCelRulePaths(schema["items"], path + "[]", paths);
}

// gpupool validate relies on gpupool's own rules for the CRD's CEL rules (it
// runs no CEL interpreter): each rule needs a bad input above that our
// validator refuses at the rule's field.
TEST(BadInputs, EveryCelRuleOfTheCrdsHasACase) {
  size_t rules = 0;
  for (const char* kind : {"Queue", "Project", "TrainingJob", "Department"}) {
    std::vector<std::string> rule_paths;
    CollectCelRulePaths(CrdSchemaFor(kind), "", rule_paths);
    rules += rule_paths.size();
    for (const auto& rule_path : rule_paths) {
      const bool covered =
          std::any_of(std::begin(kBadInputs), std::end(kBadInputs), [&](const BadInput& input) {
            return input.base()["kind"] == kind && WithoutIndexes(input.path) == rule_path;
          });
      EXPECT_TRUE(covered) << kind << " has a CEL rule at " << rule_path
                           << " that no bad input exercises";
    }
  }
  EXPECT_GE(rules, 5u) << "the CRDs' CEL rules were not found";
}

INSTANTIATE_TEST_SUITE_P(All, BadInputTest, ::testing::ValuesIn(kBadInputs),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gpupool::api
