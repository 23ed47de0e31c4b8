#include "sandbox/store/field_walk.h"

#include <map>
#include <string_view>

namespace gpupool::sandbox {
namespace {

bool SameShape(const ListShape& a, const ListShape& b) {
  return a.kind == b.kind && a.keys == b.keys;
}

// `whole`: the value appeared or went as a whole, and each object or keyed
// list in it is a field too (as a real server compares objects), except the
// top-level structs a typed object always has.
void AddValue(const Json& value, const FieldShapes& shapes, FieldSet& node, bool whole);

void AddObject(const Json& object, const FieldShapes& shapes, FieldSet& node, bool whole) {
  for (const auto& [name, value] : object.items()) {
    AddValue(value, shapes.Field(name), node.Child(FieldStep(name)), whole);
  }
}

// Item `index` of `items`, a list of `shape`.
void AddItem(const Json& items, std::size_t index, const ListShape& shape,
             const FieldShapes& shapes, FieldSet& node, bool whole) {
  FieldSet& child = node.Child(shape.steps[index]);
  child.Mark();
  if (shape.kind == ListShape::Kind::kMap) AddObject(items[index], shapes.Item(), child, whole);
}

void AddItems(const Json& items, const ListShape& shape, const FieldShapes& shapes, FieldSet& node,
              bool whole) {
  for (std::size_t i = 0; i < items.size(); ++i) AddItem(items, i, shape, shapes, node, whole);
}

void AddValue(const Json& value, const FieldShapes& shapes, FieldSet& node, bool whole) {
  const bool mark_container = whole && !shapes.AlwaysPresent();
  if (value.is_object() && !value.empty()) {
    if (mark_container) node.Mark();
    return AddObject(value, shapes, node, whole);
  }
  if (value.is_array()) {
    const ListShape shape = shapes.List(value);
    if (IsKeyed(shape) && !value.empty()) {
      if (mark_container) node.Mark();
      return AddItems(value, shape, shapes, node, whole);
    }
    if (IsKeyed(shape)) return;  // an empty keyed list sets nothing
  }
  node.Mark();
}

// The parts of an object with fields, or of a non-empty keyed list of
// `shape`, without the container itself; nothing for any other value.
void AddParts(const Json& value, const ListShape& shape, const FieldShapes& shapes,
              FieldSet& node) {
  if (value.is_object()) {
    if (!value.empty()) AddObject(value, shapes, node, true);
  } else if (value.is_array() && !value.empty() && IsKeyed(shape)) {
    AddItems(value, shape, shapes, node, true);
  }
}

// The three sets at one path.
struct ChangeNodes {
  FieldSet& added;
  FieldSet& modified;
  FieldSet& removed;

