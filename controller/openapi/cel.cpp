#include "gpupool/openapi/cel.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <regex>
#include <stdexcept>
#include <variant>
#include <vector>

#include "gpupool/json/quantity.h"

namespace gpupool::openapi::cel {

// A quantity's value: the CEL library compares and tests them exactly; a long
// double holds every quantity a rule meets here (integers to 2^64, decimals to
// nano) without the milli rounding gpupool's own amounts use.
struct QuantityValue {
  long double value;
};
// Objects, lists and nulls stay in the evaluated document: a rule reads them
// in place, without copying what `self` holds.
using Value = std::variant<bool, int64_t, std::string, QuantityValue, const Json*>;

struct Node {
  enum class Kind { kLiteral, kSelf, kSelect, kHas, kCall, kMethod, kNot, kBinary };
  Kind kind;
  Value literal;
  std::string name;                               // field, function, method or operator
  std::vector<std::shared_ptr<const Node>> args;  // operands; for kMethod args[0] is the target
};
using NodePtr = std::shared_ptr<const Node>;

namespace {

NodePtr Make(Node::Kind kind, std::string name, std::vector<NodePtr> args, Value literal = false) {
  return std::make_shared<const Node>(
      Node{kind, std::move(literal), std::move(name), std::move(args)});
}

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  NodePtr ParseAll() {
    NodePtr node = ParseOr();
    Skip();
    if (pos_ != text_.size()) Fail("unexpected \"" + text_.substr(pos_) + "\"");
    return node;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) {
    throw std::invalid_argument("unsupported CEL rule \"" + text_ + "\": " + why +
                                " (the sandbox evaluates only self, field selection, has(), "
                                "&&, ||, !, comparisons, + and - on integers, literals, "
                                "string(), size(), matches() and the quantity library)");
  }
  void Skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Eat(const std::string& token) {
    Skip();
    if (text_.compare(pos_, token.size(), token) != 0) return false;
    pos_ += token.size();
    return true;
  }
  void Expect(const std::string& token) {
    if (!Eat(token)) Fail("expected \"" + token + "\"");
  }
  std::string Identifier() {
    Skip();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (start == pos_ || std::isdigit(static_cast<unsigned char>(text_[start]))) {
      pos_ = start;
      return "";
    }
    return text_.substr(start, pos_ - start);
  }

