#!/usr/bin/env python3
"""A training loop that saves its state when gpupool preempts it, and resumes.

gpupool gives the job's pods GPUPOOL_CHECKPOINT_PATH (spec.checkpoint.path) and, in
pods that replace preempted or failed ones, GPUPOOL_RESUME_FROM. A preemption sends
SIGTERM and leaves the queue's grace period to save; this loop saves at once, and
also every CHECKPOINT_EVERY steps, so a crash loses at most that many.

Environment: TRAIN_STEPS (default 1000), STEP_SECONDS (default 1.0),
CHECKPOINT_EVERY (default 100 steps).
"""
import json
import os
import signal
import sys
import time

STATE_FILE = "state.json"


def load(directory):
    """The saved state in `directory`, or a fresh one."""
    try:
        with open(os.path.join(directory, STATE_FILE)) as saved:
            return json.load(saved)
    except (OSError, ValueError):
        return {"step": 0}


def save(directory, state):
    """Writes the state whole or not at all: a new file renamed over the old."""
    os.makedirs(directory, exist_ok=True)
    partial = os.path.join(directory, STATE_FILE + ".partial")
    with open(partial, "w") as out:
        json.dump(state, out)
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, os.path.join(directory, STATE_FILE))


def main():
    directory = os.environ.get("GPUPOOL_CHECKPOINT_PATH", "/tmp/checkpoint")
    steps = int(os.environ.get("TRAIN_STEPS", "1000"))
    step_seconds = float(os.environ.get("STEP_SECONDS", "1.0"))
    every = int(os.environ.get("CHECKPOINT_EVERY", "100"))
    resume_from = os.environ.get("GPUPOOL_RESUME_FROM")
    state = load(resume_from) if resume_from else {"step": 0}
    print(f"starting at step {state['step']} of {steps}", flush=True)

    stopping = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    while state["step"] < steps and not stopping:
        time.sleep(step_seconds)  # One step of training.
        state["step"] += 1
        print(f"step {state['step']}", flush=True)
        if state["step"] % every == 0:
            save(directory, state)
    save(directory, state)
    if stopping:
        print(f"saved step {state['step']} on SIGTERM", flush=True)
        sys.exit(128 + signal.SIGTERM)
    print(f"done at step {state['step']}", flush=True)


if __name__ == "__main__":
    main()
