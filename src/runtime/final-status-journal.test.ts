/**
 * The final-status journal on real files and a real full tmpfs: space reserved at open, records
 * written into it when nothing else fits, read back latest-per-UID, torn slots ignored, and the
 * slot counter shared by two threads.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Worker } from "node:worker_threads";
import {
  decodeSlot,
  FinalStatusJournal,
  JOURNAL_FILE,
  openFinalStatusJournal,
  SLOT_BYTES,
  SLOTS,
  type FinalStatus,
} from "./final-status-journal.js";

const root = mkdtempSync(join(tmpdir(), "evictd-journal-"));
const mounts: string[] = [];
after(() => {
  for (const m of mounts) spawnSync("umount", [m]);
  rmSync(root, { recursive: true, force: true });
});
let n = 0;
const freshDir = (): string => {
  const dir = join(root, `d${++n}`);
  spawnSync("mkdir", ["-p", dir]);
  return dir;
};

/** Writes `file` until the filesystem is full. */
function fill(file: string): void {
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch {
    // ENOSPC: full
  } finally {
    closeSync(fd);
  }
}

const EVICTED: FinalStatus = {
  phase: "Failed",
  reason: "Evicted",
  message: "The node was low on resource: memory. Threshold quantity: 100Mi, available: 90Mi. ",
  conditions: [{ type: "DisruptionTarget", status: "True", reason: "TerminationByKubelet", message: "x" }],
  statusFixed: true,
};

