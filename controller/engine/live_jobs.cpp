// Jobs of a live cluster: specs that change, jobs recreated under their name,
// admissions the operator could not carry out, replicas lost, and victims that hold
// their devices until their pods have stopped.
#include <algorithm>

#include "state.h"

namespace gpupool::engine::internal {

// A job deleted and created again under its name is another job: the old one goes.
int ClusterState::AddPendingReplacing(const PendingJob& spec) {
  if (int index = job_index.Find(spec.name); index >= 0) {
    if (jobs[index].uid == spec.uid) return -1;
    RemoveJob(spec.name);
  }
  return AddPending(spec);
}

bool ClusterState::RemoveJob(const std::string& name) {
  const int index = job_index.Find(name);
  if (index < 0) return false;
  DropRoomsOf(index);  // Held for nobody now.
  Remove(index);
  return true;
}

bool ClusterState::UpsertPending(const PendingJob& spec) {
  const int index = job_index.Find(spec.name);
  if (index < 0 || jobs[index].uid != spec.uid) return AddPendingReplacing(spec) >= 0;
  if (jobs[index].running || jobs[index].terminating) return false;
  // Simplest faithful update: the old spec leaves every index, the new one enters
  // them as a job that just became pending (the next cycle looks at it).
  RemoveJob(spec.name);
  return AddPending(spec) >= 0;
}

bool ClusterState::RequeueRunning(const std::string& name) {
  const int index = job_index.Find(name);
  if (index < 0 || !jobs[index].running) return false;
  Requeue(index);
  return true;
}

bool ClusterState::VictimGone(const std::string& name) {
  const int index = job_index.Find(name);
  if (index < 0 || !jobs[index].terminating) return false;
  RequeueHeld(index);
  return true;
}

void ClusterState::Preempt(int index) {
  JobState& job = jobs[index];
  if (!job.running) return;
  NoteRelease(job);
  IndexRunning(index, false);
  Account(job, -1);
  job.running = false;
  job.terminating = true;
  Account(job, +1);
  ++terminating_count;
}

void ClusterState::StartHeld(int index, std::vector<Placed> placed) {
  JobState& job = jobs[index];
  job.placed = std::move(placed);
  job.terminating = true;
  for (const Placed& p : job.placed) Take(job, p);
  Account(job, +1);
  ++terminating_count;
}

void ClusterState::ReleaseHeld(const JobState& job) {
  NoteRelease(job);
  Account(job, -1);
  for (const Placed& p : job.placed) Release(job, p);
  --terminating_count;
}

void ClusterState::RequeueHeld(int index) {
  JobState& job = jobs[index];
  ReleaseHeld(job);
  job.placed.clear();
  job.terminating = false;
  IndexPending(index, true);
}

}  // namespace gpupool::engine::internal
