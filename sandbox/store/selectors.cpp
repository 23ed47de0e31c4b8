#include "sandbox/store/selectors.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "sandbox/api_error.h"

namespace gpupool::sandbox {
namespace {

std::string Trim(const std::string& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

// Splits on commas that are not inside parentheses ("a in (x,y),b" -> 2 terms).
std::vector<std::string> SplitTerms(const std::string& text) {
  std::vector<std::string> terms;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      terms.push_back(Trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!Trim(current).empty() || !terms.empty()) terms.push_back(Trim(current));
  return terms;
}

bool ValidLabelToken(const std::string& token, bool allow_slash) {
  if (token.empty() || token.size() > 316) return false;
  return std::all_of(token.begin(), token.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
           (allow_slash && c == '/');
  });
}

ApiError LabelError(const std::string& term, const std::string& why) {
  return BadRequest("unable to parse requirement: labelSelector \"" + term + "\": " + why);
}

std::vector<std::string> ParseValueSet(const std::string& term, const std::string& rest) {
  const std::string set = Trim(rest);
  if (set.size() < 2 || set.front() != '(' || set.back() != ')') {
    throw LabelError(term, "expected a parenthesised value list");
  }
  std::vector<std::string> values;
  std::string inner = set.substr(1, set.size() - 2);
  size_t start = 0;
  while (start <= inner.size()) {
    const size_t comma = std::min(inner.find(',', start), inner.size());
    std::string value = Trim(inner.substr(start, comma - start));
    if (!value.empty() && !ValidLabelToken(value, false)) {
      throw LabelError(term, "invalid label value \"" + value + "\"");
    }
    values.push_back(value);
    start = comma + 1;
  }
  return values;
}

// Where the operator of a field selector term starts ("!=", "==" or "="), and
// its length; npos when the term has none.
std::pair<size_t, size_t> FieldOperator(const std::string& term) {
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.compare(i, 2, "!=") == 0 || term.compare(i, 2, "==") == 0) return {i, 2};
    if (term[i] == '=') return {i, 1};
  }
  return {std::string::npos, 0};
}

}  // namespace

LabelSelector LabelSelector::Parse(const std::string& text) {
  LabelSelector selector;
  if (Trim(text).empty()) return selector;
  for (const auto& term : SplitTerms(text)) {
    Requirement requirement;
    const size_t space = term.find(' ');
    const size_t op_at = term.find_first_of("=!");
    if (term.empty()) throw LabelError(term, "empty requirement");
    if (term[0] == '!') {
      requirement = {Trim(term.substr(1)), Op::kNotExists, {}};
    } else if (op_at != std::string::npos && (space == std::string::npos || op_at < space)) {
      const bool not_equals = term[op_at] == '!';
      if (not_equals && term.compare(op_at, 2, "!=") != 0) throw LabelError(term, "expected !=");
      size_t value_at = op_at + 1 + (term.compare(op_at, 2, "==") == 0 || not_equals ? 1 : 0);
      requirement = {Trim(term.substr(0, op_at)),
                     not_equals ? Op::kNotEquals : Op::kEquals,
                     {Trim(term.substr(value_at))}};
      if (!requirement.values[0].empty() && !ValidLabelToken(requirement.values[0], false)) {
        throw LabelError(term, "invalid label value \"" + requirement.values[0] + "\"");
      }
    } else if (space != std::string::npos) {
      const std::string key = Trim(term.substr(0, space));
      std::string rest = Trim(term.substr(space));
      if (rest.rfind("notin", 0) == 0) {
        requirement = {key, Op::kNotIn, ParseValueSet(term, rest.substr(5))};
      } else if (rest.rfind("in", 0) == 0) {
        requirement = {key, Op::kIn, ParseValueSet(term, rest.substr(2))};
      } else {
        throw LabelError(term, "unknown operator \"" + rest + "\"");
      }
    } else {
      requirement = {term, Op::kExists, {}};
    }
    if (!ValidLabelToken(requirement.key, true)) {
      throw LabelError(term, "invalid label key \"" + requirement.key + "\"");
    }
    selector.requirements_.push_back(std::move(requirement));
  }
  return selector;
}

bool LabelSelector::Matches(const StringPairs& labels) const {
  for (const auto& requirement : requirements_) {
    const std::string* value = nullptr;
    for (const auto& [key, label_value] : labels) {
      if (key == requirement.key) value = &label_value;
    }
    const auto& values = requirement.values;
    const bool listed = value && std::find(values.begin(), values.end(), *value) != values.end();
    switch (requirement.op) {
      case Op::kEquals:
      case Op::kIn:
        if (!listed) return false;
        break;
      case Op::kNotEquals:
      case Op::kNotIn:
        if (listed) return false;
        break;
      case Op::kExists:
        if (!value) return false;
        break;
      case Op::kNotExists:
        if (value) return false;
        break;
    }
  }
  return true;
}

// As the real server's parser: empty terms are skipped, a term without an
// operator cannot be understood, and a field the resource does not select on
// (an empty one included) is not supported.
FieldSelector FieldSelector::Parse(const std::string& text,
                                   const std::vector<std::string>& supported) {
  FieldSelector selector;
  for (const auto& term : SplitTerms(text)) {
    if (term.empty()) continue;
    const auto [op_at, op_size] = FieldOperator(term);
    if (op_at == std::string::npos) {
      throw BadRequest("invalid selector: '" + text + "'; can't understand '" + term + "'");
    }
    Term parsed;
    parsed.field = Trim(term.substr(0, op_at));
    parsed.equals = term[op_at] != '!';
    parsed.value = Trim(term.substr(op_at + op_size));
    const bool known =
        parsed.field == "metadata.name" || parsed.field == "metadata.namespace" ||
        std::find(supported.begin(), supported.end(), parsed.field) != supported.end();
    if (!known) throw BadRequest("field label not supported: " + parsed.field);
    selector.terms_.push_back(std::move(parsed));
  }
  return selector;
}

bool FieldSelector::Matches(const std::vector<std::string>& names,
                            const std::vector<std::string>& values) const {
  static const std::string kAbsent;
  for (const auto& term : terms_) {
    const std::string* value = &kAbsent;
    for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
      if (names[i] == term.field) value = &values[i];
    }
    if ((*value == term.value) != term.equals) return false;
  }
  return true;
}

const std::string* FieldSelector::RequiredValue(const std::string& field) const {
  for (const auto& term : terms_) {
    if (term.equals && term.field == field) return &term.value;
  }
  return nullptr;
}

bool MatchesLabelSelector(const nlohmann::json& selector, const nlohmann::json& labels) {
  using Json = nlohmann::json;
  const Json match_labels = selector.value("matchLabels", Json::object());
  for (const auto& [key, value] : match_labels.items()) {
    if (!labels.contains(key) || labels[key] != value) return false;
  }
  for (const auto& expression : selector.value("matchExpressions", Json::array())) {
    const std::string key = expression.value("key", "");
    const std::string op = expression.value("operator", "");
    const auto values = expression.value("values", Json::array());
    const bool has = labels.contains(key);
    const bool listed = has && std::find(values.begin(), values.end(), labels[key]) != values.end();
    if ((op == "In" && !listed) || (op == "NotIn" && listed) || (op == "Exists" && !has) ||
        (op == "DoesNotExist" && has)) {
      return false;
    }
  }
  return true;
}

}  // namespace gpupool::sandbox