describe("the final-status journal", () => {
  test("open reserves the whole file, creates it once, and a fresh one holds nothing", () => {
    const dir = freshDir();
    const first = openFinalStatusJournal(dir);
    assert.equal(first.created, true);
    assert.equal(statSync(join(dir, JOURNAL_FILE)).size, SLOTS * SLOT_BYTES);
    assert.equal(first.latest.size, 0);
    assert.equal(openFinalStatusJournal(dir).created, false);
  });

  test("the latest record of each UID wins, across reopenings and sequence numbers", () => {
    const dir = freshDir();
    const a = openFinalStatusJournal(dir);
    const w = new FinalStatusJournal(a.share);
    assert.equal(w.recordFinal("uid-1", "default/a", EVICTED, 1000), undefined);
    w.recordFinal("uid-2", "default/b", { ...EVICTED, reason: "OutOfpods" }, 1001);
    w.recordForgotten("uid-1", 1002);
    w.close();
    const b = openFinalStatusJournal(dir);
    assert.deepEqual([...b.latest.keys()], ["uid-2", "uid-1"], "in sequence order");
    assert.equal(b.latest.get("uid-1")?.kind, "forgotten");
    const two = b.latest.get("uid-2");
    assert.ok(two?.kind === "final");
    assert.deepEqual(two.status, { ...EVICTED, reason: "OutOfpods" });
    // Sequence numbers go on from the highest found: a new final for uid-1 wins over its deletion.
    const w2 = new FinalStatusJournal(b.share);
    w2.recordFinal("uid-1", "default/a", EVICTED, 2000);
    w2.close();
    assert.equal(openFinalStatusJournal(dir).latest.get("uid-1")?.kind, "final");
  });

  test("a torn or foreign slot reads as unreadable and is skipped; a zero slot is empty", () => {
    const dir = freshDir();
    const j = openFinalStatusJournal(dir);
    const w = new FinalStatusJournal(j.share);
    w.recordFinal("uid-1", "default/a", EVICTED, 1);
    w.recordFinal("uid-2", "default/b", EVICTED, 2);
    w.close();
    const fd = openSync(join(dir, JOURNAL_FILE), "r+");
    writeSync(fd, Buffer.from("garbage"), 0, 7, SLOT_BYTES + 60); // inside slot 1's payload
    closeSync(fd);
    const back = openFinalStatusJournal(dir);
    assert.deepEqual([...back.latest.keys()], ["uid-1"]);
    assert.equal(back.unreadable, 1);
    assert.equal(decodeSlot(Buffer.alloc(SLOT_BYTES)), undefined);
    assert.equal(decodeSlot(Buffer.alloc(SLOT_BYTES, 1)), "unreadable");
  });

  test("a message too long for a slot is cut, never refused", () => {
    const dir = freshDir();
    const j = openFinalStatusJournal(dir);
    const w = new FinalStatusJournal(j.share);
    const long = { ...EVICTED, message: "m".repeat(5000) };
    assert.equal(w.recordFinal("uid-1", "default/a", long, 1), undefined);
    w.close();
    const got = openFinalStatusJournal(dir).latest.get("uid-1");
    assert.ok(got?.kind === "final" && got.status.message?.startsWith("mmm") === true);
    assert.ok((got.status.message?.length ?? 0) < 300);
  });

  test("slots are reused in turn: the newest SLOTS records are kept", () => {
    const dir = freshDir();
    const j = openFinalStatusJournal(dir);
    const w = new FinalStatusJournal(j.share);
    for (let i = 0; i < SLOTS + 10; i++) w.recordFinal(`uid-${i}`, `default/p${i}`, EVICTED, i);
    w.close();
    const back = openFinalStatusJournal(dir);
    assert.equal(back.latest.size, SLOTS);
    assert.equal(back.latest.has("uid-9"), false);
    assert.equal(back.latest.has(`uid-${SLOTS + 9}`), true);
  });

  test("on a full tmpfs: open fails naming the file when the reservation does not fit, leaving nothing; once reserved, records are written with no byte free", () => {
    const dir = freshDir();
    const r = spawnSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    mounts.push(dir);
    // Too full to reserve: an exit-3 error naming the file, and no partial journal left.
    const filler = join(dir, "filler");
    fill(filler);
    truncateSync(filler, statSync(filler).size - 16 * 1024); // 16 KiB free: less than the reservation
    assert.throws(
      () => openFinalStatusJournal(dir),
      (e: Error & { code?: string; hint?: string }) =>
        e.code === "state-dir" && e.message.includes(join(dir, JOURNAL_FILE)) && /ENOSPC/.test(e.message),
    );
    assert.throws(() => statSync(join(dir, JOURNAL_FILE)), /ENOENT/);
    rmSync(filler);
    // Reserved, then every byte taken: the records still go in.
    const j = openFinalStatusJournal(dir);
    fill(filler);
    assert.throws(() => writeFileSync(join(dir, "more"), "x".repeat(8192)), /ENOSPC/);
    const w = new FinalStatusJournal(j.share);
    assert.equal(w.recordFinal("uid-1", "default/a", EVICTED, 1), undefined);
    w.close();
    assert.equal(openFinalStatusJournal(dir).latest.get("uid-1")?.kind, "final");
  });

  test("two threads share the slot counter: no record overwrites another", async () => {
    const dir = freshDir();
    const j = openFinalStatusJournal(dir);
    const module = new URL("./final-status-journal.js", import.meta.url).href;
    const script = `
      const { workerData, parentPort } = require("node:worker_threads");
      import(${JSON.stringify(module)}).then((m) => {
        const w = new m.FinalStatusJournal(workerData.share);
        for (let i = 0; i < 60; i++) w.recordFinal("w-" + i, "default/w" + i, workerData.status, i);
        w.close();
        parentPort.postMessage("done");
      });`;
    const worker = new Worker(script, { eval: true, workerData: { share: j.share, status: EVICTED } });
    const w = new FinalStatusJournal(j.share);
    for (let i = 0; i < 60; i++) w.recordFinal(`m-${i}`, `default/m${i}`, EVICTED, i);
    await new Promise((resolve) => worker.once("message", resolve));
    await worker.terminate();
    w.close();
    const back = openFinalStatusJournal(dir);
    assert.equal(back.latest.size, 120);
    assert.equal(back.unreadable, 0);
    assert.ok(readFileSync(join(dir, JOURNAL_FILE)).length === SLOTS * SLOT_BYTES);
  });
});
