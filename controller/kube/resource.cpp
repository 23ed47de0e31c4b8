#include "gpupool/kube/resource.h"

#include <stdexcept>

namespace gpupool::kube {

std::string Resource::Path(std::string_view ns, std::string_view name,
                           std::string_view subresource) const {
  if (version.empty() || resource.empty())
    throw std::invalid_argument("resource needs a version and a plural name");
  if (namespaced && ns.empty() && !name.empty())
    throw std::invalid_argument(resource + " \"" + std::string(name) +
                                "\": a namespace is required");
  std::string path;
  if (group.empty()) {
    path.append("/api/").append(version);
  } else {
    path.append("/apis/").append(group).append("/").append(version);
  }
  if (namespaced && !ns.empty()) path.append("/namespaces/").append(UrlEncode(ns));
  path.append("/").append(resource);
  if (!name.empty()) path.append("/").append(UrlEncode(name));
  if (!subresource.empty()) path.append("/").append(subresource);
  return path;
}

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string QueryString(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [key, value] : params) {
    if (value.empty()) continue;
    out += out.empty() ? '?' : '&';
    out += key + "=" + UrlEncode(value);
  }
  return out;
}

}  // namespace gpupool::kube
