// Fractions next to the device plugin (docs/operator.md): every device slot of a
// node that holds fractions has one reservation pod, in the controller's
// namespace, that requests `nvidia.com/gpu: 1`. The device plugin gives it a
// physical device, the pod reports which, and that device is the one the
// fractions on the slot are told to use. A whole-GPU pod can then never be given
// a device fractions share: the device plugin has handed it out already.
#pragma once

#include "cycle_state.h"

namespace gpupool::op::internal {

// The reservation pod of slot `slot` of `node`; its name is derived from both, so
// a repeated create meets AlreadyExists and a restarted controller finds it.
std::string ReservationName(const std::string& node, int slot);
Json BuildReservationPod(const CycleState& state, const std::string& node, int slot);

// Whether `pod` is one of gpupool's reservation pods (in its namespace, labelled).
bool IsReservation(const CycleState& state, const PodView& pod);
// Fills state.reservations and state.stray_reservations from the view, and
// state.refused_reports (RefuseBadReports).
void IndexReservations(CycleState& state);
// Marks in state.refused_reports each reservation whose report names no device
// of its node, or one another reservation of the node reports too, with a
// Warning Event on its pod.
void RefuseBadReports(CycleState& state);

// The device (as the device plugin names it) that fractions on `slot` of `node`
// use; "" while no reservation pod holds one.
std::string SharedDevice(const CycleState& state, const std::string& node, int slot);
// The device a fractional replica of `job` placed at `placed` shares; "" for
// whole GPUs, or while its reservation pod holds none yet.
std::string SharedDeviceOf(const CycleState& state, const JobRecord& job,
                           const api::ReplicaPlacement& placed);

// Why a holding fraction's released pod may no longer run where it does: its
// reservation pod is gone, stopping, or reports another device (so a whole-GPU
// pod could be given that device); "" when it may.
std::string LostReservation(const CycleState& state, const JobRecord& job);

}  // namespace gpupool::op::internal
