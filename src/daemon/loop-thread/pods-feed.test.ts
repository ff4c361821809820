import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { LoggerPort } from "../../app/ports.js";
import { describePods, PodsFeed } from "./pods-feed.js";
import type { PodsUpdate } from "./protocol.js";

const NO_PODS: PodsUpdate = { active: [], signal: [] };

/** Two turns of the event loop: the scheduled description, then its promise's settling. */
async function turns(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A feed over `describe`, to a loop thread that keeps what it is sent (none: not up yet). */
function feed(describe: () => Promise<PodsUpdate>, threadUp = true) {
  const pushed: PodsUpdate[] = [];
  const warnings: string[] = [];
  const log: LoggerPort = {
    info: () => undefined,
    warn: (_fields, message) => warnings.push(message),
    error: () => undefined,
  };
  const pods = new PodsFeed({
    describe,
    loopThread: () => (threadUp ? { pushPods: (update) => pushed.push(update) } : undefined),
    log,
  });
  return { pods, pushed, warnings };
}

describe("PodsFeed", () => {
  test("a burst of changes is one description, sent at the next turn of the event loop", async () => {
    let described = 0;
    const { pods, pushed } = feed(() => {
      described++;
      return Promise.resolve(NO_PODS);
    });
    for (let i = 0; i < 110; i++) pods.schedule();
    assert.equal(described, 0, "not described while the burst goes on");
    await turns();
    assert.equal(described, 1);
    assert.deepEqual(pushed, [NO_PODS]);
    pods.schedule();
    await turns();
    assert.equal(pushed.length, 2, "a later change is sent again");
  });

  test("before the loop thread is up nothing is described (its start carries the pods)", async () => {
    let described = 0;
    const { pods } = feed(() => {
      described++;
      return Promise.resolve(NO_PODS);
    }, false);
    pods.schedule();
    await turns();
    assert.equal(described, 0);
  });

  test("pods that cannot be described: a warning, and the next change is tried again", async () => {
    let fail = true;
    const { pods, pushed, warnings } = feed(() =>
      fail ? Promise.reject(new Error("EMFILE")) : Promise.resolve(NO_PODS),
    );
    pods.schedule();
    await turns();
    assert.deepEqual(warnings, ["cannot describe the pods to the loop thread"]);
    assert.equal(pushed.length, 0);
    fail = false;
    pods.schedule();
    await turns();
    assert.equal(pushed.length, 1);
  });
});

describe("describePods", () => {
  const runtime = { statsTargets: () => Promise.resolve([]), signalTargets: () => [] };
  const noPods = { activePods: () => [] };

  test("stats targets in cgroups only: without, the loop thread finds the processes itself", async () => {
    assert.deepEqual(await describePods(runtime, noPods, true), { active: [], targets: [], signal: [] });
    assert.deepEqual(await describePods(runtime, noPods, false), NO_PODS);
  });
});
