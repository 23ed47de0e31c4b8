// CRDs whose CEL rules a Kubernetes server refuses (a function none offers, a
// cost over the budget, which 1.30 estimates higher than 1.29) are refused,
// naming the rule, by the servers that refuse them and by the sandbox, which
// refuses what any supported version refuses; rules within every budget are
// accepted everywhere. Sent as server-side dry runs: nothing is left behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <tuple>

#include "test_cluster.h"

namespace gpupool::backends::testing {
namespace {

using ::testing::HasSubstr;

struct RuleCase {
  const char* name;
  const char* rule;
  int max_items;                // of the list the rule's object sits in; 0: unbounded
  const char* refusal;          // a word of the refusal; "" when every server accepts the CRD
  int refused_from_minor = 29;  // the first Kubernetes 1.x that refuses it
  // The sandbox's, where it differs: it refuses what it cannot judge.
  const char* sandbox_refusal = nullptr;
};

std::ostream& operator<<(std::ostream& out, const RuleCase& rule) { return out << rule.name; }

constexpr char kCompareLimit[] =
    "!has(self.limit) || quantity(string(self.limit)).compareTo(quantity(string(self.gpu))) >= 0";
constexpr char kParseOnce[] = "!quantity(string(self.gpu)).isLessThan(quantity('0'))";

const RuleCase kRuleCases[] = {
    {"SignIsInNoTestedVersion", "quantity(string(self.gpu)).sign() >= 0", 1, "sign"},
    {"TwoParsesOf64ItemsOverBudget", kCompareLimit, 64, "cost"},
    {"TwoParsesOf16ItemsJustOverBudget", kCompareLimit, 16, "cost"},
    {"TwoParsesOf8ItemsOverTheBudgetOf130", kCompareLimit, 8, "cost", 30},
    {"TwoParsesOf4ItemsWithinBudget", kCompareLimit, 4, ""},
    {"OneParseOf32ItemsJustOverBudget", kParseOnce, 32, "cost"},
    {"OneParseOf16ItemsOverTheBudgetOf130", kParseOnce, 16, "cost", 30},
    {"OneParseOf8ItemsWithinBudget", kParseOnce, 8, ""},
    {"IntegerComparisonOf64Items", "self.count <= 100", 64, ""},
    {"IntegerComparisonOfUnboundedItems", "self.count <= 100", 0, "", 29, "cannot bound"},
};

// A CRD with one list of objects {gpu, limit (int-or-string, maxLength 64), count}
// whose items carry `rule`.
std::string ProbeCrd(const RuleCase& rule) {
  const std::string quantity =
      "{anyOf: [{type: integer}, {type: string}], x-kubernetes-int-or-string: true, "
      "maxLength: 64}";
  return std::string(
             "apiVersion: apiextensions.k8s.io/v1\n"
             "kind: CustomResourceDefinition\n"
             "metadata: {name: probes.rules.example.dev}\n"
             "spec:\n"
             "  group: rules.example.dev\n"
             "  scope: Cluster\n"
             "  names: {kind: Probe, plural: probes, singular: probe, listKind: ProbeList}\n"
             "  versions:\n"
             "  - name: v1\n"
             "    served: true\n"
             "    storage: true\n"
             "    schema:\n"
             "      openAPIV3Schema:\n"
             "        type: object\n"
             "        properties:\n"
             "          items:\n"
             "            type: array\n") +
         (rule.max_items > 0 ? "            maxItems: " + std::to_string(rule.max_items) + "\n"
                             : std::string()) +
         "            items:\n"
         "              type: object\n"
         "              properties: {gpu: " +
         quantity + ", limit: " + quantity +
         ", count: {type: integer}}\n"
         "              x-kubernetes-validations:\n"
         "              - rule: \"" +
         rule.rule + "\"\n";
}

// 30 for "v1.30.14".
int MinorOf(const std::string& version) {
  return std::atoi(version.substr(version.find('.') + 1).c_str());
}

class CrdRulesOnBackend : public ::testing::TestWithParam<std::tuple<std::string, RuleCase>> {
 protected:
  void SetUp() override { SKIP_WITHOUT_BACKEND(std::get<0>(GetParam())); }
};

TEST_P(CrdRulesOnBackend, RefusedOrAcceptedAsEachServerDoes) {
  const TestCluster& cluster = ClusterFor(std::get<0>(GetParam()));
  const RuleCase& rule = std::get<1>(GetParam());
  const std::string file = cluster.dir() + "/probe-" + rule.name + ".yaml";
  { std::ofstream(file) << ProbeCrd(rule); }
  const auto result = cluster.Kubectl("create --dry-run=server -f " + file);
  std::string refusal = rule.refusal;
  if (!cluster.real() && rule.sandbox_refusal) refusal = rule.sandbox_refusal;
  if (cluster.real() && MinorOf(cluster.backend()) < rule.refused_from_minor) refusal = "";
  if (refusal.empty()) {
    EXPECT_EQ(result.exit_code, 0) << result.output;
    return;
  }
  EXPECT_NE(result.exit_code, 0) << "accepted: " << result.output;
  EXPECT_THAT(result.output, HasSubstr("x-kubernetes-validations[0].rule"));
  EXPECT_THAT(result.output, HasSubstr(refusal));
}

INSTANTIATE_TEST_SUITE_P(All, CrdRulesOnBackend,
                         ::testing::Combine(::testing::ValuesIn(Backends()),
                                            ::testing::ValuesIn(kRuleCases)),
                         [](const auto& info) {
                           return std::string(std::get<1>(info.param).name) + "_" +
                                  BackendTestName(std::get<0>(info.param));
                         });

}  // namespace
}  // namespace gpupool::backends::testing
