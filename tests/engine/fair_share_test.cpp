// Water-filling of deserved shares, as a table.
#include "engine/fair_share.h"

#include <gtest/gtest.h>

namespace gpupool::engine::internal {
namespace {

struct Case {
  const char* name;
  MilliGpu capacity;
  std::vector<ShareRequest> requests;
  std::vector<MilliGpu> deserved;
};

TEST(WaterFill, Table) {
  const MilliGpu kNoLimit = 1000000;
  std::vector<Case> cases = {
      {"idle capacity split by weight 1:2; an idle project keeps its quota",
       10000,
       {{2000, kNoLimit, 10000, 1}, {2000, kNoLimit, 1000, 1}, {2000, kNoLimit, 10000, 2}},
       {3667, 2000, 5333}},
      {"a limit caps the share; what it leaves flows to the others",
       10000,
       {{2000, kNoLimit, 10000, 1}, {2000, kNoLimit, 1000, 1}, {2000, 3000, 10000, 2}},
       {6000, 2000, 3000}},
      {"never more than asked for",
       10000,
       {{2000, kNoLimit, 2500, 1}, {2000, kNoLimit, 10000, 1}},
       {2500, 7500}},
      {"quotas above capacity: nothing idle to share",
       4000,
       {{3000, kNoLimit, 5000, 1}, {3000, kNoLimit, 5000, 1}},
       {3000, 3000}},
      {"weight 0 gets no idle capacity while others want it",
       8000,
       {{2000, kNoLimit, 8000, 0}, {2000, kNoLimit, 8000, 1}},
       {2000, 6000}},
      {"all weights 0: split equally",
       8000,
       {{2000, kNoLimit, 8000, 0}, {2000, kNoLimit, 8000, 0}},
       {4000, 4000}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(WaterFill(c.capacity, c.requests), c.deserved) << c.name;
  }
}

struct NestedCase {
  const char* name;
  MilliGpu capacity;
  std::vector<ShareRequest> requests;
  std::vector<int> group_of;
  std::vector<ShareGroup> groups;
  std::vector<MilliGpu> deserved;
};

TEST(WaterFillNested, Table) {
  const MilliGpu kNoLimit = 1000000;
  std::vector<NestedCase> cases = {
      {"no groups: the same as one level",
       10000,
       {{2000, kNoLimit, 10000, 1}, {2000, kNoLimit, 1000, 1}, {2000, kNoLimit, 10000, 2}},
       {-1, -1, -1},
       {},
       {3667, 2000, 5333}},
      {"a member's unused guarantee goes to its own group first",
       8000,
       {{2000, kNoLimit, 0, 1}, {2000, kNoLimit, 8000, 1}, {4000, kNoLimit, 8000, 1}},
       {0, 0, 1},
       {{4000, -1, 1}, {4000, -1, 1}},
       {2000, 4000, 4000}},
      {"idle capacity across groups by group weight, not by members' weights",
       12000,
       {{1000, kNoLimit, 12000, 9}, {1000, kNoLimit, 12000, 1}, {2000, kNoLimit, 12000, 1}},
       {0, 0, 1},
       {{2000, -1, 1}, {2000, -1, 3}},
       {2800, 1200, 8000}},
      {"a group's limit caps its members together; the rest flows to the others",
       10000,
       {{1000, kNoLimit, 10000, 1}, {1000, kNoLimit, 10000, 1}, {2000, kNoLimit, 10000, 1}},
       {0, 0, -1},
       {{2000, 3000, 1}},
       {1500, 1500, 7000}},
  };
  for (const NestedCase& c : cases) {
    EXPECT_EQ(WaterFillNested(c.capacity, c.requests, c.group_of, c.groups), c.deserved) << c.name;
  }
}

}  // namespace
}  // namespace gpupool::engine::internal
