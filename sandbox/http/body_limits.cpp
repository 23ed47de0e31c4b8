#include "sandbox/http/body_limits.h"

#include <vector>

#include "gpupool/json/parse.h"
#include "sandbox/api_error.h"

namespace gpupool::sandbox {
namespace {

// Brackets outside quoted strings: the flow nesting of JSON and YAML.
size_t FlowDepth(const std::string& body) {
  size_t depth = 0, deepest = 0;
  char quote = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (quote) {
      if (c == '\\' && quote == '"') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// YAML block nesting: one level per deeper indentation, plus one per "- "
// that opens a nested sequence on the same line.
size_t BlockDepth(const std::string& body) {
  std::vector<size_t> indents;
  size_t deepest = 0, start = 0;
  while (start < body.size()) {
    size_t end = body.find('\n', start);
    if (end == std::string::npos) end = body.size();
    size_t at = start;
    while (at < end && body[at] == ' ') ++at;
    if (at < end && body[at] != '#') {
      const size_t indent = at - start;
      while (!indents.empty() && indents.back() >= indent) indents.pop_back();
      indents.push_back(indent);
      size_t dashes = 0;
      while (at + 1 < end && body[at] == '-' && body[at + 1] == ' ') {
        ++dashes;
        at += 2;
        while (at < end && body[at] == ' ') ++at;
      }
      deepest = std::max(deepest, indents.size() + dashes);
    }
    start = end + 1;
  }
  return deepest;
}

}  // namespace

void CheckRequestBody(const std::string& body) {
  if (body.size() > kMaxRequestBytes) {
    throw ApiError(413, "RequestEntityTooLarge",
                   "Request entity too large: limit is " + std::to_string(kMaxRequestBytes));
  }
  if (FlowDepth(body) > kMaxNestingDepth || BlockDepth(body) > kMaxNestingDepth) {
    throw BadRequest("the request body is nested deeper than " + std::to_string(kMaxNestingDepth) +
                     " levels (exceeded max depth)");
  }
}

Json ParseJsonBody(const std::string& body, const std::string& what) {
  Json parsed = json::ParseJson(body);
  if (!parsed.is_discarded()) return parsed;
  try {
    return Json::parse(body);  // refused: nlohmann's parser says where and why
  } catch (const Json::exception& error) {
    throw BadRequest(what + " is not valid JSON: " + ParserMessage(error));
  }
}

std::string ParserMessage(const std::exception& error) {
  std::string message = error.what();
  // nlohmann's messages start with "[json.exception.parse_error.101] ".
  if (message.rfind("[json.exception.", 0) == 0) {
    const size_t end = message.find("] ");
    if (end != std::string::npos) message = message.substr(end + 2);
  }
  return message;
}

void CheckObjectSize(const std::string& serialized) {
  if (serialized.size() > kMaxObjectBytes) {
    throw ApiError(413, "RequestEntityTooLarge",
                   "etcdserver: request is too large (the object is " +
                       std::to_string(serialized.size()) + " bytes, the limit " +
                       std::to_string(kMaxObjectBytes) + ")");
  }
}

}  // namespace gpupool::sandbox
