// The admission plugins of the real API server that fill a new pod from other
// objects: Priority (spec.priority and spec.preemptionPolicy from a
// PriorityClass) and ServiceAccount (the account a pod runs as, which must
// exist). What they read is taken with the store's lock held (Read); the pod
// is changed without it (Admit).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sandbox/store/store.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

struct PodAdmissionInputs {
  std::string priority_class_name;  // the PriorityClass the pod gets, "" for none
  Json priority_class = Json::object();
  std::string service_account;  // the ServiceAccount the pod runs as
  bool service_account_found = false;
};

class PodAdmission {
 public:
  // The class and account `pod` in `ns` names (or the defaults); lock held.
  PodAdmissionInputs Read(const Store& store, const std::string& ns, const Json& pod);
  // Sets the priority fields and the account, or throws Forbidden when the
  // pod names a missing class or account, or sends a priority or preemption
  // policy other than its class gives.
  static void Admit(Json& pod, const PodAdmissionInputs& inputs);

 private:
  // The PriorityClass last read, parsed: stored objects never change, so the
  // pointer tells whether the parse still holds. Guarded by the store's lock.
  const Json& ParsedClass(const ObjectPtr& stored);

  ObjectPtr parsed_class_;
  Json parsed_class_json_;
};

}  // namespace gpupool::sandbox
