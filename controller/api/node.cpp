#include "gpupool/api/pod.h"

namespace gpupool::api {
namespace {

std::vector<Taint> ReadTaints(json::Reader& spec) {
  std::vector<Taint> taints;
  spec.ForEachItem("taints", [&](json::Reader& item) {
    taints.push_back({item.String("key", json::Presence::kRequired).value_or(""),
                      item.String("value").value_or(""),
                      item.String("effect", json::Presence::kRequired).value_or("")});
  });
  return taints;
}

bool ReadReady(json::Reader& status) {
  bool ready = false;
  status.ForEachItem("conditions", [&](json::Reader& item) {
    if (item.String("type") == "Ready") ready = item.String("status") == "True";
  });
  return ready;
}

}  // namespace

Node DecodeNode(const Json& object, json::FieldErrors& errors) {
  Node node;
  json::Reader root(object, "", errors);
  node.metadata = ReadObjectMeta(root, json::Presence::kRequired);
  if (const Json* spec = root.Object("spec")) {
    json::Reader reader(*spec, root, "spec");
    node.unschedulable = reader.Bool("unschedulable").value_or(false);
    node.taints = ReadTaints(reader);
  }
  if (const Json* status = root.Object("status")) {
    json::Reader reader(*status, root, "status");
    node.allocatable = ReadResourceList(reader, "allocatable");
    if (const Json* allocatable = reader.Object("allocatable")) {
      json::Reader resources(*allocatable, reader, "allocatable");
      node.allocatable_pods =
          resources.QuantityField("pods").value_or(json::Quantity{}).milli / 1000;
    }
    node.ready = ReadReady(reader);
  }
  return node;
}

}  // namespace gpupool::api
