#include "http_request.h"

#include <exception>
#include <sstream>

namespace gpupool::metrics::internal {
namespace {

HttpAnswer Plain(int status, std::string body) { return {status, "text/plain", std::move(body)}; }

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
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

}  // namespace

std::optional<std::size_t> EndOfHeaders(const std::string& received) {
  const auto crlf = received.find("\r\n\r\n");
  const auto lf = received.find("\n\n");
  if (crlf == std::string::npos && lf == std::string::npos) return std::nullopt;
  if (lf == std::string::npos || (crlf != std::string::npos && crlf < lf)) return crlf + 4;
  return lf + 2;
}

ParsedAnswer AnswerRequest(const std::string& head,
                           const std::map<std::string, GetHandler>& routes) {
  std::istringstream line(FirstLine(head));
  std::string method, target, version, extra;
  if (!(line >> method >> target >> version) || (line >> extra) ||
      version.rfind("HTTP/1.", 0) != 0 || target.empty() || target[0] != '/')
    return {Plain(400, "bad request line\n")};
  const bool head_only = method == "HEAD";
  if (method != "GET" && !head_only) return {Plain(405, "only GET and HEAD\n")};
  const auto route = routes.find(target.substr(0, target.find('?')));
  if (route == routes.end()) return {Plain(404, "not found\n"), head_only};
  try {
    return {route->second(), head_only};
  } catch (const std::exception& error) {
    return {Plain(500, std::string(error.what()) + "\n"), head_only};
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
