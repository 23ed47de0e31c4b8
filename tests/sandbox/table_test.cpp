// The server-side tables kubectl prints, for kinds whose columns are not just
// a name and an age: the real printers' columns and cells.
#include "sandbox/http/table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sandbox/rules/resource_type.h"

namespace gpupool::sandbox {
namespace {

std::vector<std::string> ColumnNames(const ResourceType& resource) {
  std::vector<std::string> names;
  for (const auto& column : TableColumns(resource)) names.push_back(column["name"]);
  return names;
}

Json Cells(const std::string& group, const std::string& version, const std::string& plural,
           const Json& object) {
  const ResourcePtr resource = ResourceRegistry().Find(group, version, plural);
  return TableRow(*resource, object, "None")["cells"];
}

const std::vector<std::string> kEventColumns = {"Last Seen", "Type",   "Reason",  "Object",
                                                "Subobject", "Source", "Message", "First Seen",
                                                "Count",     "Name"};

TEST(TableTest, CoreEventsNameTheirObjectAndSource) {
  EXPECT_EQ(ColumnNames(*ResourceRegistry().Find("", "v1", "events")), kEventColumns);
  const Json event = {
      {"metadata", {{"name", "p.1"}, {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
      {"involvedObject", {{"kind", "Pod"}, {"name", "p"}, {"fieldPath", "spec"}}},
      {"type", "Warning"},
      {"reason", "FailedScheduling"},
      {"message", "0/2 nodes are available"},
      {"reportingComponent", "default-scheduler"},
      {"reportingInstance", "s-1"},
      {"count", 3}};
  const Json cells = Cells("", "v1", "events", event);
  EXPECT_EQ(cells[1], "Warning");
  EXPECT_EQ(cells[2], "FailedScheduling");
  EXPECT_EQ(cells[3], "pod/p");
  EXPECT_EQ(cells[4], "spec");
  EXPECT_EQ(cells[5], "default-scheduler, s-1");
  EXPECT_EQ(cells[6], "0/2 nodes are available");
  EXPECT_EQ(cells[8], 3);
  EXPECT_EQ(cells[9], "p.1");
}

TEST(TableTest, EventsApiEventsReadTheirOwnFieldNames) {
  EXPECT_EQ(ColumnNames(*ResourceRegistry().Find("events.k8s.io", "v1", "events")), kEventColumns);
  const Json event = {
      {"metadata", {{"name", "j.1"}}},
      {"regarding", {{"kind", "TrainingJob"}, {"name", "j"}}},
      {"type", "Normal"},
      {"reason", "Admitted"},
      {"note", "admitted on node-0"},
      {"reportingController", "gpupool.dev/controller"},
      {"eventTime", "2026-01-01T00:00:00.000000Z"},
      {"series", {{"count", 4}, {"lastObservedTime", "2026-01-01T00:01:00.000000Z"}}}};
  const Json cells = Cells("events.k8s.io", "v1", "events", event);
  EXPECT_EQ(cells[3], "trainingjob/j");
  EXPECT_EQ(cells[5], "gpupool.dev/controller");
  EXPECT_EQ(cells[6], "admitted on node-0");
  EXPECT_EQ(cells[8], 4);
}

TEST(TableTest, BindingsShowTheirRoleAndSubjectsByKind) {
  EXPECT_EQ(
      ColumnNames(*ResourceRegistry().Find("rbac.authorization.k8s.io", "v1", "rolebindings")),
      (std::vector<std::string>{"Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"}));
  const Json binding = {{"metadata", {{"name", "rb"}}},
                        {"roleRef", {{"kind", "ClusterRole"}, {"name", "view"}}},
                        {"subjects",
                         {{{"kind", "User"}, {"name", "alice"}},
                          {{"kind", "ServiceAccount"}, {"name", "bot"}, {"namespace", "t1"}},
                          {{"kind", "ServiceAccount"}, {"name", "job"}, {"namespace", "t2"}}}}};
  const Json cells = Cells("rbac.authorization.k8s.io", "v1", "clusterrolebindings", binding);
  EXPECT_EQ(cells[1], "ClusterRole/view");
  EXPECT_EQ(cells[3], "alice");
  EXPECT_EQ(cells[4], "");
  EXPECT_EQ(cells[5], "t1:bot, t2:job");
}

}  // namespace
}  // namespace gpupool::sandbox
