// The ranking /status shows after a memory wake: pods read by usage alone rank at their last working
// set read, not at 0 ("working set 0 against a request of 0").
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList } from "../../core/issues.js";
import type { NodeSummary } from "../../core/model.js";
import { decodePodList } from "../../core/pod/decode-pod.js";
import { currentRanking } from "../../core/rank/explain-ranking.js";
import { decodeSummary } from "../../core/summary/decode-summary.js";
import { withPodMemoryFigures, type PodMemoryFigures } from "./pod-memory-figures.js";

const Mi = 1024 * 1024;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

const pods = decodePodList(
  ["scratch-0", "scratch-1"].map((name) => ({
    metadata: { name, namespace: "jobs", uid: `u-${name}` },
    spec: { containers: [{ name: "c" }] },
  })),
  "pods",
  new IssueList(),
);

/** A memory wake's Summary: every pod's usage alone. */
function usageOnly(): NodeSummary {
  const time = new Date(T0 + 5000).toISOString();
  const summary = decodeSummary(
    {
      node: { nodeName: "n", memory: { time, availableBytes: 900 * Mi, workingSetBytes: 100 * Mi } },
      pods: pods.map((p, i) => ({
        podRef: { name: p.name, namespace: p.namespace, uid: p.uid },
        memory: { time, usageBytes: (20 + 30 * i) * Mi },
      })),
    },
    "summary",
    T0 + 5000,
    new IssueList(),
  );
  assert.ok(summary !== undefined);
  return summary;
}

describe("withPodMemoryFigures", () => {
  test("pods read by usage alone rank at their last working set read", () => {
    const before = currentRanking(undefined, "single", pods, usageOnly());
    assert.match(before?.order[0]?.reason ?? "", /^working set 0 /, "the bug this fixes");
    const figures: PodMemoryFigures = {
      readAt: T0 + 5000,
      byUid: new Map([
        ["u-scratch-0", { workingSetBytes: BigInt(15 * Mi), time: T0, fromLastRead: false }],
        ["u-scratch-1", { workingSetBytes: BigInt(48 * Mi), time: T0, fromLastRead: false }],
      ]),
    };
    const after = currentRanking(undefined, "single", pods, withPodMemoryFigures(usageOnly(), figures));
    assert.deepEqual(
      after?.order.map((e) => [e.pod.name, e.reason]),
      [
        ["scratch-1", "working set 48Mi against a request of 0 (over its request), priority 0"],
        ["scratch-0", "working set 15Mi against a request of 0 (over its request), priority 0"],
      ],
    );
  });

  test("no figures: the summary itself", () => {
    const s = usageOnly();
    assert.equal(withPodMemoryFigures(s, { byUid: new Map() }), s);
  });
});
