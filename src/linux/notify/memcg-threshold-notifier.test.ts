/** Tests of the cgroup v1 threshold notifier: live memcg events on this machine (the formula is core/engine/memory-threshold-arming). */
import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { once } from "node:events";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import { AdapterError } from "../../errors.js";
import { FdPoller } from "./fd-poller.js";
import { MemcgThresholdNotifier } from "./memcg-threshold-notifier.js";
import {
  makeScratchCgroup,
  medianMax,
  openFdCount,
  ownMemoryCgroupV1,
  removeCgroup,
  waitFor,
  withTimeout,
  otherControllerCgroupV1,
} from "./testing/notify-test-support.js";

const Mi = 1024n * 1024n;
const Gi = 1024n * Mi;

describe("MemcgThresholdNotifier arming errors", () => {
  test("a directory that is not a cgroup v1 memory cgroup is refused with a hint, leaking nothing", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "evictd-memcg-"));
    try {
      // Look-alike files: without the statfs check the write would land in a regular file and never fire.
      fs.writeFileSync(path.join(dir, "memory.usage_in_bytes"), "0\n");
      fs.writeFileSync(path.join(dir, "cgroup.event_control"), "");
      const fds = openFdCount();
      const notifier = new MemcgThresholdNotifier({ cgroupDir: dir, thresholdBytes: Gi });
      assert.throws(
        () => notifier.start(() => {}),
        (e: unknown) => e instanceof AdapterError && e.code === "memcg-unavailable" && e.hint !== undefined,
      );
      assert.equal(fs.readFileSync(path.join(dir, "cgroup.event_control"), "utf8"), "");
      assert.equal(openFdCount(), fds);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a missing directory is memcg-unavailable", () => {
    const notifier = new MemcgThresholdNotifier({ cgroupDir: "/nonexistent/evictd/memory" });
    assert.throws(
      () => notifier.start(() => {}),
      (e: unknown) => e instanceof AdapterError && e.code === "memcg-unavailable",
    );
  });

  const otherV1 = otherControllerCgroupV1();
  test(
    "a cgroup v1 directory without the memory controller is memcg-unavailable, naming the missing file",
    { skip: otherV1 === undefined ? "no cgroup v1 pids hierarchy here" : false },
    () => {
      assert.ok(otherV1 !== undefined);
      const fds = openFdCount();
      const notifier = new MemcgThresholdNotifier({ cgroupDir: otherV1, thresholdBytes: Gi });
      assert.throws(
        () => notifier.start(() => {}),
        (e: unknown) =>
          e instanceof AdapterError &&
          e.code === "memcg-unavailable" &&
          e.message ===
            `memcg-threshold:${otherV1}: cannot open ${path.join(otherV1, "memory.usage_in_bytes")} (ENOENT)` &&
          e.hint ===
            "memory threshold notifications need a cgroup v1 memory controller; on cgroup v2 use PSI triggers",
      );
      assert.equal(openFdCount(), fds, "the eventfd is closed again");
    },
  );

  test("rearm before start is refused", async () => {
    const notifier = new MemcgThresholdNotifier({ cgroupDir: "/sys/fs/cgroup/memory" });
    await assert.rejects(
      notifier.rearm(Gi),
      (e: unknown) => e instanceof AdapterError && e.code === "not-started",
    );
  });
});

const ownCgroup = ownMemoryCgroupV1();
const scratch =
  ownCgroup === undefined
    ? { skip: "no cgroup v1 memory controller on this machine" }
    : makeScratchCgroup(ownCgroup, "evictd-memcg-test");
if ("skip" in scratch) console.log(`# skipping live memcg tests: ${scratch.skip}`);

/**
 * A node child moved into `cgroupDir` before it runs anything, that prints `ready`, then on `go`
 * touches 64 MiB in 1 MiB chunks and prints `<start ns> <end ns> <usage bytes>` after each one
 * (hrtime is CLOCK_MONOTONIC, comparable across processes), then `done`. It holds the memory
 * until its stdin closes.
 */
