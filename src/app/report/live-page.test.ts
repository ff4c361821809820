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

  const ranked = (
    state: "ok" | "met" | `met, grace ${number}s left`,
    actedOn: string | null = null,
  ): StatusView => ({
    ...status(false),
    lastSync: {
      time: "2026-01-01T00:01:00Z",
      ran: true,
      statsUnavailable: false,
      actedOn,
      outcome: "no action",
    },
    signals: [
      {
        signal: "memory.available",
        available: "1Gi",
        capacity: "2Gi",
        thresholds: [
          {
            id: "hard/memory.available",
            type: "hard",
            value: "100Mi",
            quantity: "100Mi",
            gracePeriod: "0s",
            state,
          },
        ],
      },
    ],
    ranking: {
      signal: "memory.available",
      next: "jobs/hog",
      order: [{ place: 1, pod: "jobs/hog", critical: false, reason: "working set 900Mi" }],
    },
  });
  const nextBox = (html: string): { cls: string; heading: string } => {
    const m = /<section class="([^"]*)" id="next"><h2>(.*?)<\/h2>/.exec(html);
    return { cls: m?.[1] ?? "", heading: (m?.[2] ?? "").replace(/<[^>]+>/g, "") };
  };

  test("no threshold met: the next pod to go is shown plainly, not as an alarm", () => {
    const html = renderLivePage(ranked("ok"), undefined);
    assert.deepEqual(nextBox(html), { cls: "next calm", heading: "Next to go if memory runs out: jobs/hog" });
    assert.match(html, /No threshold is met: nothing would be evicted now/);
    assert.match(html, /<code id="next-pod">jobs\/hog<\/code>/);
    assert.match(html, /\.next\{border:1px solid #dde;/, "the plain box has no red border");
  });

  test("a threshold met, or acted on: the red box", () => {
    for (const view of [ranked("met"), ranked("ok", "memory.available")]) {
      const html = renderLivePage(view, undefined);
      assert.deepEqual(nextBox(html), {
        cls: "next pressing",
        heading: "Next to go, for memory.available: jobs/hog",
      });
      assert.ok(!html.includes("No threshold is met"));
    }
    assert.match(renderLivePage(ranked("met"), undefined), /\.next\.pressing\{border-color:#e15759;/);
  });

  test("a soft threshold in its grace period: a warning, not yet the red box", () => {
    const html = renderLivePage(ranked("met, grace 20s left"), undefined);
    assert.equal(nextBox(html).cls, "next waiting");
    assert.equal(
      nextBox(html).heading,
      "Next to go if memory.available stays below its threshold past the grace period: jobs/hog",
    );
  });

  test("thresholds: a quantity as written, a percentage with its bytes in binary units", () => {
    const view = status(false);
    const signal = view.signals[0];
    assert.ok(signal !== undefined);
    const thresholds = [
      { id: "hard", type: "hard", value: "10%", quantity: "27055317804", gracePeriod: "0s", state: "ok" },
      { id: "soft", type: "soft", value: "500Mi", quantity: "500Mi", gracePeriod: "1m0s", state: "ok" },
    ] as const;
    const html = renderLivePage({ ...view, signals: [{ ...signal, thresholds }] }, undefined);
    const chips = [...html.matchAll(/<span class="chip off">(.*?)<\/span>/g)].map((m) => m[1]);
    assert.deepEqual(chips.slice(-2), ["hard 10% (25.2 GiB): ok", "soft 500Mi: ok"]);
  });
});
