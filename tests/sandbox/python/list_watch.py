"""The official Python client lists and watches pods and a custom resource,
and resumes a watch from a resourceVersion. Usage: list_watch.py KUBECONFIG"""
import sys

from kubernetes import client, config, watch


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "main", "image": "busybox"}]}}


def queue(name):
    return {"apiVersion": "gpupool.dev/v1alpha1", "kind": "Queue", "metadata": {"name": name},
            "spec": {"sharing": "Fixed", "nodeSelector": {"pool": "build"}}}


def main():
    config.load_kube_config(sys.argv[1])
    core = client.CoreV1Api()
    custom = client.CustomObjectsApi()

    listed = core.list_namespaced_pod("default")
    assert listed.items == [], listed.items
    core.create_namespaced_pod("default", pod("py-1"))
    phases = set()
    for event in watch.Watch().stream(core.list_namespaced_pod, "default",
                                      resource_version=listed.metadata.resource_version,
                                      timeout_seconds=10):
        assert event["object"].metadata.name == "py-1"
        phases.add(event["object"].status.phase)
        if "Running" in phases:
            break
    assert "Running" in phases, phases
    print("pods: watched py-1 to Running")

    queues = custom.list_cluster_custom_object("gpupool.dev", "v1alpha1", "queues")
    start = queues["metadata"]["resourceVersion"]
    first = custom.create_cluster_custom_object("gpupool.dev", "v1alpha1", "queues", queue("q-1"))
    custom.create_cluster_custom_object("gpupool.dev", "v1alpha1", "queues", queue("q-2"))
    seen = []
    for event in watch.Watch().stream(custom.list_cluster_custom_object, "gpupool.dev", "v1alpha1",
                                      "queues", resource_version=start, timeout_seconds=5):
        seen.append(event["object"]["metadata"]["name"])
        if len(seen) == 2:
            break
    assert seen == ["q-1", "q-2"], seen
    # Resuming after the first queue's version delivers only what came later.
    resumed = []
    for event in watch.Watch().stream(custom.list_cluster_custom_object, "gpupool.dev", "v1alpha1",
                                      "queues", resource_version=first["metadata"]["resourceVersion"],
                                      timeout_seconds=2):
        resumed.append((event["type"], event["object"]["metadata"]["name"]))
    assert resumed == [("ADDED", "q-2")], resumed
    print("queues: listed, watched and resumed")


if __name__ == "__main__":
    main()
