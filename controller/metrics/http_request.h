// The request and answer text of BoundedHttpServer: where a request's headers
// end, which answer its request line gets, and the answer's bytes.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "gpupool/metrics/bounded_http_server.h"

namespace gpupool::metrics::internal {

// The offset just past the blank line that ends the headers, if it has come.
std::optional<std::size_t> EndOfHeaders(const std::string& received);

struct ParsedAnswer {
  HttpAnswer answer;
  bool head_only = false;  // A HEAD request: the answer's headers without its body.
};

// Answers the request whose head (request line and headers) is `head`: the
// route's handler for GET or HEAD of a known path (the query ignored), else
// 400, 404 or 405. A handler that throws answers 500.
ParsedAnswer AnswerRequest(const std::string& head,
                           const std::map<std::string, GetHandler>& routes);

HttpAnswer RequestTooLarge();

// Status line, Content-Type, Content-Length, "Connection: close", then the body.
std::string FormatAnswer(const HttpAnswer& answer, bool head_only);

}  // namespace gpupool::metrics::internal
