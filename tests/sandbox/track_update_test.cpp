// TrackUpdate in process: which entries of managedFields a write changes, and
// that the others come out as they were stored.
#include <gtest/gtest.h>

#include "sandbox/store/managed_fields.h"

namespace gpupool::sandbox {
namespace {

// Writes `object` over `old` as `manager`; returns the stored result.
Json Write(const Json& old, Json object, const std::string& manager) {
  static const ResourcePtr configmaps = ResourceRegistry().Find("", "v1", "configmaps");
  TrackUpdate(*configmaps, old.is_null() ? nullptr : &old, object, manager, "");
  return object;
}

const Json* EntryOf(const Json& object, const std::string& manager) {
  for (const auto& entry : object["metadata"]["managedFields"]) {
    if (entry["manager"] == manager) return &entry;
  }
  return nullptr;
}

Json Fields(const char* text) { return Json::parse(text); }

class TrackUpdateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    created_ = Write(Json(), {{"metadata", {{"name", "cm"}}}, {"data", {{"a", "1"}, {"b", "2"}}}},
                     "creator");
  }
  Json With(const Json& base, const std::string& key, const std::string& value) {
    Json object = base;
    object["data"][key] = value;
    return object;
  }
  Json created_;
};

TEST_F(TrackUpdateTest, AManagerRewritingItsOwnFieldKeepsOneEntry) {
  Json object = Write(created_, With(created_, "c", "3"), "writer");
  for (int i = 0; i < 5; ++i) {
    object = Write(object, With(object, "c", std::to_string(i)), "writer");
  }
  ASSERT_EQ(object["metadata"]["managedFields"].size(), 2u);
  EXPECT_EQ((*EntryOf(object, "writer"))["fieldsV1"], Fields(R"({"f:data": {"f:c": {}}})"));
  EXPECT_EQ((*EntryOf(object, "creator"))["fieldsV1"],
            Fields(R"({"f:data": {".": {}, "f:a": {}, "f:b": {}}})"));
}

TEST_F(TrackUpdateTest, AFieldChangedByAnotherManagerMovesToIt) {
  const Json object = Write(created_, With(created_, "a", "9"), "writer");
  EXPECT_EQ((*EntryOf(object, "writer"))["fieldsV1"], Fields(R"({"f:data": {"f:a": {}}})"));
  EXPECT_EQ((*EntryOf(object, "creator"))["fieldsV1"],
            Fields(R"({"f:data": {".": {}, "f:b": {}}})"));
}

TEST_F(TrackUpdateTest, ARemovedFieldLeavesItsOwnerAndUntouchedEntriesStayAsStored) {
  Json object = Write(created_, With(created_, "c", "3"), "other");
  const Json other_before = *EntryOf(object, "other");
  Json removed = object;
  removed["data"].erase("b");
  object = Write(object, removed, "remover");
  EXPECT_EQ((*EntryOf(object, "creator"))["fieldsV1"],
            Fields(R"({"f:data": {".": {}, "f:a": {}}})"));
  EXPECT_EQ(*EntryOf(object, "other"), other_before);  // time included
  EXPECT_EQ(EntryOf(object, "remover"), nullptr);      // it owns nothing
}

TEST_F(TrackUpdateTest, EntriesStayInTheServersOrder) {
  Json object = Write(created_, With(created_, "c", "3"), "zeta");
  object = Write(object, With(object, "d", "4"), "alpha");
  object = Write(object, With(object, "c", "5"), "zeta");
  const Json& entries = object["metadata"]["managedFields"];
  ASSERT_EQ(entries.size(), 3u);
  for (size_t i = 1; i < entries.size(); ++i) {
    const auto key = [&](size_t at) {
      return std::make_pair(entries[at]["time"].get<std::string>(),
                            entries[at]["manager"].get<std::string>());
    };
    EXPECT_LT(key(i - 1), key(i)) << entries.dump();
  }
}

}  // namespace
}  // namespace gpupool::sandbox
