// The webhook's answers to AdmissionReviews: the gate added to an opted-in
// pod's creation, refusals naming the field, the admission record and the
// gate kept for the controller, and bodies that are not AdmissionReviews.
#include "gpupool/webhook/pod_gate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpupool/kube/config.h"

namespace gpupool::webhook {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

constexpr char kController[] = "system:serviceaccount:gpupool-system:gpupool";

Json LabelledPod(Json labels = {{"gpupool.dev/queue", "train"}}) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "p"}, {"namespace", "susan"}, {"labels", labels}}},
          {"spec", {{"containers", {{{"name", "c"}, {"image", "x"}}}}}}};
}

Json Review(const std::string& operation, const Json& pod, const Json& old_pod = nullptr,
            const std::string& user = "susan") {
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", "7f0b2c"},
            {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
            {"operation", operation},
            {"userInfo", {{"username", user}}},
            {"object", pod},
            {"oldObject", old_pod}}}};
}

// The review's response, with its patch decoded.
Json ResponseTo(const Json& review) {
  const ReviewAnswer answer = ReviewPod(review.dump(), {{kController}});
  EXPECT_EQ(answer.status, 200) << answer.body;
  Json response = Json::parse(answer.body).at("response");
  EXPECT_EQ(response["uid"], "7f0b2c");
  if (response.contains("patch"))
    response["patch"] = Json::parse(kube::DecodeBase64(response["patch"].get<std::string>()));
  return response;
}

std::string DenialOf(const Json& review) {
  const Json response = ResponseTo(review);
  EXPECT_FALSE(response["allowed"]);
  EXPECT_EQ(response["status"]["code"], 403);
  return response["status"].value("message", "");
}

TEST(PodGate, ALabelledPodIsCreatedWithGpupoolsGate) {
  Json response = ResponseTo(Review("CREATE", LabelledPod()));
  EXPECT_TRUE(response["allowed"]);
  EXPECT_EQ(response["patchType"], "JSONPatch");
  EXPECT_EQ(response["patch"], Json::parse(R"([{"op":"add","path":"/spec/schedulingGates",
                                               "value":[{"name":"gpupool.dev/admission"}]}])"));
  Json gated_elsewhere = LabelledPod();
  gated_elsewhere["spec"]["schedulingGates"] = {{{"name", "example.com/quota"}}};
  response = ResponseTo(Review("CREATE", gated_elsewhere));
  EXPECT_EQ(response["patch"], Json::parse(R"([{"op":"add","path":"/spec/schedulingGates/-",
                                               "value":{"name":"gpupool.dev/admission"}}])"));
}

TEST(PodGate, APodAlreadyGatedOrNotOptedInIsLeftAlone) {
  Json gated = LabelledPod();
  gated["spec"]["schedulingGates"] = {{{"name", "gpupool.dev/admission"}}};
  for (const Json& pod : {gated, LabelledPod(Json::object())}) {
    const Json response = ResponseTo(Review("CREATE", pod));
    EXPECT_TRUE(response["allowed"]);
    EXPECT_FALSE(response.contains("patch")) << pod.dump();
  }
}

TEST(PodGate, BadOptInValuesAreRefusedNamingTheField) {
  const auto denial = [](Json labels) { return DenialOf(Review("CREATE", LabelledPod(labels))); };
  EXPECT_EQ(denial({{"gpupool.dev/queue", ""}}),
            "metadata.labels[gpupool.dev/queue]: must name a Queue");
  EXPECT_EQ(denial({{"gpupool.dev/queue", "train"},
                    {"gpupool.dev/pod-group", "ddp"},
                    {"gpupool.dev/pod-group-size", "0"}}),
            "metadata.labels[gpupool.dev/pod-group-size]: must be the group's number of pods, "
            "from 1 to 4096 (is \"0\")");
  EXPECT_THAT(denial({{"gpupool.dev/queue", "train"}, {"gpupool.dev/pod-group-size", "2"}}),
              HasSubstr("metadata.labels[gpupool.dev/pod-group]: is required"));
  EXPECT_THAT(denial({{"gpupool.dev/queue", "train"}, {"gpupool.dev/workload-class", "Serve"}}),
              HasSubstr("metadata.labels[gpupool.dev/workload-class]: must be Train, Build or "
                        "Inference"));
  Json fraction = LabelledPod();
  fraction["metadata"]["annotations"] = {{"gpupool.dev/gpu-fraction", "1.5"}};
  EXPECT_THAT(DenialOf(Review("CREATE", fraction)),
              HasSubstr("metadata.annotations[gpupool.dev/gpu-fraction]: must be a fraction"));
}

