import assert from "node:assert/strict";
import { test } from "node:test";
import type { ClockPort, LoggerPort } from "../ports.js";
import {
  REHEARSAL_DELAY_MS,
  REHEARSAL_READS,
  REHEARSAL_SPACING_MS,
  WakeRehearsals,
} from "./wake-rehearsals.js";

/** A clock whose sleeps wait for the test to release them, in order. */
function steppedClock(): { clock: ClockPort; sleeps: number[]; release: () => Promise<void> } {
  const sleeps: number[] = [];
  const waiting: (() => void)[] = [];
  const clock: ClockPort = {
    now: () => 0,
    sleep: (ms, signal) =>
      new Promise((resolve) => {
        sleeps.push(ms);
        waiting.push(resolve);
        signal?.addEventListener("abort", () => resolve(), { once: true });
      }),
  };
  const release = async (): Promise<void> => {
    waiting.shift()?.();
    // Let the round run up to its next sleep.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { clock, sleeps, release };
}

const quiet: LoggerPort = { info: () => undefined, warn: () => undefined, error: () => undefined };

test("a burst of pokes is one round: a settling delay, then the rehearsals spread out, each followed by afterEach", async () => {
  const { clock, sleeps, release } = steppedClock();
  const events: string[] = [];
  const stop = new AbortController();
  const r = new WakeRehearsals({
    rehearse: () => {
      events.push("rehearse");
      return Promise.resolve();
    },
    afterEach: () => events.push("after"),
    clock,
    log: quiet,
    signal: stop.signal,
  });
  r.poke();
  r.poke();
  r.poke();
  assert.deepEqual(sleeps, [REHEARSAL_DELAY_MS], "one round scheduled for the burst");
  assert.deepEqual(events, [], "nothing before the changes settle");
  for (let i = 0; i <= REHEARSAL_READS; i++) await release();
  assert.equal(events.filter((e) => e === "rehearse").length, REHEARSAL_READS);
  assert.deepEqual(events.slice(0, 4), ["rehearse", "after", "rehearse", "after"]);
  assert.deepEqual(sleeps, [
    REHEARSAL_DELAY_MS,
    ...Array<number>(REHEARSAL_READS).fill(REHEARSAL_SPACING_MS),
  ]);
  stop.abort();
});

test("once stopped, no rehearsal runs, and a failing one is logged, not thrown", async () => {
  const { clock, release } = steppedClock();
  const warnings: string[] = [];
  const stop = new AbortController();
  let rehearsed = 0;
  const r = new WakeRehearsals({
    rehearse: () => {
      rehearsed++;
      return Promise.reject(new Error("cgroup gone"));
    },
    clock,
    log: { ...quiet, warn: (f, m) => warnings.push(`${m}: ${String((f as { err?: string }).err)}`) },
    signal: stop.signal,
  });
  r.poke();
  await release();
  assert.equal(rehearsed, 1);
  assert.deepEqual(warnings, ["cannot prepare the stats of new pods: Error: cgroup gone"]);
  stop.abort();
  r.poke();
  await release();
  assert.equal(rehearsed, 1, "nothing after the stop");
});
