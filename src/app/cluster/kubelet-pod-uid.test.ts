// The kubelet's UID of a pod beside the API's: a static pod's mirror is read from the cgroup named
// after the hash the mirror carries, and everything the loop is handed names the mirror.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList } from "../../core/issues.js";
import { decodePod } from "../../core/pod/decode-pod.js";
import { isCriticalPod, isMirrorPod } from "../../core/pod/critical.js";
import { explainRanking } from "../../core/rank/explain-ranking.js";
import { podStatsLookup } from "../../core/rank/pod-stats-lookup.js";
import { podsLackingWorkingSet } from "../../core/rank/working-set-bounds.js";
import type { StatsScope } from "../ports.js";
import { kubeletUidOf, kubeletUidOfMetadata, PodUids } from "./kubelet-pod-uid.js";
import { nodeLocalStatsPort } from "./node-local-stats-port.js";
import { apiPodInfo, type ApiPodInfo } from "./node-local-summary.js";
import type {
  NodeLocalMemory,
  NodeMemoryPort,
  NodeMemoryReadOptions,
  PodMemory,
} from "./node-memory-port.js";

const MiB = 1024 * 1024;
/** A static pod's config hash: its UID on the node, its cgroup's name, its Summary entry's UID. */
const HASH = "3c1c5f1d2f0e4b7a9c8d7e6f5a4b3c2d";
/** Its mirror's UID, made by the API server. */
const MIRROR_UID = "7a0e2b4c-1d3f-4a5b-8c6d-9e0f1a2b3c4d";
const WEB_UID = "0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f";
const PROXY_CONTAINER = "a".repeat(64);
const NOW = "2026-06-26T10:20:07Z";
const OLD = "2026-06-26T10:19:00Z";

/** The mirror pod the API shows for kube-proxy, a static pod of the node (annotations as the kubelet copies them). */
const mirrorPod = {
  metadata: {
    name: "kube-proxy-node-1",
    namespace: "kube-system",
    uid: MIRROR_UID,
    annotations: {
      "kubernetes.io/config.hash": HASH,
      "kubernetes.io/config.mirror": HASH,
      "kubernetes.io/config.seen": "2026-06-26T10:00:00.000000000Z",
      "kubernetes.io/config.source": "file",
    },
    ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "node-1", uid: "n", controller: true }],
  },
  spec: { nodeName: "node-1", containers: [{ name: "kube-proxy" }] },
  status: {
    phase: "Running",
    containerStatuses: [{ name: "kube-proxy", containerID: `containerd://${PROXY_CONTAINER}` }],
  },
};
const webPod = {
  metadata: { name: "web", namespace: "default", uid: WEB_UID },
  spec: { nodeName: "node-1", containers: [{ name: "app", resources: { requests: { memory: "64Mi" } } }] },
  status: { phase: "Running" },
};

const infos = [mirrorPod, webPod].map((p) => apiPodInfo(p)).filter((p) => p !== undefined);

/** The kubelet's Summary: the static pod listed under its hash with its figures of a minute ago. */
const kubeletSummary = {
  node: { nodeName: "node-1", memory: { time: OLD, availableBytes: 900 * MiB, workingSetBytes: 100 * MiB } },
  pods: [
    {
      podRef: { name: "kube-proxy-node-1", namespace: "kube-system", uid: HASH },
      memory: { time: OLD, usageBytes: MiB, workingSetBytes: MiB },
      containers: [{ name: "kube-proxy", memory: { time: OLD, usageBytes: MiB, workingSetBytes: MiB } }],
    },
    {
      podRef: { name: "web", namespace: "default", uid: WEB_UID },
      memory: { time: OLD, usageBytes: 2 * MiB, workingSetBytes: 2 * MiB },
      containers: [],
    },
  ],
};

const figures = (usage: number, workingSet?: number) => ({
  time: NOW,
  usageBytes: usage,
  ...(workingSet !== undefined ? { workingSetBytes: workingSet } : {}),
});

