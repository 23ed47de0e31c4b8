// The syntax of names the API server checks: object names (DNS-1123
// subdomains), label and annotation keys (qualified names) and label values.
// Written out by hand: they are checked on every write.
#pragma once

#include <string>

namespace gpupool::sandbox {

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*, 1-253 characters.
bool IsDns1123Subdomain(const std::string& name);
// [a-z0-9]([-a-z0-9]*[a-z0-9])?, 1-63 characters (namespaces, pod hostnames).
bool IsDns1123Label(const std::string& name);
// [a-z]([-a-z0-9]*[a-z0-9])?, 1-63 characters (services).
bool IsDns1035Label(const std::string& name);
// An optional DNS-1123 subdomain prefix and "/", then a name of 1-63
// characters: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9].
bool IsQualifiedName(const std::string& key);
// Empty, or a name as in a qualified name.
bool IsLabelValue(const std::string& value);

}  // namespace gpupool::sandbox
