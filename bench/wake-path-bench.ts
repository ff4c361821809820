/**
 * The loop thread's wake path, piece by piece, on real cgroups at 5 and 110 pods: what a kernel
 * memory notification costs in the daemon between the wake and SIGTERM, without a ramp (and so
 * without the kernel's own notification delay, which reaction-bench.ts measures end to end).
 *
 * The node is built through the cgroup driver as `evictd run` builds it, each pod a cgroup with a
 * `sleep` in its container cgroup (a third each Guaranteed, Burstable, BestEffort), but for the
 * first, a Burstable pod holding 64 MiB (the pod that grew, as on a node under memory pressure), and the loop is
 * the daemon's own (EvictionLoop, the Linux collector, the decoder, the engine) with a hard
 * `memory.available` threshold set above the node's capacity, so every wake evicts. The pods port
 * finds the picked pod's processes exactly as the loop thread's kill does (podPidsNow) but sends no
 * signal, so the same node serves every trial. Phases per wake (the loop's own timings): read
 * (usage of every pod), decide (bounded pick: the engine, the picked pod read in full, the engine
 * again) and kill; plus the whole wake → SIGTERM-ready time. Each node is measured twice, wakes
 * alternating: reading every pod's usage on a wake (`all`), and reading the largest pods and bounding
 * the rest by the pods cgroup's usage (`partial`, the default; linux/node-stats/partial-usage-read.ts).
 *
 *   node dist/bench/wake-path-bench.js [--pods 5,110] [--wakes 300] [--reads all,partial]
 *
 * Needs root and a memory cgroup. Writes bench/results/wake-path.json.
 */
import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getHeapSpaceStatistics } from "node:v8";
import { EvictionLoop, type LoopStep } from "../src/app/loop/eviction-loop.js";
import type { FailedPodStatus, KillResult, PodsPort, StatsPort, WakePort } from "../src/app/ports.js";
import { systemClock } from "../src/linux/system-clock.js";
import { buildEvictionConfig } from "../src/core/config/build-eviction-config.js";
import { IssueList } from "../src/core/issues.js";
import type { Pod } from "../src/core/model.js";
import { decodePod } from "../src/core/pod/decode-pod.js";
import type { CgroupDriver, CgroupRef, NodeCgroups } from "../src/linux/cgroups/cgroup-driver.js";
import { createCgroupDriver } from "../src/linux/cgroups/create-cgroup-driver.js";
import { detectOwnCgroups } from "../src/linux/cgroups/detect-cgroups.js";
import { spawnInCgroups } from "../src/linux/cgroups/spawn-in-cgroup.js";
import {
  collectorStatsPort,
  LinuxSummaryCollector,
  type ActivePodInfo,
} from "../src/linux/node-stats/index.js";
import { readUsage } from "../src/linux/node-stats/cgroup-stats-reader.js";
import { podPidsNow } from "../src/runtime/pod-processes.js";
import { readBenchArgs } from "./bench-args.js";
import { describeMachine, machineInfo, median, num, quantile, table, writeResults } from "./bench-stats.js";

const MIB = 1024n * 1024n;

interface Args {
  readonly pods: number[];
  readonly wakes: number;
  readonly reads: readonly Reads[];
}

const USAGE = "usage: node dist/bench/wake-path-bench.js [--pods 5,110] [--wakes 300] [--reads all,partial]";

function parseArgs(argv: readonly string[]): Args {
  return readBenchArgs(argv, USAGE, { pods: "string", wakes: "string", reads: "string" }, (a) => ({
    pods: a.wholeNumbers("pods", [5, 110], 1),
    wakes: a.wholeNumber("wakes", 300, 1),
    reads: a.choices("reads", ["all", "partial"] as const, ["all", "partial"]),
  }));
}

interface PhaseStats {
  readonly median: number;
  readonly p99: number;
  readonly max: number;
}

type Reads = "all" | "partial";

