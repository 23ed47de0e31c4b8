#include "http_request.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <sstream>

namespace gpupool::metrics::internal {
namespace {

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

std::string FirstLine(const std::string& head) {
  const auto end = head.find('\n');
  std::string line = head.substr(0, end);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

std::string Trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The value of the first header named `name` (lower case); "" without one.
std::string HeaderValue(const std::string& head, const std::string& name) {
  std::istringstream lines(head);
  std::string line;
  std::getline(lines, line);  // The request line.
  while (std::getline(lines, line)) {
    const auto colon = line.find(':');
    if (colon != std::string::npos && Lowercase(Trimmed(line.substr(0, colon))) == name)
      return Trimmed(line.substr(colon + 1));
  }
  return "";
}

}  // namespace

HttpAnswer Plain(int status, std::string body) { return {status, "text/plain", std::move(body)}; }

std::string Lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::optional<std::size_t> EndOfHeaders(const std::string& received) {
  const auto crlf = received.find("\r\n\r\n");
  const auto lf = received.find("\n\n");
  if (crlf == std::string::npos && lf == std::string::npos) return std::nullopt;
  if (lf == std::string::npos || (crlf != std::string::npos && crlf < lf)) return crlf + 4;
  return lf + 2;
}

namespace {

// A POST's body length from its headers, or why it is refused.
void ReadBodyLength(const std::string& head, std::size_t max_body_bytes, ParsedRequest& request) {
  const std::string length = HeaderValue(head, "content-length");
  if (!HeaderValue(head, "transfer-encoding").empty() || length.empty()) {
    request.refusal = Plain(411, "a POST needs Content-Length (chunked bodies are not taken)\n");
    return;
  }
  if (length.size() > 12 || length.find_first_not_of("0123456789") != std::string::npos) {
    request.refusal = Plain(400, "bad Content-Length\n");
    return;
  }
  request.body_length = std::stoull(length);
  if (request.body_length > max_body_bytes)
    request.refusal =
        Plain(413, "the body is longer than " + std::to_string(max_body_bytes) + " bytes\n");
}

}  // namespace

ParsedRequest ParseRequest(const std::string& head, const Routes& routes,
                           std::size_t max_body_bytes) {
  ParsedRequest request;
  std::istringstream line(FirstLine(head));
  std::string target, version, extra;
  if (!(line >> request.head.method >> target >> version) || (line >> extra) ||
      version.rfind("HTTP/1.", 0) != 0 || target.empty() || target[0] != '/') {
    request.refusal = Plain(400, "bad request line\n");
    return request;
  }
  const std::string& method = request.head.method;
  request.head_only = method == "HEAD";
  request.head.path = target.substr(0, target.find('?'));
  if (routes.get.contains(request.head.path)) {
    if (method != "GET" && !request.head_only) request.refusal = Plain(405, "only GET and HEAD\n");
  } else if (routes.post.contains(request.head.path)) {
    if (method != "POST")
      request.refusal = Plain(405, "only POST\n");
    else
      ReadBodyLength(head, max_body_bytes, request);
  } else {
    request.refusal = Plain(404, "not found\n");
  }
  if (!request.refusal) request.head.authorization = HeaderValue(head, "authorization");
  return request;
}

HttpAnswer AnswerRoute(const ParsedRequest& request, const std::string& body,
                       const Routes& routes) {
  try {
    if (request.head.method == "POST") return routes.post.at(request.head.path)(body);
    return routes.get.at(request.head.path)();
  } catch (const std::exception& error) {
    return Plain(500, std::string(error.what()) + "\n");
  }
}

HttpAnswer RequestTooLarge() { return Plain(431, "request too large\n"); }

std::string FormatAnswer(const HttpAnswer& answer, bool head_only) {
  std::string text = "HTTP/1.1 " + std::to_string(answer.status) + " " +
                     ReasonPhrase(answer.status) + "\r\nContent-Type: " + answer.content_type +
                     "\r\nContent-Length: " + std::to_string(answer.body.size()) +
                     "\r\nConnection: close\r\n\r\n";
  if (!head_only) text += answer.body;
  return text;
}

}  // namespace gpupool::metrics::internal