/** The kubelet's cgroups as a port: by the kubelet's UIDs only, as the cgroup names carry them. */
class CgroupsByKubeletUid implements NodeMemoryPort {
  readonly describe = "test cgroups";
  readonly asked: string[] = [];
  mayStayUnread: ReadonlySet<string> | undefined;
  /** Kubelet UIDs a memory wake leaves unread. */
  leaveUnread = new Set<string>();
  readonly #pods = new Map<string, { usage: number; workingSet: number; containers: Map<string, number> }>([
    [HASH, { usage: 21 * MiB, workingSet: 19.5 * MiB, containers: new Map([[PROXY_CONTAINER, 19 * MiB]]) }],
    [WEB_UID, { usage: 6 * MiB, workingSet: 5 * MiB, containers: new Map() }],
  ]);

  read(scope: StatsScope, uids: readonly string[], options: NodeMemoryReadOptions = {}): NodeLocalMemory {
    this.asked.push(`read ${scope} ${uids.join(",")}`);
    this.mayStayUnread = options.mayStayUnread;
    const left = scope === "all" ? [] : [...this.leaveUnread].filter((u) => options.mayStayUnread?.has(u));
    const podsByUid = new Map<string, PodMemory>();
    for (const uid of this.#pods.keys()) {
      if (left.includes(uid)) continue;
      const read = (scope === "all" ? this.readPods([uid]) : this.readUsages([uid])).get(uid);
      if (read !== undefined) podsByUid.set(uid, read);
    }
    return {
      node: figures(200 * MiB, 150 * MiB),
      pods: figures(60 * MiB, 50 * MiB),
      podsByUid,
      ...(left.length > 0 ? { unread: { uids: new Set(left), usageBoundBytes: BigInt(40 * MiB) } } : {}),
    };
  }

  readPods(uids: readonly string[]): ReadonlyMap<string, PodMemory> {
    this.asked.push(`readPods ${uids.join(",")}`);
    const out = new Map<string, PodMemory>();
    for (const uid of uids) {
      const p = this.#pods.get(uid);
      if (p === undefined) continue;
      const containersById = new Map([...p.containers].map(([id, ws]) => [id, figures(ws, ws)]));
      out.set(uid, { memory: figures(p.usage, p.workingSet), containersById });
    }
    return out;
  }

  readUsages(uids: readonly string[]): ReadonlyMap<string, PodMemory> {
    this.asked.push(`readUsages ${uids.join(",")}`);
    const out = new Map<string, PodMemory>();
    for (const uid of uids) {
      const p = this.#pods.get(uid);
      if (p !== undefined) out.set(uid, { memory: figures(p.usage), containersById: new Map() });
    }
    return out;
  }
}

function port(memory: NodeMemoryPort, pods: readonly ApiPodInfo[] = infos) {
  return nodeLocalStatsPort({
    memory,
    summary: () => kubeletSummary,
    pods: () => pods,
    source: "test",
    clock: { now: () => Date.parse(NOW) },
  });
}