function spawnAllocator(cgroupDir: string): ChildProcessWithoutNullStreams {
  const script = `
    const fs = require("fs");
    const usagePath = process.argv[1];
    const held = [];
    process.stdout.write("ready\\n");
    process.stdin.once("data", () => {
      const lines = [];
      for (let i = 0; i < 64; i++) {
        const start = process.hrtime.bigint();
        const chunk = Buffer.allocUnsafe(1 << 20);
        chunk.fill(1);
        held.push(chunk);
        const end = process.hrtime.bigint();
        lines.push(start + " " + end + " " + fs.readFileSync(usagePath, "utf8").trim());
      }
      process.stdout.write(lines.join("\\n") + "\\ndone\\n");
    });
    process.stdin.on("end", () => process.exit(0));`;
  return spawn(
    "sh",
    [
      "-c",
      'echo $$ > "$2" && exec "$0" -e "$1" "$3"',
      process.execPath,
      script,
      path.join(cgroupDir, "cgroup.procs"),
      path.join(cgroupDir, "memory.usage_in_bytes"),
    ],
    {
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
}

/** Collects a child's stdout lines and resolves when one equals `marker`. */
function lineReader(child: ChildProcessWithoutNullStreams): {
  lines: string[];
  until(marker: string): Promise<void>;
} {
  const lines: string[] = [];
  let pending = "";
  const waiters: { marker: string; resolve: () => void }[] = [];
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (data: string) => {
    pending += data;
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    for (const line of parts) {
      lines.push(line);
      for (const w of waiters.filter((w) => w.marker === line)) w.resolve();
    }
  });
  return {
    lines,
    until: (marker) =>
      lines.includes(marker)
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            waiters.push({ marker, resolve });
            child.once("exit", (code) =>
              reject(new Error(`child exited (${code}) before "${marker}"; stderr follows`)),
            );
          }),
  };
}

function readUsage(cgroupDir: string): bigint {
  return BigInt(fs.readFileSync(path.join(cgroupDir, "memory.usage_in_bytes"), "utf8").trim());
}

