// A small interpreter for the subset of CEL that our CRDs'
// x-kubernetes-validations rules use: `self` and field selection, has(),
// &&, ||, !, comparisons, integer and string literals, string(), and the
// Kubernetes quantity library (quantity(), sign(), compareTo(), isInteger(),
// isLessThan(), isGreaterThan()). Anything else is rejected when the rule is
// compiled, with an error that names what is not supported.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace gpupool::sandbox::cel {

using Json = nlohmann::json;

struct Node;

class Program {
 public:
  // Throws std::invalid_argument with a clear message for unsupported or malformed rules.
  static Program Compile(const std::string& rule);
  // True when the rule holds for `self`. Throws std::runtime_error when
  // evaluation fails (a missing field, a malformed quantity, a type mismatch).
  bool Evaluate(const Json& self) const;

 private:
  std::shared_ptr<const Node> root_;
};

}  // namespace gpupool::sandbox::cel
