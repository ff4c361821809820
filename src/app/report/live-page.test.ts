/** The live page's line under the signals: memory.available three ways, as /status carries them. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { nodeMemoryViewsView } from "../node-view/node-memory-views-view.js";
import type { StatusView } from "../node-view/status-view.js";
import { renderLivePage } from "./live-page.js";

const Mi = 1024n * 1024n;

function status(withViews: boolean): StatusView {
  return {
    node: {
      name: "node-a",
      listen: "127.0.0.1:9090",
      startedAt: "2026-01-01T00:00:00Z",
      now: "2026-01-01T00:01:00Z",
    },
    capabilities: [],
    conditions: [{ type: "MemoryPressure", status: "False" }],
    lastSync: null,
    signals: [
      {
        signal: "memory.available",
        available: "1Gi",
        capacity: "2Gi",
        thresholds: [],
        ...(withViews
          ? {
              evictdAdditions: nodeMemoryViewsView({
                at: Date.UTC(2026, 0, 1, 0, 1),
                source: "evictd's node cgroup",
                views: {
                  capacityBytes: 2048n * Mi,
                  kubelet: {
                    usageFrom: "memory.current",
                    workingSetBytes: 1024n * Mi,
                    availableBytes: 1024n * Mi,
                  },
                  kernelAvailable: { availableBytes: 900n * Mi },
                  withKernelMemory: {
                    kernelMemoryBytes: 12n * Mi,
                    kernelMemoryFrom: "kernel + sock",
                    alreadyInKubeletFigure: true,
                    workingSetBytes: 1024n * Mi,
                    availableBytes: 1024n * Mi,
                  },
                },
              }),
            }
          : {}),
      },
    ],
    pods: [],
    ranking: null,
    recentEvictions: [],
    evictionCounts: {},
    manifestErrors: [],
  };
}

describe("renderLivePage", () => {
  test("memory.available three ways under the signals, labelled as evictd's additions", () => {
    const html = renderLivePage(status(true), undefined);
    const line = /<p class="dim" id="memory-views">(.*)<\/p>/.exec(html)?.[1];
    assert.equal(
      line,
      "memory.available three ways (evictd&#39;s additions beside the kubelet&#39;s memory.available, never used for decisions), read 2026-01-01T00:01:00Z: kubelet's formula 1Gi · kernel's MemAvailable 900Mi · with kernel memory 1Gi (12Mi of kernel memory, already in the kubelet's figure)",
    );
    assert.ok(html.indexOf('id="signals"') < html.indexOf('id="memory-views"'));
  });

  test("no reading, no line", () => {
    assert.ok(!renderLivePage(status(false), undefined).includes("memory-views"));
  });

  test("every pod's working set, read by the last sample or as of an earlier read", () => {
    const pods = [
      {
        pod: "jobs/scratch-0",
        phase: "Running",
        memory: {
          workingSet: "15Mi",
          workingSetBytes: 15n * Mi,
          time: "2026-01-01T00:00:59Z",
          fromLastRead: true,
        },
      },
      {
        pod: "jobs/scratch-1",
        phase: "Running",
        memory: {
          workingSet: "48Mi",
          workingSetBytes: 48n * Mi,
          time: "2026-01-01T00:00:49Z",
          fromLastRead: false,
          olderThanLastReadMs: 10_000,
          asOf: "as of 2026-01-01T00:00:49Z (10s before the last read)",
        },
      },
      { pod: "jobs/new", phase: "Pending" },
    ];
    const html = renderLivePage({ ...status(false), pods }, undefined);
    const table = /<table class="pods" id="pod-memory">(.*?)<\/table>/s.exec(html)?.[1] ?? "";
    const rows = [...table.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) =>
      [...(m[1] ?? "").matchAll(/<t[dh][^>]*>(.*?)<\/t[dh]>/g)].map((c) =>
        (c[1] ?? "").replace(/<[^>]+>/g, ""),
      ),
    );
    assert.deepEqual(rows, [
      ["pod", "phase", "working set", "read"],
      ["jobs/scratch-0", "Running", "15Mi", "read 2026-01-01T00:00:59Z"],
      ["jobs/scratch-1", "Running", "48Mi", "as of 2026-01-01T00:00:49Z (10s before the last read)"],
      ["jobs/new", "Pending", "–", "not read yet"],
    ]);
    assert.ok(!renderLivePage(status(false), undefined).includes("pod-memory"), "no pods, no table");
  });
});