  NodePtr ParseOr() {
    NodePtr left = ParseAnd();
    while (Eat("||")) left = Make(Node::Kind::kBinary, "||", {left, ParseAnd()});
    return left;
  }
  NodePtr ParseAnd() {
    NodePtr left = ParseComparison();
    while (Eat("&&")) left = Make(Node::Kind::kBinary, "&&", {left, ParseComparison()});
    return left;
  }
  NodePtr ParseComparison() {
    NodePtr left = ParseAdditive();
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"}) {
      if (Eat(op)) return Make(Node::Kind::kBinary, op, {left, ParseAdditive()});
    }
    Skip();
    if (pos_ < text_.size() && std::string("*/%?[").find(text_[pos_]) != std::string::npos) {
      Fail(std::string("operator \"") + text_[pos_] + "\" is not supported");
    }
    return left;
  }
  NodePtr ParseAdditive() {
    NodePtr left = ParseUnary();
    for (;;) {
      if (Eat("+")) {
        left = Make(Node::Kind::kBinary, "+", {left, ParseUnary()});
      } else if (Eat("-")) {
        left = Make(Node::Kind::kBinary, "-", {left, ParseUnary()});
      } else {
        return left;
      }
    }
  }
  NodePtr ParseUnary() {
    if (Eat("!")) return Make(Node::Kind::kNot, "!", {ParseUnary()});
    return ParsePostfix(ParsePrimary());
  }
  NodePtr ParsePostfix(NodePtr node) {
    while (Eat(".")) {
      const std::string name = Identifier();
      if (name.empty()) Fail("expected a field or method name after \".\"");
      if (Eat("(")) {
        std::vector<NodePtr> args = {node};
        ParseArguments(args);
        static const char* kMethods[] = {"compareTo", "isInteger", "isLessThan", "isGreaterThan",
                                         "matches"};
        if (name == "sign") {
          throw std::invalid_argument(
              "compilation failed: no matching overload for 'sign' "
              "applied to 'kubernetes.Quantity.()' in \"" +
              text_ + "\": no Kubernetes from 1.29 to 1.32 offers Quantity.sign() to CRD rules");
        }
        if (std::find(std::begin(kMethods), std::end(kMethods), name) == std::end(kMethods)) {
          Fail("method " + name + "() is not supported");
        }
        if (name == "matches") CheckPattern(args);
        node = Make(Node::Kind::kMethod, name, std::move(args));
      } else {
        node = Make(Node::Kind::kSelect, name, {node});
      }
    }
    return node;
  }
  // The server compiles a pattern literal with the rule: a bad one fails then.
  void CheckPattern(const std::vector<NodePtr>& args) {
    const std::string* pattern =
        args.size() == 2 ? std::get_if<std::string>(&args[1]->literal) : nullptr;
    if (!pattern || args[1]->kind != Node::Kind::kLiteral) {
      Fail("matches() needs one string literal");
    }
    try {
      std::regex(*pattern, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
      Fail("matches(): invalid pattern \"" + *pattern + "\"");
    }
  }
  void ParseArguments(std::vector<NodePtr>& args) {
    if (Eat(")")) return;
    do {
      args.push_back(ParseOr());
    } while (Eat(","));
    Expect(")");
  }
  NodePtr ParsePrimary() {
    Skip();
    if (pos_ >= text_.size()) Fail("unexpected end of rule");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      NodePtr inner = ParseOr();
      Expect(")");
      return inner;
    }
    if (c == '\'' || c == '"') return ParseString(c);
    if (std::isdigit(static_cast<unsigned char>(c))) return ParseInteger();
    const std::string name = Identifier();
    if (name == "self") return Make(Node::Kind::kSelf, name, {});
    if (name == "true" || name == "false")
      return Make(Node::Kind::kLiteral, name, {}, name == "true");
    if (name == "has") {
      Expect("(");
      NodePtr field = ParsePostfix(ParsePrimary());
      Expect(")");
      if (field->kind != Node::Kind::kSelect) Fail("has() needs a field selection");
      return Make(Node::Kind::kHas, "has", {field});
    }
    if (name == "quantity" || name == "string" || name == "size") {
      Expect("(");
      std::vector<NodePtr> args;
      ParseArguments(args);
      if (args.size() != 1) Fail(name + "() takes one argument");
      return Make(Node::Kind::kCall, name, std::move(args));
    }
    Fail(name.empty() ? "unexpected \"" + text_.substr(pos_) + "\""
                      : "identifier or function \"" + name + "\" is not supported");
  }
  NodePtr ParseString(char quote) {
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string::npos) Fail("unterminated string literal");
    std::string value = text_.substr(pos_ + 1, end - pos_ - 1);
    if (value.find('\\') != std::string::npos) Fail("escapes in string literals");
    pos_ = end + 1;
    return Make(Node::Kind::kLiteral, "string", {}, value);
  }
  NodePtr ParseInteger() {
    size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'u')) {
      Fail("only integer literals are supported");
    }
    return Make(Node::Kind::kLiteral, "int", {}, std::stoll(text_.substr(start, pos_ - start)));
  }

  const std::string& text_;
  size_t pos_ = 0;
};

[[noreturn]] void EvalError(const std::string& why) { throw std::runtime_error(why); }

Value Eval(const Node& node, const Json& self);

bool AsBool(const Value& value) {
  if (auto b = std::get_if<bool>(&value)) return *b;
  EvalError("expected a boolean");
}

long double AsQuantity(const Value& value) {
  if (auto q = std::get_if<QuantityValue>(&value)) return q->value;
  EvalError("expected a quantity");
}

Value FromJson(const Json& json) {
  if (json.is_boolean()) return json.get<bool>();
  if (json.is_number_integer()) return json.get<int64_t>();
  if (json.is_string()) return json.get<std::string>();
  return &json;
}

Value Select(const Node& node, const Json& self) {
  Value target = Eval(*node.args[0], self);
  const Json* const* object = std::get_if<const Json*>(&target);
  if (!object || !(*object)->is_object()) EvalError("cannot select field " + node.name);
  const auto found = (*object)->find(node.name);
  if (found == (*object)->end()) EvalError("no such key: " + node.name);
  return FromJson(*found);
}

