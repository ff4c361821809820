// NodeSampleBuilder: raw series of one stretch of time → per-step Summaries and active pods.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { NodeSampleBuilder } from "./node-sample-builder.js";
import type { PrometheusSeries } from "./prometheus-port.js";

const T0 = Date.parse("2026-11-20T08:00:00Z");
const S = 10_000;
const UID = "0b5a1f0e-1111-4222-8333-944445555666";
const POD_ID = `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID.replaceAll("-", "_")}.slice`;

const series = (labels: Record<string, string>, values: readonly number[], from = T0): PrometheusSeries => ({
  labels,
  samples: values.map((v, i) => [from + i * S, v] as const),
});

function builder(): NodeSampleBuilder {
  const b = new NodeSampleBuilder({
    node: "n1",
    lookbackMs: 2 * S,
    nodefsMountpoint: "/",
    imagefsMountpoint: "/var/lib/containerd",
    priorityClasses: new Map([["batch", 100]]),
  });
  b.add("machineMemory", [series({ node: "n1" }, [8e9, 8e9, 8e9])]);
  b.add("workingSet", [
    series({ id: "/" }, [3e9, 3.1e9, 3.2e9]),
    series({ id: "/kubepods.slice" }, [2e9, 2.1e9, 2.2e9]),
    series({ id: POD_ID, namespace: "ns", pod: "web" }, [5e8, 6e8, 7e8]),
    // The sandbox (containerd): no container name, an image, its own cgroup below the pod's.
    series(
      { id: `${POD_ID}/cri-containerd-abc.scope`, namespace: "ns", pod: "web", image: "pause:3.9" },
      [1e6, 1e6, 1e6],
    ),
    series(
      {
        id: `${POD_ID}/cri-containerd-def.scope`,
        namespace: "ns",
        pod: "web",
        container: "app",
        image: "app:1",
      },
      [4e8, 5e8, 6e8],
    ),
  ]);
  b.add("podInfo", [
    series(
      { namespace: "ns", pod: "web", uid: UID, priority_class: "batch", created_by_kind: "ReplicaSet" },
      [1, 1, 1],
    ),
  ]);
  b.add("phase", [
    series({ uid: UID, phase: "Running" }, [1, 1, 0]),
    series({ uid: UID, phase: "Failed" }, [0, 0, 1]),
  ]);
  b.add("requests", [
    series({ uid: UID, container: "app", resource: "memory", unit: "byte" }, [2.5e8, 2.5e8, 2.5e8]),
  ]);
  b.add("limits", [series({ uid: UID, container: "app", resource: "cpu", unit: "core" }, [0.5, 0.5, 0.5])]);
  return b;
}

describe("NodeSampleBuilder", () => {
  test("node memory: capacity − working set, at the sample's own time", () => {
    const s = builder().sampleAt(T0 + S + 3000);
    const node = s?.summary["node"] as { memory: Record<string, unknown> };
    assert.deepEqual(node.memory, {
      time: "2026-11-20T08:00:10Z",
      availableBytes: 4.9e9,
      workingSetBytes: 3.1e9,
    });
  });

  test("the pod's own cgroup is its figure, not the sandbox's; containers by name", () => {
    const pods = builder().sampleAt(T0)?.summary["pods"] as { memory: unknown; containers: unknown }[];
    assert.deepEqual(pods, [
      {
        podRef: { name: "web", namespace: "ns", uid: UID },
        memory: { workingSetBytes: 5e8 },
        containers: [{ name: "app", memory: { workingSetBytes: 4e8 } }],
      },
    ]);
  });

  test("the pod object: requests and limits in API units, priority from its class; gone once Failed", () => {
    const b = builder();
    const pod = b.sampleAt(T0)?.activePods[0] as { spec: Record<string, unknown>; status: unknown };
    assert.equal(pod.spec["priority"], 100);
    assert.deepEqual(pod.spec["containers"], [
      { name: "app", resources: { requests: { memory: "250000000" }, limits: { cpu: "500m" } } },
    ]);
    assert.deepEqual(b.sampleAt(T0 + 2 * S)?.activePods, []);
  });

  test("no sample within the lookback: no step; a pods cgroup limit of 0 (cAdvisor's no limit) gives no allocatable", () => {
    const b = builder();
    assert.equal(b.sampleAt(T0 - 1), undefined);
    assert.notEqual(b.sampleAt(T0 + 4 * S), undefined);
    assert.equal(b.sampleAt(T0 + 4 * S + 1), undefined);
    b.add("podsLimit", [series({ id: "/kubepods.slice" }, [0, 0, 0])]);
    const node = b.sampleAt(T0)?.summary["node"] as Record<string, unknown>;
    assert.equal(node["systemContainers"], undefined);
    b.add("podsLimit", [series({ id: "/kubepods.slice" }, [6e9], T0 + 3 * S)]);
    const later = b.sampleAt(T0 + 3 * S)?.summary["node"] as { systemContainers: unknown };
    assert.deepEqual(later.systemContainers, [
      {
        name: "pods",
        memory: { time: "2026-11-20T08:00:20Z", availableBytes: 3.8e9, workingSetBytes: 2.2e9 },
      },
    ]);
  });
});
