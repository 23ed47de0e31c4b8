// Label and field selectors of list and watch requests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace gpupool::sandbox {

using StringPairs = std::vector<std::pair<std::string, std::string>>;

class LabelSelector {
 public:
  // Throws ApiError 400 naming `labelSelector` on a malformed selector.
  static LabelSelector Parse(const std::string& text);
  bool Matches(const StringPairs& labels) const;
  bool Empty() const { return requirements_.empty(); }

 private:
  enum class Op { kEquals, kNotEquals, kIn, kNotIn, kExists, kNotExists };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };
  std::vector<Requirement> requirements_;
};

class FieldSelector {
 public:
  // Throws ApiError 400 naming `fieldSelector` on a malformed selector, or when
  // a field is not one of `supported` (plus metadata.name / metadata.namespace).
  static FieldSelector Parse(const std::string& text, const std::vector<std::string>& supported);
  // `names` and `values` are aligned: values[i] is the object's value of names[i].
  bool Matches(const std::vector<std::string>& names, const std::vector<std::string>& values) const;
  bool Empty() const { return terms_.empty(); }
  // The value required for `field` with "=", if any (lets lists narrow by name).
  const std::string* RequiredValue(const std::string& field) const;

 private:
  struct Term {
    std::string field;
    bool equals;
    std::string value;
  };
  std::vector<Term> terms_;
};

// Whether `labels` (an object) match a structured selector: every matchLabels
// pair, and each matchExpressions term (In, NotIn, Exists, DoesNotExist).
bool MatchesLabelSelector(const nlohmann::json& selector, const nlohmann::json& labels);

}  // namespace gpupool::sandbox
