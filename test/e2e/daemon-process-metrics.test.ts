/**
 * `evictd run` end to end: the process metrics its /metrics serves (the names a kubelet serves)
 * against what the kernel says of the daemon's process from outside it: /proc/<pid>/status,
 * stat, fd and limits, read by this test around each scrape.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { parseBootTimeSeconds, parseProcLimits, parseProcStat } from "../../src/linux/procfs.js";
import { E2E_SKIP, podManifest, scaled, TestNode, type Daemon } from "../harness/node-harness.js";

const MiB = 1024 * 1024;

/**
 * The daemon serves one rendering of /metrics to every request for 100 ms (http-server.ts,
 * `cacheMs`): a scrape made sooner after another shows the figures of the first. Each reading
 * here waits that long first, so what it is held against was read after the page it gets.
 */
const freshAnswer = (): Promise<void> => delay(150);

/** The unlabelled samples of a Prometheus text page, by name. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = /^(process_[a-z_]+) (\S+)$/.exec(line);
    if (m?.[1] !== undefined) out.set(m[1], Number(m[2]));
  }
  return out;
}

function sample(page: Map<string, number>, name: string): number {
  const value = page.get(name);
  assert.ok(value !== undefined && Number.isFinite(value), `${name} is not on the page`);
  return value;
}

describe("evictd run: its own process metrics", { skip: E2E_SKIP }, () => {
  let node: TestNode;
  let daemon: Daemon;
  let pid: number;
  let spawnedAt: number;

  before(
    async () => {
      node = await TestNode.create("procmetrics");
      await node.writeNodeFile({ capacity: { memory: "1Gi" }, config: {} });
      await node.addPod(
        podManifest({ name: "idle", containers: [{ name: "sleep", command: ["sleep", "600"] }] }),
      );
      spawnedAt = Date.now() / 1000;
      daemon = await node.start();
      const p = daemon.child.pid;
      assert.ok(p !== undefined);
      pid = p;
      await daemon.waitForStatus(
        "the pod Running",
        (s) => (s.pods[0]?.phase === "Running" ? true : undefined),
        20_000,
      );
    },
    { timeout: scaled(40_000) },
  );

  after(async () => {
    await node?.cleanup();
  });

  const cpuSeconds = (): number => {
    const stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
    assert.ok(stat !== undefined);
    return stat.cpuTicks / 100;
  };

  test("CPU time is the kernel's count of the process, every thread, and only grows", async () => {
    await freshAnswer();
    const before = cpuSeconds();
    const first = samples(await daemon.metrics());
    await freshAnswer();
    const second = samples(await daemon.metrics());
    const after = cpuSeconds();
    const a = sample(first, "process_cpu_seconds_total");
    const b = sample(second, "process_cpu_seconds_total");
    // Read from outside, /proc/<pid>/stat counts whole 10 ms ticks and leaves out the slice a thread
    // of the daemon is running at that moment; the daemon's own read (getrusage) includes it. 50 ms
    // is far less than the loop thread alone has used by now, so a count of the main thread only
    // would not pass, nor would milliseconds or ticks taken for seconds.
    assert.ok(a >= before - 0.011 && a <= after + 0.05, `${a} s, kernel ${before}..${after} s`);
    assert.ok(b >= a && b <= after + 0.05, `${a} → ${b} s, kernel ${after} s`);
    const parts =
      sample(second, "process_cpu_user_seconds_total") + sample(second, "process_cpu_system_seconds_total");
    assert.ok(Math.abs(parts - b) < 1e-9, `user + system ${parts}, total ${b}`);
  });

  test("resident and virtual memory are the kernel's VmRSS and VmSize", async () => {
    await freshAnswer();
    const page = samples(await daemon.metrics());
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (name: string): number =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(status)?.[1]) * 1024;
    const rss = sample(page, "process_resident_memory_bytes");
    // Read a moment apart: a scrape and a collection can move the resident set by a few MiB.
    assert.ok(Math.abs(rss - kib("VmRSS")) <= 8 * MiB, `served ${rss}, VmRSS ${kib("VmRSS")}`);
    assert.ok(rss > 20 * MiB, `${rss} bytes is not a node process`);
    assert.ok(Math.abs(sample(page, "process_virtual_memory_bytes") - kib("VmSize")) <= 64 * MiB);
  });

  test("open descriptors as /proc/<pid>/fd lists them; the limits as /proc/<pid>/limits says", async () => {
    // The daemon opens and closes descriptors of its own meanwhile (pods' files, cgroup files it
    // keeps open, connections): the count it serves must lie between the lists taken around it,
    // give or take the scrape's own connection.
    await freshAnswer();
    const listedBefore = readdirSync(`/proc/${pid}/fd`).length;
    const page = samples(await daemon.metrics());
    const listedAfter = readdirSync(`/proc/${pid}/fd`).length;
    const open = sample(page, "process_open_fds");
    assert.ok(
      open >= Math.min(listedBefore, listedAfter) - 2 && open <= Math.max(listedBefore, listedAfter) + 2,
      `served ${open}, listed ${listedBefore} before and ${listedAfter} after`,
    );
    const limits = parseProcLimits(readFileSync(`/proc/${pid}/limits`, "utf8"));
    assert.ok(limits !== undefined);
    assert.equal(sample(page, "process_max_fds"), limits.openFiles);
    assert.equal(sample(page, "process_virtual_memory_max_bytes"), limits.addressSpaceBytes);
  });

  test("the start time is the process's: boot time plus its start in clock ticks, after the test spawned it", async () => {
    await freshAnswer();
    const page = samples(await daemon.metrics());
    const stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
    const boot = parseBootTimeSeconds(readFileSync("/proc/stat", "utf8"));
    assert.ok(stat !== undefined && boot !== undefined);
    const started = sample(page, "process_start_time_seconds");
    assert.ok(Math.abs(started - (boot + stat.startTimeTicks / 100)) < 0.001, `${started}`);
    // btime is whole seconds, so the start may read up to a second early.
    assert.ok(
      started >= spawnedAt - 1.5 && started <= Date.now() / 1000,
      `${started}, spawned at ${spawnedAt}`,
    );
  });
});
