"""The official Python client lists nodes (it refuses a node whose nodeInfo
lacks a field a kubelet reports) and reads their quantities as strings.
Usage: list_nodes.py KUBECONFIG"""
import sys

from kubernetes import client, config


def main():
    config.load_kube_config(sys.argv[1])
    nodes = client.CoreV1Api().list_node().items
    assert nodes, "no nodes"
    for node in nodes:
        info = node.status.node_info
        for field in ("machine_id", "system_uuid", "boot_id", "kernel_version", "os_image",
                      "container_runtime_version", "kubelet_version", "kube_proxy_version",
                      "operating_system", "architecture"):
            assert getattr(info, field), (node.metadata.name, field)
        assert node.status.capacity["nvidia.com/gpu"] == "8", node.status.capacity
    print(f"nodes: listed {len(nodes)} with complete node info")


if __name__ == "__main__":
    main()
