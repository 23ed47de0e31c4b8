// Writes after ambiguous failures (the request was applied, the answer lost):
// creates resolve AlreadyExists by identity, patches are repeated only with a
// precondition, and nothing unsafe is sent twice.
#include <gtest/gtest.h>

#include "gpupool/kube/errors.h"
#include "test_util.h"

namespace gpupool::kube {
namespace {

using namespace gpupool::kube::testing;

constexpr char kConfigMaps[] = "/api/v1/configmaps";
constexpr char kCreation[] = "gpupool.dev/creation";

Json ConfigMap(const std::string& name, const std::string& creation) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", name},
            {"annotations", {{kCreation, creation}}},
            {"ownerReferences", Json::array({{{"uid", "owner-1"}, {"name", "job"}}})}}},
          {"data", {{"items", "[]"}}}};
}

int CountRequests(FakeApiServer& server, const std::string& method) {
  int count = 0;
  for (const auto& request : server.Requests()) count += request.method == method;
  return count;
}

class WriteSafetyTest : public ::testing::Test {
 protected:
  FakeApiServer server_;
  Client client_{PlainConfig(server_), FastOptions()};
  WriteOptions identity_{.identity_annotation = kCreation};
};

TEST_F(WriteSafetyTest, CreateWhoseAnswerWasLostReturnsOurObject) {
  server_.DropResponsesAfterApplying(1);
  Json created = client_.Create(resources::kConfigMaps, "a", ConfigMap("c", "nonce-1"), identity_);
  EXPECT_EQ(created["metadata"]["annotations"][kCreation], "nonce-1");
  EXPECT_FALSE(created["metadata"].value("uid", "").empty());
  EXPECT_EQ(server_.Objects(kConfigMaps).size(), 1u);
  EXPECT_EQ(CountRequests(server_, "POST"), 2);
}

TEST_F(WriteSafetyTest, CreateMeetingSomeoneElsesObjectStillFails) {
  server_.Put(kConfigMaps, [] {
    Json theirs = ConfigMap("c", "nonce-of-another-writer");
    theirs["metadata"]["namespace"] = "a";
    return theirs;
  }());
  server_.FailNext(1, 500);  // Ambiguous: a 500 may follow a write.
  try {
    client_.Create(resources::kConfigMaps, "a", ConfigMap("c", "nonce-1"), identity_);
    ADD_FAILURE() << "someone else's object was taken for ours";
  } catch (const ApiError& error) {
    EXPECT_TRUE(IsAlreadyExists(error)) << error.what();
    EXPECT_TRUE(error.after_ambiguous_attempt());
  }
}

TEST_F(WriteSafetyTest, AlreadyExistsWithoutAnAmbiguousAttemptIsNotResolved) {
  client_.Create(resources::kConfigMaps, "a", ConfigMap("c", "nonce-1"));
  try {
    client_.Create(resources::kConfigMaps, "a", ConfigMap("c", "nonce-1"), identity_);
    ADD_FAILURE() << "a plain AlreadyExists passed for success";
  } catch (const ApiError& error) {
    EXPECT_TRUE(IsAlreadyExists(error)) << error.what();
    EXPECT_FALSE(error.after_ambiguous_attempt());
  }
}

TEST_F(WriteSafetyTest, IdentityNeedsOwnerReferencesAndEveryNamedKey) {
  Json sent = ConfigMap("c", "nonce-1");
  Json existing = sent;
  EXPECT_TRUE(IsSameCreation(sent, existing, identity_));
  existing["metadata"]["ownerReferences"][0]["uid"] = "owner-2";
  EXPECT_FALSE(IsSameCreation(sent, existing, identity_));
  EXPECT_FALSE(IsSameCreation(sent, sent, {})) << "nothing named: never ours";
  WriteOptions by_label{.identity_label = "run"};
  EXPECT_THROW(IsSameCreation(sent, sent, by_label), std::invalid_argument);
}

TEST_F(WriteSafetyTest, CreateNamingAKeyTheObjectLacksSendsNothing) {
  WriteOptions by_label{.identity_label = "run"};
  EXPECT_THROW(client_.Create(resources::kConfigMaps, "a", ConfigMap("c", "n"), by_label),
               std::invalid_argument);
  EXPECT_TRUE(server_.Requests().empty());
}

Json AppendItem(const std::string& value) {
  return Json::array(
      {{{"op", "add"}, {"path", "/metadata/annotations/item-" + value}, {"value", value}}});
}

TEST_F(WriteSafetyTest, PatchWithoutPreconditionIsNotRepeatedAfterALostAnswer) {
  client_.Create(resources::kConfigMaps, "a", ConfigMap("c", "nonce-1"));
  server_.ClearRequests();
  server_.DropResponsesAfterApplying(1);
  try {
    client_.Patch(resources::kConfigMaps, "a", "c", PatchType::kMerge,
                  {{"data", {{"items", "[1]"}}}});
    ADD_FAILURE() << "a cut answer passed for success";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.reason(), Reason::kTransport) << error.what();
    EXPECT_TRUE(error.MayHaveBeenApplied());
  }
  EXPECT_EQ(CountRequests(server_, "PATCH"), 1);
}