TEST(PodGate, APodCreatedWithAnAdmissionRecordIsRefusedEvenToTheController) {
  Json forged = LabelledPod();
  forged["metadata"]["annotations"] = {{"gpupool.dev/admission", R"({"admittedTime":"2020"})"}};
  EXPECT_THAT(DenialOf(Review("CREATE", forged, nullptr, kController)),
              HasSubstr("metadata.annotations[gpupool.dev/admission]: is written by gpupool"));
  Json slot = LabelledPod({{"gpupool.dev/queue", "train"}, {"gpupool.dev/replica", "0"}});
  EXPECT_THAT(DenialOf(Review("CREATE", slot)), HasSubstr("metadata.labels[gpupool.dev/replica]"));
}

TEST(PodGate, OnlyTheControllerReleasesAPodOrWritesItsRecord) {
  Json gated = LabelledPod();
  gated["spec"]["schedulingGates"] = {{{"name", "gpupool.dev/admission"}}};
  const Json released = LabelledPod();
  EXPECT_THAT(DenialOf(Review("UPDATE", released, gated)),
              HasSubstr("spec.schedulingGates: gpupool's gate gpupool.dev/admission is removed by "
                        "gpupool's controller only"));
  Json recorded = released;
  recorded["metadata"]["annotations"] = {{"gpupool.dev/admission", "{}"}};
  EXPECT_THAT(DenialOf(Review("UPDATE", recorded, released)),
              HasSubstr("metadata.annotations[gpupool.dev/admission]"));
  EXPECT_THAT(DenialOf(Review("UPDATE", released, recorded)),
              HasSubstr("metadata.annotations[gpupool.dev/admission]"));
  for (const auto& [pod, old_pod] : {std::pair{released, gated}, std::pair{recorded, released}})
    EXPECT_TRUE(ResponseTo(Review("UPDATE", pod, old_pod, kController))["allowed"]);
  Json relabelled = gated;
  relabelled["metadata"]["labels"]["team"] = "nlp";
  EXPECT_TRUE(ResponseTo(Review("UPDATE", relabelled, gated))["allowed"]);
}

TEST(PodGate, BodiesThatAreNotAReviewOfAPodAreRefusedWithWhy) {
  const GateSettings settings{{kController}};
  EXPECT_EQ(ReviewPod("{not json", settings).body, "the body is not JSON\n");
  EXPECT_EQ(ReviewPod("[1]", settings).status, 400);
  Json review = Review("CREATE", LabelledPod());
  review["apiVersion"] = "admission.k8s.io/v1beta1";
  EXPECT_THAT(ReviewPod(review.dump(), settings).body, HasSubstr("admission.k8s.io/v1"));
  review = Review("CREATE", LabelledPod());
  review["request"].erase("uid");
  EXPECT_EQ(ReviewPod(review.dump(), settings).body, "request.uid: is required\n");
  review = Review("CREATE", LabelledPod());
  review["request"]["kind"]["kind"] = "Secret";
  EXPECT_EQ(ReviewPod(review.dump(), settings).status, 400);
  review = Review("CREATE", LabelledPod());
  review["request"]["object"] = "pod";
  EXPECT_EQ(ReviewPod(review.dump(), settings).body, "request.object: must be the pod\n");
  review = Review("CREATE", LabelledPod());
  review["request"]["object"]["metadata"]["labels"] = {{"gpupool.dev/queue", 7}};
  EXPECT_EQ(ReviewPod(review.dump(), settings).status, 200) << "a label the server refuses later";
  for (const std::string& body :
       std::vector<std::string>{"", "null", "{}", std::string(100000, '[')})
    EXPECT_EQ(ReviewPod(body, settings).status, 400) << body.substr(0, 20);
}

}  // namespace
}  // namespace gpupool::webhook
