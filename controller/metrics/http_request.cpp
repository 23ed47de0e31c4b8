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

ParsedRequest ParseRequest(const std::string& head,
                           const std::map<std::string, GetHandler>& routes) {
  ParsedRequest request;
  std::istringstream line(FirstLine(head));
  std::string target, version, extra;
  if (!(line >> request.head.method >> target >> version) || (line >> extra) ||
      version.rfind("HTTP/1.", 0) != 0 || target.empty() || target[0] != '/') {
    request.refusal = Plain(400, "bad request line\n");
    return request;
  }
  request.head_only = request.head.method == "HEAD";
  request.head.path = target.substr(0, target.find('?'));
  if (request.head.method != "GET" && !request.head_only)
    request.refusal = Plain(405, "only GET and HEAD\n");
  else if (!routes.contains(request.head.path))
    request.refusal = Plain(404, "not found\n");
  else
    request.head.authorization = HeaderValue(head, "authorization");
  return request;
}

HttpAnswer AnswerRoute(const ParsedRequest& request,
                       const std::map<std::string, GetHandler>& routes) {
  try {
    return routes.at(request.head.path)();
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
