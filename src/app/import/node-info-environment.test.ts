import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { nodeInfoEnvironment } from "./node-info-environment.js";

/** kube_node_info's labels as kube-state-metrics writes them. */
const INFO = {
  __name__: "kube_node_info",
  node: "ip-10-0-1-23",
  kubelet_version: "v1.35.0",
  kernel_version: "6.8.0-1015-aws",
  os_image: "Amazon Linux 2023.7.20250512",
  container_runtime_version: "containerd://1.7.27",
  kubeproxy_version: "deprecated",
};

describe("nodeInfoEnvironment", () => {
  test("one series: its versions", () => {
    assert.deepEqual(nodeInfoEnvironment([INFO]), {
      environment: {
        kubeletVersion: "v1.35.0",
        kernelVersion: "6.8.0-1015-aws",
        osImage: "Amazon Linux 2023.7.20250512",
        containerRuntimeVersion: "containerd://1.7.27",
      },
      ambiguous: [],
    });
  });

  test("an upgrade within the range: the field that changed is left out and named", () => {
    const upgraded = { ...INFO, kubelet_version: "v1.36.0" };
    assert.deepEqual(nodeInfoEnvironment([upgraded, INFO]), {
      environment: {
        kernelVersion: "6.8.0-1015-aws",
        osImage: "Amazon Linux 2023.7.20250512",
        containerRuntimeVersion: "containerd://1.7.27",
      },
      ambiguous: [{ label: "kubelet_version", values: ["v1.35.0", "v1.36.0"] }],
    });
  });

  test("no kube_node_info: no environment", () => {
    assert.deepEqual(nodeInfoEnvironment([]), { ambiguous: [] });
    assert.deepEqual(nodeInfoEnvironment([{ node: "n1", kubelet_version: "" }]), { ambiguous: [] });
  });
});
