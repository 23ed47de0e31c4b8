#include "gpupool/kube/config.h"

#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "gpupool/kube/errors.h"

namespace gpupool::kube {
namespace fs = std::filesystem;
namespace {

// One named entry (cluster, user or context) and the file that defined it.
struct Named {
  YAML::Node body;
  std::string file;
};

struct Merged {
  std::string current_context;
  std::string current_context_file;
  std::map<std::string, Named> clusters, users, contexts;
};

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

YAML::Node LoadYaml(const std::string& file) {
  try {
    YAML::Node root = YAML::LoadFile(file);
    if (!root.IsMap() && !root.IsNull())
      throw ConfigError("kubeconfig " + file + ": top level is not a mapping");
    return root;
  } catch (const YAML::BadFile&) {
    throw ConfigError("kubeconfig " + file + ": cannot read the file");
  } catch (const YAML::Exception& e) {
    throw ConfigError("kubeconfig " + file + ": invalid YAML: " + e.msg + " (line " +
                      std::to_string(e.mark.line + 1) + ")");
  }
}

// Adds `root[section]` (a list of {name, <body_key>}) to `out`, first name wins.
void MergeSection(const YAML::Node& root, const std::string& file, const char* section,
                  const char* body_key, std::map<std::string, Named>& out) {
  YAML::Node list = root[section];
  if (!list) return;
  if (!list.IsSequence())
    throw ConfigError("kubeconfig " + file + ": " + section + " is not a list");
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string where = "kubeconfig " + file + ": " + section + "[" + std::to_string(i) + "]";
    if (!list[i].IsMap() || !list[i]["name"] || !list[i]["name"].IsScalar())
      throw ConfigError(where + ".name: required");
    YAML::Node body = list[i][body_key];
    if (body && !body.IsMap()) throw ConfigError(where + "." + body_key + ": not a mapping");
    out.emplace(list[i]["name"].as<std::string>(),
                Named{body ? body : YAML::Node(YAML::NodeType::Map), file});
  }
}

Merged MergeFiles(const std::vector<std::string>& paths) {
  Merged merged;
  for (const auto& file : paths) {
    YAML::Node root = LoadYaml(file);
    if (root.IsNull()) continue;
    if (merged.current_context.empty() && root["current-context"] &&
        root["current-context"].IsScalar()) {
      merged.current_context = root["current-context"].as<std::string>();
      merged.current_context_file = file;
    }
    MergeSection(root, file, "clusters", "cluster", merged.clusters);
    MergeSection(root, file, "users", "user", merged.users);
    MergeSection(root, file, "contexts", "context", merged.contexts);
  }
  return merged;
}

// Reads the string field `key` of `node`; empty when absent.
std::string Field(const YAML::Node& node, const char* key, const std::string& where) {
  YAML::Node value = node[key];
  if (!value || value.IsNull()) return "";
  if (!value.IsScalar()) throw ConfigError(where + "." + key + ": must be a string");
  return value.as<std::string>();
}

std::string ResolvePath(const std::string& path, const std::string& kubeconfig) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(kubeconfig).parent_path() / path).string();
}

// Either `<key>-data` (base64) or `<key>` (a file path): the decoded bytes.
std::string DataOrFile(const YAML::Node& node, const std::string& key, const std::string& where,
                       const std::string& kubeconfig) {
  std::string data = Field(node, (key + "-data").c_str(), where);
  if (!data.empty()) {
    try {
      return DecodeBase64(data);
    } catch (const std::invalid_argument&) {
      throw ConfigError(where + "." + key + "-data: invalid base64");
    }
  }
  std::string file = ResolvePath(Field(node, key.c_str(), where), kubeconfig);
  if (file.empty()) return "";
  try {
    return ReadWholeFile(file);
  } catch (const std::runtime_error&) {
    throw ConfigError(where + "." + key + ": cannot read " + file);
  }
}

const Named& Lookup(const std::map<std::string, Named>& map, const std::string& name,
                    const std::string& what, const std::string& where) {
  auto it = map.find(name);
  if (it == map.end()) throw ConfigError(where + ": " + what + " \"" + name + "\" not found");
  return it->second;
}

void ApplyCluster(const Named& cluster, const std::string& name, RestConfig& config) {
  std::string where = "kubeconfig " + cluster.file + ": clusters[\"" + name + "\"].cluster";
  config.server = Field(cluster.body, "server", where);
  if (config.server.empty()) throw ConfigError(where + ".server: required");
  if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0)
    throw ConfigError(where + ".server: \"" + config.server + "\" is not an http(s) URL");
  while (config.server.size() > 8 && config.server.back() == '/') config.server.pop_back();
  config.ca_pem = DataOrFile(cluster.body, "certificate-authority", where, cluster.file);
  config.tls_server_name = Field(cluster.body, "tls-server-name", where);
  std::string insecure = Field(cluster.body, "insecure-skip-tls-verify", where);
  config.insecure_skip_tls_verify = insecure == "true";
  if (config.insecure_skip_tls_verify) {
    if (!config.ca_pem.empty())
      throw ConfigError(where + ": insecure-skip-tls-verify cannot be combined with a CA");
    spdlog::warn("{}: insecure-skip-tls-verify is set: the server's certificate is NOT verified",
                 where);
  }
}

