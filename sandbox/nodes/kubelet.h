// What a simulated kubelet decides and writes, shared by the sandbox's
// in-process simulation and `gpupool simulate-nodes` on a real API server:
// what a pod requests, whether a node matches its selection, and the pod
// statuses a kubelet writes as containers start, finish or are refused.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "sandbox/nodes/node_use.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// Real time for `simulated_seconds` at `time_scale` simulated seconds a
// second; annotations may ask for any number, so it is capped at a year
// (forever here), which also keeps the clock ticks from overflowing.
std::chrono::steady_clock::duration ScaledSeconds(double simulated_seconds, double time_scale);

// A quantity (a number or a Kubernetes quantity string) in thousandths; 0 when unreadable.
int64_t Milli(const Json& value);
// The sum of a pod spec's container requests (limits where a request is absent), one pod.
Resources PodRequests(const Json& spec);
// Whether a node's labels satisfy a pod spec's nodeSelector and required node affinity.
bool MatchesNodeSelection(const Json& labels, const Json& spec);

// Replaces the pod condition of `type`.
void SetCondition(Json& pod, const std::string& type, const std::string& status,
                  const std::string& reason, const std::string& message);
// The status once the containers run; `key` ("ns/name") names the container IDs.
void MarkRunning(Json& pod, const std::string& key);
// The status once the containers exited with `exit_code`.
void MarkFinished(Json& pod, int exit_code);
// The status of a pod the kubelet refused to run: Failed with `reason`.
void MarkRejected(Json& pod, const std::string& reason, const std::string& message);
// The message a kubelet gives for a predicate it refused the pod on.
std::string PredicateRejection(const std::string& predicate);

}  // namespace gpupool::sandbox
