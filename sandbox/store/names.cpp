#include "sandbox/store/names.h"

#include <string_view>

namespace gpupool::sandbox {
namespace {

bool LowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool Alnum(char c) { return LowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?, any length.
bool IsLabelPattern(std::string_view label) {
  if (label.empty() || !LowerAlnum(label.front()) || !LowerAlnum(label.back())) return false;
  for (char c : label) {
    if (!LowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], any length.
bool IsNamePart(std::string_view name) {
  if (name.empty() || !Alnum(name.front()) || !Alnum(name.back())) return false;
  for (char c : name) {
    if (!Alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace

bool IsDns1123Subdomain(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  std::string_view rest(name);
  while (true) {
    const auto dot = rest.find('.');
    if (!IsLabelPattern(rest.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    rest.remove_prefix(dot + 1);
  }
}

bool IsDns1123Label(const std::string& name) { return name.size() <= 63 && IsLabelPattern(name); }

bool IsDns1035Label(const std::string& name) {
  return IsDns1123Label(name) && name.front() >= 'a' && name.front() <= 'z';
}

bool IsQualifiedName(const std::string& key) {
  const auto slash = key.find('/');
  const std::string_view name =
      slash == std::string::npos ? std::string_view(key) : std::string_view(key).substr(slash + 1);
  if (slash != std::string::npos && !IsDns1123Subdomain(key.substr(0, slash))) return false;
  return name.size() <= 63 && IsNamePart(name);
}

bool IsLabelValue(const std::string& value) {
  return value.empty() || (value.size() <= 63 && IsNamePart(value));
}

}  // namespace gpupool::sandbox