// A Kubernetes quantity: [+-]digits[.digits] then a binary suffix (Ki..Ei), a
// decimal one (n, u, m, k, M, G, T, P, E) or an exponent (e3, E-2); nullopt
// when the text is not one.
std::optional<long double> ParseQuantity(const std::string& text) {
  size_t pos = 0;
  const bool negative = pos < text.size() && text[pos] == '-';
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  const size_t digits_start = pos;
  long double value = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])))
    value = value * 10 + (text[pos++] - '0');
  size_t digits = pos - digits_start;
  if (pos < text.size() && text[pos] == '.') {
    long double scale = 0.1L;
    for (++pos; pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])); ++pos) {
      value += (text[pos] - '0') * scale;
      scale /= 10;
      ++digits;
    }
  }
  if (digits == 0) return std::nullopt;
  const std::string suffix = text.substr(pos);
  static const std::pair<const char*, long double> kSuffixes[] = {{"", 1},
                                                                  {"n", 1e-9L},
                                                                  {"u", 1e-6L},
                                                                  {"m", 1e-3L},
                                                                  {"k", 1e3L},
                                                                  {"M", 1e6L},
                                                                  {"G", 1e9L},
                                                                  {"T", 1e12L},
                                                                  {"P", 1e15L},
                                                                  {"E", 1e18L},
                                                                  {"Ki", 1024.0L},
                                                                  {"Mi", 1048576.0L},
                                                                  {"Gi", 1073741824.0L},
                                                                  {"Ti", 1099511627776.0L},
                                                                  {"Pi", 1125899906842624.0L},
                                                                  {"Ei", 1152921504606846976.0L}};
  for (const auto& [name, factor] : kSuffixes) {
    if (suffix == name) return (negative ? -value : value) * factor;
  }
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return std::nullopt;
  size_t exponent_start = 1;
  if (suffix[1] == '+' || suffix[1] == '-') ++exponent_start;
  if (exponent_start >= suffix.size() || suffix.size() - exponent_start > 3 ||
      suffix.find_first_not_of("0123456789", exponent_start) != std::string::npos) {
    return std::nullopt;
  }
  const int exponent = std::stoi(suffix.substr(1));
  return (negative ? -value : value) * std::pow(10.0L, exponent);
}

