// Sets of field paths, as server-side apply records which manager owns which
// fields, and their FieldsV1 encoding: a tree whose keys name one step each
// ("f:spec" a field, "k:{\"name\":\"main\"}" a list item by key, "v:\"a\"" a
// list item by value, "i:0" one by index) and where "." marks a node that is
// itself in the set when it also has children.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpupool::sandbox {

using Json = nlohmann::json;

class FieldSet {
 public:
  bool Empty() const { return !member_ && children_.empty(); }
  bool member() const { return member_; }
  void Mark() { member_ = true; }
  // The node one step below this one, created when missing.
  FieldSet& Child(const std::string& step) { return children_[step]; }
  // The node one step below, or null.
  const FieldSet* Find(const std::string& step) const;
  FieldSet* Find(const std::string& step) {
    return const_cast<FieldSet*>(std::as_const(*this).Find(step));
  }
  const std::map<std::string, FieldSet>& children() const { return children_; }
  void Erase(const std::string& step) { children_.erase(step); }

  void Add(const FieldSet& other);               // this ∪= other
  void Add(FieldSet&& other);                    // this ∪= other, taking its nodes
  void Remove(const FieldSet& other);            // this −= other
  FieldSet Common(const FieldSet& other) const;  // this ∩ other
  // Removes nodes that hold no member.
  void DropEmpty();

  // Each member as the API prints a path: ".spec.replicas",
  // ".spec.containers[name=\"main\"].image", ".metadata.finalizers[=\"a\"]".
  std::vector<std::string> Paths() const;

  Json ToFieldsV1() const;
  // nullopt when `fields` is not a well-formed FieldsV1 object.
  static std::optional<FieldSet> FromFieldsV1(const Json& fields);

 private:
  void CollectPaths(const std::string& prefix, std::vector<std::string>& paths) const;

  bool member_ = false;
  std::map<std::string, FieldSet> children_;
};

// The step naming field `name` ("f:name").
std::string FieldStep(const std::string& name);
// The step naming a list item by its key fields, or by its value.
std::string KeyStep(const Json& key_fields);
std::string ValueStep(const Json& value);

}  // namespace gpupool::sandbox