  ChangeNodes Child(const std::string& step) {
    return {added.Child(step), modified.Child(step), removed.Child(step)};
  }
};

void CompareValues(const Json* before, const Json* after, const FieldShapes& shapes,
                   ChangeNodes at);

void CompareObjects(const Json& before, const Json& after, const FieldShapes& shapes,
                    ChangeNodes at) {
  for (const auto& [name, value] : before.items()) {
    const auto found = after.find(name);
    // An equal member has no changes: skipped before its nodes are made.
    if (found != after.end() && *found == value) continue;
    CompareValues(&value, found == after.end() ? nullptr : &*found, shapes.Field(name),
                  at.Child(FieldStep(name)));
  }
  for (const auto& [name, value] : after.items()) {
    if (!before.contains(name)) {
      CompareValues(nullptr, &value, shapes.Field(name), at.Child(FieldStep(name)));
    }
  }
}

// The index of each item of a list by its step.
std::map<std::string_view, std::size_t> ItemsByStep(const ListShape& shape) {
  std::map<std::string_view, std::size_t> by_step;
  for (std::size_t i = 0; i < shape.steps.size(); ++i) by_step[shape.steps[i]] = i;
  return by_step;
}

void CompareItems(const Json& before, const ListShape& old_shape, const Json& after,
                  const ListShape& new_shape, const FieldShapes& shapes, ChangeNodes at) {
  const auto old_items = ItemsByStep(old_shape);
  const auto new_items = ItemsByStep(new_shape);
  for (const auto& [step, index] : old_items) {
    const auto found = new_items.find(step);
    if (found == new_items.end()) {
      AddItem(before, index, old_shape, shapes, at.removed, true);
    } else if (new_shape.kind == ListShape::Kind::kMap) {
      CompareObjects(before[index], after[found->second], shapes.Item(),
                     at.Child(std::string(step)));
    }
  }
  for (const auto& [step, index] : new_items) {
    if (!old_items.count(step)) AddItem(after, index, new_shape, shapes, at.added, true);
  }
}

void CompareValues(const Json* before, const Json* after, const FieldShapes& shapes,
                   ChangeNodes at) {
  if (!before || !after) {
    if (before) AddValue(*before, shapes, at.removed, true);
    if (after) AddValue(*after, shapes, at.added, true);
    return;
  }
  // Most of an updated object is as it was (the spec under a status write): an
  // equal subtree has no changes, and comparing is cheaper than walking it.
  if (*before == *after) return;
  if (before->is_object() && after->is_object()) return CompareObjects(*before, *after, shapes, at);
  // Each side's list shape, read once (none for a value that is no list).
  const ListShape old_shape = shapes.List(*before);
  const ListShape new_shape = shapes.List(*after);
  if (before->is_array() && after->is_array() && IsKeyed(old_shape) &&
      SameShape(old_shape, new_shape)) {
    return CompareItems(*before, old_shape, *after, new_shape, shapes, at);
  }
  // A changed leaf, or a value that changed its type: the old parts are gone.
  at.modified.Mark();
  AddParts(*before, old_shape, shapes, at.removed);
  AddParts(*after, new_shape, shapes, at.added);
}

void RemoveFromObject(Json& object, const FieldSet& fields, const FieldSet* kept,
                      const FieldShapes& shapes);

void RemoveFromList(Json& items, const FieldSet& fields, const FieldSet* kept,
                    const FieldShapes& shapes) {
  const ListShape shape = shapes.List(items);
  if (!IsKeyed(shape)) return;  // atomic: its items are not fields
  Json remaining = Json::array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    Json& item = items[i];
    const std::string& step = shape.steps[i];
    const FieldSet* gone = fields.Find(step);
    if (gone && gone->member()) continue;
    if (gone && shape.kind == ListShape::Kind::kMap) {
      RemoveFromObject(item, *gone, kept ? kept->Find(step) : nullptr, shapes.Item());
    }
    remaining.push_back(std::move(item));
  }
  items = std::move(remaining);
}

void RemoveFromObject(Json& object, const FieldSet& fields, const FieldSet* kept,
                      const FieldShapes& shapes) {
  if (!object.is_object()) return;
  for (const auto& [step, gone] : fields.children()) {
    if (step.rfind("f:", 0) != 0) continue;
    const std::string name = step.substr(2);
    const auto found = object.find(name);
    if (found == object.end()) continue;
    if (gone.member()) {
      object.erase(found);
      continue;
    }
    Json& value = *found;
    if (!value.is_object() && !value.is_array()) continue;
    const bool had_parts = !value.empty();
    const FieldSet* kept_here = kept ? kept->Find(step) : nullptr;
    if (value.is_object()) {
      RemoveFromObject(value, gone, kept_here, shapes.Field(name));
    } else {
      RemoveFromList(value, gone, kept_here, shapes.Field(name));
    }
    if (had_parts && value.empty() && !(kept_here && kept_here->member())) object.erase(name);
  }
}

}  // namespace

FieldSet FieldsOf(const Json& object, const FieldShapes& shapes) {
  FieldSet fields;
  if (object.is_object()) AddObject(object, shapes, fields, false);
  fields.DropEmpty();
  return fields;
}

FieldChanges CompareFields(const Json& before, const Json& after, const FieldShapes& shapes) {
  FieldChanges changes;
  CompareValues(&before, &after, shapes, {changes.added, changes.modified, changes.removed});
  for (FieldSet* set : {&changes.added, &changes.modified, &changes.removed}) set->DropEmpty();
  return changes;
}

FieldChanges CompareMember(const Json& before, const Json& after, const FieldShapes& shapes,
                           const std::string& name) {
  FieldChanges changes;
  ChangeNodes root{changes.added, changes.modified, changes.removed};
  const auto member = [&](const Json& object) -> const Json* {
    if (!object.is_object()) return nullptr;
    const auto found = object.find(name);
    return found == object.end() ? nullptr : &*found;
  };
  const Json *old_value = member(before), *new_value = member(after);
  if (old_value || new_value)
    CompareValues(old_value, new_value, shapes.Field(name), root.Child(FieldStep(name)));
  for (FieldSet* set : {&changes.added, &changes.modified, &changes.removed}) set->DropEmpty();
  return changes;
}

void RemoveFields(Json& object, const FieldSet& fields, const FieldSet& kept,
                  const FieldShapes& shapes) {
  RemoveFromObject(object, fields, &kept, shapes);
}

}  // namespace gpupool::sandbox
