/**
 * The Summary `watch --stats cgroups` decides from: the kubelet's real Summary (summary-1.json) and
 * pod list (pods-1.json) with memory read from cgroups moments later. Memory figures are the fresh
 * ones, each with its own time; disk figures stay the Summary's, as of the Summary's time; pods
 * and containers match by UID and container id.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { apiPodInfo, withNodeLocalMemory, withPodMemory } from "../../src/app/cluster/node-local-summary.js";
import type { NodeLocalMemory, PodMemory } from "../../src/app/cluster/node-memory-port.js";
import { IssueList } from "../../src/core/issues.js";
import { decodeSummary } from "../../src/core/summary/decode-summary.js";
import { parseJsonExact } from "../../src/formats/json/parse-json-exact.js";
import { REAL_DATA } from "../support/repo-paths.js";

const summary = parseJsonExact(readFileSync(path.join(REAL_DATA, "summary-1.json"), "utf8")) as {
  node: { fs: unknown; memory: { time: string } };
  pods: { podRef: { uid: string; name: string } }[];
};
const podList = JSON.parse(readFileSync(path.join(REAL_DATA, "pods-1.json"), "utf8")) as { items: unknown[] };
const pods = podList.items.map((p) => apiPodInfo(p)).filter((p) => p !== undefined);

const KSM = "52e6202b-d247-4d4d-8ff5-809b6d8b292e"; // e2e-kube-state-metrics, in both
const KSM_CONTAINER = "86f42bd0e6702d9550841cfee08968d96726d8652846d38c9c81f12f97080a96";
const NOW = "2026-06-26T10:20:07.123456789Z";
const MiB = 1024 * 1024;

function memory(workingSet: number, usage = workingSet + 10 * MiB, available?: number) {
  return {
    time: NOW,
    usageBytes: usage,
    workingSetBytes: workingSet,
    ...(available !== undefined ? { availableBytes: available } : {}),
  };
}

describe("withNodeLocalMemory", () => {
  const newcomer = pods.find((p) => !summary.pods.some((s) => s.podRef.uid === p.uid));
  assert.ok(newcomer, "pods-1.json has a pod summary-1.json does not list");
  const byUid = new Map<string, PodMemory>([
    [KSM, { memory: memory(300 * MiB), containersById: new Map([[KSM_CONTAINER, memory(290 * MiB)]]) }],
    [newcomer.uid, { memory: memory(5 * MiB), containersById: new Map() }],
    // A cgroup whose UID the API does not know (a deleted pod's, a static pod's before its mirror): nothing added.
    ["00000000-0000-4000-8000-000000000000", { memory: memory(1 * MiB), containersById: new Map() }],
  ]);
  const local: NodeLocalMemory = {
    node: memory(7000 * MiB, 7100 * MiB, 900 * MiB),
    pods: memory(3000 * MiB, 3100 * MiB, 500 * MiB),
    podsByUid: byUid,
  };
  const merged = withNodeLocalMemory(summary, local, pods) as unknown as {
    node: { fs: unknown; memory: unknown; systemContainers: { name: string; memory: unknown }[] };
    pods: {
      podRef: { uid: string };
      memory?: { time: string };
      containers: { name: string; memory?: unknown }[];
    }[];
  };

  test("node and kubepods memory are the fresh figures; the disk figures are the Summary's own objects", () => {
    assert.deepEqual(merged.node.memory, local.node);
    assert.deepEqual(merged.node.systemContainers.find((c) => c.name === "pods")?.memory, local.pods);
    assert.equal(merged.node.fs, summary.node.fs);
    assert.equal(summary.node.memory.time !== NOW, true, "the input is not modified");
  });

  test("a pod in both: its memory and its container's (matched by container id) are fresh", () => {
    const ksm = merged.pods.find((p) => p.podRef.uid === KSM);
    assert.deepEqual(ksm?.memory, byUid.get(KSM)?.memory);
    assert.deepEqual(ksm?.containers.find((c) => c.name === "kube-state-metrics")?.memory, memory(290 * MiB));
  });

  test("a pod the Summary does not list yet gets an entry; unknown cgroups add nothing; the rest keep their figures", () => {
    assert.equal(merged.pods.length, summary.pods.length + 1);
    const added = merged.pods.find((p) => p.podRef.uid === newcomer.uid);
    assert.deepEqual(added?.memory, memory(5 * MiB));
    const untouched = summary.pods.find((p) => p.podRef.uid !== KSM);
    assert.equal(
      merged.pods.find((p) => p.podRef.uid === untouched?.podRef.uid),
      untouched,
      "a pod without a fresh reading is the Summary's entry itself",
    );
  });

  test("a memory wake's usage-only figures leave the working set to be read; withPodMemory fills in the picked pod", () => {
    const usageOnly = new Map<string, PodMemory>([
      [KSM, { memory: { time: NOW, usageBytes: 310 * MiB }, containersById: new Map() }],
    ]);
    const wake = withNodeLocalMemory(summary, { ...local, podsByUid: usageOnly }, pods);
    const decode = (raw: unknown) => {
      const issues = new IssueList();
      const d = decodeSummary(raw, "summary", Date.parse(NOW), issues);
      assert.ok(d, issues.items.map((i) => i.message).join("; "));
      return d;
    };
    const bound = decode(wake).findPod?.(KSM, "")?.memory;
    assert.equal(bound?.usageBytes, BigInt(310 * MiB));
    assert.equal(bound?.workingSetBytes, undefined, "only the usage was read");
    const refreshed = withPodMemory(wake, byUid, pods);
    assert.equal(decode(refreshed).findPod?.(KSM, "")?.memory?.workingSetBytes, BigInt(300 * MiB));
    const others = (wake["pods"] as { podRef: { uid: string } }[]).filter((p) => p.podRef.uid !== KSM);
    for (const p of others)
      assert.ok((refreshed["pods"] as unknown[]).includes(p), "the other entries are the same objects");
  });

  test("it decodes: memory signals carry the read's time, the filesystem its own", () => {
    const issues = new IssueList();
    const decoded = decodeSummary(merged, "summary", Date.parse(NOW), issues);
    assert.ok(decoded, issues.items.map((i) => i.message).join("; "));
    assert.equal(decoded.node.memory?.availableBytes, BigInt(900 * MiB));
    assert.equal(Math.floor(decoded.node.memory?.time ?? 0), Date.parse("2026-06-26T10:20:07.123Z"));
    assert.notEqual(decoded.node.fs?.time, decoded.node.memory?.time);
    assert.equal(decoded.findPod?.(KSM, "")?.memory?.workingSetBytes, BigInt(300 * MiB));
  });
});

describe("a static pod: the kubelet's Summary and cgroup use its config hash, the API shows its mirror", () => {
  // summary-1.json and pods-1.json are the kubelet's own answers: kube-controller-manager is a
  // static pod there, its UID the hash in its kubernetes.io/config.hash annotation. Its mirror is
  // made as the kubelet makes it (mirror_client.go): the same pod, a UID of the API server's, the
  // hash in kubernetes.io/config.mirror.
  const HASH = "e9afcd8d3c942968802548f9a24d942a";
  const MIRROR_UID = "4c3b2a19-0f8e-4d7c-9b6a-5f4e3d2c1b0a";
  const raw = podList.items.map((p) => structuredClone(p) as { metadata: Record<string, unknown> });
  const staticPod = raw.find((p) => p.metadata["uid"] === HASH);
  assert.ok(staticPod, "pods-1.json has kube-controller-manager under its hash");
  const annotations = staticPod.metadata["annotations"] as Record<string, string>;
  assert.equal(
    annotations["kubernetes.io/config.hash"],
    HASH,
    "the kubelet's UID of a static pod is its hash",
  );
  staticPod.metadata["uid"] = MIRROR_UID;
  annotations["kubernetes.io/config.mirror"] = HASH;
  const apiPods = raw.map((p) => apiPodInfo(p)).filter((p) => p !== undefined);
  const name = "kube-controller-manager-datagen-1-35";

  test("its cgroup's figures land in the kubelet's entry, named by the mirror's UID, and no second entry is made", () => {
    assert.equal(
      summary.pods.find((p) => p.podRef.name === name)?.podRef.uid,
      HASH,
      "the Summary lists it by hash",
    );
    const local: NodeLocalMemory = {
      node: memory(7000 * MiB, 7100 * MiB, 900 * MiB),
      pods: memory(3000 * MiB, 3100 * MiB, 500 * MiB),
      podsByUid: new Map([[HASH, { memory: memory(80 * MiB), containersById: new Map() }]]),
    };
    const merged = withNodeLocalMemory(summary, local, apiPods) as unknown as typeof summary;
    assert.equal(merged.pods.length, summary.pods.length);
    const entries = merged.pods.filter((p) => p.podRef.name === name);
    assert.deepEqual(
      entries.map((p) => p.podRef.uid),
      [MIRROR_UID],
    );
    const issues = new IssueList();
    const decoded = decodeSummary(merged, "summary", Date.parse(NOW), issues);
    assert.ok(decoded, issues.items.map((i) => i.message).join("; "));
    assert.equal(decoded.findPod?.(MIRROR_UID, "")?.memory?.workingSetBytes, BigInt(80 * MiB));
  });
});
