/**
 * `evictd explain`'s table with the node's memory three ways (`--stats cgroups`): under the signal
 * table, headed as evictd's additions that no decision uses, each view with its formula; and
 * nothing of it when only the Summary API was read.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { NodeExplanation } from "../../src/app/node-view/explain-node.js";
import { nodeMemoryViewsView } from "../../src/app/node-view/node-memory-views-view.js";
import { renderExplanation } from "../../src/cli/commands/explain.js";

const Mi = 1024n * 1024n;

function explanation(withViews: boolean): NodeExplanation {
  return {
    node: "node-a",
    source: "memory from the kubelet's cgroups, read now",
    time: "2026-01-01T00:00:00Z",
    layout: "single",
    kubeletConditions: [],
    conditions: [{ type: "MemoryPressure", status: "False" }],
    signals: [
      {
        signal: "memory.available",
        available: "2967Mi",
        capacity: "2983Mi",
        thresholds: [
          {
            id: "hard/memory.available",
            type: "hard",
            value: "100Mi",
            quantity: "100Mi",
            gracePeriod: "0s",
            state: "ok",
          },
        ],
        ...(withViews
          ? {
              evictdAdditions: nodeMemoryViewsView({
                at: Date.UTC(2026, 0, 1),
                source: "the root cgroup's /sys/fs/cgroup/memory.stat and /proc/meminfo",
                views: {
                  capacityBytes: 2983n * Mi,
                  kubelet: {
                    usageFrom: "anon + file",
                    workingSetBytes: 16n * Mi,
                    availableBytes: 2967n * Mi,
                  },
                  kernelAvailable: { availableBytes: 2806n * Mi },
                  withKernelMemory: {
                    kernelMemoryBytes: 2n * Mi,
                    kernelMemoryFrom: "kernel + sock",
                    alreadyInKubeletFigure: false,
                    workingSetBytes: 18n * Mi,
                    availableBytes: 2965n * Mi,
                  },
                },
              }),
            }
          : {}),
      },
    ],
    verdict: { outcome: "no resources are starved", actedOn: null, wouldEvict: [] },
    ranking: null,
    skippedPods: [],
  };
}

describe("explain's memory.available three ways", () => {
  test("under the signals: the note, each view's figure and formula, the files read", () => {
    const out = renderExplanation(explanation(true));
    const lines = out.split("\n");
    const head = lines.findIndex((l) => l.startsWith("memory.available three ways"));
    assert.ok(head > lines.findIndex((l) => l.startsWith("SIGNAL")), out);
    assert.equal(
      lines[head],
      "memory.available three ways (evictd's additions beside the kubelet's memory.available, never used for decisions), of 2983Mi, read 2026-01-01T00:00:00Z:",
    );
    assert.match(lines[head + 1] ?? "", /^VIEW +AVAILABLE +WORKING SET +HOW$/);
    assert.match(
      lines[head + 2] ?? "",
      /^kubelet's formula +2967Mi +16Mi +capacity − \(anon \+ file − inactive_file\)$/,
    );
    assert.match(
      lines[head + 3] ?? "",
      /^kernel's MemAvailable +2806Mi +- +MemAvailable of \/proc\/meminfo \(machine-wide\)$/,
    );
    assert.match(
      lines[head + 4] ?? "",
      /^with kernel memory +2965Mi +18Mi +capacity − \(anon \+ file − inactive_file \+ kernel \+ sock\); kernel memory 2Mi$/,
    );
    assert.equal(lines[head + 5], "from the root cgroup's /sys/fs/cgroup/memory.stat and /proc/meminfo");
  });

  test("the Summary API alone: no such block", () => {
    assert.doesNotMatch(renderExplanation(explanation(false)), /three ways|MemAvailable/);
  });
});
