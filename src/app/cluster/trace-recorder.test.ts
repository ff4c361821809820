// The trace recorder's lines: a valid JSONL scenario after every line, pod arrivals and departures
// as the replay applies them, exact integers, strictly increasing `at`.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { EXACT_INT_PREFIX } from "../../core/summary/exact-integer.js";
import type { LoopStep } from "../loop/eviction-loop.js";
import { TraceRecorder, traceStepOf } from "./trace-recorder.js";

const pod = (name: string, uid: string): Record<string, unknown> => ({
  metadata: { name, namespace: "ns", uid },
  spec: { containers: [{ name: "c" }] },
});
const START = Date.UTC(2026, 10, 21, 12, 0, 0, 250);

function record(evictedPods: "remove" | "keep"): { lines: string[]; r: TraceRecorder } {
  const lines: string[] = [];
  const r = new TraceRecorder(
    {
      start: START,
      config: { evictionHard: { "memory.available": "100Mi" } },
      flags: [],
      evictedPods,
      pods: [pod("a", "1"), pod("b", "2")],
    },
    (l) => lines.push(l),
  );
  return { lines, r };
}

describe("TraceRecorder", () => {
  test("header first, whole lines, uint64 kept, at as a Go duration", () => {
    const { lines, r } = record("remove");
    assert.equal(lines.length, 1);
    assert.deepEqual(JSON.parse(lines[0] ?? ""), {
      start: "2026-11-21T12:00:00.25Z",
      config: { evictionHard: { "memory.available": "100Mi" } },
      evictedPods: "remove",
      pods: [pod("a", "1"), pod("b", "2")],
    });
    r.step({
      now: START + 10_003,
      summary: { node: { fs: { inodesFree: `${EXACT_INT_PREFIX}18446744073709551615` } } },
      activePods: [pod("a", "1"), pod("b", "2")],
    });
    assert.ok(lines.every((l) => l.endsWith("\n") && !l.slice(0, -1).includes("\n")));
    assert.equal(
      lines[1],
      '{"at":"10.003s","summary":{"node":{"fs":{"inodesFree":18446744073709551615}}}}\n',
    );
  });

  test("arrivals and departures between samples; a re-created pod (new uid, same name) leaves and comes back", () => {
    const { lines, r } = record("remove");
    r.step({ now: START, summary: {}, activePods: [pod("a", "1"), pod("b", "2")] });
    r.step({ now: START + 10_000, summary: {}, activePods: [pod("b", "2"), pod("c", "3")] });
    r.step({ now: START + 20_000, summary: {}, activePods: [pod("b", "2-new"), pod("c", "3")] });
    const steps = lines
      .slice(1)
      .map(
        (l) =>
          JSON.parse(l) as { at: string; removePods?: string[]; addPods?: { metadata: { uid: string } }[] },
      );
    assert.deepEqual(
      steps.map((s) => [s.at, s.removePods ?? [], (s.addPods ?? []).map((p) => p.metadata.uid)]),
      [
        ["0s", [], []],
        ["10s", ["ns/a"], ["3"]],
        ["20s", ["ns/b"], ["2-new"]],
      ],
    );
  });

  test("pods the replay removes itself (evicted, kill went through) are not removed again; kill failures are written", () => {
    const { lines, r } = record("remove");
    r.step({ now: START, summary: {}, activePods: [pod("a", "1"), pod("b", "2")], evicted: ["1"] });
    r.step({ now: START + 1, summary: {}, activePods: [pod("b", "2")], killFailures: ["ns/b"] });
    const steps = lines.slice(1).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(steps[1], { at: "1ms", summary: {}, killFailures: ["ns/b"] });

    // Shadow mode (keep): an evicted pod stays active in the replay, so it is not special.
    const shadow = record("keep");
    shadow.r.step({ now: START, summary: {}, activePods: [pod("a", "1"), pod("b", "2")], evicted: ["1"] });
    shadow.r.step({ now: START + 5, summary: {}, activePods: [pod("b", "2")] });
    assert.deepEqual((JSON.parse(shadow.lines[2] ?? "") as { removePods: string[] }).removePods, ["ns/a"]);
  });

  test("at increases strictly, even for two samples in one millisecond", () => {
    const { lines, r } = record("remove");
    r.step({ now: START + 5, summary: {}, activePods: [] });
    r.step({ now: START + 5, summary: {}, activePods: [] });
    assert.deepEqual(
      lines.slice(1).map((l) => (JSON.parse(l) as { at: string }).at),
      ["5ms", "6ms"],
    );
  });
});

