// Secrets on every backend, as the webhook keeps its certificates in one:
// stringData folded into data, the type defaulted and immutable, the keys a
// TLS Secret needs, data that is not base64.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fidelity_fixture.h"

namespace gpupool::backends::testing {
namespace {

using ::testing::HasSubstr;

using SecretFidelity = FidelityOnBackend;

Json SecretJson(const std::string& name, Json fields) {
  Json secret = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", name}}}};
  secret.update(fields);
  return secret;
}

TEST_P(SecretFidelity, StringDataIsStoredAsDataAndTheTypeDefaultsToOpaque) {
  const Reply made = Send(
      *client_, "POST", CorePath("secrets"),
      SecretJson("plain", {{"stringData", {{"user", "susan"}}}, {"data", {{"pass", "c2VjcmV0"}}}}));
  ASSERT_EQ(made.status, 201) << made.body;
  EXPECT_EQ(made.json["type"], "Opaque");
  EXPECT_EQ(made.json["data"], Json::parse(R"({"pass":"c2VjcmV0","user":"c3VzYW4="})"));
  EXPECT_FALSE(made.json.contains("stringData"));
  const Reply listed = Send(*client_, "GET", CorePath("secrets") + "?fieldSelector=type%3DOpaque");
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(listed.json["items"].size(), 1u);
}

TEST_P(SecretFidelity, ATlsSecretNeedsItsKeysAndKeepsItsType) {
  const Reply missing =
      Send(*client_, "POST", CorePath("secrets"),
           SecretJson("tls", {{"type", "kubernetes.io/tls"}, {"data", {{"tls.crt", "Y2VydA=="}}}}));
  EXPECT_EQ(missing.status, 422) << missing.body;
  EXPECT_EQ(CauseFields(missing.json), std::vector<std::string>{"data[tls.key]"});
  const Reply made =
      Send(*client_, "POST", CorePath("secrets"),
           SecretJson("tls", {{"type", "kubernetes.io/tls"},
                              {"data", {{"tls.crt", "Y2VydA=="}, {"tls.key", "a2V5"}}}}));
  ASSERT_EQ(made.status, 201) << made.body;
  const Reply retyped = Send(*client_, "PATCH", CorePath("secrets/tls"), Json{{"type", "Opaque"}},
                             "application/merge-patch+json");
  EXPECT_EQ(retyped.status, 422) << retyped.body;
  EXPECT_EQ(CauseFields(retyped.json), std::vector<std::string>{"type"});
}

TEST_P(SecretFidelity, DataThatIsNotBase64IsABadRequest) {
  const Reply reply = Send(*client_, "POST", CorePath("secrets"),
                           SecretJson("bad", {{"data", {{"key", "not base64!"}}}}));
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_THAT(reply.json.value("message", ""),
              HasSubstr("Secret in version \"v1\" cannot be handled as a Secret: illegal base64"));
}

INSTANTIATE_TEST_SUITE_P(All, SecretFidelity, ::testing::ValuesIn(Backends()), BackendParamName);

}  // namespace
}  // namespace gpupool::backends::testing
