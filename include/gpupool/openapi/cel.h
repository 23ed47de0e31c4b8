// A small interpreter for the subset of CEL that our CRDs'
// x-kubernetes-validations rules use: `self` and field selection, has(),
// &&, ||, !, comparisons, + and - on integers, integer and string literals,
// string(), size(), a string's matches() (a pattern literal), and the
// Kubernetes quantity library as Kubernetes 1.29 has it (quantity(),
// compareTo(), isInteger(), isLessThan(), isGreaterThan(); no sign(), which no
// tested version offers to CRD rules).
// Anything else is rejected when the rule is compiled, with an error that
// names what is not supported, and so is a rule whose estimated cost a
// Kubernetes API server would refuse (EstimatedCost).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace gpupool::openapi::cel {

using Json = nlohmann::json;

struct Node;

class Program {
 public:
  // Throws std::invalid_argument with a clear message for unsupported or malformed rules.
  static Program Compile(const std::string& rule);
  // True when the rule holds for `self`. Throws std::runtime_error when
  // evaluation fails (a missing field, a malformed quantity, a type mismatch).
  bool Evaluate(const Json& self) const;
  // The cost of one evaluation at worst, by the strictest API server's model
  // (1.30 and later): a quantity() parse and a string() conversion cost a
  // tenth of their argument's largest size each, every other step at least 1. `self_schema` is the
  // OpenAPI schema the rule sits on; a string it does not bound (no maxLength, or an int-or-string,
  // whose maxLength the server's estimate ignores) counts as kUnboundedStringSize.
  std::uint64_t EstimatedCost(const Json& self_schema) const;

  // A string with no bound is as large as a request may be (3 MiB).
  static constexpr std::uint64_t kUnboundedStringSize = 3 * 1024 * 1024;
  // What the server allows one rule, its cost times the number of times it
  // may run (the items of the lists around it), and all rules of a CRD.
  static constexpr std::uint64_t kRuleCostLimit = 10'000'000;
  static constexpr std::uint64_t kCrdCostLimit = 100'000'000;

 private:
  std::shared_ptr<const Node> root_;
};

}  // namespace gpupool::openapi::cel
