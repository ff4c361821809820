// /status built from a hand-made snapshot: thresholds against signals, ranking, pods, evictions.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { DaemonSnapshot, EvictionRecord, SnapshotNode } from "./snapshot.js";
import type { Observation, SyncReport } from "../../core/engine/types.js";
import { IssueList } from "../../core/issues.js";
import type { Pod, Signal, Threshold } from "../../core/model.js";
import { parseNodeSpec, type NodeSpec } from "../../core/node/node-spec.js";
import { decodePodList } from "../../core/pod/decode-pod.js";
import { buildStatusView, RECENT_EVICTIONS } from "./status-view.js";
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";
import { EVICTD_ADDITIONS_NOTE } from "./node-memory-views-view.js";
import type { PodMemoryFigures } from "./pod-memory-figures.js";

const Mi = 1024n * 1024n;
const Gi = 1024n * Mi;
const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

function nodeSpec(listen = "127.0.0.1:10255"): NodeSpec {
  const r = parseNodeSpec({
    hostname: "host",
    raw: {
      name: "node-a",
      capacity: { memory: "2Gi" },
      stateDir: "/var/lib/evictd",
      manifestDir: "/etc/evictd/pods",
      listen,
      flags: [
        "--eviction-hard=memory.available<100Mi,nodefs.available<10%,pid.available<5%",
        "--eviction-soft=memory.available<300Mi",
        "--eviction-soft-grace-period=memory.available=1m30s",
        "--eviction-minimum-reclaim=memory.available=50Mi",
      ],
    },
  });
  if (!r.ok) assert.fail(JSON.stringify(r.issues));
  return r.spec;
}

const pods = decodePodList(
  [
    {
      metadata: { name: "dns", namespace: "kube-system", uid: "u-dns" },
      spec: { priorityClassName: "system-node-critical", containers: [{ name: "c" }] },
    },
    { metadata: { name: "web", uid: "u-web" }, spec: { containers: [{ name: "app" }] } },
    { metadata: { name: "db", uid: "u-db" }, spec: { priority: 100, containers: [{ name: "pg" }] } },
  ],
  "pods",
  new IssueList(),
);
function podAt(i: number): Pod {
  const p = pods[i];
  assert.ok(p, `pod ${i} decoded`);
  return p;
}
const dns = podAt(0);
const web = podAt(1);
const db = podAt(2);

function threshold(spec: SnapshotNode, id: string): Threshold {
  const t = spec.eviction.thresholds.find((x) => x.id === id);
  assert.ok(t, id);
  return t;
}

function report(spec: SnapshotNode, over: Partial<SyncReport> = {}): SyncReport {
  const observations = new Map<Signal, Observation>([
    ["memory.available", { available: 250n * Mi, capacity: 2n * Gi, time: T0 - 1500 }],
    ["nodefs.available", { available: 9n * Gi, capacity: 100n * Gi, time: T0 - 1500 }],
    ["pid.available", { available: 4000n, capacity: 4096n }],
  ]);
  return {
    now: T0,
    ran: true,
    statsUnavailable: false,
    observations,
    thresholdsMet: [threshold(spec, "soft/memory.available"), threshold(spec, "hard/nodefs.available")],
    awaitingGrace: [{ threshold: threshold(spec, "soft/memory.available"), since: T0 - 60_000 }],
    staleStats: [],
    conditions: ["MemoryPressure", "DiskPressure"],
    actedOn: threshold(spec, "hard/nodefs.available"),
    evictions: [],
    refused: [],
    statsAge: [],
    updateNotifiers: false,
    outcome: "must evict pod(s) to reclaim",
    ...over,
  };
}

function eviction(i: number): EvictionRecord {
  return {
    at: T0 - 100_000 + i * 1000,
    pod: `default/p${i}`,
    signal: "memory.available",
    gracePeriodSeconds: 0,
    message: `m${i}`,
    killFailed: false,
  };
}

