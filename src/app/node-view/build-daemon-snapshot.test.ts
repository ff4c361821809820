// The snapshot `run`, `watch` and `explain` all build: the ranking from the pods' last working set
// reads, each optional part present only when given, the journal's history handed over as asked.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildEvictionConfig } from "../../core/config/build-eviction-config.js";
import { IssueList } from "../../core/issues.js";
import type { NodeSummary, Pod } from "../../core/model.js";
import { decodePodList } from "../../core/pod/decode-pod.js";
import { decodeSummary } from "../../core/summary/decode-summary.js";
import type { ReportData } from "../report/report-data.js";
import { buildDaemonSnapshot, type DaemonSnapshotParts } from "./build-daemon-snapshot.js";
import type { PodMemoryFigures } from "./pod-memory-figures.js";

const Mi = 1024 * 1024;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

const pods: Pod[] = decodePodList(
  ["scratch-0", "scratch-1"].map((name) => ({
    metadata: { name, namespace: "jobs", uid: `u-${name}` },
    spec: { containers: [{ name: "c" }] },
  })),
  "pods",
  new IssueList(),
);

const raw = {
  node: {
    nodeName: "n",
    memory: { time: new Date(T0).toISOString(), availableBytes: 900 * Mi, workingSetBytes: 100 * Mi },
  },
  pods: pods.map((p, i) => ({
    podRef: { name: p.name, namespace: p.namespace, uid: p.uid },
    memory: { time: new Date(T0).toISOString(), workingSetBytes: (20 + 30 * i) * Mi },
  })),
};

function decoded(): NodeSummary {
  const summary = decodeSummary(raw, "summary", T0, new IssueList());
  assert.ok(summary !== undefined);
  return summary;
}

function parts(more: Partial<DaemonSnapshotParts> = {}): DaemonSnapshotParts {
  const config = buildEvictionConfig({
    config: { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration" },
  });
  assert.ok(config.ok);
  return {
    node: { name: "n", listen: { host: "127.0.0.1", port: 0 }, eviction: config.config },
    startedAt: T0 - 1000,
    now: T0,
    capabilities: ["polling"],
    conditions: [],
    layout: "single",
    pods: [],
    activePods: pods,
    journal: { evictions: [], evictionCounts: {} },
    ...more,
  };
}

describe("buildDaemonSnapshot", () => {
  test("before the first step: no sample, no ranking, no figures, no history", () => {
    const s = buildDaemonSnapshot(parts());
    assert.deepEqual(Object.keys(s), [
      "node",
      "startedAt",
      "now",
      "capabilities",
      "conditions",
      "pods",
      "evictions",
      "evictionCounts",
    ]);
  });

  test("pods rank at their last working set read; the raw Summary is served as read", () => {
    const figures: PodMemoryFigures = {
      readAt: T0,
      byUid: new Map([
        ["u-scratch-0", { workingSetBytes: BigInt(64 * Mi), time: T0 - 5000, fromLastRead: false }],
        ["u-scratch-1", { workingSetBytes: BigInt(8 * Mi), time: T0 - 5000, fromLastRead: false }],
      ]),
    };
    const s = buildDaemonSnapshot(parts({ rawSummary: raw, summary: decoded(), podMemory: figures }));
    assert.equal(s.summary, raw);
    assert.equal(s.podMemory, figures);
    assert.equal(s.ranking?.signal, "memory.available");
    assert.deepEqual(
      s.ranking?.order.map((e) => e.pod.name),
      ["scratch-0", "scratch-1"],
    );
  });

  test("without figures the decoded Summary ranks as it is", () => {
    const s = buildDaemonSnapshot(parts({ summary: decoded() }));
    assert.deepEqual(
      s.ranking?.order.map((e) => e.pod.name),
      ["scratch-1", "scratch-0"],
    );
    assert.equal(s.summary, undefined, "nothing to serve at /stats/summary");
  });

  test("the journal's history and the manifest errors are passed on", () => {
    const history = { steps: [] } as unknown as ReportData;
    const journal = {
      evictions: [],
      evictionCounts: { "memory.available": 2 },
      history(): ReportData {
        return this === journal ? history : ({} as ReportData);
      },
    };
    const s = buildDaemonSnapshot(parts({ journal, manifestErrors: [] }));
    assert.equal(s.history?.(), history, "called on the journal");
    assert.deepEqual(s.evictionCounts, { "memory.available": 2 });
    assert.deepEqual(s.manifestErrors, []);
  });
});
