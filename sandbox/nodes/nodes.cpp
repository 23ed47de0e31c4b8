#include "sandbox/nodes/nodes.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sandbox/store/names.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

[[noreturn]] void BadNodes(const std::string& part, const std::string& why) {
  throw std::invalid_argument("flag --nodes: \"" + part + "\": " + why +
                              " (expected COUNTxGPUS[:label=value,...][;...])");
}

// Beyond these a simulated cluster stops being useful and starts exhausting
// the machine's memory.
constexpr int64_t kMaxNodes = 100000;
constexpr int64_t kMaxGpusPerNode = 1024;
constexpr int64_t kMaxCores = 1000000;
constexpr int64_t kMaxMemoryGi = 1000000;

int64_t Integer(const std::string& part, const std::string& text, const char* what, int64_t max) {
  long long value = -1;
  bool whole = false;
  try {
    size_t used = 0;
    value = std::stoll(text, &used);
    whole = used == text.size();
  } catch (const std::out_of_range&) {
    value = LLONG_MAX;  // all digits, just too many of them
    whole = text.find_first_not_of("0123456789") == std::string::npos;
  } catch (const std::invalid_argument&) {
  }
  if (!whole || value < 0) {
    BadNodes(part, std::string(what) + " \"" + text + "\" is not a non-negative integer");
  }
  if (value > max) {
    BadNodes(part, std::string(what) + " " + text + " is more than the sandbox's maximum of " +
                       std::to_string(max));
  }
  return value;
}

// A label the API server would refuse on the node, refused here with the flag's name.
void CheckLabel(const std::string& group, const std::string& key, const std::string& value) {
  if (!IsQualifiedName(key))
    BadNodes(group, "label key \"" + key + "\" is not a valid label key (a name of up to " +
                        "63 characters, with an optional DNS subdomain and \"/\" before it)");
  if (!IsLabelValue(value))
    BadNodes(group, "label value \"" + value + "\" is not a valid label value (up to 63 " +
                        "alphanumerics, '-', '_' or '.', beginning and ending with one " +
                        "alphanumeric)");
}

void ParseGroup(const std::string& group, std::vector<NodeSpec>& nodes) {
  const size_t colon = group.find(':');
  const std::string shape = group.substr(0, colon);
  const size_t x = shape.find('x');
  if (x == std::string::npos) BadNodes(group, "missing COUNTxGPUS");
  const int64_t count = Integer(group, shape.substr(0, x), "count", kMaxNodes);
  if (static_cast<int64_t>(nodes.size()) + count > kMaxNodes) {
    BadNodes(group, "more than the sandbox's maximum of " + std::to_string(kMaxNodes) + " nodes");
  }
  NodeSpec spec;
  spec.gpus = Integer(group, shape.substr(x + 1), "GPU count", kMaxGpusPerNode);
  if (colon != std::string::npos) {
    std::stringstream labels(group.substr(colon + 1));
    std::string label;
    while (std::getline(labels, label, ',')) {
      const size_t eq = label.find('=');
      if (eq == std::string::npos || eq == 0)
        BadNodes(group, "label \"" + label + "\" is not key=value");
      const std::string key = label.substr(0, eq), value = label.substr(eq + 1);
      if (key == "cpu") {
        spec.cpu_milli = Integer(group, value, "cpu", kMaxCores) * 1000;
      } else if (key == "memoryGi") {
        spec.memory_mib = Integer(group, value, "memoryGi", kMaxMemoryGi) * 1024;
      } else {
        CheckLabel(group, key, value);
        const auto same_key = [&](const auto& given) { return given.first == key; };
        if (std::any_of(spec.labels.begin(), spec.labels.end(), same_key))
          BadNodes(group, "label \"" + key + "\" is given twice");
        spec.labels.emplace_back(key, value);
      }
    }
  }
  for (int64_t i = 0; i < count; ++i) {
    NodeSpec node = spec;
    node.name = "node-" + std::to_string(nodes.size());
    nodes.push_back(node);
  }
}

std::vector<NodeSpec> ParseAlibabaCsv(std::istream& in) {
  std::vector<NodeSpec> nodes;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream row(line);
    std::string name, cpu, memory, gpus, model;
    std::getline(row, name, ',');
    std::getline(row, cpu, ',');
    std::getline(row, memory, ',');
    std::getline(row, gpus, ',');
    std::getline(row, model, ',');
    NodeSpec node;
    node.name = name;
    node.cpu_milli = Integer(line, cpu, "cpu_milli", kMaxCores * 1000);
    node.memory_mib = Integer(line, memory, "memory_mib", kMaxMemoryGi * 1024);
    node.gpus = Integer(line, gpus, "gpu", kMaxGpusPerNode);
    if (static_cast<int64_t>(nodes.size()) >= kMaxNodes) {
      BadNodes(line, "more than the sandbox's maximum of " + std::to_string(kMaxNodes) + " nodes");
    }
    if (!model.empty()) node.labels.emplace_back("gpu", model);
    nodes.push_back(node);
  }
  return nodes;
}