describe("TraceRecorder: resized pods", () => {
  /** Pod `a` as the API shows it: its spec asks `want`, the kubelet allocated `got`. */
  const resizable = (
    want: string,
    got: string,
    extra: { rv?: string; time?: string; restarts?: number } = {},
  ): Record<string, unknown> => {
    const time = extra.time ?? "2026-11-21T12:00:00Z";
    return {
      metadata: { name: "a", namespace: "ns", uid: "1", resourceVersion: extra.rv ?? "10" },
      spec: { containers: [{ name: "c", resources: { requests: { memory: want } } }] },
      status: {
        phase: "Running",
        conditions: [
          {
            type: "Ready",
            status: "True",
            lastTransitionTime: time,
          },
          ...(want !== got
            ? [
                {
                  type: "PodResizePending",
                  status: "True",
                  reason: "Deferred",
                  lastTransitionTime: time,
                },
              ]
            : []),
        ],
        containerStatuses: [
          {
            name: "c",
            restartCount: extra.restarts ?? 0,
            allocatedResources: { memory: got },
            state: { running: { startedAt: time } },
          },
        ],
      },
    };
  };

  function recordResizes(versions: readonly Record<string, unknown>[]): Record<string, unknown>[] {
    const lines: string[] = [];
    const r = new TraceRecorder(
      { start: START, config: {}, evictedPods: "remove", pods: [versions[0], pod("b", "2")] },
      (l) => lines.push(l),
    );
    versions
      .slice(1)
      .forEach((v, i) => r.step({ now: START + i * 10_000, summary: {}, activePods: [v, pod("b", "2")] }));
    return lines.slice(1).map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  test("a resize between two steps is one updatePods entry, the pod's whole new object", () => {
    const before = resizable("100Mi", "100Mi");
    const asked = resizable("1Gi", "100Mi", { rv: "11" });
    const allocated = resizable("1Gi", "1Gi", { rv: "12" });
    const steps = recordResizes([before, before, asked, asked, allocated]);
    assert.deepEqual(
      steps.map((s) => s["updatePods"]),
      [undefined, [asked], undefined, [allocated]],
    );
    assert.ok(steps.every((s) => s["addPods"] === undefined && s["removePods"] === undefined));
  });

  test("nothing when only times, versions and restart counts change", () => {
    const v1 = resizable("1Gi", "100Mi");
    const v2 = resizable("1Gi", "100Mi", { rv: "99", time: "2026-11-21T13:00:00Z", restarts: 3 });
    const steps = recordResizes([v1, v1, v2, v2]);
    assert.ok(steps.every((s) => s["updatePods"] === undefined));
  });
});

describe("traceStepOf", () => {
  const sample = { raw: { node: { nodeName: "n1" } }, summary: {} };
  const outcome = (key: string, uid: string, killed: boolean): unknown => ({
    eviction: { pod: { key, uid } },
    ...(killed ? { kill: { terminatedAt: 0, done: Promise.resolve({ ok: true, stuck: [] }) } } : {}),
  });
  // Only the fields traceStepOf reads; the rest of a LoopStep does not reach the trace.
  const step = (fields: Record<string, unknown>): LoopStep =>
    ({ now: START + 10_000, sample, evictions: [], ...fields }) as unknown as LoopStep;

  test("the sample, the one after reclaim, and which kills failed or went through", () => {
    const after = { raw: { node: { nodeName: "n1", after: true } }, summary: {} };
    const t = traceStepOf(
      step({ afterReclaim: after, evictions: [outcome("ns/a", "1", false), outcome("ns/b", "2", true)] }),
      [pod("b", "2")],
    );
    assert.deepEqual(t, {
      now: START + 10_000,
      summary: sample.raw,
      afterReclaim: after.raw,
      activePods: [pod("b", "2")],
      killFailures: ["ns/a"],
      evicted: ["2"],
    });
  });

  test("a step without a sample (stats unreadable) writes no line", () => {
    assert.equal(traceStepOf(step({ sample: undefined }), []), undefined);
  });

  test("--stats cgroups: the node's memory views, read once per line written, at the end of the line", () => {
    const reading = {
      at: START + 10_007,
      source: "the node cgroup's memory.current",
      views: {
        capacityBytes: 18446744073709551615n,
        kubelet: { usageFrom: "memory.current", workingSetBytes: 1n, availableBytes: 18446744073709551614n },
      },
    };
    let reads = 0;
    const read = (): typeof reading => {
      reads++;
      return reading;
    };
    assert.equal(traceStepOf(step({ sample: undefined }), [], read), undefined);
    assert.equal(reads, 0, "no line, no read");
    const t = traceStepOf(step({}), [], read);
    assert.equal(reads, 1);
    assert.equal(t?.nodeMemoryViews, reading);
    assert.equal(
      traceStepOf(step({}), [], () => undefined)?.nodeMemoryViews,
      undefined,
      "unreadable: left out",
    );

    const { lines, r } = record("remove");
    if (t !== undefined) r.step(t);
    r.step({ now: START + 20_000, summary: {}, activePods: [pod("a", "1"), pod("b", "2")] });
    assert.equal(
      lines[1],
      '{"at":"10s","summary":{"node":{"nodeName":"n1"}},"removePods":["ns/a","ns/b"],' +
        '"nodeMemoryViews":{"at":"10.007s","source":"the node cgroup\'s memory.current","capacityBytes":18446744073709551615,' +
        '"kubelet":{"usageFrom":"memory.current","workingSetBytes":1,"availableBytes":18446744073709551614}}}\n',
    );
    assert.ok(!(lines[2] ?? "").includes("nodeMemoryViews"), "a step without views has none");
  });
});
