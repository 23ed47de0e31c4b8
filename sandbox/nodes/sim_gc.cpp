// Garbage collection and namespace finalization in the simulator.
#include <algorithm>

#include "sandbox/api_error.h"
#include "sandbox/nodes/simulator.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

struct RefParts {
  std::string storage, ns, name;
};

RefParts Split(const std::string& ref) {
  const size_t a = ref.find('|'), b = ref.find('|', a + 1);
  return {ref.substr(0, a), ref.substr(a + 1, b - a - 1), ref.substr(b + 1)};
}

bool RemoveFinalizer(Json& object, const std::string& finalizer) {
  auto& finalizers = object["metadata"]["finalizers"];
  if (!finalizers.is_array()) return false;
  const size_t before = finalizers.size();
  EraseIf(finalizers, [&](const Json& f) { return f == finalizer; });
  return finalizers.size() != before;
}

}  // namespace

void Simulator::CollectGarbage() {
  DeleteOptions background;
  background.propagation = "Background";
  for (const auto& uid : std::set<std::string>(deleted_owners_)) {
    for (const auto& ref : std::set<std::string>(dependents_[uid])) {
      const auto parts = Split(ref);
      if (auto resource = ResourceFor(parts.storage)) {
        try {
          cluster_.Delete(*resource, parts.ns, parts.name, background);
        } catch (const ApiError&) {
        }
      }
    }
    deleted_owners_.erase(uid);
  }
  for (const auto& [uid, owner_ref] : std::map<std::string, std::string>(finalizing_)) {
    const auto owner = Split(owner_ref);
    auto owner_resource = ResourceFor(owner.storage);
    if (!owner_resource) continue;
    const Json object = cluster_.Get(*owner_resource, owner.ns, owner.name);
    const std::string json = object["metadata"].value("finalizers", Json::array()).dump();
    const bool orphan = json.find("\"orphan\"") != std::string::npos;
    const auto dependents = dependents_[uid];
    for (const auto& ref : dependents) {
      const auto parts = Split(ref);
      auto resource = ResourceFor(parts.storage);
      if (!resource) continue;
      if (orphan) {
        cluster_.Mutate(*resource, parts.ns, parts.name, [&](Json& dependent) {
          EraseIf(dependent["metadata"]["ownerReferences"],
                  [&](const Json& reference) { return reference.value("uid", "") == uid; });
          if (dependent["metadata"]["ownerReferences"].empty()) {
            dependent["metadata"].erase("ownerReferences");
          }
          return true;
        });
      } else {
        try {
          cluster_.Delete(*resource, parts.ns, parts.name, background);
        } catch (const ApiError&) {
        }
      }
    }
    if (orphan || dependents.empty()) {
      cluster_.Mutate(*owner_resource, owner.ns, owner.name, [&](Json& current) {
        return RemoveFinalizer(current, orphan ? "orphan" : "foregroundDeletion");
      });
      finalizing_.erase(uid);
    }
  }
}

void Simulator::FinishNamespaces() {
  const auto namespaces = cluster_.Resource("", "v1", "namespaces");
  DeleteOptions background;
  background.propagation = "Background";
  for (const auto& ns : std::set<std::string>(terminating_namespaces_)) {
    size_t remaining = 0;
    for (const auto& resource : cluster_.resources().All()) {
      if (!resource->namespaced) continue;
      ListOptions all;
      for (const auto& object : cluster_.List(*resource, ns, all).items) {
        ++remaining;
        try {
          cluster_.Delete(*resource, ns, object->name, background);
        } catch (const ApiError&) {
        }
      }
    }
    if (remaining > 0) continue;
    const bool exists = cluster_.Mutate(
        *namespaces, "", ns,
        [](Json& object) {
          object["spec"]["finalizers"] = Json::array();
          return true;
        },
        "finalize");
    if (!exists || remaining == 0) terminating_namespaces_.erase(ns);
  }
}

void Simulator::SyncNodeReadiness() {
  const auto nodes = cluster_.Resource("", "v1", "nodes");
  for (auto& [name, node] : nodes_) {
    if (node.wants_not_ready != !node.ready) {
      const bool ready = !node.wants_not_ready;
      cluster_.Mutate(
          *nodes, "", name,
          [&](Json& object) {
            for (auto& condition : object["status"]["conditions"]) {
              if (condition.value("type", "") != "Ready") continue;
              condition["status"] = ready ? "True" : "False";
              condition["reason"] = ready ? "KubeletReady" : "KubeletNotReady";
              condition["lastTransitionTime"] = NowString();
            }
            return true;
          },
          "status", "kubelet");
      cluster_.Mutate(*nodes, "", name, [&](Json& object) {
        auto& taints = object["spec"]["taints"];
        if (!taints.is_array()) taints = Json::array();
        EraseIf(taints,
                [](const Json& t) { return t.value("key", "") == "node.kubernetes.io/not-ready"; });
        if (!ready) {
          taints.push_back({{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoSchedule"}});
        }
        if (taints.empty()) object["spec"].erase("taints");
        return true;
      });
      node.ready = ready;
    }
  }
}

}  // namespace gpupool::sandbox