// Every field a kubelet reports: clients (the Python client among them)
// refuse a node whose nodeInfo lacks one. Identifiers derive from the name,
// so they are stable across restarts of the sandbox.
Json NodeInfo(const std::string& name) {
  const unsigned long long hash = std::hash<std::string>{}(name);
  char id[40];
  std::snprintf(id, sizeof id, "%016llx%016llx", hash, hash ^ 0x5a5a5a5a5a5a5a5aULL);
  const std::string hex = id;
  const std::string uuid = hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) +
                           "-" + hex.substr(16, 4) + "-" + hex.substr(20, 12);
  return {{"machineID", hex},
          {"systemUUID", uuid},
          {"bootID", uuid},
          {"kernelVersion", "6.1.0-sandbox"},
          {"osImage", "gpupool sandbox (simulated)"},
          {"containerRuntimeVersion", "sandbox://1.0.0"},
          {"kubeletVersion", "v1.32.0-sandbox"},
          {"kubeProxyVersion", "v1.32.0-sandbox"},
          {"operatingSystem", "linux"},
          {"architecture", "amd64"}};
}

// A spec is COUNTxGPUS groups; a path has a slash before any labels, or a
// file extension.
bool LooksLikePath(const std::string& text) {
  const std::string head = text.substr(0, text.find(':'));
  if (head.find('/') != std::string::npos || head.rfind('~', 0) == 0) return true;
  for (const char* extension : {".txt", ".csv", ".spec", ".conf"}) {
    const std::string ending = extension;
    if (text.size() > ending.size() &&
        text.compare(text.size() - ending.size(), ending.size(), ending) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<NodeSpec> ParseNodes(const std::string& spec_or_file) {
  std::string spec = spec_or_file;
  std::error_code error;
  if (LooksLikePath(spec_or_file) && !std::filesystem::is_regular_file(spec_or_file, error)) {
    throw std::invalid_argument("flag --nodes: file \"" + spec_or_file + "\" " +
                                (std::filesystem::exists(spec_or_file, error)
                                     ? "is not a regular file"
                                     : "does not exist"));
  }
  if (std::filesystem::is_regular_file(spec_or_file, error)) {
    std::ifstream file(spec_or_file);
    std::string first;
    std::getline(file, first);
    file.seekg(0);
    if (first.rfind("sn,", 0) == 0) return ParseAlibabaCsv(file);
    std::stringstream text;
    text << file.rdbuf();
    spec.clear();
    std::string line;
    while (std::getline(text, line)) {
      if (line.empty() || line[0] == '#') continue;
      spec += (spec.empty() ? "" : ";") + line;
    }
  }
  std::vector<NodeSpec> nodes;
  std::stringstream groups(spec);
  std::string group;
  while (std::getline(groups, group, ';')) {
    if (!group.empty()) ParseGroup(group, nodes);
  }
  return nodes;
}

Json NodeObject(const NodeSpec& spec) {
  Json labels = {{"kubernetes.io/hostname", spec.name}, {"kubernetes.io/os", "linux"}};
  for (const auto& [key, value] : spec.labels) labels[key] = value;
  const Json resources = {{"cpu", std::to_string(spec.cpu_milli) + "m"},
                          {"memory", std::to_string(spec.memory_mib) + "Mi"},
                          {"pods", "110"},
                          {"nvidia.com/gpu", std::to_string(spec.gpus)}};
  const std::string now = NowString();
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", spec.name}, {"labels", labels}}},
          {"spec", Json::object()},
          {"status",
           {{"capacity", resources},
            {"allocatable", resources},
            {"conditions", Json::array({{{"type", "Ready"},
                                         {"status", "True"},
                                         {"reason", "KubeletReady"},
                                         {"message", "simulated kubelet is posting ready status"},
                                         {"lastHeartbeatTime", now},
                                         {"lastTransitionTime", now}}})},
            {"addresses", Json::array({{{"type", "Hostname"}, {"address", spec.name}}})},
            {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
            {"nodeInfo", NodeInfo(spec.name)}}}};
}

}  // namespace gpupool::sandbox
