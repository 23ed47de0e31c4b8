// The engine's name index against std::unordered_map: random inserts, erases and
// look-ups, with names that collide in their home slots and records reused.
#include "engine/name_index.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpupool::engine::internal {
namespace {

struct Record {
  std::string name;
};

std::string Named(const char* prefix, std::uint64_t number) {
  std::string name = prefix;
  name += std::to_string(number);
  return name;
}

TEST(NameIndex, AgreesWithAMapOverRandomInsertsAndErases) {
  std::vector<Record> records;
  NameIndex<Record> index(&records);
  std::unordered_map<std::string, int> expected;
  std::vector<int> free_records;
  std::mt19937 rng(7);
  for (int step = 0; step < 200000; ++step) {
    std::string name = Named("job-", rng() % 5000);
    int found = index.Find(name);
    auto it = expected.find(name);
    ASSERT_EQ(found, it == expected.end() ? -1 : it->second) << name << " at step " << step;
    if (it == expected.end()) {
      int record = static_cast<int>(records.size());
      if (!free_records.empty()) {
        record = free_records.back();
        free_records.pop_back();
        records[record].name = name;
      } else {
        records.push_back({name});
      }
      index.Insert(record);
      expected.emplace(name, record);
    } else if (rng() % 2 == 0) {
      index.Erase(name);
      records[it->second].name.clear();
      free_records.push_back(it->second);
      expected.erase(it);
    }
    ASSERT_EQ(index.size(), expected.size());
  }
  for (const auto& [name, record] : expected) EXPECT_EQ(index.Find(name), record) << name;
  EXPECT_EQ(index.Find("absent"), -1);
}

TEST(NameIndex, ReservedIndexDoesNotGrowAndEmptyIndexFindsNothing) {
  std::vector<Record> records;
  NameIndex<Record> index(&records);
  EXPECT_EQ(index.Find("a"), -1);
  index.Erase("a");
  index.Reserve(1000);
  std::size_t bytes = index.memory_bytes();
  for (int i = 0; i < 1000; ++i) {
    records.push_back({Named("n", i)});
    index.Insert(i);
  }
  EXPECT_EQ(index.memory_bytes(), bytes);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(index.Find(Named("n", i)), i);
}

}  // namespace
}  // namespace gpupool::engine::internal
