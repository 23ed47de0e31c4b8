"""The official Python client meets a forced 410 (the sandbox runs with
--fault-compact) and recovers by re-listing, as informers do.
Usage: recover_410.py KUBECONFIG"""
import sys
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


def configmap(name):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}


def main():
    config.load_kube_config(sys.argv[1])
    core = client.CoreV1Api()
    old = core.list_namespaced_config_map("default").metadata.resource_version
    core.create_namespaced_config_map("default", configmap("before"))
    time.sleep(1.5)  # the sandbox drops its watch history every second
    try:
        for _ in watch.Watch().stream(core.list_namespaced_config_map, "default",
                                      resource_version=old, timeout_seconds=5):
            pass
        raise AssertionError("no 410 for a compacted resourceVersion")
    except ApiException as error:
        assert error.status == 410, error
    print("got 410 Expired")
    listed = core.list_namespaced_config_map("default")
    assert [c.metadata.name for c in listed.items] == ["before"]
    core.create_namespaced_config_map("default", configmap("after"))
    names = []
    for event in watch.Watch().stream(core.list_namespaced_config_map, "default",
                                      resource_version=listed.metadata.resource_version,
                                      timeout_seconds=5):
        names.append(event["object"].metadata.name)
        break
    assert names == ["after"], names
    print("recovered: re-listed and watched")


if __name__ == "__main__":
    main()
