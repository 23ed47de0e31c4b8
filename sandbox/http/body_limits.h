// Limits on what a request may carry, as a real server enforces them: a body
// over 3 MiB is refused (413), JSON or YAML nested too deep is refused (400)
// before any recursive code sees it, and parser errors are reported without
// the parser's internal codes.
#pragma once

#include <exception>
#include <nlohmann/json.hpp>
#include <string>

namespace gpupool::sandbox {

using Json = nlohmann::json;

// kube-apiserver's largest request body.
constexpr size_t kMaxRequestBytes = 3 * 1024 * 1024;
// etcd's default --max-request-bytes: no stored object may be larger.
constexpr size_t kMaxObjectBytes = 1536 * 1024;
// Deeper bodies are refused: far beyond any Kubernetes object, and shallow
// enough that the recursive JSON code behind it cannot exhaust a stack. The
// real server's decoders stop at 10,000 levels; the YAML parser the sandbox
// uses (yaml-cpp) stops at 2,000 recursive calls (some 500 levels of block
// nesting), so 2,000 is the limit here for both encodings.
constexpr size_t kMaxNestingDepth = 2000;

// Throws 413 for an oversized body and 400 for one nested too deep.
void CheckRequestBody(const std::string& body);
// Parses a JSON body (after CheckRequestBody); 400 naming `what` on errors.
Json ParseJsonBody(const std::string& body, const std::string& what);
// A parser's message without its internal error code.
std::string ParserMessage(const std::exception& error);
// Throws 413 when `serialized` is too large to store.
void CheckObjectSize(const std::string& serialized);

}  // namespace gpupool::sandbox
