import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { untilAborted } from "./until-aborted.js";

/** A loop that runs until `end` or `fail` is called. */
function running(): { promise: Promise<void>; end: () => void; fail: (e: Error) => void } {
  let end = (): void => undefined;
  let fail = (_e: Error): void => undefined;
  const promise = new Promise<void>((resolve, reject) => ((end = resolve), (fail = reject)));
  return { promise, end, fail };
}

describe("untilAborted", () => {
  test("resolves when stopped, whatever the loop does after", async () => {
    const stop = new AbortController();
    const loop = running();
    const waiting = untilAborted(stop.signal, loop.promise);
    stop.abort();
    await waiting;
    loop.fail(new Error("stopped with the daemon"));
  });

  test("already stopped: resolves at once", async () => {
    await untilAborted(AbortSignal.abort(), new Promise<void>(() => undefined));
  });

  test("rejects with the loop's failure", async () => {
    const loop = running();
    const waiting = untilAborted(new AbortController().signal, loop.promise);
    loop.fail(new Error("the loop thread exited with code 1"));
    await assert.rejects(waiting, /exited with code 1/);
  });

  test("a loop that ends by itself, not stopped, is a failure", async () => {
    const loop = running();
    const waiting = untilAborted(new AbortController().signal, loop.promise);
    loop.end();
    await assert.rejects(waiting, /the eviction loop ended by itself/);
  });
});
