// Protobuf bodies decoded by hand-built messages, for what kubectl cannot send.
#include "sandbox/http/protobuf.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sandbox/api_error.h"

namespace gpupool::sandbox {
namespace {

std::string Varint(uint64_t value) {
  std::string out;
  do {
    const auto low = static_cast<char>(value & 0x7F);
    value >>= 7;
    out += static_cast<char>(low | (value ? 0x80 : 0));
  } while (value);
  return out;
}

std::string Bytes(int number, const std::string& bytes) {
  return Varint(static_cast<uint64_t>(number) << 3 | 2) + Varint(bytes.size()) + bytes;
}

std::string Number(int number, uint64_t value) {
  return Varint(static_cast<uint64_t>(number) << 3) + Varint(value);
}

std::string Envelope(const std::string& api_version, const std::string& kind,
                     const std::string& object) {
  return std::string("k8s\0", 4) + Bytes(1, Bytes(1, api_version) + Bytes(2, kind)) +
         Bytes(2, object);
}

// A Deployment whose pod spec carries `pod_spec` beside one container.
std::string Deployment(const std::string& pod_spec) {
  const std::string container = Bytes(1, "main") + Bytes(2, "busybox");
  const std::string template_spec = Bytes(2, Bytes(2, container) + pod_spec);
  return Envelope("apps/v1", "Deployment",
                  Bytes(1, Bytes(1, "web")) + Bytes(2, Number(1, 0) + Bytes(3, template_spec)));
}

TEST(ProtobufTest, PlainZeroFieldsAreLeftOutAndPointerZerosKept) {
  // Go writes every plain field: an empty node name and a false hostNetwork
  // are JSON's absent ones; a pointer's zero (replicas: 0) is a value.
  const Json deployment = DecodeProtobuf(Deployment(Bytes(10, "") + Number(11, 0)));
  EXPECT_EQ(deployment["spec"]["replicas"], 0);
  const Json& pod = deployment["spec"]["template"]["spec"];
  EXPECT_FALSE(pod.contains("nodeName")) << pod.dump();
  EXPECT_FALSE(pod.contains("hostNetwork")) << pod.dump();
  EXPECT_EQ(pod["containers"][0]["image"], "busybox");
  EXPECT_EQ(deployment["metadata"], (Json{{"name", "web"}}));
}

TEST(ProtobufTest, AFieldOfAPartlyModelledTypeIsRefusedNotDropped) {
  try {
    DecodeProtobuf(Deployment(Bytes(22, Bytes(1, "dedicated"))));  // tolerations
    FAIL() << "a toleration would have been dropped";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 415);
    EXPECT_THAT(error.what(), ::testing::HasSubstr("protobuf field 22 of PodSpec is not decoded"));
  }
}

// As client-go's typed clients send them (field numbers of k8s.io/api's
// authorization/v1 and authentication/v1 generated.proto).
TEST(ProtobufTest, ReviewsOfOthersDecodeAndASubjectsExtraIsRefused) {
  const std::string path = Bytes(1, "/metrics") + Bytes(2, "get");
  const std::string spec = Bytes(2, path) + Bytes(3, "system:serviceaccount:ns:sa") +
                           Bytes(4, "system:authenticated") + Bytes(6, "");
  const Json review =
      DecodeProtobuf(Envelope("authorization.k8s.io/v1", "SubjectAccessReview", Bytes(2, spec)));
  EXPECT_EQ(review["spec"],
            (Json{{"nonResourceAttributes", {{"path", "/metrics"}, {"verb", "get"}}},
                  {"user", "system:serviceaccount:ns:sa"},
                  {"groups", {"system:authenticated"}}}));
  const Json token = DecodeProtobuf(Envelope("authentication.k8s.io/v1", "TokenReview",
                                             Bytes(2, Bytes(1, "t") + Bytes(2, "api"))));
  EXPECT_EQ(token["spec"], (Json{{"token", "t"}, {"audiences", {"api"}}}));
  try {
    DecodeProtobuf(Envelope("authorization.k8s.io/v1", "SubjectAccessReview",
                            Bytes(2, spec + Bytes(5, Bytes(1, "k")))));
    FAIL() << "extra would have been dropped";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 415);
    EXPECT_THAT(error.what(), ::testing::HasSubstr("field 5 of SubjectAccessReviewSpec"));
  }
}

TEST(ProtobufTest, IntOrStringAndQuantitiesDecodeToTheirJsonForms) {
  const std::string int_value = Number(1, 0) + Number(2, 1);
  const std::string string_value = Number(1, 1) + Bytes(3, "50%");
  const std::string pdb =
      Envelope("policy/v1", "PodDisruptionBudget",
               Bytes(1, Bytes(1, "pdb")) + Bytes(2, Bytes(1, int_value) + Bytes(3, string_value)));
  const Json decoded = DecodeProtobuf(pdb);
  EXPECT_EQ(decoded["spec"]["minAvailable"], 1);
  EXPECT_EQ(decoded["spec"]["maxUnavailable"], "50%");
  const std::string limits = Bytes(1, Bytes(1, "nvidia.com/gpu") + Bytes(2, Bytes(1, "2")));
  const std::string container = Bytes(1, "main") + Bytes(8, limits);
  const Json pod = DecodeProtobuf(Deployment(Bytes(20, container)))["spec"]["template"]["spec"];
  EXPECT_EQ(pod["initContainers"][0]["resources"]["limits"]["nvidia.com/gpu"], "2");
}

}  // namespace
}  // namespace gpupool::sandbox
