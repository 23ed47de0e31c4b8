// The checks of a custom resource against its definition, in process: on an
// update, the items of an x-kubernetes-list-type map list are correlated with
// the stored ones by their keys, so an unchanged item is neither validated nor
// ruled on again (the server's ratcheting), wherever it moved in the list.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sandbox/rules/crd.h"

namespace gpupool::sandbox {
namespace {

using ::testing::StartsWith;

// A definition tightened after `Stored()` was written: ports now stop at 1024,
// and a rule forbids port 80.
ResourceType Gateways() {
  ResourceType resource;
  resource.group = "example.com";
  resource.version = "v1";
  resource.kind = "Gateway";
  resource.crd_version = Json::parse(R"({"name": "v1", "schema": {"openAPIV3Schema": {
    "type": "object", "properties": {"spec": {"type": "object", "properties": {
      "ports": {"type": "array", "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "required": ["name"],
          "properties": {"name": {"type": "string"}, "port": {"type": "integer", "maximum": 1024}},
          "x-kubernetes-validations": [{"rule": "self.port != 80", "message": "no plain HTTP"}]}},
      "hosts": {"type": "array", "items": {"type": "string", "maxLength": 5}}}}}}}})");
  resource.schema = std::make_shared<const openapi::SchemaNode>(
      openapi::CompileSchema(resource.crd_version["schema"]["openAPIV3Schema"]));
  return resource;
}

Json Stored() {
  return Json::parse(R"({"apiVersion": "example.com/v1", "kind": "Gateway",
    "metadata": {"name": "g"},
    "spec": {"ports": [{"name": "web", "port": 80}, {"name": "admin", "port": 8443}],
             "hosts": ["example"]}})");
}

std::string Update(const Json& object) {
  Json checked = object;
  const Json stored = Stored();
  const auto check = CheckCustomResource(Gateways(), checked, &stored);
  return json::JoinErrors(check.errors);
}

TEST(CrdCheck, UnchangedItemsOfAMapListAreRatchetedWhereverTheyMove) {
  Json reordered = Stored();
  std::swap(reordered["spec"]["ports"][0], reordered["spec"]["ports"][1]);
  reordered["spec"]["ports"].push_back({{"name", "ssh"}, {"port", 22}});
  EXPECT_EQ(Update(reordered), "");
}

TEST(CrdCheck, ChangedAndNewItemsOfAMapListAreChecked) {
  Json changed = Stored();
  changed["spec"]["ports"][1]["port"] = 9443;
  EXPECT_EQ(Update(changed), "spec.ports[1].port: must be <= 1024");
  Json added = Stored();
  added["spec"]["ports"].push_back({{"name", "alt"}, {"port", 80}});
  EXPECT_EQ(Update(added), "spec.ports[2]: Invalid value: \"object\": no plain HTTP");
  Json renamed = Stored();
  renamed["spec"]["ports"][0]["name"] = "http";
  EXPECT_EQ(Update(renamed), "spec.ports[0]: Invalid value: \"object\": no plain HTTP")
      << "a new key is a new item";
}

TEST(CrdCheck, OtherListsAreCheckedWholeWhenTheyChange) {
  Json grown = Stored();
  grown["spec"]["hosts"] = {"example", "b"};
  EXPECT_THAT(Update(grown), StartsWith("spec.hosts[0]: must be at most 5 characters long;"));
  Json creating = Stored();
  EXPECT_NE(json::JoinErrors(CheckCustomResource(Gateways(), creating, nullptr).errors), "")
      << "a create has nothing to ratchet";
}

}  // namespace
}  // namespace gpupool::sandbox
