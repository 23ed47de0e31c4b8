// The request and answer text of BoundedHttpServer: where a request's headers
// end, what its head asks for, and the answer's bytes.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "gpupool/metrics/bounded_http_server.h"

namespace gpupool::metrics::internal {

// The offset just past the blank line that ends the headers, if it has come.
std::optional<std::size_t> EndOfHeaders(const std::string& received);

struct ParsedRequest {
  RequestHead head;
  bool head_only = false;       // A HEAD request: the answer's headers without its body.
  std::size_t body_length = 0;  // A POST's Content-Length.
  // 400 (bad request line or Content-Length), 405 (a method the route does not
  // take), 404 (no such route), 411 (a POST without Content-Length, or
  // chunked) or 413 (a body past `max_body_bytes`); the request then goes no
  // further.
  std::optional<HttpAnswer> refusal;
};

// Parses the request's head (request line and headers).
ParsedRequest ParseRequest(const std::string& head, const Routes& routes,
                           std::size_t max_body_bytes);

// The route's answer; 500 when its handler throws.
HttpAnswer AnswerRoute(const ParsedRequest& request, const std::string& body, const Routes& routes);

HttpAnswer RequestTooLarge();
HttpAnswer Plain(int status, std::string body);
// ASCII lower case: header names, schemes and verbs compare without case.
std::string Lowercase(std::string text);

// Status line, Content-Type, Content-Length, "Connection: close", then the body.
std::string FormatAnswer(const HttpAnswer& answer, bool head_only);

}  // namespace gpupool::metrics::internal