describe(
  "MemcgThresholdNotifier on a live memory cgroup",
  { skip: "skip" in scratch ? scratch.skip : false },
  () => {
    const cgroupDir = "dir" in scratch ? scratch.dir : "";
    const children = new Set<ChildProcessWithoutNullStreams>();
    const poller = new FdPoller();
    // A started notifier keeps the process alive (like a listening server): stop them even if a test fails.
    const notifiers: MemcgThresholdNotifier[] = [];
    const make = (
      options: Omit<ConstructorParameters<typeof MemcgThresholdNotifier>[0], "cgroupDir" | "poller">,
    ): MemcgThresholdNotifier => {
      const notifier = new MemcgThresholdNotifier({ ...options, cgroupDir, poller });
      notifiers.push(notifier);
      return notifier;
    };
    let fdsBefore = 0;

    before(() => {
      fdsBefore = openFdCount();
    });

    after(async () => {
      await Promise.all(notifiers.map((n) => n.stop()));
      const running = [...children].filter((c) => c.exitCode === null && c.signalCode === null);
      const closed = running.map((c) => once(c, "close"));
      for (const child of running) child.kill("SIGKILL");
      await Promise.all(closed);
      await removeCgroup(cgroupDir);
    });

    async function endChild(child: ChildProcessWithoutNullStreams): Promise<void> {
      const closed = once(child, "close");
      child.stdin.end();
      await closed;
      children.delete(child);
    }

    test("wakes within milliseconds of the crossing, rearms without spurious wakes, and releases everything", async (t) => {
      // Armed far above usage from the start so polling is under way before the first trial: a
      // daemon polls for its whole life, and setting that up is not wake latency.
      const notifier = make({ thresholdBytes: readUsage(cgroupDir) + Gi });
      const wakes: { at: bigint; reason: string }[] = [];
      const errors: AdapterError[] = [];
      notifier.start(
        (reason) => wakes.push({ at: process.hrtime.bigint(), reason }),
        (error) => errors.push(error),
      );

      const fromEnd: number[] = [];
      const fromStart: number[] = [];
      for (let trial = 0; trial < 10; trial++) {
        const child = spawnAllocator(cgroupDir);
        children.add(child);
        let stderr = "";
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        const reader = lineReader(child);
        await withTimeout(reader.until("ready"), 5000, "the child to start").catch((e: Error) =>
          assert.fail(`${e.message}\n${stderr}`),
        );

        const threshold = readUsage(cgroupDir) + 30n * Mi;
        await notifier.rearm(threshold);
        assert.equal(notifier.thresholdBytes, threshold);
        wakes.length = 0;
        child.stdin.write("go\n");
        await withTimeout(reader.until("done"), 5000, "the chunk report");
        await waitFor(() => wakes.length > 0, 2000, "the wake");

        const chunks = reader.lines
          .filter((l) => /^\d+ \d+ \d+$/.test(l))
          .map((l) => l.split(" ").map(BigInt) as [bigint, bigint, bigint]);
        assert.equal(chunks.length, 64);
        const crossing = chunks.find(([, , usage]) => usage >= threshold);
        assert.ok(crossing !== undefined, `usage never reached ${threshold}: ${chunks.at(-1)?.[2]}`);
        const wake = wakes[0];
        assert.ok(wake !== undefined);
        assert.equal(wake.reason, "memcg threshold crossed");
        // The kernel signals only once usage is at the threshold, so a wake before the crossing
        // chunk started would be spurious (say, left over from the previous registration).
        assert.ok(
          wake.at >= crossing[0],
          `woke ${Number(crossing[0] - wake.at) / 1e3} µs before the crossing chunk started`,
        );
        fromEnd.push(Number(wake.at - crossing[1]) / 1e6);
        fromStart.push(Number(wake.at - crossing[0]) / 1e6);

        // Rearm far above: neither holding the memory nor releasing it (usage falls, but never
        // crosses the new threshold) may wake, and the old registration must be gone.
        await notifier.rearm(readUsage(cgroupDir) + 256n * Mi);
        wakes.length = 0;
        await sleep(30);
        await endChild(child);
        await sleep(30);
        assert.deepEqual(wakes, [], "spurious wake after rearm");
      }
      const end = medianMax(fromEnd);
      const start = medianMax(fromStart);
      t.diagnostic(
        `memcg wake latency over ${fromEnd.length} trials, from the end of the 1 MiB chunk that crossed: median ${end.median.toFixed(3)} ms, max ${end.max.toFixed(3)} ms`,
      );
      t.diagnostic(
        `from the start of that chunk: median ${start.median.toFixed(3)} ms, max ${start.max.toFixed(3)} ms`,
      );
      assert.ok(end.median < 20, `median latency ${end.median} ms is not milliseconds`);

      await notifier.stop();
      assert.deepEqual(errors, []);
      assert.equal(poller.size, 0);
      assert.equal(openFdCount(), fdsBefore, "stop() left descriptors open");
    });

    test("a threshold given at construction is armed by start, and stop() ends every wake", async () => {
      const child = spawnAllocator(cgroupDir);
      children.add(child);
      const reader = lineReader(child);
      await withTimeout(reader.until("ready"), 5000, "the child to start");
      const notifier = make({
        thresholdBytes: readUsage(cgroupDir) + 16n * Mi,
        description: "hard memory eviction threshold",
      });
      const reasons: string[] = [];
      notifier.start((reason) => reasons.push(reason));
      child.stdin.write("go\n");
      await withTimeout(reader.until("done"), 5000, "the child to allocate");
      await waitFor(() => reasons.length > 0, 2000, "the wake");
      assert.equal(reasons[0], "hard memory eviction threshold crossed");
      await notifier.stop();
      reasons.length = 0;
      // Releasing the memory crosses the threshold downwards: after stop() nothing may arrive.
      await endChild(child);
      await sleep(50);
      assert.deepEqual(reasons, []);
      assert.equal(openFdCount(), fdsBefore);
    });

    test("rearm refuses a negative threshold and keeps the armed one", async () => {
      const notifier = make({ thresholdBytes: 64n * Mi });
      notifier.start(() => {});
      try {
        await assert.rejects(
          notifier.rearm(-1n),
          (e: unknown) => e instanceof AdapterError && e.code === "memcg-threshold-invalid",
        );
        assert.equal(notifier.thresholdBytes, 64n * Mi);
        assert.throws(
          () => notifier.start(() => {}),
          (e: unknown) => e instanceof AdapterError && e.code === "already-started",
        );
      } finally {
        await notifier.stop();
      }
      assert.equal(openFdCount(), fdsBefore);
    });
  },
);
