import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import { SMALL_YOUNG_GENERATION_BYTES, YoungGenerationTrim } from "./young-generation-trim.js";

const MI = 1024 * 1024;

/**
 * In a thread of its own (a fresh V8 isolate): many objects
 * kept alive through young collections, as while a daemon starts its pods, then let go; after a
 * quiet spell the trim is asked to give the young generation back. Reports the young generation's
 * size at each stage and what the trim did.
 */
const WORKER = `
const { parentPort } = require("node:worker_threads");
import(${JSON.stringify(new URL("./young-generation-trim.js", import.meta.url).href)}).then(async ({ YoungGenerationTrim, youngGenerationBytes: young }) => {
  const trim = new YoungGenerationTrim();
  const atStart = young();
  let kept = [];
  for (let i = 0; i < 3e6; i++) kept.push({ i, name: "pod-" + (i % 1000) });
  const grown = young();
  kept = undefined;
  // V8 shrinks at a collection made while the thread allocates slowly (it measures over seconds).
  const tries = [];
  for (let i = 0; i < 30 && young() > ${SMALL_YOUNG_GENERATION_BYTES}; i++) {
    await new Promise((r) => setTimeout(r, 500));
    tries.push({ before: young(), shrunk: trim.trimNow(), after: young() });
  }
  const quietYoung = young();
  // Already small: nothing to do, no collection.
  const collectionsBefore = trim.counts.collections;
  const again = trim.trimNow();
  parentPort.postMessage({ atStart, grown, tries, quietYoung, again, extraCollections: trim.counts.collections - collectionsBefore });
});
`;

interface WorkerReport {
  readonly atStart: number;
  readonly grown: number;
  readonly tries: readonly { readonly before: number; readonly shrunk: boolean; readonly after: number }[];
  readonly quietYoung: number;
  readonly again: boolean;
  readonly extraCollections: number;
}

function runWorker(): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true });
    worker.once("message", (m: WorkerReport) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once("error", reject);
  });
}

describe("YoungGenerationTrim", () => {
  test("gives back a young generation grown by a busy spell, once the thread is quiet (real V8)", async () => {
    const r = await runWorker();
    assert.ok(r.grown > SMALL_YOUNG_GENERATION_BYTES, `the busy spell grew it: ${r.grown / MI} MiB`);
    assert.ok(r.grown >= r.atStart);
    const shrinking = r.tries.find((t) => t.shrunk);
    assert.ok(shrinking !== undefined, `a trim shrank it: ${JSON.stringify(r.tries)}`);
    assert.ok(shrinking.after < shrinking.before);
    // Each try that shrank it reports so; a try V8 refused left it as it was.
    for (const t of r.tries) assert.equal(t.shrunk, t.after < t.before);
    assert.ok(r.quietYoung <= SMALL_YOUNG_GENERATION_BYTES, `back to its start: ${r.quietYoung / MI} MiB`);
    assert.equal(r.again, false);
    assert.equal(r.extraCollections, 0, "a small young generation is not collected");
  });

  test("backs off while V8 keeps the young generation (the thread is still busy)", async () => {
    let capacity = 16 * MI;
    const collectedAt: number[] = [];
    let call = 0;
    const trim = new YoungGenerationTrim({
      capacity: () => capacity,
      gc: () => {
        collectedAt.push(call);
      },
    });
    for (call = 1; call <= 60; call++) {
      trim.afterWork();
      await nextTurn();
    }
    // Tries 2, 4, 8 calls apart (the back-off doubles), then every 16 calls.
    assert.deepEqual(collectedAt, [1, 3, 7, 15, 31, 47]);
    // Once V8 shrinks it, the trim stops collecting.
    const before = collectedAt.length;
    const trimmed = new YoungGenerationTrim({
      capacity: () => capacity,
      gc: () => {
        capacity = SMALL_YOUNG_GENERATION_BYTES;
      },
    });
    for (let i = 0; i < 10; i++) {
      trimmed.afterWork();
      await nextTurn();
    }
    assert.deepEqual(trimmed.counts, { collections: 1, shrunk: 1 });
    assert.equal(collectedAt.length, before);
  });

  test("collects once per idle moment, however many pieces of work came before it", async () => {
    let collections = 0;
    const trim = new YoungGenerationTrim({ capacity: () => 8 * MI, gc: () => collections++ });
    // Three pieces of work before the thread is idle: one collection scheduled.
    trim.afterWork();
    trim.afterWork();
    trim.afterWork();
    await nextTurn();
    assert.equal(collections, 1);
  });
});