function snapshot(over: Partial<DaemonSnapshot> = {}): DaemonSnapshot {
  const node = over.node ?? nodeSpec();
  return {
    node,
    startedAt: T0 - 3_600_000,
    now: T0 + 10_500,
    capabilities: ["cgroup v2 memory and pids controllers", "no PSI: polling"],
    conditions: ["MemoryPressure", "DiskPressure"],
    lastReport: report(node),
    pods: [
      {
        pod: web,
        phase: "Running",
        conditions: [{ type: "Ready", status: "True" }],
        qosClass: "BestEffort",
        restarts: { app: 2 },
      },
      {
        pod: db,
        phase: "Failed",
        reason: "Evicted",
        message: "The node was low on resource: memory.",
        conditions: [
          { type: "DisruptionTarget", status: "True", reason: "TerminationByKubelet", message: "x" },
        ],
        qosClass: "BestEffort",
        restarts: {},
      },
    ],
    ranking: {
      signal: "nodefs.available",
      order: [
        { pod: dns, place: 1, critical: true, reason: "no stats yet; critical: never evicted" },
        {
          pod: web,
          place: 2,
          critical: false,
          reason: "disk 2Gi against a request of 0 (over its request), priority 0",
        },
        {
          pod: db,
          place: 3,
          critical: false,
          reason: "disk 1Gi against a request of 0 (over its request), priority 100",
        },
      ],
    },
    evictions: [eviction(1), eviction(2)],
    evictionCounts: { "memory.available": 2 },
    ...over,
  };
}

