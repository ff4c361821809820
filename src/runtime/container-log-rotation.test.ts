/**
 * Container log rotation on real files: a real writer process appending to its log through the
 * `O_APPEND` descriptor it keeps (as a container does) while the log is rotated under it, files
 * left by an interrupted rotation, names within one second, a full disk (a real tmpfs), and
 * container GC removing the rotated files with the live one.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { after, before, describe, test } from "node:test";
import type { ClockPort, LoggerPort } from "../app/ports.js";
import type { ContainerLogPolicy } from "../core/config/container-log-settings.js";
import { collectDeadContainers } from "./container-gc.js";
import { rotatedLogs } from "./container-log-files.js";
import { ContainerLogMonitor } from "./container-log-monitor.js";
import { rotateContainerLog } from "./container-log-rotation.js";
import { newPodRecord } from "./pod-record.js";
import { parseManifestText } from "./read-manifest-file.js";

const quiet: LoggerPort = { info() {}, warn() {}, error() {} };

/** The log's files oldest first (rotated, compressed ones unpacked, then the live one), as text. */
async function history(live: string): Promise<string> {
  const parts: string[] = [];
  for (const r of await rotatedLogs(live)) {
    assert.ok(!r.temporary, `no temporary file left: ${r.path}`);
    const bytes = readFileSync(r.path);
    parts.push((r.compressed ? gunzipSync(bytes) : bytes).toString("utf8"));
  }
  parts.push(readFileSync(live, "utf8"));
  return parts.join("");
}

/** The files of `live` in its directory. */
function filesOf(dir: string, live: string): string[] {
  return readdirSync(dir)
    .filter((n) => n === live || n.startsWith(`${live}.`))
    .sort();
}

/** A process writing numbered lines to `file` through a descriptor opened O_APPEND, as a container's stdout. */
function writer(file: string, lines: number, lineBytes: number, pauseEvery: number): ChildProcess {
  const fd = openSync(file, "a", 0o644);
  const pad = "x".repeat(lineBytes - 14);
  // perl: one write(2) per line, unbuffered, a short pause every `pauseEvery` lines.
  const script = `$| = 1; for my $i (1 .. ${lines}) { printf "line %08d %s\\n", $i, "${pad}"; select(undef, undef, undef, 0.002) if $i % ${pauseEvery} == 0 }`;
  try {
    return spawn("/usr/bin/perl", ["-e", script], { stdio: ["ignore", fd, "inherit"] });
  } finally {
    closeSync(fd);
  }
}

describe("rotateContainerLog", () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), "evictd-container-log-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const policy = (maxBytes: number, maxFiles: number): ContainerLogPolicy => ({
    maxBytes,
    maxFiles,
    monitorIntervalMs: 50,
  });

  test("a log below containerLogMaxSize, an empty one, or rotation off: nothing is touched", async () => {
    const live = join(dir, "small.log");
    writeFileSync(live, "hello\n");
    assert.deepEqual(await rotateContainerLog(live, policy(1024, 3), Date.now()), { rotated: false });
    assert.deepEqual(await rotateContainerLog(live, policy(-1, 3), Date.now()), { rotated: false });
    writeFileSync(live, "");
    assert.deepEqual(await rotateContainerLog(live, policy(0, 3), Date.now()), { rotated: false });
    assert.deepEqual(await rotateContainerLog(join(dir, "missing.log"), policy(0, 3), Date.now()), {
      rotated: false,
    });
    assert.deepEqual(filesOf(dir, "small.log"), ["small.log"]);
  });

  test("maxFiles in all, the newest rotated file plain, older ones gzip, names unique within one second", async () => {
    const live = join(dir, "c.log");
    const at = Date.UTC(2026, 0, 2, 3, 4, 5);
    for (let i = 1; i <= 5; i++) {
      writeFileSync(live, `round ${i}\n`.repeat(100), { flag: "a" });
      const r = await rotateContainerLog(live, policy(100, 3), at);
      assert.ok(r.rotated);
      assert.equal(statSync(live).size, 0);
    }
    assert.deepEqual(filesOf(dir, "c.log"), [
      "c.log",
      "c.log.20260102-030405-3.gz",
      "c.log.20260102-030405-4",
    ]);
    assert.equal(await history(live), `round 4\n`.repeat(100) + `round 5\n`.repeat(100));
  });

  test("what an interrupted rotation left (temporary files, a copy already compressed) is removed", async () => {
    const live = join(dir, "d.log");
    writeFileSync(`${live}.20260101-000000.gz`, gzipSync("old\n"));
    writeFileSync(`${live}.20260101-000000`, "old\n"); // compressed, not yet removed
    writeFileSync(`${live}.20260101-000001.tmp`, "half a copy");
    writeFileSync(`${live}.20260101-000002`, "newer\n");
    writeFileSync(`${live}.20260101-000002.tmp`, "half a compression");
    writeFileSync(live, "now\n".repeat(50));
    const r = await rotateContainerLog(live, policy(10, 5), Date.UTC(2026, 0, 1, 0, 0, 3));
    assert.ok(r.rotated);
    assert.deepEqual(filesOf(dir, "d.log"), [
      "d.log",
      "d.log.20260101-000000.gz",
      "d.log.20260101-000002.gz",
      "d.log.20260101-000003",
    ]);
    assert.equal(await history(live), "old\nnewer\n" + "now\n".repeat(50));
  });

  test("a writer keeping its O_APPEND descriptor: bounded files, every byte in order, the newest lines kept", async () => {
    const live = join(dir, "busy.log");
    const maxBytes = 64 * 1024;
    const p = policy(maxBytes, 3);
    const lines = 20_000;
    const child = writer(live, lines, 100, 50);
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    let finished = false;
    void exited.then(() => (finished = true));
    const clock: ClockPort = {
      now: () => Date.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    };
    const monitor = new ContainerLogMonitor({ policy: p, logs: () => [live], clock, log: quiet });
    // Every rotation has a stem of its own, seen before a later look removes its file.
    const stems = new Set<string>();
    while (!finished) {
      await monitor.rotateAll();
      const files = filesOf(dir, "busy.log");
      assert.ok(files.length <= 3, `at most 3 files: ${files.join(", ")}`);
      for (const r of await rotatedLogs(live)) stems.add(r.stem);
      await clock.sleep(5);
    }
    const rotations = stems.size;
    assert.equal(await exited, 0);
    assert.ok(rotations > 3, `rotated several times while written to (${rotations})`);
    const text = await history(live);
    // The last line written is there, and what is kept ends with it.
    assert.ok(text.endsWith(`line ${String(lines).padStart(8, "0")} ${"x".repeat(86)}\n`));
    // Kept lines are in order, whole but at the instants of the truncations (one each at most).
    const numbers = text
      .split("\n")
      .filter((l) => /^line \d{8} x{86}$/.test(l))
      .map((l) => Number(l.slice(5, 13)));
    for (let i = 1; i < numbers.length; i++) assert.ok((numbers[i] ?? 0) > (numbers[i - 1] ?? 0), "in order");
    const gaps = numbers.filter((n, i) => i > 0 && n !== (numbers[i - 1] ?? 0) + 1).length;
    assert.ok(
      gaps <= rotations,
      `lines are lost only at a truncation (${gaps} gaps, ${rotations} rotations)`,
    );
    console.log(`${rotations} rotations under a writer, ${gaps} of them lost lines`);
    // The live log holds what was written since the last look (no truncation after the writer ended).
    await monitor.rotateAll();
    assert.ok(statSync(live).size < maxBytes);
  });
});

