// Tests for pod admission under node conditions (spec §7 and §15 example 6).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { admitPod, rejectedPodStatus, type AdmitResult } from "./admission.js";
import { IssueList } from "./issues.js";
import type { NodeCondition, Pod } from "./model.js";
import { decodePod } from "./pod/decode-pod.js";

function pod(name: string, spec: object, annotations: object = {}): Pod {
  const issues = new IssueList();
  const p = decodePod({ metadata: { name, annotations }, spec }, "pod", issues);
  assert.deepEqual(issues.items, []);
  assert.ok(p);
  return p;
}

const bestEffort = pod("best-effort", { containers: [{ name: "c" }] });
const burstable = pod("burstable", {
  containers: [{ name: "c", resources: { requests: { memory: "100Mi" } } }],
});
const guaranteed = pod("guaranteed", {
  containers: [{ name: "c", resources: { limits: { cpu: "1", memory: "1Gi" } } }],
});
const tolerating = pod("tolerating", {
  containers: [{ name: "c" }],
  tolerations: [{ key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" }],
});
const toleratesAll = pod("tolerates-all", {
  containers: [{ name: "c" }],
  tolerations: [{ operator: "Exists" }],
});
const toleratesDisk = pod("tolerates-disk", {
  containers: [{ name: "c" }],
  tolerations: [{ key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" }],
});
const toleratesNoExecute = pod("tolerates-noexecute", {
  containers: [{ name: "c" }],
  tolerations: [{ key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoExecute" }],
});
const staticPod = pod("static", { containers: [{ name: "c" }] }, { "kubernetes.io/config.source": "file" });
const mirrorPod = pod("mirror", { containers: [{ name: "c" }] }, { "kubernetes.io/config.mirror": "x" });
const clusterCritical = pod("cluster-critical", {
  priorityClassName: "system-cluster-critical",
  containers: [{ name: "c" }],
});
const almostCritical = pod("almost", { priority: 1999999999, containers: [{ name: "c" }] });

const admitted: AdmitResult = { admit: true };
function rejected(list: string): AdmitResult {
  return { admit: false, reason: "Evicted", message: `The node had condition: ${list}. ` };
}

const MEM: NodeCondition[] = ["MemoryPressure"];
const MEM_DISK: NodeCondition[] = ["MemoryPressure", "DiskPressure"];
const DISK: NodeCondition[] = ["DiskPressure"];
const PID: NodeCondition[] = ["PIDPressure"];
const ALL: NodeCondition[] = ["MemoryPressure", "DiskPressure", "PIDPressure"];

describe("admitPod", () => {
  const cases: { name: string; pod: Pod; conditions: NodeCondition[]; want: AdmitResult }[] = [
    { name: "no conditions: BestEffort admitted", pod: bestEffort, conditions: [], want: admitted },
    // Rule 2: critical pods, whatever the conditions.
    { name: "static pod under all pressures", pod: staticPod, conditions: ALL, want: admitted },
    { name: "mirror pod under DiskPressure", pod: mirrorPod, conditions: DISK, want: admitted },
    {
      name: "system-cluster-critical under memory+disk",
      pod: clusterCritical,
      conditions: MEM_DISK,
      want: admitted,
    },
    {
      name: "priority below critical under DiskPressure",
      pod: almostCritical,
      conditions: DISK,
      want: rejected("[DiskPressure]"),
    },
    // Rule 3: only MemoryPressure.
    { name: "memory: Burstable admitted", pod: burstable, conditions: MEM, want: admitted },
    { name: "memory: Guaranteed admitted", pod: guaranteed, conditions: MEM, want: admitted },
    {
      name: "memory: BestEffort rejected",
      pod: bestEffort,
      conditions: MEM,
      want: rejected("[MemoryPressure]"),
    },
    {
      name: "memory: BestEffort tolerating the taint admitted",
      pod: tolerating,
      conditions: MEM,
      want: admitted,
    },
    {
      name: "memory: BestEffort tolerating everything admitted",
      pod: toleratesAll,
      conditions: MEM,
      want: admitted,
    },
    {
      name: "memory: BestEffort tolerating disk pressure rejected",
      pod: toleratesDisk,
      conditions: MEM,
      want: rejected("[MemoryPressure]"),
    },
    {
      name: "memory: BestEffort tolerating NoExecute only rejected",
      pod: toleratesNoExecute,
      conditions: MEM,
      want: rejected("[MemoryPressure]"),
    },
    // Rule 4: anything else rejects every non-critical pod.
    {
      name: "memory+disk: Burstable rejected",
      pod: burstable,
      conditions: MEM_DISK,
      want: rejected("[MemoryPressure DiskPressure]"),
    },
    {
      name: "memory+disk: tolerating BestEffort rejected",
      pod: tolerating,
      conditions: MEM_DISK,
      want: rejected("[MemoryPressure DiskPressure]"),
    },
    {
      name: "disk: Guaranteed rejected",
      pod: guaranteed,
      conditions: DISK,
      want: rejected("[DiskPressure]"),
    },
    { name: "pid: Guaranteed rejected", pod: guaranteed, conditions: PID, want: rejected("[PIDPressure]") },
    {
      name: "disk: tolerating-everything rejected",
      pod: toleratesAll,
      conditions: DISK,
      want: rejected("[DiskPressure]"),
    },
    {
      name: "all three: Burstable rejected, list in given order",
      pod: burstable,
      conditions: ALL,
      want: rejected("[MemoryPressure DiskPressure PIDPressure]"),
    },
  ];
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(admitPod(c.pod, c.conditions), c.want));
  }
});

describe("spec §15 example 6", () => {
  test("BestEffort without tolerations under MemoryPressure is rejected with the exact status", () => {
    const result = admitPod(bestEffort, MEM);
    assert.equal(result.admit, false);
    if (result.admit) return;
    assert.deepEqual(rejectedPodStatus(result), {
      phase: "Failed",
      reason: "Evicted",
      message: "Pod was rejected: The node had condition: [MemoryPressure]. ",
    });
  });

  test("the same pod tolerating the memory-pressure taint is admitted", () => {
    assert.deepEqual(admitPod(tolerating, MEM), admitted);
  });

  test("under [MemoryPressure DiskPressure] both are rejected", () => {
    assert.equal(admitPod(bestEffort, MEM_DISK).admit, false);
    assert.equal(admitPod(tolerating, MEM_DISK).admit, false);
  });

  test("a DiskPressure rejection status", () => {
    const result = admitPod(guaranteed, DISK);
    if (result.admit) assert.fail("expected a rejection");
    assert.equal(
      rejectedPodStatus(result).message,
      "Pod was rejected: The node had condition: [DiskPressure]. ",
    );
  });
});
