/**
 * The collector without cgroups, against a fixture /proc tree in a temp directory: the node's
 * memory from meminfo, each pod's from its containers' process trees (statm), process counts from
 * the trees' threads, and the host's PID view; every figure is checked against what the fixture
 * says it must be, and the output goes through the engine's own decoder and observation builder.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { makeSignalObservations } from "../../core/engine/observations.js";
import type { ActivePodInfo } from "./active-pod-info.js";
import { decodeChecked as decode, ManualClock } from "./testing/collector-fixtures.js";
import { testPodFiles } from "./testing/test-pod-files.js";
import { LinuxSummaryCollector, type CollectorNodeSpec } from "./summary-collector.js";

const MiB = 1024n * 1024n;

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "evictd-stats-procfs-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("LinuxSummaryCollector without cgroups (fixture /proc)", () => {
  let proc: string;
  let stateDir: string;
  const tail = (threads: number, rss: number): string =>
    `4194304 100 0 0 0 0 0 0 0 20 0 ${threads} 0 446301 3133440 ${rss} 18446744073709551615 1 0\n`;

  before(async () => {
    proc = join(root, "proc");
    stateDir = join(root, "plain");
    await mkdir(join(proc, "sys", "kernel"), { recursive: true });
    await mkdir(stateDir, { recursive: true });
    await writeFile(
      join(proc, "meminfo"),
      "MemTotal:        8000000 kB\nMemFree:         3000000 kB\nMemAvailable:    5000000 kB\nInactive(file):  1500000 kB\n",
    );
    await writeFile(join(proc, "loadavg"), "0.52 0.58 0.59 3/834 23996\n");
    await writeFile(join(proc, "sys", "kernel", "pid_max"), "4194304\n");
    await writeFile(join(proc, "sys", "kernel", "threads-max"), "62639\n");
    // 100 → 101 (3 threads) → 102 (zombie); 200 unrelated; 300 is another pod's.
    const procs: [number, string, number, number, number, string][] = [
      [100, "S", 1, 1, 2560, "3000 2560 100 1 0 2000 0"],
      [101, "S", 100, 3, 5120, "9000 5120 100 1 0 8000 0"],
      [102, "Z", 101, 1, 0, "0 0 0 0 0 0 0"],
      [200, "S", 1, 10, 99999, "99999 99999 1 1 0 1 0"],
      [300, "R", 1, 1, 256, "500 256 10 1 0 100 0"],
    ];
    for (const [pid, state, ppid, threads, rss, statm] of procs) {
      await mkdir(join(proc, String(pid)), { recursive: true });
      await writeFile(
        join(proc, String(pid), "stat"),
        `${pid} (worker) ${state} ${ppid} ${pid} ${pid} 0 -1 ${tail(threads, rss)}`,
      );
      await writeFile(join(proc, String(pid), "statm"), `${statm}\n`);
    }
  });

  const pods = (): ActivePodInfo[] => [
    {
      uid: "p1",
      name: "a",
      namespace: "default",
      containers: [testPodFiles(stateDir, "p1").container({ name: "main", pids: [100] })],
      volumes: [],
    },
    {
      uid: "p2",
      name: "b",
      namespace: "default",
      containers: [testPodFiles(stateDir, "p2").container({ name: "main", pids: [300, 999] })],
      volumes: [],
    },
  ];

  test("memory from meminfo and statm; processes from the process tree; host PID view", async () => {
    const node: CollectorNodeSpec = {
      name: "plain",
      capacity: { memoryBytes: 4096n * MiB },
      podsMemoryLimitBytes: 64n * MiB,
      stateDir,
    };
    const collector = new LinuxSummaryCollector({
      node,
      procRoot: proc,
      pageSize: 4096,
      clock: new ManualClock(),
    });
    const raw = await collector.collect(pods());
    const KiB = 1024;
    assert.deepEqual(raw.node.memory, {
      time: "2026-06-26T10:14:35Z",
      availableBytes: 5_000_000 * KiB,
      usageBytes: 5_000_000 * KiB, // MemTotal − MemFree
      workingSetBytes: 3_000_000 * KiB, // MemTotal − MemAvailable
    });
    const p1Rss = (2560 + 5120) * 4096; // 100 and 101 (the zombie has none); 200 is not the pod's
    const p2Rss = 256 * 4096;
    assert.equal(raw.pods[0]?.memory?.workingSetBytes, p1Rss);
    assert.equal(raw.pods[0]?.containers[0]?.memory?.rssBytes, p1Rss);
    assert.equal(raw.pods[0]?.process_stats?.process_count, 1 + 3 + 1);
    assert.equal(raw.pods[1]?.memory?.workingSetBytes, p2Rss);
    assert.equal(raw.pods[1]?.process_stats?.process_count, 1);
    const podsContainer = raw.node.systemContainers[0]?.memory;
    assert.equal(podsContainer?.workingSetBytes, p1Rss + p2Rss);
    assert.equal(podsContainer?.availableBytes, 64 * 1024 * 1024 - (p1Rss + p2Rss));
    assert.deepEqual(raw.node.rlimit, { time: "2026-06-26T10:14:35Z", maxpid: 62639, curproc: 834 });
    const obs = makeSignalObservations(decode(raw));
    assert.deepEqual(obs.get("pid.available")?.available, 62639n - 834n);
    assert.equal(obs.get("memory.available")?.capacity, 8_000_000n * 1024n);
  });

  test("a pids capacity makes the pods' task total the current count", async () => {
    const node: CollectorNodeSpec = {
      name: "plain",
      capacity: { memoryBytes: 4096n * MiB, pids: 100n },
      podsMemoryLimitBytes: 64n * MiB,
      stateDir,
    };
    const raw = await new LinuxSummaryCollector({
      node,
      procRoot: proc,
      pageSize: 4096,
      clock: new ManualClock(),
    }).collect(pods());
    assert.deepEqual(raw.node.rlimit, { time: "2026-06-26T10:14:35Z", maxpid: 100, curproc: 6 });
  });

  test("a kernel without MemAvailable: working set = usage − Inactive(file)", async () => {
    const old = join(root, "proc-old");
    await mkdir(join(old, "sys", "kernel"), { recursive: true });
    await writeFile(
      join(old, "meminfo"),
      "MemTotal:        8000000 kB\nMemFree:         3000000 kB\nInactive(file):  1500000 kB\n",
    );
    await writeFile(join(old, "loadavg"), "0.00 0.00 0.00 1/10 5\n");
    await writeFile(join(old, "sys", "kernel", "pid_max"), "32768\n");
    await writeFile(join(old, "sys", "kernel", "threads-max"), "62639\n");
    const node: CollectorNodeSpec = {
      name: "old",
      capacity: { memoryBytes: 4096n * MiB },
      podsMemoryLimitBytes: 64n * MiB,
      stateDir,
    };
    const raw = await new LinuxSummaryCollector({
      node,
      procRoot: old,
      pageSize: 4096,
      clock: new ManualClock(),
    }).collect([]);
    assert.equal(raw.node.memory.workingSetBytes, 3_500_000 * 1024);
    assert.equal(raw.node.memory.availableBytes, 4_500_000 * 1024);
    assert.deepEqual(raw.node.rlimit, { time: "2026-06-26T10:14:35Z", maxpid: 32768, curproc: 10 });
  });
});