const tmpfsSkip =
  process.platform !== "linux"
    ? "not Linux"
    : process.getuid?.() !== 0
      ? "not root: cannot mount a tmpfs"
      : false;

describe("rotateContainerLog on a full disk", { skip: tmpfsSkip }, () => {
  let mount: string;
  before(() => {
    mount = mkdtempSync(join(tmpdir(), "evictd-container-log-full-"));
    const r = spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mount], { encoding: "utf8" });
    assert.equal(r.status, 0, `mount: ${r.stderr}`);
  });
  after(() => {
    spawnSync("umount", [mount]);
    rmSync(mount, { recursive: true, force: true });
  });

  test("no room for the copy: the rotation fails, the live log is as it was, nothing half-written stays", async () => {
    const live = join(mount, "c.log");
    const content = "y".repeat(150 * 1024);
    writeFileSync(live, content);
    await assert.rejects(
      rotateContainerLog(live, { maxBytes: 1024, maxFiles: 5, monitorIntervalMs: 3000 }, Date.now()),
      /ENOSPC/,
    );
    assert.equal(readFileSync(live, "utf8"), content);
    assert.deepEqual(readdirSync(mount), ["c.log"]);
  });
});

describe("container GC", () => {
  let stateDir: string;
  before(() => (stateDir = mkdtempSync(join(tmpdir(), "evictd-container-gc-"))));
  after(() => rmSync(stateDir, { recursive: true, force: true }));

  test("a terminated pod's rotated, compressed and half-written logs go with its live log", async () => {
    const read = parseManifestText(
      'apiVersion: v1\nkind: Pod\nmetadata: { name: done, uid: 00000000-0000-4000-8000-00000000gc01 }\nspec:\n  containers: [{ name: main, command: ["true"] }]\n',
      "done.yaml",
    );
    const pod = read.pods[0];
    assert.ok(pod !== undefined, JSON.stringify(read.issues));
    const record = newPodRecord(pod, stateDir, "BestEffort");
    record.final = true;
    record.phase = "Succeeded";
    const live = record.paths.log("main");
    const logs = record.paths.logsDir;
    spawnSync("mkdir", ["-p", logs, record.paths.rootfs("main")]);
    for (const name of [
      "main.log",
      "main.log.20260101-000000.gz",
      "main.log.20260101-000001",
      "main.log.20260101-000002.tmp",
    ])
      writeFileSync(join(logs, name), "output\n");
    writeFileSync(join(logs, "other.log"), "another container's\n");
    const report = await collectDeadContainers([record], () => Promise.resolve(false));
    assert.ok(report.removed.includes(live));
    assert.deepEqual(readdirSync(logs), ["other.log"]);
    assert.ok(!existsSync(record.paths.containerDir("main")));
  });
});