// size() of a string counts its code points, as CEL does.
int64_t CodePoints(const std::string& text) {
  return std::count_if(text.begin(), text.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

Value Call(const Node& node, const Json& self) {
  Value arg = Eval(*node.args[0], self);
  if (node.name == "size") {
    if (auto s = std::get_if<std::string>(&arg)) return CodePoints(*s);
    auto json = std::get_if<const Json*>(&arg);
    if (json && ((*json)->is_array() || (*json)->is_object())) {
      return static_cast<int64_t>((*json)->size());
    }
    EvalError("size() needs a string, a list or a map");
  }
  if (node.name == "string") {
    if (auto s = std::get_if<std::string>(&arg)) return *s;
    if (auto i = std::get_if<int64_t>(&arg)) return std::to_string(*i);
    if (auto b = std::get_if<bool>(&arg)) return std::string(*b ? "true" : "false");
    EvalError("string() cannot convert this value");
  }
  auto text = std::get_if<std::string>(&arg);
  if (!text) EvalError("quantity() needs a string");
  auto quantity = ParseQuantity(*text);
  if (!quantity) EvalError("quantity(\"" + *text + "\"): not a Kubernetes quantity");
  return QuantityValue{*quantity};
}

Value Matches(const Node& node, const Json& self) {
  Value target = Eval(*node.args[0], self);
  auto text = std::get_if<std::string>(&target);
  if (!text) EvalError("matches() needs a string");
  const auto& pattern = std::get<std::string>(node.args[1]->literal);
  return std::regex_search(*text, std::regex(pattern, std::regex::ECMAScript));
}

Value Method(const Node& node, const Json& self) {
  if (node.name == "matches") return Matches(node, self);
  const long double target = AsQuantity(Eval(*node.args[0], self));
  auto other = [&] {
    if (node.args.size() != 2) EvalError(node.name + "() takes one argument");
    return AsQuantity(Eval(*node.args[1], self));
  };
  if (node.name == "isInteger") return std::floor(target) == target;
  const long double value = other();
  if (node.name == "compareTo") return int64_t{target < value ? -1 : (target > value ? 1 : 0)};
  if (node.name == "isLessThan") return target < value;
  return target > value;  // isGreaterThan
}

template <typename T>
bool Compare(const std::string& op, const T& left, const T& right) {
  if (op == "==") return left == right;
  if (op == "!=") return left != right;
  if (op == "<") return left < right;
  if (op == "<=") return left <= right;
  if (op == ">") return left > right;
  return left >= right;
}

// Integer + and -; CEL refuses an overflow rather than wrapping.
Value Arithmetic(const std::string& op, const Value& left, const Value& right) {
  auto a = std::get_if<int64_t>(&left);
  if (!a) EvalError("no matching overload for " + op);
  const int64_t b = std::get<int64_t>(right);
  int64_t result = 0;
  const bool overflow =
      op == "+" ? __builtin_add_overflow(*a, b, &result) : __builtin_sub_overflow(*a, b, &result);
  if (overflow) EvalError("integer overflow");
  return result;
}

Value Binary(const Node& node, const Json& self) {
  if (node.name == "&&") {
    return AsBool(Eval(*node.args[0], self)) && AsBool(Eval(*node.args[1], self));
  }
  if (node.name == "||") {
    return AsBool(Eval(*node.args[0], self)) || AsBool(Eval(*node.args[1], self));
  }
  Value left = Eval(*node.args[0], self);
  Value right = Eval(*node.args[1], self);
  if (left.index() != right.index()) EvalError("no matching overload for " + node.name);
  if (node.name == "+" || node.name == "-") return Arithmetic(node.name, left, right);
  if (auto i = std::get_if<int64_t>(&left)) return Compare(node.name, *i, std::get<int64_t>(right));
  if (auto s = std::get_if<std::string>(&left)) {
    return Compare(node.name, *s, std::get<std::string>(right));
  }
  if (auto b = std::get_if<bool>(&left)) {
    if (node.name != "==" && node.name != "!=") EvalError("booleans are not ordered");
    return Compare(node.name, *b, std::get<bool>(right));
  }
  EvalError("no matching overload for " + node.name);
}

Value Eval(const Node& node, const Json& self) {
  switch (node.kind) {
    case Node::Kind::kLiteral:
      return node.literal;
    case Node::Kind::kSelf:
      return FromJson(self);
    case Node::Kind::kSelect:
      return Select(node, self);
    case Node::Kind::kHas: {
      const Node& field = *node.args[0];
      Value target = Eval(*field.args[0], self);
      const Json* const* object = std::get_if<const Json*>(&target);
      return object && (*object)->is_object() && (*object)->contains(field.name);
    }
    case Node::Kind::kCall:
      return Call(node, self);
    case Node::Kind::kMethod:
      return Method(node, self);
    case Node::Kind::kNot:
      return !AsBool(Eval(*node.args[0], self));
    case Node::Kind::kBinary:
      return Binary(node, self);
  }
  EvalError("unknown expression");
}

// The size of the value `node` yields, by the schema of `self`: a string's
// largest length, kUnboundedStringSize when nothing bounds it.
std::uint64_t LargestSize(const Node& node, const Json& self_schema);

// The schema of the field a chain of selections from `self` reads; null when
// it is not one.
const Json* SchemaOfSelection(const Node& node, const Json& self_schema) {
  if (node.kind == Node::Kind::kSelf) return &self_schema;
  if (node.kind != Node::Kind::kSelect) return nullptr;
  const Json* parent = SchemaOfSelection(*node.args[0], self_schema);
  if (!parent || !parent->is_object() || !parent->contains("properties")) return nullptr;
  const Json& properties = (*parent)["properties"];
  return properties.contains(node.name) ? &properties[node.name] : nullptr;
}

std::uint64_t LargestSize(const Node& node, const Json& self_schema) {
  constexpr std::uint64_t kNumberText = 20;  // an int64 as text
  if (node.kind == Node::Kind::kLiteral) {
    if (auto text = std::get_if<std::string>(&node.literal)) return text->size();
    return kNumberText;
  }
  if (node.kind == Node::Kind::kCall && node.name == "string") {
    return LargestSize(*node.args[0], self_schema);
  }
  const Json* schema = SchemaOfSelection(node, self_schema);
  if (!schema || schema->value("x-kubernetes-int-or-string", false)) {
    return Program::kUnboundedStringSize;
  }
  const std::string type = schema->value("type", "");
  if (type == "integer" || type == "number" || type == "boolean") return kNumberText;
  const auto max_length = schema->find("maxLength");
  if (type == "string" && max_length != schema->end() && max_length->is_number_integer() &&
      max_length->get<std::int64_t>() >= 0) {
    return max_length->get<std::uint64_t>();
  }
  return Program::kUnboundedStringSize;
}

std::uint64_t Cost(const Node& node, const Json& self_schema) {
  std::uint64_t cost = node.kind == Node::Kind::kLiteral ? 0 : 1;
  for (const auto& arg : node.args) cost += Cost(*arg, self_schema);
  // quantity() parses its string, and string() copies it (in the estimate of
  // Kubernetes 1.30 and later; 1.29 counts string() as 1): a tenth of its
  // characters each, rounded up.
  if (node.kind == Node::Kind::kCall && node.name != "size") {
    cost += (LargestSize(*node.args[0], self_schema) + 9) / 10;
  }
  // matches(): a tenth of the string's characters times a quarter of the pattern's.
  if (node.kind == Node::Kind::kMethod && node.name == "matches") {
    const std::uint64_t pattern = std::get<std::string>(node.args[1]->literal).size();
    cost += (LargestSize(*node.args[0], self_schema) + 9) / 10 * ((pattern + 3) / 4);
  }
  return cost;
}

}  // namespace

Program Program::Compile(const std::string& rule) {
  Program program;
  program.root_ = Parser(rule).ParseAll();
  return program;
}

std::uint64_t Program::EstimatedCost(const Json& self_schema) const {
  return Cost(*root_, self_schema);
}

bool Program::Evaluate(const Json& self) const {
  Value result = Eval(*root_, self);
  auto b = std::get_if<bool>(&result);
  if (!b) throw std::runtime_error("the rule does not evaluate to a boolean");
  return *b;
}

}  // namespace gpupool::openapi::cel
