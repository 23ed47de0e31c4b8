#include "gpupool/api/pod.h"

namespace gpupool::api {
namespace {

std::vector<Taint> ReadTaints(JsonReader& spec) {
  std::vector<Taint> taints;
  spec.ForEachItem("taints", [&](JsonReader& item) {
    taints.push_back({item.String("key", Presence::kRequired).value_or(""),
                      item.String("value").value_or(""),
                      item.String("effect", Presence::kRequired).value_or("")});
  });
  return taints;
}

bool ReadReady(JsonReader& status) {
  bool ready = false;
  status.ForEachItem("conditions", [&](JsonReader& item) {
    if (item.String("type") == "Ready") ready = item.String("status") == "True";
  });
  return ready;
}

}  // namespace

Node DecodeNode(const Json& object, FieldErrors& errors) {
  Node node;
  JsonReader root(object, "", errors);
  node.metadata = ReadObjectMeta(root, Presence::kRequired);
  if (const Json* spec = root.Object("spec")) {
    JsonReader reader(*spec, root, "spec");
    node.unschedulable = reader.Bool("unschedulable").value_or(false);
    node.taints = ReadTaints(reader);
  }
  if (const Json* status = root.Object("status")) {
    JsonReader reader(*status, root, "status");
    node.allocatable = ReadResourceList(reader, "allocatable");
    if (const Json* allocatable = reader.Object("allocatable")) {
      JsonReader resources(*allocatable, reader, "allocatable");
      node.allocatable_pods = resources.QuantityField("pods").value_or(Quantity{}).milli / 1000;
    }
    node.ready = ReadReady(reader);
  }
  return node;
}

}  // namespace gpupool::api
