#include "gpupool/kube/errors.h"

#include <gtest/gtest.h>

namespace gpupool::kube {
namespace {

TEST(StatusErrors, DecodesReasonMessageAndCauses) {
  std::string body = R"({"kind":"Status","apiVersion":"v1","status":"Failure",
    "message":"Pod \"p\" is invalid","reason":"Invalid","code":422,
    "details":{"causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.containers"}]}})";
  ApiError error = DecodeStatusError(422, body, "POST /api/v1/namespaces/a/pods");
  EXPECT_EQ(error.reason(), Reason::kInvalid);
  EXPECT_TRUE(IsInvalid(error));
  EXPECT_EQ(error.http_code(), 422);
  ASSERT_EQ(error.causes().size(), 1u);
  EXPECT_EQ(error.causes()[0].field, "spec.containers");
  EXPECT_EQ(error.causes()[0].type, "FieldValueRequired");
  EXPECT_NE(std::string(error.what()).find("POST /api/v1/namespaces/a/pods: HTTP 422 Invalid"),
            std::string::npos);
  EXPECT_FALSE(error.IsRetryable());
}

TEST(StatusErrors, MapsEveryReason) {
  struct Case {
    int code;
    const char* reason;
    Reason expected;
  };
  for (const Case& c :
       {Case{404, "NotFound", Reason::kNotFound},
        Case{409, "AlreadyExists", Reason::kAlreadyExists},
        Case{409, "Conflict", Reason::kConflict}, Case{403, "Forbidden", Reason::kForbidden},
        Case{401, "Unauthorized", Reason::kUnauthorized}, Case{410, "Expired", Reason::kGone},
        Case{410, "Gone", Reason::kGone}, Case{429, "TooManyRequests", Reason::kTooManyRequests},
        Case{500, "InternalError", Reason::kInternalError},
        Case{503, "ServiceUnavailable", Reason::kServiceUnavailable},
        Case{504, "Timeout", Reason::kTimeout}, Case{400, "BadRequest", Reason::kBadRequest},
        Case{405, "MethodNotAllowed", Reason::kMethodNotAllowed}}) {
    std::string body = std::string(R"({"kind":"Status","reason":")") + c.reason + R"(","code":)" +
                       std::to_string(c.code) + "}";
    EXPECT_EQ(DecodeStatusError(c.code, body, "GET /x").reason(), c.expected) << c.reason;
  }
}

TEST(StatusErrors, FallsBackToHttpCodeWithoutStatusBody) {
  ApiError error = DecodeStatusError(503, "<html>down</html>", "GET /x", 3);
  EXPECT_EQ(error.reason(), Reason::kServiceUnavailable);
  EXPECT_EQ(error.retry_after_seconds(), 3);
  EXPECT_TRUE(error.IsRetryable());
  EXPECT_NE(std::string(error.what()).find("<html>down</html>"), std::string::npos);
  EXPECT_EQ(DecodeStatusError(418, "", "GET /x").reason(), Reason::kUnknown);
  EXPECT_EQ(DecodeStatusError(410, "not json", "GET /x").reason(), Reason::kGone);
}

// A server's message usually says its causes already: each is told once, and
// what a person reads leaves out the request.
TEST(StatusErrors, TellEachCauseOnce) {
  const std::string body = R"({"kind":"Status","status":"Failure","reason":"Invalid","code":422,
    "message":"Pod \"p\" is invalid: spec.containers[0].image: Required value",
    "details":{"causes":[
      {"reason":"FieldValueRequired","message":"Required value","field":"spec.containers[0].image"},
      {"reason":"FieldValueRequired","message":"Required value","field":"spec.containers[0].image"},
      {"reason":"FieldValueInvalid","message":"must be no more than 63 characters","field":"spec.hostname"},
      {"reason":"FieldValueInvalid","message":"must be no more than 63 characters","field":"spec.hostname"}]}})";
  const ApiError error = DecodeStatusError(422, body, "POST /api/v1/namespaces/a/pods");
  EXPECT_EQ(ServerSays(error),
            "Pod \"p\" is invalid: spec.containers[0].image: Required value; spec.hostname: must "
            "be no more than 63 characters");
  EXPECT_EQ(Describe(error),
            "POST /api/v1/namespaces/a/pods: HTTP 422 Invalid: " + ServerSays(error));
  // No Status: the whole text stands in.
  const ApiError bare = DecodeStatusError(502, "bad gateway", "GET /x");
  EXPECT_EQ(ServerSays(bare), bare.what());
}

// A Status whose fields are not strings is read as far as it can be.
TEST(StatusErrors, AStatusWithFieldsOfTheWrongTypeIsStillAnError) {
  const ApiError error = DecodeStatusError(
      422, R"({"kind":"Status","reason":7,"message":["x"],"details":{"causes":"no"}})", "GET /x");
  EXPECT_EQ(error.reason(), Reason::kInvalid);
  EXPECT_EQ(error.status_message(), "");
  EXPECT_TRUE(error.causes().empty());
  EXPECT_EQ(std::string(error.what()), "GET /x: HTTP 422 Invalid");
  const ApiError odd_cause = DecodeStatusError(
      422, R"({"kind":"Status","details":{"causes":[{"field":1,"message":{},"reason":null}]}})",
      "GET /x");
  ASSERT_EQ(odd_cause.causes().size(), 1u);
  EXPECT_EQ(odd_cause.causes()[0].field, "");
  EXPECT_EQ(odd_cause.causes()[0].message, "");
}

TEST(StatusErrors, ReadsRetryAfterFromStatusDetails) {
  std::string body =
      R"({"kind":"Status","reason":"TooManyRequests","code":429,"details":{"retryAfterSeconds":2}})";
  ApiError error = DecodeStatusError(429, body, "GET /x");
  EXPECT_EQ(error.retry_after_seconds(), 2);
  EXPECT_TRUE(error.IsRetryable());
}

TEST(StatusErrors, NamesTheObjectItsDetailsName) {
  std::string body = R"({"kind":"Status","reason":"NotFound","code":404,
    "message":"trainingjobs.gpupool.dev \"bert\" not found",
    "details":{"name":"bert","group":"gpupool.dev","kind":"trainingjobs"}})";
  const StatusObject missing = DecodeStatusError(404, body, "GET /x").object();
  EXPECT_EQ(missing.kind, "trainingjobs");
  EXPECT_EQ(missing.group, "gpupool.dev");
  EXPECT_EQ(missing.name, "bert");
  // A resource the server does not serve names no object; a hostile type is ignored.
  body = R"({"kind":"Status","reason":"NotFound","code":404,"details":{"name":7}})";
  EXPECT_EQ(DecodeStatusError(404, body, "GET /x").object().name, "");
  EXPECT_EQ(
      DecodeStatusError(404, R"({"kind":"Status","reason":"NotFound"})", "GET /x").object().kind,
      "");
}

TEST(StatusErrors, OnlyTransientFailuresAreRetryable) {
  for (int code : {400, 401, 403, 404, 409, 410, 422}) {
    EXPECT_FALSE(DecodeStatusError(code, "", "GET /x").IsRetryable()) << code;
  }
  for (int code : {429, 500, 503, 504}) {
    EXPECT_TRUE(DecodeStatusError(code, "", "GET /x").IsRetryable()) << code;
  }
  EXPECT_TRUE(ApiError(Reason::kConnectFailed, 0, "x").IsRetryable());
  EXPECT_FALSE(ApiError(Reason::kTlsFailed, 0, "x").IsRetryable());
}

}  // namespace
}  // namespace gpupool::kube
