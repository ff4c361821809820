// What `evictd run` shows over HTTP: the Summary stays on the loop thread until a request wants it,
// and is asked for at most once per step however many requests come.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { LoopStepData } from "../app/loop/loop-step-data.js";
import { buildEvictionConfig } from "../core/config/build-eviction-config.js";
import { INITIAL_STATE } from "../core/engine/types.js";
import { DaemonStatusView, SUMMARY_WAIT_MS } from "./daemon-status-view.js";
import type { LastSummary } from "./loop-thread/protocol.js";

const Mi = 1024 * 1024;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function rawSummary(availableMi: number): unknown {
  return {
    node: {
      nodeName: "n",
      memory: {
        time: new Date(T0).toISOString(),
        availableBytes: availableMi * Mi,
        workingSetBytes: 100 * Mi,
      },
    },
    pods: [],
  };
}

function step(seq: number, conditions: LoopStepData["state"]["nodeConditions"] = []): LoopStepData {
  const now = T0 + seq * 1000;
  return {
    wake: { reason: "housekeeping", at: now, notification: false },
    now,
    report: {
      now,
      ran: true,
      statsUnavailable: false,
      observations: new Map(),
      thresholdsMet: [],
      awaitingGrace: [],
      staleStats: [],
      conditions,
      evictions: [],
      refused: [],
      statsAge: [],
      updateNotifiers: false,
      outcome: "no thresholds met",
    },
    evictions: [],
    state: { ...INITIAL_STATE, nodeConditions: conditions },
    decidedAt: now,
  };
}

/** A loop thread that answers each ask with its current Summary once `answer` is called, or never. */
class FakeLoopThread {
  readonly asks: number[] = [];
  current: LastSummary | undefined;
  readonly #pending: ((summary: LastSummary | undefined) => void)[] = [];

  summary(timeoutMs: number): Promise<LastSummary | undefined> {
    this.asks.push(timeoutMs);
    return new Promise((resolve) => this.#pending.push(resolve));
  }

  /** Answers every pending ask (undefined: as when the thread did not answer in time). */
  answer(summary: LastSummary | undefined = this.current): void {
    for (const resolve of this.#pending.splice(0)) resolve(summary);
  }
}

function view(thread: FakeLoopThread | undefined): DaemonStatusView {
  const config = buildEvictionConfig({
    config: { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration" },
  });
  assert.ok(config.ok);
  return new DaemonStatusView({
    node: { name: "n", listen: { host: "127.0.0.1", port: 0 }, eviction: config.config },
    startedAt: T0,
    capabilities: ["polling"],
    layout: "single",
    pods: { statusViews: () => [], activePods: () => [] },
    journal: { evictions: [], evictionCounts: {} },
    clock: { now: () => T0 + 60_000 },
    loopThread: () => thread,
  });
}

/** Lets every request made so far reach the loop thread (or take its answer). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("DaemonStatusView", () => {
  test("asks the loop thread for the Summary once per step, however many requests come", async () => {
    const thread = new FakeLoopThread();
    const status = view(thread);
    assert.equal(await status.lastSummary(), undefined, "no step yet: nothing to ask for");
    assert.equal(thread.asks.length, 0);

    status.stepTaken(step(1), 1);
    thread.current = { seq: 1, raw: rawSummary(900) };
    const first = status.lastSummary();
    const second = status.lastSummary();
    const snapshot = status.snapshot();
    await settle();
    assert.deepEqual(thread.asks, [SUMMARY_WAIT_MS], "requests that come while it answers share one ask");
    thread.answer();
    assert.equal(await first, thread.current);
    assert.equal(await second, thread.current);
    assert.deepEqual((await snapshot).summary, rawSummary(900));
    assert.equal(await status.lastSummary(), thread.current, "the same step: kept, not asked again");
    assert.equal(thread.asks.length, 1);

    status.stepTaken(step(2), 2);
    thread.current = { seq: 2, raw: rawSummary(800) };
    const next = status.lastSummary();
    await settle();
    thread.answer();
    assert.equal((await next)?.seq, 2);
    assert.equal(thread.asks.length, 2, "a new step: asked again");
  });

  test("a thread that does not answer in time: the Summary before is shown, the next request asks again", async () => {
    const thread = new FakeLoopThread();
    const status = view(thread);
    status.stepTaken(step(1), 1);
    const kept: LastSummary = { seq: 1, raw: rawSummary(900) };
    const first = status.lastSummary();
    await settle();
    thread.answer(kept);
    await first;

    status.stepTaken(step(2), 2);
    const late = status.lastSummary();
    await settle();
    thread.answer(undefined);
    assert.equal(await late, kept);
    const again = status.lastSummary();
    await settle();
    assert.equal(thread.asks.length, 3);
    thread.answer({ seq: 2, raw: rawSummary(800) });
    assert.equal((await again)?.seq, 2);
  });

  test("before the loop thread is up nothing is asked; a snapshot has no Summary and no ranking", async () => {
    const status = view(undefined);
    status.stepTaken(step(1), 1);
    const snapshot = await status.snapshot();
    assert.equal(snapshot.summary, undefined);
    assert.equal(snapshot.ranking, undefined);
  });

  test("a snapshot: the last step's conditions and report, the Summary decoded for the ranking, the manifest problems", async () => {
    const thread = new FakeLoopThread();
    const status = view(thread);
    assert.deepEqual(status.conditions(), [], "no step yet: no conditions");
    status.stepTaken(step(1, ["MemoryPressure"]), 1);
    status.manifestProblems([{ file: "broken.yaml", errors: ["not a pod"], warnings: [] }]);
    thread.current = { seq: 1, raw: rawSummary(900) };
    const pending = status.snapshot();
    await settle();
    thread.answer();
    const snapshot = await pending;
    assert.deepEqual(status.conditions(), ["MemoryPressure"]);
    assert.deepEqual(snapshot.conditions, ["MemoryPressure"]);
    assert.equal(snapshot.lastReport?.now, T0 + 1000);
    assert.equal(snapshot.now, T0 + 60_000);
    assert.deepEqual(snapshot.capabilities, ["polling"]);
    assert.equal(snapshot.ranking?.signal, "memory.available", "the decoded Summary is ranked on");
    assert.deepEqual(
      snapshot.manifestErrors?.map((p) => p.file),
      ["broken.yaml"],
    );
  });
});