describe("the kubelet's UID of an API pod", () => {
  test("a mirror pod's is the hash in kubernetes.io/config.mirror; any other pod's is its own", () => {
    assert.equal(kubeletUidOfMetadata(mirrorPod.metadata, MIRROR_UID), HASH);
    assert.equal(kubeletUidOfMetadata(webPod.metadata, WEB_UID), undefined);
    // The static pod as the kubelet itself shows it (its /pods): its UID is the hash already.
    const own = {
      uid: HASH,
      annotations: { "kubernetes.io/config.hash": HASH, "kubernetes.io/config.source": "file" },
    };
    assert.equal(kubeletUidOfMetadata(own, HASH), undefined);
    assert.equal(
      kubeletUidOfMetadata({ annotations: { "kubernetes.io/config.mirror": "" } }, WEB_UID),
      undefined,
    );
    const [mirror, web] = infos;
    assert.deepEqual(
      [mirror?.uid, mirror?.kubeletUid, mirror && kubeletUidOf(mirror)],
      [MIRROR_UID, HASH, HASH],
    );
    assert.deepEqual([web?.uid, web?.kubeletUid, web && kubeletUidOf(web)], [WEB_UID, undefined, WEB_UID]);
  });

  test("translated both ways; a UID of no pod in the set stays as it is", () => {
    const uids = new PodUids(infos);
    assert.equal(uids.toKubelet(MIRROR_UID), HASH);
    assert.equal(uids.toApi(HASH), MIRROR_UID);
    assert.equal(uids.toKubelet(WEB_UID), WEB_UID);
    assert.equal(uids.toApi(WEB_UID), WEB_UID);
    assert.equal(uids.toKubelet(HASH), HASH);
    assert.equal(uids.toApi("gone"), "gone");
    assert.equal(uids.byEitherUid(HASH)?.name, "kube-proxy-node-1");
    assert.equal(uids.byEitherUid(MIRROR_UID)?.name, "kube-proxy-node-1");
    assert.equal(uids.byKubeletUid(MIRROR_UID), undefined);
  });

  test("a full read: the cgroups are asked by the hash, the Summary entry carries the cgroup's figures under the mirror's UID", async () => {
    const memory = new CgroupsByKubeletUid();
    const sample = await port(memory).collect("all");
    assert.deepEqual(memory.asked[0], `read all ${HASH},${WEB_UID}`);
    assert.deepEqual([...(memory.mayStayUnread ?? [])].sort(), [HASH, WEB_UID].sort());
    const uids = sample.summary.pods.map((p) => p.podRef.uid);
    assert.deepEqual(uids, [MIRROR_UID, WEB_UID], "one entry per pod, each named as the API names it");
    const proxy = sample.summary.findPod?.(MIRROR_UID, "kube-system/kube-proxy-node-1");
    assert.equal(
      proxy?.memory?.workingSetBytes,
      BigInt(19.5 * MiB),
      "the cgroup's working set, not the Summary's 1Mi",
    );
    assert.equal(
      proxy?.containers.find((c) => c.name === "kube-proxy")?.memory?.workingSetBytes,
      BigInt(19 * MiB),
    );

    // Ranked as the mirror, with the cgroup's figure, and critical as the kubelet holds static pods.
    const issues = new IssueList();
    const pods = [mirrorPod, webPod]
      .map((raw) => decodePod(raw, "pod", issues))
      .filter((p) => p !== undefined);
    assert.deepEqual(issues.items, []);
    const mirror = pods[0];
    assert.ok(mirror !== undefined && isMirrorPod(mirror) && isCriticalPod(mirror));
    const order = explainRanking("memory.available", "single", pods, podStatsLookup(sample.summary));
    const proxyPlace = order?.find((e) => e.pod.uid === MIRROR_UID);
    assert.match(
      proxyPlace?.reason ?? "",
      /^working set 19968Ki against a request of 0 .*; critical: never evicted$/,
    );
  });

  test("a memory wake: the pod left unread is handed to the loop by the mirror's UID, and naming it reads its cgroup", async () => {
    const memory = new CgroupsByKubeletUid();
    memory.leaveUnread = new Set([HASH]);
    const stats = port(memory);
    const sample = await stats.collect("memory");
    assert.deepEqual([...(sample.unread?.uids ?? [])], [MIRROR_UID]);
    // The bound reaches the entry the engine ranks the mirror by.
    assert.ok(podsLackingWorkingSet(sample.summary, sample.unread).has(MIRROR_UID));
    assert.ok(!sample.summary.pods.some((p) => p.podRef.uid === HASH));

    memory.asked.length = 0;
    const refreshed = await stats.refreshPods?.(sample, [MIRROR_UID]);
    // Read in full by the hash; naming an unread pod reads the others unread too (none here).
    assert.deepEqual(memory.asked, [`readPods ${HASH}`, "readUsages "]);
    assert.equal(refreshed?.unread, undefined);
    const proxy = refreshed?.summary.findPod?.(MIRROR_UID, "kube-system/kube-proxy-node-1");
    assert.equal(proxy?.memory?.workingSetBytes, BigInt(19.5 * MiB));
  });

  test("without its mirror in the API, a static pod's entry keeps the kubelet's UID, refreshed from its cgroup", async () => {
    const memory = new CgroupsByKubeletUid();
    const web = infos.filter((p) => p.uid === WEB_UID);
    const sample = await port(memory, web).collect("all");
    assert.deepEqual(memory.asked[0], `read all ${WEB_UID}`);
    const proxy = sample.summary.pods.filter((p) => p.podRef.name === "kube-proxy-node-1");
    assert.deepEqual(
      proxy.map((p) => [p.podRef.uid, p.memory?.workingSetBytes]),
      [[HASH, BigInt(19.5 * MiB)]],
    );
  });
});