interface Run {
  readonly pods: number;
  readonly reads: Reads;
  /** Pods whose memory a wake left unread (median). */
  readonly unreadPods: number;
  /**
   * Young-generation bytes a wake allocated up to its end, its read of the rest after the kill
   * included (median; wakes in which a scavenge ran are left out). Up to SIGTERM, what the loop
   * thread keeps room for (daemon/gc/idle-scavenge.ts).
   */
  readonly allocatedKiB: number;
  /** The same up to SIGTERM. */
  readonly allocatedToKillKiB: number;
  readonly wakes: number;
  readonly readMs: PhaseStats;
  readonly decideMs: PhaseStats;
  readonly killMs: PhaseStats;
  /** Wake → SIGTERM-ready: read + decide + kill, as the loop times it. */
  readonly toKillMs: PhaseStats;
}

const stats = (xs: readonly number[]): PhaseStats => ({
  median: median(xs),
  p99: quantile(xs, 0.99),
  max: Math.max(...xs),
});

const HOLD_MIB = 64;

function podManifest(i: number): Record<string, unknown> {
  if (i === 0)
    return {
      metadata: { name: "holder", namespace: "bench", uid: "wake-bench-0000" },
      spec: {
        containers: [{ name: "main", command: holdCommand(), resources: { requests: { memory: "16Mi" } } }],
      },
    };
  const kind = i % 3;
  const resources =
    kind === 0
      ? {}
      : kind === 1
        ? { requests: { cpu: "10m", memory: "8Mi" } }
        : { requests: { cpu: "10m", memory: "16Mi" }, limits: { cpu: "10m", memory: "16Mi" } };
  return {
    metadata: { name: `idle-${i}`, namespace: "bench", uid: `wake-bench-${String(i).padStart(4, "0")}` },
    spec: { containers: [{ name: "main", command: ["sleep", "600"], resources }] },
  };
}

/** A process that makes HOLD_MIB resident and sleeps. */
function holdCommand(): string[] {
  return ["perl", "-e", `my $x = "a" x (${HOLD_MIB} * 1048576); sleep 600;`];
}

