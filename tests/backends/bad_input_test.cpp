// Every bad input of tests/support/bad_inputs.cpp sent to each backend as a
// server-side dry run: the sandbox and every real kube-apiserver refuse the
// same inputs and name the same field, and store the ones only gpupool's
// controller refuses (InvalidSpec).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <tuple>

#include "bad_inputs.h"
#include "crd_install.h"
#include "fidelity_util.h"
#include "test_cluster.h"
#include "test_objects.h"

namespace gpupool::backends::testing {
namespace {

using api::testing::AlsoRejectedBy;
using api::testing::BadInput;

using Answer = sandbox::testing::Reply;
using sandbox::testing::Send;

std::string CollectionPath(const Json& object) {
  const std::string kind = object.value("kind", "");
  const std::string plural = kind == "TrainingJob" ? "trainingjobs"
                             : kind == "Project"   ? "projects"
                             : kind == "Queue"     ? "queues"
                                                   : "departments";
  std::string path = "/apis/gpupool.dev/v1alpha1/";
  if (kind == "TrainingJob") path += "namespaces/susan/";
  return path + plural;
}

// A status can only be written through /status to an object that exists: the
// valid base is stored under a name of its own, the bad status is a dry-run
// merge patch, and the object is deleted again.
Answer SendStatus(httplib::Client& client, const BadInput& input, const Json& object) {
  const std::string collection = CollectionPath(object);
  std::string name = std::string("status-of-") + input.name;
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  Json base = input.base();
  base["metadata"]["name"] = name;
  const std::string path = collection + "/" + name;
  Send(client, "POST", collection, base);
  Answer answer = Send(client, "PATCH", path + "/status?dryRun=All",
                       Json{{"status", object["status"]}}, "application/merge-patch+json");
  client.Delete(path);
  return answer;
}

// A refusal of the object as a whole (400: it cannot be decoded) names no field.
bool NamesField(const Answer& answer, const std::string& path) {
  if (answer.status == 400) return true;
  if (!answer.json.is_object()) return false;
  const Json details = answer.json.value("details", Json::object());
  for (const auto& cause : details.value("causes", Json::array())) {
    const std::string field = cause.value("field", "");
    // A rule may name the enclosing list item, or the whole object for a list's keys.
    if (!field.empty() && path.rfind(field, 0) == 0) return true;
  }
  const std::string message = answer.json.value("message", "");
  return message.find(path.substr(path.rfind('.') + 1)) != std::string::npos;
}

class BadInputOnBackend : public ::testing::TestWithParam<std::tuple<std::string, BadInput>> {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_BACKEND(backend());
    cluster_ = &ClusterFor(backend());
    EnsureCrdsAndNamespace(*cluster_, "susan");
  }
  const std::string& backend() const { return std::get<0>(GetParam()); }
  const BadInput& input() const { return std::get<1>(GetParam()); }

  TestCluster* cluster_ = nullptr;
};

TEST_P(BadInputOnBackend, RefusedOrStoredAsTheTableSays) {
  const Json object = api::testing::BadObject(input());
  auto client = cluster_->Http();
  const bool status_write = std::string(input().path).rfind("status.", 0) == 0;
  const Answer answer =
      status_write ? SendStatus(*client, input(), object)
                   : Send(*client, "POST",
                          CollectionPath(object) + "?dryRun=All&fieldValidation=Strict", object);
  ASSERT_NE(answer.status, 0) << "no answer from " << backend();
  if (input().also == AlsoRejectedBy::kNoOne) {
    EXPECT_THAT(answer.status, ::testing::AnyOf(200, 201))
        << "the API server should store it (gpupool's controller refuses it): " << answer.json;
    return;
  }
  EXPECT_THAT(answer.status, ::testing::AnyOf(400, 422)) << answer.json;
  EXPECT_TRUE(NamesField(answer, input().path))
      << "expected the answer to name " << input().path << ": " << answer.json;
}

using FieldErrorOnBackend = CrdBackendTest;

// A string over its maxLength is FieldValueTooLong on every version (the
// message's words differ between versions).
TEST_P(FieldErrorOnBackend, AStringOverItsMaxLengthIsFieldValueTooLong) {
  Json project = api::testing::ValidProject();
  project["spec"]["namespaces"][0] = std::string(70, 'a');
  auto client = cluster_->Http();
  const Answer answer = Send(*client, "POST", CollectionPath(project) + "?dryRun=All", project);
  ASSERT_EQ(answer.status, 422) << answer.json;
  const Json causes = answer.json["details"].value("causes", Json::array());
  ASSERT_FALSE(causes.empty()) << answer.json;
  EXPECT_EQ(causes[0].value("reason", ""), "FieldValueTooLong") << answer.json;
  EXPECT_EQ(causes[0].value("field", ""), "spec.namespaces[0]") << answer.json;
}

// The same for metadata.name, which the CRDs limit to 63 characters (the
// controller writes names into pod labels): the cause names the field, and
// the rules the error blocks are reported as not checked.
TEST_P(FieldErrorOnBackend, ANameOverItsMaxLengthIsFieldValueTooLong) {
  Json job = api::testing::ValidTrainingJob();
  job["metadata"]["name"] = std::string(64, 'a');
  auto client = cluster_->Http();
  const Answer answer = Send(*client, "POST", CollectionPath(job) + "?dryRun=All", job);
  ASSERT_EQ(answer.status, 422) << answer.json;
  const Json causes = answer.json["details"].value("causes", Json::array());
  bool too_long = false;
  for (const auto& cause : causes) {
    too_long = too_long || (cause.value("field", "") == "metadata.name" &&
                            cause.value("reason", "") == "FieldValueTooLong");
  }
  EXPECT_TRUE(too_long) << answer.json;
}

INSTANTIATE_TEST_SUITE_P(All, FieldErrorOnBackend, ::testing::ValuesIn(Backends()),
                         [](const auto& info) { return BackendTestName(info.param); });

INSTANTIATE_TEST_SUITE_P(All, BadInputOnBackend,
                         ::testing::Combine(::testing::ValuesIn(Backends()),
                                            ::testing::ValuesIn(api::testing::BadInputs())),
                         [](const auto& info) {
                           return std::string(std::get<1>(info.param).name) + "_" +
                                  BackendTestName(std::get<0>(info.param));
                         });

}  // namespace
}  // namespace gpupool::backends::testing