TEST_F(WriteSafetyTest, PatchWithPreconditionIsRepeatedAndCannotApplyTwice) {
  Json created = client_.Create(resources::kConfigMaps, "a", ConfigMap("c", "nonce-1"));
  server_.ClearRequests();
  server_.DropResponsesAfterApplying(1);
  PatchOptions guarded{.precondition_resource_version = ResourceVersionOf(created)};
  try {
    client_.Patch(resources::kConfigMaps, "a", "c", PatchType::kJson, AppendItem("x"), guarded);
    ADD_FAILURE() << "the repeat of an applied guarded patch must fail its test";
  } catch (const ApiError& error) {
    EXPECT_TRUE(error.after_ambiguous_attempt()) << error.what();
  }
  EXPECT_EQ(CountRequests(server_, "PATCH"), 2);
  Json stored = server_.Objects(kConfigMaps)["a/c"];
  EXPECT_EQ(stored["metadata"]["annotations"]["item-x"], "x");
  Json sent = Json::parse(server_.Requests().front().body);
  EXPECT_EQ(sent[0]["op"], "test");
}

TEST_F(WriteSafetyTest, MergePatchPreconditionMeetsConflictWhenStale) {
  Json created = client_.Create(resources::kConfigMaps, "a", ConfigMap("c", "nonce-1"));
  client_.Patch(resources::kConfigMaps, "a", "c", PatchType::kMerge, {{"data", {{"k", "1"}}}});
  PatchOptions stale{.precondition_resource_version = ResourceVersionOf(created)};
  try {
    client_.Patch(resources::kConfigMaps, "a", "c", PatchType::kMerge, {{"data", {{"k", "2"}}}},
                  stale);
    ADD_FAILURE();
  } catch (const ApiError& error) {
    EXPECT_TRUE(IsConflict(error)) << error.what();
  }
}

TEST_F(WriteSafetyTest, DefiniteRefusalsAreStillRetriedForEveryVerb) {
  client_.Create(resources::kConfigMaps, "a", ConfigMap("c", "nonce-1"));
  server_.ClearRequests();
  server_.FailNext(1, 503);
  client_.Patch(resources::kConfigMaps, "a", "c", PatchType::kMerge, {{"data", {{"k", "1"}}}});
  EXPECT_EQ(CountRequests(server_, "PATCH"), 2);
}

TEST_F(WriteSafetyTest, UnconditionalDeleteIsNotRepeatedButAGuardedOneIs) {
  client_.Create(resources::kConfigMaps, "a", ConfigMap("c", "nonce-1"));
  server_.ClearRequests();
  server_.FailNext(1, 500);
  EXPECT_THROW(client_.Delete(resources::kConfigMaps, "a", "c"), ApiError);
  EXPECT_EQ(CountRequests(server_, "DELETE"), 1);
  server_.FailNext(1, 500);
  Json stored = server_.Objects(kConfigMaps)["a/c"];
  DeleteOptions guarded;
  guarded.precondition_uid = stored["metadata"].value("uid", "");
  client_.Delete(resources::kConfigMaps, "a", "c", guarded);
  EXPECT_EQ(CountRequests(server_, "DELETE"), 3);
}

TEST(WritePreconditions, AddedToEachPatchType) {
  Json merge = WithPrecondition(PatchType::kMerge, {{"data", {{"k", "v"}}}}, "42");
  EXPECT_EQ(merge["metadata"]["resourceVersion"], "42");
  EXPECT_EQ(merge["data"]["k"], "v");
  EXPECT_TRUE(HasPrecondition(PatchType::kMerge, merge));
  Json json = WithPrecondition(PatchType::kJson, AppendItem("x"), "42");
  ASSERT_EQ(json.size(), 2u);
  EXPECT_EQ(json[0],
            Json({{"op", "test"}, {"path", "/metadata/resourceVersion"}, {"value", "42"}}));
  EXPECT_TRUE(HasPrecondition(PatchType::kJson, json));
  EXPECT_FALSE(HasPrecondition(PatchType::kJson, AppendItem("x")));
  EXPECT_EQ(WithPrecondition(PatchType::kJson, AppendItem("x"), ""), AppendItem("x"));
}

TEST(WritePreconditions, RepeatRulePerVerb) {
  EXPECT_TRUE(SafeToRepeat({"GET", "/x"}));
  EXPECT_TRUE(SafeToRepeat({"PUT", "/x"}));
  EXPECT_FALSE(SafeToRepeat({"POST", "/x"}));
  EXPECT_FALSE(SafeToRepeat({"PATCH", "/x"}));
  EXPECT_FALSE(SafeToRepeat({"DELETE", "/x"}));
  EXPECT_TRUE(SafeToRepeat({"POST", "/x", "", "application/json", RepeatSafety::kSafe}));
  EXPECT_FALSE(SafeToRepeat({"GET", "/x", "", "application/json", RepeatSafety::kNever}));
}

}  // namespace
}  // namespace gpupool::kube
