// WatchStatsSource: what the loop's first sample waits for, from the Summary API alone or with
// memory from the kubelet's cgroups.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { NodeMemoryPort } from "./node-memory-port.js";
import { WatchStatsSource } from "./watch-stats-source.js";

const unused = (): never => assert.fail("no memory is read before the first sample");
const memory: NodeMemoryPort = {
  describe: "cgroups",
  read: unused,
  readPods: unused,
  readUsages: unused,
};
const clock = { now: () => 0, sleep: () => Promise.resolve() };
const warnings: string[] = [];
const log = {
  info: () => undefined,
  warn: (_f: unknown, m: string) => warnings.push(m),
  error: () => undefined,
};

function sourceWith(answers: (() => Promise<unknown>)[], withMemory: boolean, signal: AbortSignal) {
  const reads = { count: 0 };
  const api = {
    describe: "the API server",
    summary: () => {
      reads.count++;
      const next = answers.shift();
      return next !== undefined ? next() : Promise.resolve({});
    },
  };
  const source = new WatchStatsSource({
    api,
    ...(withMemory ? { memory } : {}),
    pods: () => [],
    intervalMs: 1000,
    clock,
    log,
    signal,
  });
  return { source, reads, startup: { log, clock, signal } };
}

test("the Summary API alone: nothing to wait for, every sample is its own read", async () => {
  const { source, reads, startup } = sourceWith([], false, new AbortController().signal);
  assert.equal(await source.ready(startup), true);
  assert.equal(reads.count, 0);
  await source.port.collect().catch(() => undefined);
  await source.port.collect().catch(() => undefined);
  assert.equal(reads.count, 2);
  // No background Summary to keep: run ends at once.
  await source.run(new AbortController().signal);
});

test("with the cgroups' memory: the Summary is read once first, waited for while the cluster does not answer", async () => {
  const transient = Object.assign(new Error("connection refused"), { transient: true });
  const { source, reads, startup } = sourceWith(
    [() => Promise.reject(transient), () => Promise.resolve({})],
    true,
    new AbortController().signal,
  );
  warnings.length = 0;
  assert.equal(await source.ready(startup), true);
  assert.equal(reads.count, 2);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] ?? "", /^reading the Summary API failed \(attempt 1\)/);
});

test("with the cgroups' memory, a watch stopped before the Summary answers is not ready", async () => {
  const stop = new AbortController();
  stop.abort();
  const { source, reads, startup } = sourceWith([], true, stop.signal);
  assert.equal(await source.ready(startup), false);
  assert.equal(reads.count, 0);
});
