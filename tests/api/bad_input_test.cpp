// Bad objects, each rejected with the field path a user must fix, both by our
// validator and (where the schema can express it) by the CRD's own schema.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bad_inputs.h"
#include "gpupool/api/validate.h"
#include "gpupool/json/yaml.h"
#include "gpupool/openapi/openapi_schema.h"
#include "test_objects.h"

namespace gpupool::api {
namespace {

using Json = nlohmann::json;

using testing::AlsoRejectedBy;
using testing::BadInput;
using testing::BadInputs;
using testing::ValidDepartment;
using testing::ValidProject;
using testing::ValidQueue;
using testing::ValidTrainingJob;

class BadInputTest : public ::testing::TestWithParam<BadInput> {
 protected:
  Json Object() const { return testing::BadObject(GetParam()); }
};

TEST(BadInputs, AtLeastThirtyCases) { EXPECT_GE(BadInputs().size(), 30u); }

TEST(BadInputs, BaseObjectsAreValid) {
  for (auto base : {ValidTrainingJob, ValidProject, ValidQueue, ValidDepartment}) {
    EXPECT_EQ(json::JoinErrors(ValidateObject(base())), "");
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
                     << "...\", got: " << json::JoinErrors(errors);
}

Json CrdSchemaFor(const std::string& kind) {
  const std::string file = kind == "Queue"        ? "crds/queues.gpupool.dev.yaml"
                           : kind == "Project"    ? "crds/projects.gpupool.dev.yaml"
                           : kind == "Department" ? "crds/departments.gpupool.dev.yaml"
                                                  : "crds/trainingjobs.gpupool.dev.yaml";
  auto documents = json::LoadYamlFile(testing::SourcePath(file));
  return documents.at(0)["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
}

TEST_P(BadInputTest, CrdSchemaAgreesWhereItCan) {
  Json object = Object();
  Json schema = CrdSchemaFor(object.value("kind", ""));
  openapi::ApplyDefaults(schema, object);
  auto errors = openapi::ValidateAgainstSchema(schema, object);
  if (GetParam().also != AlsoRejectedBy::kSchema) {
    // Only CEL or the server reject these; the schema alone must let them pass,
    // otherwise the case belongs to the other group.
    EXPECT_EQ(json::JoinErrors(errors), "");
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
  EXPECT_TRUE(found) << "schema errors: " << json::JoinErrors(errors);
}

// A refused amount is reported once: the cross-field rules do not judge the
// stand-in 0 that an unreadable amount leaves behind.
TEST(BadInputs, AnUnreadableGpuAmountGetsExactlyOneError) {
  for (const Json& amount : {Json("0.0001"), Json(0.5), Json("abc"), Json(true)}) {
    Json job = ValidTrainingJob();
    job["spec"]["replicas"] = 1;
    job["spec"]["gpusPerReplica"] = amount;
    auto errors = ValidateObject(job);
    ASSERT_EQ(errors.size(), 1u) << amount << ": " << json::JoinErrors(errors);
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
    paths.push_back(field.empty() ? path : json::Child(path, field.substr(1)));
  }
  const Json properties = schema.value("properties", Json::object());
  for (const auto& [name, child] : properties.items()) {
    CollectCelRulePaths(child, json::Child(path, name), paths);
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
          std::any_of(BadInputs().begin(), BadInputs().end(), [&](const BadInput& input) {
            return input.base()["kind"] == kind && WithoutIndexes(input.path) == rule_path;
          });
      EXPECT_TRUE(covered) << kind << " has a CEL rule at " << rule_path
                           << " that no bad input exercises";
    }
  }
  EXPECT_GE(rules, 3u) << "the CRDs' CEL rules were not found";
}

INSTANTIATE_TEST_SUITE_P(All, BadInputTest, ::testing::ValuesIn(BadInputs()),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gpupool::api