async function measure(
  driver: CgroupDriver,
  node: NodeCgroups,
  stateDir: string,
  count: number,
  wakes: number,
  readsWanted: readonly Reads[],
  children: ChildProcess[],
): Promise<Run[]> {
  const pods: Pod[] = [];
  const targets: ActivePodInfo[] = [];
  const signal = new Map<string, { uid: string; cgroupDir: string; mains: { pid: number }[] }>();
  for (let i = 0; i < count; i++) {
    const issues = new IssueList();
    const pod = decodePod(podManifest(i), "pod", issues);
    if (pod === undefined) throw new Error(`bad bench pod: ${JSON.stringify(issues.items)}`);
    const qos = i % 3 === 0 ? "BestEffort" : i % 3 === 1 ? "Burstable" : "Guaranteed";
    const podCgroup = await driver.createPod(pod.uid, qos);
    const container = await driver.createContainer(podCgroup, "main");
    const dir = join(stateDir, "pods", pod.uid);
    await mkdir(join(dir, "logs"), { recursive: true });
    const child = spawnInCgroups(
      i === 0 ? holdCommand() : ["sleep", "600"],
      { PATH: "/usr/bin:/bin" },
      "/",
      driver.procFiles(container),
      "ignore",
    );
    children.push(child);
    pods.push(pod);
    targets.push({
      uid: pod.uid,
      name: pod.name,
      namespace: pod.namespace,
      startTime: Date.now(),
      cgroup: podCgroup,
      containers: [
        {
          name: "main",
          cgroup: container,
          startTime: Date.now(),
          rootfsDir: join(dir, "containers", "main"),
          logFile: join(dir, "logs", "main.log"),
        },
      ],
      volumes: [],
    });
    signal.set(pod.uid, {
      uid: pod.uid,
      cgroupDir: driver.directories(podCgroup).memory,
      mains: child.pid === undefined ? [] : [{ pid: child.pid }],
    });
  }
  const built = buildEvictionConfig({
    config: { evictionHard: { "memory.available": "64Gi" }, evictionPressureTransitionPeriod: "0s" },
    flags: [],
  });
  if (!built.ok) throw new Error("bad bench config");
  // The holder's memory resident before the first read, so that it is the pod every wake picks.
  await waitForUsage(driver, targets[0]?.cgroup, BigInt(HOLD_MIB) * MIB);
  const setups = readsWanted.map((reads) => {
    const collector = new LinuxSummaryCollector({
      node: {
        name: "wake-bench",
        capacity: { memoryBytes: 4096n * MIB },
        podsMemoryLimitBytes: 4000n * MIB,
        stateDir,
      },
      cgroups: { driver, node },
      partialWakeReads: reads === "partial",
    });
    const stats_: StatsPort = collectorStatsPort(collector, {
      targets: () => targets,
      source: "bench",
      clock: systemClock,
    });
    return { reads, collector, stats: stats_ };
  });
  let youngAtKill = 0;
  const podsPort: PodsPort = {
    activePods: () => pods,
    kill: (pod: Pod, _grace: number, _status: FailedPodStatus): Promise<KillResult> => {
      const target = signal.get(pod.uid);
      if (target !== undefined) podPidsNow(target);
      youngAtKill = youngUsed();
      return Promise.resolve({ terminatedAt: Date.now(), done: Promise.resolve({ ok: true, stuck: [] }) });
    },
    restate: () => undefined,
    isCleanedUp: () => Promise.resolve(true),
    containerGC: () => Promise.resolve({ freedBytes: 0 }),
    imageGC: () => Promise.resolve({ freedBytes: 0 }),
  };
  const wake: WakePort = { next: () => new Promise(() => undefined), rearm: () => undefined };
  const measured = [];
  for (const setup of setups) {
    const unread: number[] = [];
    const loop = new EvictionLoop({
      config: built.config,
      layout: "single",
      housekeepingIntervalMs: 10_000,
      stats: {
        ...setup.stats,
        collect: async (scope) => {
          const sample = await setup.stats.collect(scope);
          if (scope === "memory") unread.push(sample.unread?.uids.size ?? 0);
          return sample;
        },
      },
      pods: podsPort,
      wake,
      clock: systemClock,
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    // As the daemon: a first complete read (directory walks), then rehearsals once the pods run.
    await setup.collector.collect(targets);
    for (let i = 0; i < 10; i++) await loop.rehearse();
    measured.push({
      setup,
      loop,
      unread,
      read: [] as number[],
      decide: [] as number[],
      kill: [] as number[],
      total: [] as number[],
      allocated: [] as number[],
      allocatedToKill: [] as number[],
      picked: new Set<string>(),
    });
  }
  for (let i = 0; i < wakes; i++) {
    for (const m of measured) {
      // Wakes 20 ms apart, with a housekeeping read every 50 wakes, as between a daemon's wakes.
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (i % 50 === 49)
        await m.loop.runOnce({ reason: "housekeeping", at: Date.now(), notification: false });
      const at = Date.now();
      const youngBefore = youngUsed();
      const step: LoopStep = await m.loop.runOnce({ reason: "memcg notification", at, notification: true });
      const youngAfter = youngUsed();
      if (youngAfter >= youngAtKill && youngAtKill >= youngBefore) {
        m.allocatedToKill.push((youngAtKill - youngBefore) / 1024);
        m.allocated.push((youngAfter - youngBefore) / 1024);
      }
      if (step.evictions.length !== 1) throw new Error(`a wake evicted ${step.evictions.length} pods`);
      const t = step.timings;
      if (t === undefined) throw new Error("the loop did not time its phases");
      m.picked.add(step.evictions[0]?.eviction.pod.uid ?? "");
      m.read.push(t.readMs);
      m.decide.push(t.decideMs);
      m.kill.push(t.killMs);
      m.total.push(t.readMs + t.decideMs + t.killMs);
    }
  }
  for (const m of measured) {
    m.setup.collector.close();
    // Both ways of reading must pick the pod holding memory, and only it.
    if (m.picked.size !== 1 || !m.picked.has("wake-bench-0000"))
      throw new Error(`${m.setup.reads} reads picked ${[...m.picked].join(", ")}, not the holder`);
  }
  return measured.map((m) => ({
    pods: count,
    reads: m.setup.reads,
    unreadPods: median(m.unread),
    allocatedKiB: median(m.allocated),
    allocatedToKillKiB: median(m.allocatedToKill),
    wakes,
    readMs: stats(m.read),
    decideMs: stats(m.decide),
    killMs: stats(m.kill),
    toKillMs: stats(m.total),
  }));
}

/** Bytes in use in the young generation now. */
function youngUsed(): number {
  return getHeapSpaceStatistics().find((sp) => sp.space_name === "new_space")?.space_used_size ?? 0;
}

/** Waits (up to 10 s) until `cgroup`'s memory usage reaches `bytes`. */
async function waitForUsage(
  driver: CgroupDriver,
  cgroup: CgroupRef | undefined,
  bytes: bigint,
): Promise<void> {
  if (cgroup === undefined) return;
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    if (readUsage(driver, cgroup) >= bytes) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the holder pod did not reach ${bytes} bytes in 10 s`);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const machine = machineInfo();
  console.log(`wake-path bench: the loop's memory wake on real cgroups; ${describeMachine(machine)}`);
  const choice = createCgroupDriver(await detectOwnCgroups());
  if (!choice.ok || process.getuid?.() !== 0) {
    console.log(`skipped: needs root and a memory cgroup (${choice.ok ? "not root" : choice.reason})`);
    return;
  }
  const runs: Run[] = [];
  for (const count of args.pods) {
    const children: ChildProcess[] = [];
    const driver = createCgroupDriver(await detectOwnCgroups());
    if (!driver.ok) throw new Error(driver.reason);
    const name = `evictd-wake-bench-${process.pid}-${count}`;
    const node = await driver.driver.createNode({ name, memoryLimitBytes: 4096n * MIB });
    const stateDir = await mkdtemp(join(tmpdir(), "evictd-wake-bench-"));
    try {
      runs.push(...(await measure(driver.driver, node, stateDir, count, args.wakes, args.reads, children)));
    } finally {
      for (const c of children) c.kill("SIGKILL");
      await driver.driver.destroyNode({ name });
      await rm(stateDir, { recursive: true, force: true });
    }
  }
  const row = (label: string, pick: (r: Run) => PhaseStats): string[] => [
    label,
    ...runs.flatMap((r) => [num(pick(r).median, 2), num(pick(r).p99, 2)]),
  ];
  console.log(
    "\n" +
      table(
        ["phase (ms)", ...runs.flatMap((r) => [`${r.pods} pods ${r.reads} median`, "p99"])],
        [
          ["pods left unread", ...runs.flatMap((r) => [num(r.unreadPods, 0), ""])],
          ["allocated up to SIGTERM (KiB)", ...runs.flatMap((r) => [num(r.allocatedToKillKiB, 0), ""])],
          ["allocated per wake (KiB)", ...runs.flatMap((r) => [num(r.allocatedKiB, 0), ""])],
          row("read", (r) => r.readMs),
          row("decide", (r) => r.decideMs),
          row("kill (find processes)", (r) => r.killMs),
          row("wake → SIGTERM-ready", (r) => r.toKillMs),
        ],
      ),
  );
  const out = fileURLToPath(new URL("../../bench/results/wake-path.json", import.meta.url));
  writeResults(out, { benchmark: "wake-path", machine, parameters: args, runs });
  console.log(`\nwritten to ${out}`);
}

await main();
