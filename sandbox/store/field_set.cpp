#include "sandbox/store/field_set.h"

#include "gpupool/json/dump.h"

namespace gpupool::sandbox {
namespace {

bool HasPrefix(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

bool IsDigits(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool ValidStep(const std::string& step) {
  const std::string rest = step.size() > 2 ? step.substr(2) : "";
  if (HasPrefix(step, "f:")) return !rest.empty();
  if (HasPrefix(step, "i:")) return IsDigits(rest);
  if (HasPrefix(step, "k:") || HasPrefix(step, "v:")) {
    const Json parsed = Json::parse(rest, nullptr, false);
    return !parsed.is_discarded() && (HasPrefix(step, "v:") || parsed.is_object());
  }
  return false;
}

// Fills `node` from one FieldsV1 object; false when it is malformed.
bool Decode(const Json& fields, FieldSet& node) {
  if (!fields.is_object()) return false;
  for (const auto& [step, value] : fields.items()) {
    if (step == ".") {
      if (!value.is_object() || !value.empty()) return false;
      node.Mark();
      continue;
    }
    if (!ValidStep(step) || !value.is_object()) return false;
    FieldSet& child = node.Child(step);
    if (value.empty()) child.Mark();
    if (!Decode(value, child)) return false;
  }
  return true;
}

// How a step reads in a printed path.
std::string PrintStep(const std::string& step) {
  const std::string rest = step.substr(2);
  if (HasPrefix(step, "f:")) return "." + rest;
  if (HasPrefix(step, "i:")) return "[" + rest + "]";
  const Json value = Json::parse(rest, nullptr, false);
  if (HasPrefix(step, "v:")) return "[=" + value.dump() + "]";
  std::string keys;
  if (value.is_object()) {
    for (const auto& [name, key] : value.items()) {
      keys += (keys.empty() ? "" : ",") + name + "=" + key.dump();
    }
  }
  return "[" + keys + "]";
}

}  // namespace

std::string FieldStep(const std::string& name) { return "f:" + name; }
std::string KeyStep(const Json& key_fields) { return "k:" + json::Dump(key_fields); }
std::string ValueStep(const Json& value) { return "v:" + json::Dump(value); }

const FieldSet* FieldSet::Find(const std::string& step) const {
  const auto found = children_.find(step);
  return found == children_.end() ? nullptr : &found->second;
}

void FieldSet::Add(const FieldSet& other) {
  member_ = member_ || other.member_;
  for (const auto& [step, child] : other.children_) children_[step].Add(child);
}

void FieldSet::Add(FieldSet&& other) {
  member_ = member_ || other.member_;
  if (children_.empty()) {
    children_ = std::move(other.children_);
    return;
  }
  for (auto& [step, child] : other.children_) {
    auto [mine, added] = children_.try_emplace(step, std::move(child));
    if (!added) mine->second.Add(std::move(child));
  }
}

void FieldSet::Remove(const FieldSet& other) {
  if (other.member_) member_ = false;
  for (const auto& [step, child] : other.children_) {
    auto mine = children_.find(step);
    if (mine == children_.end()) continue;
    mine->second.Remove(child);
    if (mine->second.Empty()) children_.erase(mine);
  }
}

FieldSet FieldSet::Common(const FieldSet& other) const {
  FieldSet common;
  common.member_ = member_ && other.member_;
  for (const auto& [step, child] : children_) {
    const FieldSet* theirs = other.Find(step);
    if (!theirs) continue;
    FieldSet both = child.Common(*theirs);
    if (!both.Empty()) common.children_[step] = std::move(both);
  }
  return common;
}

void FieldSet::DropEmpty() {
  for (auto it = children_.begin(); it != children_.end();) {
    it->second.DropEmpty();
    it = it->second.Empty() ? children_.erase(it) : std::next(it);
  }
}

std::vector<std::string> FieldSet::Paths() const {
  std::vector<std::string> paths;
  CollectPaths("", paths);
  return paths;
}

void FieldSet::CollectPaths(const std::string& prefix, std::vector<std::string>& paths) const {
  if (member_) paths.push_back(prefix);
  for (const auto& [step, child] : children_) child.CollectPaths(prefix + PrintStep(step), paths);
}

Json FieldSet::ToFieldsV1() const {
  Json fields = Json::object();
  if (member_ && !children_.empty()) fields["."] = Json::object();
  for (const auto& [step, child] : children_) fields[step] = child.ToFieldsV1();
  return fields;
}

std::optional<FieldSet> FieldSet::FromFieldsV1(const Json& fields) {
  FieldSet root;
  if (!Decode(fields, root)) return std::nullopt;
  root.member_ = false;  // the object itself is never a field
  return root;
}

}  // namespace gpupool::sandbox
