#include "sandbox/cel.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <variant>
#include <vector>

#include "gpupool/api/quantity.h"

namespace gpupool::sandbox::cel {

struct QuantityValue {
  int64_t milli;
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
                                "&&, ||, !, comparisons, literals, string() and the quantity "
                                "library)");
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
    NodePtr left = ParseUnary();
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"}) {
      if (Eat(op)) return Make(Node::Kind::kBinary, op, {left, ParseUnary()});
    }
    Skip();
    if (pos_ < text_.size() && std::string("+-*/%?[").find(text_[pos_]) != std::string::npos) {
      Fail(std::string("operator \"") + text_[pos_] + "\" is not supported");
    }
    return left;
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
        static const char* kMethods[] = {"sign", "compareTo", "isInteger", "isLessThan",
                                         "isGreaterThan"};
        if (std::find(std::begin(kMethods), std::end(kMethods), name) == std::end(kMethods)) {
          Fail("method " + name + "() is not supported");
        }
        node = Make(Node::Kind::kMethod, name, std::move(args));
      } else {
        node = Make(Node::Kind::kSelect, name, {node});
      }
    }
    return node;
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
    if (name == "quantity" || name == "string") {
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

int64_t AsQuantity(const Value& value) {
  if (auto q = std::get_if<QuantityValue>(&value)) return q->milli;
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

Value Call(const Node& node, const Json& self) {
  Value arg = Eval(*node.args[0], self);
  if (node.name == "string") {
    if (auto s = std::get_if<std::string>(&arg)) return *s;
    if (auto i = std::get_if<int64_t>(&arg)) return std::to_string(*i);
    if (auto b = std::get_if<bool>(&arg)) return std::string(*b ? "true" : "false");
    EvalError("string() cannot convert this value");
  }
  auto text = std::get_if<std::string>(&arg);
  if (!text) EvalError("quantity() needs a string");
  std::string error;
  auto milli = api::ParseMilli(*text, &error);
  if (!milli) EvalError("quantity(\"" + *text + "\"): " + error);
  return QuantityValue{*milli};
}

Value Method(const Node& node, const Json& self) {
  const int64_t target = AsQuantity(Eval(*node.args[0], self));
  auto other = [&] {
    if (node.args.size() != 2) EvalError(node.name + "() takes one argument");
    return AsQuantity(Eval(*node.args[1], self));
  };
  if (node.name == "sign") return int64_t{target > 0 ? 1 : (target < 0 ? -1 : 0)};
  if (node.name == "isInteger") return target % 1000 == 0;
  const int64_t value = other();
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

}  // namespace

Program Program::Compile(const std::string& rule) {
  Program program;
  program.root_ = Parser(rule).ParseAll();
  return program;
}

bool Program::Evaluate(const Json& self) const {
  Value result = Eval(*root_, self);
  auto b = std::get_if<bool>(&result);
  if (!b) throw std::runtime_error("the rule does not evaluate to a boolean");
  return *b;
}

}  // namespace gpupool::sandbox::cel
