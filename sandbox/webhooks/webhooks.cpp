#include "sandbox/webhooks/webhooks.h"

#include <optional>
#include <string>

#include "sandbox/api_error.h"
#include "sandbox/rules/known_fields.h"
#include "sandbox/store/encoding.h"
#include "sandbox/store/object_meta.h"
#include "sandbox/store/patch.h"
#include "sandbox/webhooks/webhook_client.h"

namespace gpupool::sandbox {
namespace {

// Why a call failed: failurePolicy decides whether the write goes on.
struct CallFailure {
  std::string reason;
};

Json ReviewOptions(const AdmissionAttributes& attributes, const WriteOptions& options) {
  Json review_options = {
      {"kind", attributes.operation == "CREATE" ? "CreateOptions" : "UpdateOptions"},
      {"apiVersion", "meta.k8s.io/v1"}};
  if (options.dry_run) review_options["dryRun"] = Json::array({"All"});
  return review_options;
}

Json AdmissionReview(const std::string& uid, const AdmissionAttributes& attributes,
                     const WriteOptions& options, const Json& object) {
  const ResourceType& resource = *attributes.resource;
  const Json kind = {
      {"group", resource.group}, {"version", resource.version}, {"kind", resource.kind}};
  const Json served = {
      {"group", resource.group}, {"version", resource.version}, {"resource", resource.plural}};
  Json request = {{"uid", uid},
                  {"kind", kind},
                  {"resource", served},
                  {"requestKind", kind},
                  {"requestResource", served},
                  {"name", attributes.name},
                  {"operation", attributes.operation},
                  {"userInfo", options.user_info},
                  {"object", object},
                  {"oldObject", attributes.old_object},
                  {"dryRun", options.dry_run},
                  {"options", ReviewOptions(attributes, options)}};
  if (!attributes.subresource.empty()) request["subResource"] = attributes.subresource;
  if (!attributes.ns.empty()) request["namespace"] = attributes.ns;
  return {{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", request}};
}

// The `response` of a webhook's answer, or why the answer is unusable.
std::optional<Json> ReviewResponse(const WebhookReply& reply, const std::string& uid,
                                   CallFailure& failure) {
  const std::string invalid = "received invalid webhook response: ";
  Json review;
  try {
    review = Json::parse(reply.body);
  } catch (const std::exception& error) {
    // The real server's decoder fails before it validates: a failed call.
    failure.reason =
        std::string("failed to call webhook: couldn't get version/kind; json parse error: ") +
        error.what();
    return std::nullopt;
  }
  if (!review.is_object() || !review.contains("response") || !review["response"].is_object()) {
    failure.reason = invalid + "webhook response was absent";
    return std::nullopt;
  }
  const Json& response = review["response"];
  const std::string answered_uid = response.value("uid", "");
  if (answered_uid != uid) {
    failure.reason =
        invalid + "expected response.uid=\"" + uid + "\", got \"" + answered_uid + "\"";
    return std::nullopt;
  }
  const bool has_patch = response.contains("patch") && !response["patch"].is_null();
  if (has_patch && response.value("patchType", "") != "JSONPatch") {
    failure.reason =
        invalid + "webhook returned invalid patchType: \"" + response.value("patchType", "") + "\"";
    return std::nullopt;
  }
  return response;
}

// The refusal of a webhook that answered allowed: false, as webhookerrors.ToStatusErr words it.
ApiError Denial(const std::string& webhook_name, const Json& response) {
  const Json status = response.value("status", Json::object());
  int code = status.value("code", 0);
  if (code < 400) code = 400;
  const std::string denied = "admission webhook \"" + webhook_name + "\" denied the request";
  const std::string message = status.value("message", "");
  const std::string reason = status.value("reason", "");
  const std::string text = !message.empty()  ? denied + ": " + message
                           : !reason.empty() ? denied + ": " + reason
                                             : denied + " without explanation";
  Json details = status.contains("details") ? status["details"] : Json(nullptr);
  return ApiError(code, reason, text, details);
}

ApiError FailedCall(const std::string& webhook_name, const std::string& reason) {
  const std::string text = "failed calling webhook \"" + webhook_name + "\": " + reason;
  return ApiError(500, "InternalError", "Internal error occurred: " + text,
                  Json{{"causes", Json::array({{{"message", text}}})}});
}

void ApplyWebhookPatch(const std::string& webhook_name, const Json& response, Json& object,
                       const ResourceType& resource) {
  if (!response.contains("patch") || response["patch"].is_null()) return;
  const auto patch = Base64Decode(
      response["patch"].is_string() ? response["patch"].get<std::string>() : std::string());
  if (!patch) throw FailedCall(webhook_name, "received invalid webhook response: bad patch");
  try {
    object = ApplyPatch(PatchType::kJson, std::move(object), *patch);
  } catch (const ApiError& error) {
    throw ApiError(500, "InternalError", std::string("Internal error occurred: ") + error.what(),
                   Json{{"causes", Json::array({{{"message", error.what()}}})}});
  }
  // The real server decodes the patched object leniently: unknown fields go.
  DropUnknownFields(resource, object);
}

void AddResponseWarnings(const Json& response, WriteOptions& options) {
  for (const auto& warning : response.value("warnings", Json::array())) {
    if (warning.is_string()) options.warnings.push_back(warning.get<std::string>());
  }
}

// One webhook's call; a failed one is skipped under failurePolicy Ignore.
void CallWebhook(const Json& webhook, const AdmissionAttributes& attributes, WriteOptions& options,
                 Json& object) {
  const std::string name = webhook.value("name", "");
  const Json config = webhook.value("clientConfig", Json::object());
  const bool fail_closed = webhook.value("failurePolicy", "Fail") != "Ignore";
  const std::string uid = NewUid();
  CallFailure failure;
  std::optional<Json> response;
  if (!config.contains("url")) {
    failure.reason = "failed to call webhook: the sandbox cannot reach service " +
                     config.value("service", Json::object()).value("namespace", "") + "/" +
                     config.value("service", Json::object()).value("name", "");
  } else {
    const std::string url = config.value("url", "");
    const auto ca = Base64Decode(config.value("caBundle", ""));
    const int timeout = webhook.value("timeoutSeconds", 10);
    const WebhookReply reply = PostToWebhook(
        url, ca.value_or(""), AdmissionReview(uid, attributes, options, object).dump(), timeout);
    const std::string post =
        "failed to call webhook: Post \"" + url + "?timeout=" + std::to_string(timeout) + "s\": ";
    if (!reply.answered) {
      failure.reason = post + reply.error;
    } else if (reply.status != 200) {
      failure.reason = "failed to call webhook: the server responded with the status code " +
                       std::to_string(reply.status);
    } else {
      response = ReviewResponse(reply, uid, failure);
    }
  }
  if (!response) {
    if (fail_closed) throw FailedCall(name, failure.reason);
    return;
  }
  AddResponseWarnings(*response, options);
  if (!response->value("allowed", false)) throw Denial(name, *response);
  ApplyWebhookPatch(name, *response, object, *attributes.resource);
}

}  // namespace

void CallMutatingWebhooks(const WebhookInputs& inputs, const AdmissionAttributes& attributes,
                          WriteOptions& options, Json& object) {
  // reinvocationPolicy IfNeeded is not honoured: each webhook runs once.
  for (const auto& configuration : inputs.configurations) {
    for (const auto& webhook : configuration.value("webhooks", Json::array())) {
      if (!WebhookRulesMatch(webhook, attributes)) continue;
      if (!WebhookSelectorsMatch(webhook, attributes, object)) continue;
      CallWebhook(webhook, attributes, options, object);
    }
  }
}

}  // namespace gpupool::sandbox
