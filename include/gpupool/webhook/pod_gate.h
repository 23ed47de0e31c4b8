// gpupool's pod admission webhook (docs/workloads.md): the answer to one
// AdmissionReview (admission.k8s.io/v1) about a pod that opted in with the
// gpupool.dev/queue label.
//  - CREATE: the pod is given gpupool's scheduling gate, so that it waits for
//    the controller; a pod whose opt-in values are bad (docs/workloads.md) is
//    refused, naming the field; so is one that arrives carrying an admission
//    record, which only the controller writes.
//  - UPDATE: only the controller (`record_writers`) may remove the gate or
//    write the admission record (gpupool.dev/admission, gpupool.dev/replica).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpupool::webhook {

struct GateSettings {
  // The users (an AdmissionReview's request.userInfo.username) who may write
  // admission records and release pods: the controller's ServiceAccount.
  std::vector<std::string> record_writers;
};

struct ReviewAnswer {
  int status = 200;  // 400 when the body is not an AdmissionReview about a pod.
  std::string body;  // An AdmissionReview with its response; else why not, one line.
};

ReviewAnswer ReviewPod(std::string_view body, const GateSettings& settings);

}  // namespace gpupool::webhook