void ApplyUser(const Named& user, const std::string& name, RestConfig& config) {
  std::string where = "kubeconfig " + user.file + ": users[\"" + name + "\"].user";
  for (const char* unsupported : {"exec", "auth-provider", "username"}) {
    if (user.body[unsupported])
      throw ConfigError(where + "." + unsupported +
                        ": not supported (use a token or a client certificate)");
  }
  config.token = Field(user.body, "token", where);
  config.token_file = ResolvePath(Field(user.body, "tokenFile", where), user.file);
  if (!config.token_file.empty() && !fs::exists(config.token_file))
    throw ConfigError(where + ".tokenFile: cannot read " + config.token_file);
  config.client_cert_pem = DataOrFile(user.body, "client-certificate", where, user.file);
  config.client_key_pem = DataOrFile(user.body, "client-key", where, user.file);
  if (config.client_cert_pem.empty() != config.client_key_pem.empty())
    throw ConfigError(where + ": client-certificate and client-key must be given together");
}

}  // namespace

RestConfig LoadKubeconfig(const std::vector<std::string>& paths, const std::string& context) {
  if (paths.empty()) throw ConfigError("kubeconfig: no file given");
  Merged merged = MergeFiles(paths);
  std::string files = paths.front() + (paths.size() > 1 ? " (and others)" : "");
  std::string context_name = context.empty() ? merged.current_context : context;
  if (context_name.empty())
    throw ConfigError("kubeconfig " + files + ": current-context is not set and no context given");
  const Named& ctx = Lookup(merged.contexts, context_name, "context", "kubeconfig " + files);
  std::string where = "kubeconfig " + ctx.file + ": contexts[\"" + context_name + "\"].context";
  std::string cluster_name = Field(ctx.body, "cluster", where);
  if (cluster_name.empty()) throw ConfigError(where + ".cluster: required");
  RestConfig config;
  ApplyCluster(Lookup(merged.clusters, cluster_name, "cluster", where + ".cluster"), cluster_name,
               config);
  std::string user_name = Field(ctx.body, "user", where);
  if (!user_name.empty())
    ApplyUser(Lookup(merged.users, user_name, "user", where + ".user"), user_name, config);
  std::string ns = Field(ctx.body, "namespace", where);
  if (!ns.empty()) config.default_namespace = ns;
  config.source = "kubeconfig " + ctx.file + " (context " + context_name + ")";
  return config;
}

RestConfig InClusterConfig(const InClusterPaths& paths) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port)
    throw ConfigError(
        "in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  std::string host_text = host;
  if (host_text.find(':') != std::string::npos) host_text = "[" + host_text + "]";  // IPv6
  RestConfig config;
  config.server = "https://" + host_text + ":" + port;
  fs::path dir = paths.service_account_dir;
  config.token_file = (dir / "token").string();
  if (!fs::exists(config.token_file))
    throw ConfigError("in-cluster config: token file " + config.token_file + " is missing");
  try {
    config.ca_pem = ReadWholeFile((dir / "ca.crt").string());
  } catch (const std::runtime_error&) {
    throw ConfigError("in-cluster config: cannot read " + (dir / "ca.crt").string());
  }
  if (fs::exists(dir / "namespace")) {
    std::string ns = ReadWholeFile((dir / "namespace").string());
    while (!ns.empty() && std::isspace(static_cast<unsigned char>(ns.back()))) ns.pop_back();
    if (!ns.empty()) config.default_namespace = ns;
  }
  config.source = "in-cluster config (" + dir.string() + ")";
  return config;
}

RestConfig LoadDefaultConfig(const std::string& explicit_path, const std::string& context) {
  if (!explicit_path.empty()) return LoadKubeconfig({explicit_path}, context);
  const char* env = std::getenv("KUBECONFIG");
  if (env && *env) {
    std::vector<std::string> paths;
    std::stringstream list(env);
    for (std::string item; std::getline(list, item, ':');) {
      if (!item.empty() && fs::exists(item)) paths.push_back(item);
    }
    if (paths.empty())
      throw ConfigError(std::string("$KUBECONFIG=") + env + ": none of its files exists");
    return LoadKubeconfig(paths, context);
  }
  const char* home = std::getenv("HOME");
  if (home && fs::exists(fs::path(home) / ".kube" / "config"))
    return LoadKubeconfig({(fs::path(home) / ".kube" / "config").string()}, context);
  return InClusterConfig();
}

std::string DecodeBase64(const std::string& text) {
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  int padding = 0;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    int value;
    if (c >= 'A' && c <= 'Z')
      value = c - 'A';
    else if (c >= 'a' && c <= 'z')
      value = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      value = c - '0' + 52;
    else if (c == '+')
      value = 62;
    else if (c == '/')
      value = 63;
    else if (c == '=') {
      ++padding;
      continue;
    } else
      throw std::invalid_argument("invalid base64 character");
    if (padding) throw std::invalid_argument("base64 data after padding");
    buffer = (buffer << 6) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  if (padding > 2 || bits >= 6) throw std::invalid_argument("truncated base64");
  return out;
}

}  // namespace gpupool::kube