describe("buildStatusView", () => {
  test("node, capabilities, all three conditions, last sync", () => {
    const v = buildStatusView(snapshot());
    assert.deepEqual(v.node, {
      name: "node-a",
      listen: "127.0.0.1:10255",
      startedAt: "2025-01-01T11:00:00Z",
      now: "2025-01-01T12:00:10.5Z",
    });
    assert.deepEqual(v.capabilities, ["cgroup v2 memory and pids controllers", "no PSI: polling"]);
    assert.deepEqual(v.conditions, [
      { type: "MemoryPressure", status: "True" },
      { type: "DiskPressure", status: "True" },
      { type: "PIDPressure", status: "False" },
    ]);
    assert.deepEqual(v.lastSync, {
      time: "2025-01-01T12:00:00Z",
      ran: true,
      statsUnavailable: false,
      actedOn: "nodefs.available",
      outcome: "must evict pod(s) to reclaim",
    });
  });

  test("each signal against its thresholds: met, met inside grace (counting down to now), ok", () => {
    const v = buildStatusView(snapshot());
    const rows = v.signals.map((s) => [
      s.signal,
      s.available,
      s.capacity,
      s.thresholds.map((t) => [t.id, t.type, t.value, t.quantity, t.gracePeriod, t.state]),
    ]);
    assert.deepEqual(rows, [
      [
        "memory.available",
        "250Mi",
        "2Gi",
        [
          ["hard/memory.available", "hard", "100Mi", "100Mi", "0s", "ok"],
          // Met 60 s before the run, 90 s grace, /status asked 10.5 s after the run: 19.5 s → 20 s.
          ["soft/memory.available", "soft", "300Mi", "300Mi", "1m30s", "met, grace 20s left"],
        ],
      ],
      [
        "allocatableMemory.available",
        undefined,
        undefined,
        [["allocatable/hard/memory.available", "hard", "100Mi", "100Mi", "0s", "ok"]],
      ],
      [
        "nodefs.available",
        "9Gi",
        "100Gi",
        [["hard/nodefs.available", "hard", "10%", "10737418400", "0s", "met"]],
      ],
      // 5% of 4096 processes, in the kubelet's float32 maths, printed BinarySI as upstream does.
      ["pid.available", "4k", "4096", [["hard/pid.available", "hard", "5%", "204", "0s", "ok"]]],
    ]);
    const mem = v.signals[0];
    assert.equal(mem?.time, "2025-01-01T11:59:58.5Z");
    assert.equal(mem?.thresholds[0]?.minReclaim, "50Mi");
    assert.equal(v.signals[3]?.time, undefined, "no stats time: none shown");
  });

  test("grace time left never goes negative", () => {
    const v = buildStatusView(snapshot({ now: T0 + 600_000 }));
    assert.equal(v.signals[0]?.thresholds[1]?.state, "met, grace 0s left");
  });

  test("before the first synchronize: thresholds ok, no observations, no last sync", () => {
    const s = snapshot();
    const { lastReport: _drop, ranking: _none, ...rest } = s;
    const v = buildStatusView(rest);
    assert.equal(v.lastSync, null);
    assert.equal(v.ranking, null);
    assert.ok(
      v.signals.every((sig) => sig.available === undefined && sig.thresholds.every((t) => t.state === "ok")),
    );
    // A percentage has nothing to resolve against yet.
    assert.equal(
      v.signals.find((sig) => sig.signal === "nodefs.available")?.thresholds[0]?.quantity,
      undefined,
    );
  });

  test("containerfs copies the engine added show up under their signal; inert mirrors do not", () => {
    const spec = nodeSpec();
    const copy: Threshold = {
      ...threshold(spec, "hard/nodefs.available"),
      id: "containerfs/hard/nodefs.available",
      signal: "containerfs.available",
      origin: "containerfs",
      derivedFrom: "nodefs.available",
    };
    const inert: Threshold = {
      id: "containerfs/hard/imagefs.available",
      signal: "containerfs.inodesFree",
      operator: "",
      gracePeriodMs: 0,
      origin: "containerfs",
    };
    const v = buildStatusView(snapshot({ lastReport: report(spec, { thresholdsMet: [copy, inert] }) }));
    const cfs = v.signals.find((s) => s.signal === "containerfs.available");
    assert.deepEqual(
      cfs?.thresholds.map((t) => [t.id, t.derivedFrom, t.state, t.quantity]),
      [["containerfs/hard/nodefs.available", "nodefs.available", "met", undefined]],
    );
    assert.equal(
      v.signals.find((s) => s.signal === "containerfs.inodesFree"),
      undefined,
    );
  });

  test("ranking: who goes next skips critical pods; null when only critical pods remain", () => {
    const v = buildStatusView(snapshot());
    assert.equal(v.ranking?.signal, "nodefs.available");
    assert.equal(v.ranking?.next, "default/web");
    assert.deepEqual(
      v.ranking?.order.map((e) => [e.place, e.pod, e.critical]),
      [
        [1, "kube-system/dns", true],
        [2, "default/web", false],
        [3, "default/db", false],
      ],
    );
    assert.equal(
      v.ranking?.order[1]?.reason,
      "disk 2Gi against a request of 0 (over its request), priority 0",
    );
    const onlyCritical = buildStatusView(
      snapshot({
        ranking: { signal: "memory.available", order: [{ pod: dns, place: 1, critical: true, reason: "r" }] },
      }),
    );
    assert.equal(onlyCritical.ranking?.next, null);
  });

  test("pods with phase, reason, message, conditions, QoS and restarts", () => {
    const v = buildStatusView(snapshot());
    assert.deepEqual(v.pods[0], {
      pod: "default/web",
      uid: "u-web",
      phase: "Running",
      qosClass: "BestEffort",
      priority: 0,
      conditions: [{ type: "Ready", status: "True" }],
      restarts: { app: 2 },
    });
    assert.equal(v.pods[1]?.["reason"], "Evicted");
    assert.equal(v.pods[1]?.["message"], "The node was low on resource: memory.");
    assert.equal(v.pods[1]?.["priority"], 100);
  });

  test("each pod's memory: the last read's with its time; an earlier read's says how much older than the last read", () => {
    const podMemory: PodMemoryFigures = {
      readAt: T0 - 1500,
      byUid: new Map([
        ["u-web", { workingSetBytes: 15n * Mi, usageBytes: 17n * Mi, time: T0 - 1500, fromLastRead: true }],
        // Read by a housekeeping 12 s before the memory wake that read its usage alone.
        ["u-db", { workingSetBytes: 48n * Mi, time: T0 - 13_500, fromLastRead: false }],
      ]),
    };
    const memoryRanking: DaemonSnapshot["ranking"] = {
      signal: "memory.available",
      order: [
        {
          pod: db,
          place: 1,
          critical: false,
          reason: "working set 48Mi against a request of 0 (over its request), priority 100",
        },
        {
          pod: web,
          place: 2,
          critical: false,
          reason: "working set 15Mi against a request of 0 (over its request), priority 0",
        },
      ],
    };
    const v = buildStatusView(snapshot({ podMemory, ranking: memoryRanking }));
    assert.deepEqual(v.pods[0]?.["memory"], {
      workingSet: "15Mi",
      workingSetBytes: 15n * Mi,
      usageBytes: 17n * Mi,
      time: "2025-01-01T11:59:58.5Z",
      fromLastRead: true,
    });
    assert.deepEqual(v.pods[1]?.["memory"], {
      workingSet: "48Mi",
      workingSetBytes: 48n * Mi,
      time: "2025-01-01T11:59:46.5Z",
      fromLastRead: false,
      olderThanLastReadMs: 12_000,
      asOf: "as of 2025-01-01T11:59:46.5Z (12s before the last read)",
    });
    assert.deepEqual(
      v.ranking?.order.map((e) => e.reason),
      [
        "working set 48Mi against a request of 0 (over its request), priority 100; working set as of 2025-01-01T11:59:46.5Z (12s before the last read)",
        "working set 15Mi against a request of 0 (over its request), priority 0",
      ],
    );
    // A disk ranking's reasons say nothing of memory.
    const disk = buildStatusView(snapshot({ podMemory }));
    assert.equal(
      disk.ranking?.order[2]?.reason,
      "disk 1Gi against a request of 0 (over its request), priority 100",
    );
    // No figures (before the first step): no memory on the pods.
    assert.equal(buildStatusView(snapshot()).pods[0]?.["memory"], undefined);
  });

  test("recent evictions: newest first, at most RECENT_EVICTIONS, reaction time when known", () => {
    const evictions = Array.from({ length: RECENT_EVICTIONS + 5 }, (_, i) => eviction(i));
    const last = evictions.pop();
    assert.ok(last);
    evictions.push({ ...last, reactionMs: 3.25, killFailed: true });
    const v = buildStatusView(snapshot({ evictions, evictionCounts: { "memory.available": 25 } }));
    assert.equal(v.recentEvictions.length, RECENT_EVICTIONS);
    assert.deepEqual(v.recentEvictions[0], {
      time: "2025-01-01T11:58:44Z",
      pod: "default/p24",
      signal: "memory.available",
      gracePeriodSeconds: 0,
      killFailed: true,
      reactionMs: 3.25,
      message: "m24",
    });
    assert.equal(v.recentEvictions.at(-1)?.["pod"], "default/p5");
    assert.deepEqual(v.evictionCounts, { "memory.available": 25 });
  });

  test("an IPv6 listen address is bracketed", () => {
    assert.equal(buildStatusView(snapshot({ node: nodeSpec("[::1]:0") })).node.listen, "[::1]:0");
  });

  test("memory.available carries the node's memory three ways, labelled as evictd's additions", () => {
    const reading: NodeMemoryViewsReading = {
      at: T0 - 200,
      source: "the root cgroup's /sys/fs/cgroup/memory.stat and /proc/meminfo",
      views: {
        capacityBytes: 2n * Gi,
        kubelet: { usageFrom: "anon + file", workingSetBytes: 1792n * Mi, availableBytes: 256n * Mi },
        kernelAvailable: { availableBytes: 300n * Mi },
        withKernelMemory: {
          kernelMemoryBytes: 64n * Mi,
          kernelMemoryFrom: "kernel + sock",
          alreadyInKubeletFigure: false,
          workingSetBytes: 1856n * Mi,
          availableBytes: 192n * Mi,
        },
      },
    };
    const v = buildStatusView(snapshot({ nodeMemoryViews: reading }));
    const memory = v.signals.find((s) => s.signal === "memory.available");
    assert.equal(memory?.available, "250Mi", "the signal stays the engine's observation");
    assert.deepEqual(memory?.evictdAdditions, {
      note: EVICTD_ADDITIONS_NOTE,
      time: "2025-01-01T11:59:59.8Z",
      source: "the root cgroup's /sys/fs/cgroup/memory.stat and /proc/meminfo",
      capacity: "2Gi",
      kubelet: {
        available: "256Mi",
        workingSet: "1792Mi",
        formula: "capacity − (anon + file − inactive_file)",
      },
      kernelAvailable: { available: "300Mi", formula: "MemAvailable of /proc/meminfo (machine-wide)" },
      withKernelMemory: {
        available: "192Mi",
        workingSet: "1856Mi",
        kernelMemory: "64Mi",
        formula: "capacity − (anon + file − inactive_file + kernel + sock)",
        alreadyInKubeletFigure: false,
      },
    });
    assert.match(EVICTD_ADDITIONS_NOTE, /evictd's additions.*never used for decisions/);
    for (const s of v.signals)
      if (s.signal !== "memory.available") assert.equal(s.evictdAdditions, undefined);
    // Without a reading (the Summary API alone) there is nothing to add.
    const plain = buildStatusView(snapshot()).signals.find((s) => s.signal === "memory.available");
    assert.equal(plain?.evictdAdditions, undefined);
  });

  test("a node cgroup whose usage counts kernel memory: the third view is the kubelet's, and says so", () => {
    const reading: NodeMemoryViewsReading = {
      at: T0,
      source: "evictd's node cgroup",
      views: {
        capacityBytes: 2n * Gi,
        kubelet: { usageFrom: "memory.current", workingSetBytes: Gi, availableBytes: Gi },
        withKernelMemory: {
          kernelMemoryBytes: 8n * Mi,
          kernelMemoryFrom: "kernel + sock",
          alreadyInKubeletFigure: true,
          workingSetBytes: Gi,
          availableBytes: Gi,
        },
      },
    };
    const memory = buildStatusView(snapshot({ nodeMemoryViews: reading })).signals[0];
    assert.equal(memory?.evictdAdditions?.kernelAvailable, undefined, "no MemAvailable: left out");
    assert.deepEqual(memory?.evictdAdditions?.withKernelMemory, {
      available: "1Gi",
      workingSet: "1Gi",
      kernelMemory: "8Mi",
      formula: "the kubelet's figure: memory.current already counts kernel memory (kernel + sock)",
      alreadyInKubeletFigure: true,
    });
  });
});
