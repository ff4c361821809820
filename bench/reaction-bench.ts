/**
 * Reaction benchmark of `evictd run` on this machine: real memory ramps in real cgroups, on a
 * small node and on a real-sized one.
 *
 * The node is the issue's: 512Mi, hard `memory.available` 100Mi (pressure transition period 0),
 * four resident pods (Guaranteed, Burstable, BestEffort and a system-node-critical one holding
 * 16–48 MiB each) and per trial a Burstable "ramp" pod (16Mi request) that fills memory to just
 * under the threshold and then grows 1 MiB at a time at a fixed rate until it is SIGTERMed (see
 * ramp-pod.ts). Those are the 5 pods of the small node; `--pods N` adds N − 5 idle `sleep` pods,
 * each its own pod and cgroup (a third each BestEffort, Burstable, Guaranteed), all Running before
 * the first trial. The ramp pod keeps its memory for a second after SIGTERM (within its 5 s grace
 * period), so a daemon that does not count reclaim in flight would evict a second pod: exactly one
 * eviction (the ramp pod) is needed per trial, anything else is an over-eviction.
 *
 * The 100 MiB between the threshold and the node's limit is the race: at 0.5/1/2 GiB/s the ramp
 * reaches the limit 195/98/49 ms after crossing, so a daemon reacting within ~15 ms wins at every
 * rate and a slow one loses the pod to the kernel OOM killer (counted: kills anywhere in the node).
 *
 * Measured per trial: crossing → SIGTERM, both noted by the ramp pod itself on one clock (the
 * crossing time is the start of the MiB whose allocation crossed, and perl runs its SIGTERM handler
 * after the current allocation, so this is an upper bound); the daemon's own wake → SIGTERM; the
 * ramp's achieved rate; pods evicted; kernel OOM kills. The bench does not poll the daemon's HTTP
 * port while a ramp runs (it waits on the ramp's pid), so serving /status never delays a reaction.
 * Modes: `notify` (memcg threshold notifications, housekeeping 10 s) at every node size, and `poll`
 * (no notifications, housekeeping 10 s: the kubelet on cgroup v2, or with
 * --kernel-memcg-notification=false, its default) at the first node size only, to keep runs short.
 *
 *   node dist/bench/reaction-bench.js [--pods 5,110] [--rates 512,1024,2048] [--trials 20]
 *                                     [--modes notify,poll] [--touch populate|write]
 *                                     [--http-clients N] [--out FILE]
 *   node dist/bench/reaction-bench.js --mode cluster [...]   `evictd watch` instead: cluster-reaction-bench.ts
 *                                     ([--placement pod|outside] [--hog [on|off|both]] [--summary-trials 0..])
 *
 * The command line is read in reaction-bench-args.ts (every option of both modes, and --help).
 *
 * `--http-clients N` runs the trials under HTTP load: N keep-alive clients on loopback asking for
 * /status and /metrics as fast as they are answered (http-load.ts, a process of its own), started
 * before the first trial of each node and stopped after its last.
 *
 * Needs root and a memory cgroup (cgroup v1 here). Writes bench/results/reaction.json, or
 * reaction-http.json under HTTP load (`--out FILE`: there instead).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  condition,
  type ContainerOptions,
  type Daemon,
  E2E_SKIP,
  holdMemory,
  podManifest,
  podStatus,
  sleep,
  TestNode,
  waitUntil,
} from "../test/harness/node-harness.js";
import { readBenchArgs } from "./bench-args.js";
import { describeMachine, machineInfo, median, num, quantile, table, writeResults } from "./bench-stats.js";
import {
  BASE_PODS,
  type Mode,
  REACTION_OPTIONS,
  REACTION_USAGE,
  readReactionArgs,
} from "./reaction-bench-args.js";
import { Prng } from "../tools/trace-generator/prng.js";
import { achievedMiBPerSecond, parseRampNotes, rampPodCommand, type Touch } from "./ramp-pod.js";

const MIB = 1024 * 1024;
const CAPACITY = "512Mi";
const CAPACITY_BYTES = 512 * MIB;
const THRESHOLD = "100Mi";
const THRESHOLD_BYTES = 100 * MIB;
/** Prefill stops 32 MiB short of the threshold: 16–64 ms of constant-rate ramp before the crossing. */
const MARGIN_BYTES = 32 * MIB;
/** How long the ramp pod holds its memory after SIGTERM, within its grace period. */
const LINGER_SECONDS = 1;
const RAMP_GRACE_SECONDS = 5;
const HOUSEKEEPING = "10s";
const TRIAL_TIMEOUT_MS = 60_000;
/** Idle pods sleep longer than any run (the harness's IDLE would end, and restart, mid-run). */
const IDLE_COMMAND = ["sleep", "86400"];

interface Trial {
  readonly pods: number;
  readonly mode: Mode;
  readonly rate: number;
  readonly index: number;
  readonly pod: string;
  /** evicted: the ramp pod was SIGTERMed by the daemon; oom: the kernel killed it first. */
  readonly outcome: "evicted" | "oom" | "other";
  /** Ramp pod's crossing note → its SIGTERM note, ms. */
  readonly reactionMs?: number;
  /** The daemon's wake (notification or tick) → SIGTERM, ms, from its eviction log line. */
  readonly daemonReactionMs?: number;
  /** The daemon's own split of that step: stats read, decision, kill (ms). */
  readonly daemonTimings?: { readonly readMs: number; readonly decideMs: number; readonly killMs: number };
  /** What woke the loop for the eviction: the memcg notification, the working-set poller, or the tick. */
  readonly wake?: string;
  /** The ramp's rate from its start to the crossing, MiB/s. */
  readonly achievedMiBPerSecond?: number;
  /** MiB the ramp grew from the crossing until SIGTERM stopped it (the headroom is 100). */
  readonly grownAfterCrossingMiB?: number;
  /**
   * The crossing → the daemon's wake (its decision record's time, which the loop takes as it wakes;
   * 1 ms resolution): the kernel's notification and its way into the loop thread.
   */
  readonly crossingToWakeMs?: number;
  readonly evictedPods: readonly string[];
  readonly oomKills: number;
}

/** The issue's four residents; the ramp pod of each trial is the fifth pod. */
function residentPods(): Record<string, unknown>[] {
  return [
    podManifest({
      name: "guaranteed",
      containers: [
        {
          name: "app",
          command: holdMemory(48),
          requests: { cpu: "100m", memory: "64Mi" },
          limits: { cpu: "100m", memory: "64Mi" },
        },
      ],
    }),
    podManifest({
      name: "burstable",
      containers: [{ name: "app", command: holdMemory(32), requests: { memory: "64Mi" } }],
    }),
    podManifest({ name: "besteffort", containers: [{ name: "app", command: holdMemory(16) }] }),
    podManifest({
      name: "critical",
      priorityClassName: "system-node-critical",
      priority: 2_000_001_000,
      containers: [{ name: "app", command: holdMemory(16), requests: { memory: "32Mi" } }],
    }),
  ];
}

/**
 * Idle pod i: `sleep` in its own pod cgroup, a third each BestEffort, Burstable, Guaranteed. The
 * requests are small so that 105 of them still fit the 512Mi node's allocatable next to the residents.
 */
function idlePod(i: number): Record<string, unknown> {
  const base: ContainerOptions = { name: "sleep", command: IDLE_COMMAND };
  const container: ContainerOptions =
    i % 3 === 0
      ? base
      : i % 3 === 1
        ? { ...base, requests: { cpu: "10m", memory: "1Mi" } }
        : { ...base, requests: { cpu: "10m", memory: "4Mi" }, limits: { cpu: "10m", memory: "4Mi" } };
  return podManifest({
    name: `idle-${String(i).padStart(3, "0")}`,
    containers: [container],
    terminationGracePeriodSeconds: 1,
  });
}

/** The node, its residents and `pods − 5` idle pods, all Running. */
async function startNode(mode: Mode, pods: number): Promise<{ node: TestNode; daemon: Daemon }> {
  const node = await TestNode.create(`reaction-${mode}-${pods}`);
  await node.writeNodeFile({
    capacity: { memory: CAPACITY, pids: Math.max(4096, pods * 8) },
    config: { evictionHard: { "memory.available": THRESHOLD } },
    // A 0 in the config file is defaulted to 5m; a flag is not. Without the transition period
    // MemoryPressure clears as soon as the previous trial's ramp pod is gone.
    flags: ["--eviction-pressure-transition-period=0s"],
    housekeepingInterval: HOUSEKEEPING,
    notifications: mode === "notify",
  });
  // Everything is in place before the daemon starts: it starts the pods in its first look.
  for (const manifest of residentPods()) await node.addPod(manifest);
  for (let i = 0; i < pods - BASE_PODS; i++) await node.addPod(idlePod(i));
  const daemon = await node.start({ cleanupOnExit: true });
  const waiting = pods - 1;
  await daemon.waitForStatus(
    `${waiting} resident and idle pods running`,
    (s) => (s.pods.filter((p) => p.phase === "Running").length === waiting ? true : undefined),
    30_000 + pods * 300,
  );
  await sleep(2000); // let the residents allocate
  return { node, daemon };
}

/**
 * In poll mode each trial starts after a seeded random pause within one housekeeping interval: otherwise
 * every trial would start at the same point of the polling loop's 10 s cycle (the loop looks again
 * right after each eviction), and polling's delay would be one fixed number instead of the uniform
 * 0–10 s it is on a real node.
 */
const phase = new Prng(20261121);
const HOUSEKEEPING_MS = 10_000;

/** Whether `pid` is gone or a zombie (its memory is freed once it has exited). */
function exited(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return true;
  }
}

async function runTrial(
  node: TestNode,
  daemon: Daemon,
  pods: number,
  mode: Mode,
  rate: number,
  index: number,
  touch: Touch,
): Promise<Trial> {
  const name = `ramp-${pods}-${mode}-${rate}-${index}`;
  const key = `default/${name}`;
  const notesFile = join(node.dir, `${name}.notes`);
  const notes = async (): Promise<ReturnType<typeof parseRampNotes>> =>
    parseRampNotes(await readFile(notesFile, "utf8").catch(() => ""));
  const oomBefore = node.oomKills();
  const decisionsBefore = (await node.decisions()).length;
  const linesBefore = daemon.lines.length;
  const manifest = podManifest({
    name,
    restartPolicy: "Never",
    terminationGracePeriodSeconds: RAMP_GRACE_SECONDS,
    containers: [
      {
        name: "ramp",
        requests: { memory: "16Mi" },
        command: rampPodCommand({
          nodeCgroupDir: node.memoryCgroupDir(),
          capacityBytes: CAPACITY_BYTES,
          thresholdBytes: THRESHOLD_BYTES,
          mibPerSecond: rate,
          marginBytes: MARGIN_BYTES,
          lingerSeconds: LINGER_SECONDS,
          outFile: notesFile,
          touch,
        }),
      },
    ],
  });
  if (mode === "poll") await sleep(Math.floor(phase.next() * HOUSEKEEPING_MS));
  await node.addPod(manifest);
  // Wait on the ramp's own pid, not on /status: the daemon is left alone while it reacts.
  const pid = await waitUntil(
    `${key} to start`,
    async () => (await notes()).pid,
    30_000,
    () => daemon.tail(),
    20,
  );
  await waitUntil(
    `${key} (pid ${pid}) to exit`,
    () => (exited(pid) ? true : undefined),
    TRIAL_TIMEOUT_MS,
    () => daemon.tail(),
  );
  const final = await daemon.waitForStatus(
    `${key} to end`,
    (s) => {
      const p = podStatus(s, key);
      return p !== undefined && (p.phase === "Failed" || p.phase === "Succeeded") ? p : undefined;
    },
    30_000,
  );
  const n = await notes();
  const oomKills = node.oomKills() - oomBefore;
  const evictionLine = daemon.lines.slice(linesBefore).find((l) => l.msg.startsWith(`evicted ${key} `));
  const daemonReaction = evictionLine?.["reactionMs"];
  const outcome =
    final.reason === "Evicted" && n.termAt !== undefined ? "evicted" : oomKills > 0 ? "oom" : "other";

  // Remove the pod and wait for the node to be calm again before the next trial.
  await rm(join(node.manifestDir, `${name}.json`), { force: true });
  await daemon.waitForStatus(
    "MemoryPressure to clear",
    (s) => (condition(s, "MemoryPressure") !== "True" && podStatus(s, key) === undefined ? true : undefined),
    30_000,
  );
  // Every eviction the daemon decided during the trial, its cleanup and the look after it.
  const decided = (await node.decisions()).slice(decisionsBefore);
  const evictedPods = decided.flatMap((d) => (d.evictions ?? []).map((e) => e.pod));
  const evictionStep = decided.find((d) => (d.evictions ?? []).some((e) => e.pod === key));
  const wokeAt = evictionStep?.time === undefined ? undefined : Date.parse(evictionStep.time);
  const achieved = achievedMiBPerSecond(n);
  return {
    pods,
    mode,
    rate,
    index,
    pod: key,
    outcome,
    ...(n.crossAt !== undefined && n.termAt !== undefined ? { reactionMs: n.termAt - n.crossAt } : {}),
    ...(typeof daemonReaction === "number" ? { daemonReactionMs: daemonReaction } : {}),
    ...(isTimings(evictionLine?.["timings"]) ? { daemonTimings: evictionLine["timings"] } : {}),
    ...(typeof evictionLine?.["wake"] === "string" ? { wake: evictionLine["wake"] } : {}),
    ...(achieved !== undefined ? { achievedMiBPerSecond: achieved } : {}),
    ...(n.crossMiB !== undefined && n.stopMiB !== undefined
      ? { grownAfterCrossingMiB: n.stopMiB - n.crossMiB }
      : {}),
    ...(wokeAt !== undefined && n.crossAt !== undefined ? { crossingToWakeMs: wokeAt - n.crossAt } : {}),
    evictedPods,
    oomKills,
  };
}

/** Which source woke the loop, from the wake reason. */
function wakeKind(reason: string): "working-set poller" | "memcg notification" | "housekeeping" | "other" {
  if (reason.includes("(working set")) return "working-set poller";
  if (reason.endsWith("crossed")) return "memcg notification";
  if (reason === "housekeeping") return "housekeeping";
  return "other";
}

interface Stats {
  readonly median: number;
  readonly p99: number;
  readonly max: number;
}

interface Summary {
  readonly pods: number;
  readonly mode: Mode;
  readonly rate: number;
  readonly trials: number;
  readonly evicted: number;
  readonly oomKilled: number;
  readonly other: number;
  /** Evicted trials whose ramp noted no crossing (no reaction time): counted, not timed. */
  readonly evictedWithoutCrossing: number;
  readonly podsEvicted: number;
  readonly minimumNeeded: number;
  readonly overEvictions: number;
  readonly kernelOomKills: number;
  readonly reactionMs: Stats | null;
  readonly daemonReactionMs: Stats | null;
  readonly achievedMiBPerSecond: { readonly median: number; readonly min: number } | null;
  readonly grownAfterCrossingMiB: Stats | null;
  /** How many evictions each wake source started. */
  readonly wokenBy: Readonly<Record<string, number>>;
  /** Resident and idle pods not Running, or restarted, at the end of the node's trials. */
  readonly podsHurt: readonly string[];
}

function stats(values: readonly number[]): Stats | null {
  if (values.length === 0) return null;
  return { median: median(values), p99: quantile(values, 0.99), max: Math.max(...values) };
}

const pick = (trials: readonly Trial[], f: (t: Trial) => number | undefined): number[] =>
  trials.flatMap((t) => {
    const v = f(t);
    return v === undefined ? [] : [v];
  });

function summarize(
  pods: number,
  mode: Mode,
  rate: number,
  trials: readonly Trial[],
  podsHurt: readonly string[],
): Summary {
  const podsEvicted = trials.reduce((n, t) => n + t.evictedPods.length, 0);
  // One pod must go per trial: the ramp pod. Anything evicted besides it once is one too many.
  const overEvictions = trials.reduce(
    (n, t) => n + t.evictedPods.filter((p, i, all) => p !== t.pod || all.indexOf(p) !== i).length,
    0,
  );
  const achieved = pick(trials, (t) => t.achievedMiBPerSecond);
  return {
    pods,
    mode,
    rate,
    trials: trials.length,
    evicted: trials.filter((t) => t.outcome === "evicted").length,
    oomKilled: trials.filter((t) => t.outcome === "oom").length,
    other: trials.filter((t) => t.outcome === "other").length,
    evictedWithoutCrossing: trials.filter((t) => t.outcome === "evicted" && t.reactionMs === undefined)
      .length,
    podsEvicted,
    minimumNeeded: trials.length,
    overEvictions,
    kernelOomKills: trials.reduce((n, t) => n + t.oomKills, 0),
    reactionMs: stats(pick(trials, (t) => t.reactionMs)),
    daemonReactionMs: stats(pick(trials, (t) => t.daemonReactionMs)),
    achievedMiBPerSecond:
      achieved.length === 0 ? null : { median: median(achieved), min: Math.min(...achieved) },
    grownAfterCrossingMiB: stats(pick(trials, (t) => t.grownAfterCrossingMiB)),
    wokenBy: trials.reduce<Record<string, number>>((acc, t) => {
      if (t.wake !== undefined) acc[wakeKind(t.wake)] = (acc[wakeKind(t.wake)] ?? 0) + 1;
      return acc;
    }, {}),
    podsHurt,
  };
}

const fmt = (x: number | undefined): string => (x === undefined ? "-" : num(x, 1));

function isTimings(x: unknown): x is NonNullable<Trial["daemonTimings"]> {
  if (typeof x !== "object" || x === null) return false;
  const t = x as Record<string, unknown>;
  return (
    typeof t["readMs"] === "number" && typeof t["decideMs"] === "number" && typeof t["killMs"] === "number"
  );
}

function trialLine(t: Trial): string {
  const parts = [`  ${t.pods} pods ${t.mode} ${t.rate} MiB/s #${t.index + 1}: ${t.outcome}`];
  if (t.reactionMs !== undefined) parts.push(` ${t.reactionMs.toFixed(1)} ms`);
  if (t.wake !== undefined)
    parts.push(
      ` (woken by ${wakeKind(t.wake)}${t.crossingToWakeMs !== undefined ? ` ${t.crossingToWakeMs.toFixed(1)} ms after the crossing` : ""}${t.daemonReactionMs !== undefined ? `, SIGTERM ${t.daemonReactionMs.toFixed(1)} ms later` : ""})`,
    );
  const d = t.daemonTimings;
  if (d !== undefined)
    parts.push(
      ` [read ${d.readMs.toFixed(1)}, decide ${d.decideMs.toFixed(1)}, kill ${d.killMs.toFixed(1)} ms]`,
    );
  if (t.achievedMiBPerSecond !== undefined) parts.push(`, ramp ${t.achievedMiBPerSecond.toFixed(0)} MiB/s`);
  if (t.grownAfterCrossingMiB !== undefined) parts.push(`, +${t.grownAfterCrossingMiB} MiB after crossing`);
  if (t.evictedPods.length !== 1) parts.push(` evicted [${t.evictedPods.join(", ")}]`);
  if (t.oomKills > 0) parts.push(` oom ${t.oomKills}`);
  return parts.join("") + "\n";
}

/** Notify-mode results, one row per rate, the node sizes side by side, and p99 against the first size. */
function sideBySide(
  summaries: readonly Summary[],
  pods: readonly number[],
  rates: readonly number[],
): string {
  const header = ["MiB/s"];
  for (const n of pods)
    header.push(
      `${n}p ramp MiB/s`,
      `${n}p median ms`,
      `${n}p p99 ms`,
      `${n}p wake→TERM median`,
      `${n}p OOM kills`,
      `${n}p over-evictions`,
      `${n}p evicted/needed`,
    );
  for (const n of pods.slice(1)) header.push(`p99 ${n}p/${pods[0] ?? ""}p`);
  const rows = rates.map((rate) => {
    const at = (n: number): Summary | undefined =>
      summaries.find((s) => s.mode === "notify" && s.pods === n && s.rate === rate);
    const row = [String(rate)];
    for (const n of pods) {
      const s = at(n);
      row.push(
        fmt(s?.achievedMiBPerSecond?.median),
        fmt(s?.reactionMs?.median),
        fmt(s?.reactionMs?.p99),
        fmt(s?.daemonReactionMs?.median),
        s === undefined ? "-" : String(s.kernelOomKills),
        s === undefined ? "-" : String(s.overEvictions),
        s === undefined ? "-" : `${s.podsEvicted}/${s.minimumNeeded}`,
      );
    }
    const first = at(pods[0] ?? 0)?.reactionMs?.p99;
    for (const n of pods.slice(1)) {
      const p99 = at(n)?.reactionMs?.p99;
      row.push(first === undefined || p99 === undefined || first === 0 ? "-" : `×${num(p99 / first, 2)}`);
    }
    return row;
  });
  return table(header, rows);
}

/** p99(N)/p99(first N) per rate, notify mode. */
function ratios(summaries: readonly Summary[], pods: readonly number[], rates: readonly number[]): unknown[] {
  return rates.map((rate) => {
    const p99 = Object.fromEntries(
      pods.map((n) => [
        String(n),
        summaries.find((s) => s.mode === "notify" && s.pods === n && s.rate === rate)?.reactionMs?.p99 ??
          null,
      ]),
    );
    const first = p99[String(pods[0])] ?? null;
    return {
      rate,
      p99Ms: p99,
      ratioToFirst: Object.fromEntries(
        pods.slice(1).map((n) => {
          const v = p99[String(n)] ?? null;
          return [String(n), first === null || v === null || first === 0 ? null : v / first];
        }),
      ),
    };
  });
}

interface HttpLoadResult {
  readonly pods: number;
  readonly mode: Mode;
  readonly clients: number;
  readonly answered: number;
  readonly failed: number;
  readonly seconds: number;
}

/** Starts http-load.ts on `url` and lets it reach full load; `stop` ends it and returns its counts. */
async function startHttpLoad(
  url: string,
  clients: number,
): Promise<{ stop: () => Promise<{ answered: number; failed: number; seconds: number }> }> {
  const script = fileURLToPath(new URL("./http-load.js", import.meta.url));
  const child = spawn(process.execPath, [script, url, String(clients)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const started = performance.now();
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise((resolve) => setTimeout(resolve, 2000));
  return {
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
      const counts = JSON.parse(out.trim() || '{"answered":0,"failed":0}') as {
        answered: number;
        failed: number;
      };
      return { ...counts, seconds: (performance.now() - started) / 1000 };
    },
  };
}

async function main(): Promise<void> {
  const command = readBenchArgs(process.argv.slice(2), REACTION_USAGE, REACTION_OPTIONS, readReactionArgs);
  if (command.bench === "cluster") {
    const { runClusterReaction } = await import("./cluster-reaction-bench.js");
    await runClusterReaction(command.args);
    return;
  }
  const args = command.args;
  if (E2E_SKIP !== false) {
    console.error(`reaction benchmark cannot run here: ${E2E_SKIP}`);
    process.exitCode = 1;
    return;
  }
  const machine = machineInfo();
  console.log(`reaction benchmark: ${describeMachine(machine)}`);
  console.log(
    `node ${CAPACITY}, hard memory.available ${THRESHOLD}, housekeeping ${HOUSEKEEPING}, pods ${args.pods.join(", ")}, ` +
      `${args.trials} trials per rate, ramp touch ${args.touch}`,
  );
  console.log(
    `headroom threshold → limit ${THRESHOLD_BYTES / MIB} MiB: ` +
      args.rates.map((r) => `${num((THRESHOLD_BYTES / MIB / r) * 1000, 0)} ms at ${r} MiB/s`).join(", "),
  );
  const all: Trial[] = [];
  const summaries: Summary[] = [];
  const httpLoad: HttpLoadResult[] = [];
  for (const pods of args.pods) {
    // Polling loses every fast ramp to the OOM killer whatever the node size: once is enough.
    const modes = args.modes.filter((m) => m === "notify" || pods === args.pods[0]);
    for (const mode of modes) {
      const { node, daemon } = await startNode(mode, pods);
      console.log(`${pods} pods, ${mode}: ${pods - 1} pods Running before the first trial`);
      const load = args.httpClients > 0 ? await startHttpLoad(daemon.url, args.httpClients) : undefined;
      const stop = async (): Promise<void> => {
        if (load !== undefined) {
          const served = await load.stop();
          httpLoad.push({ pods, mode, clients: args.httpClients, ...served });
          console.log(
            `  HTTP load: ${args.httpClients} clients, ${served.answered} requests answered (${num(served.answered / served.seconds, 0)}/s), ${served.failed} failed`,
          );
        }
        await daemon.stop().catch(() => undefined);
        await node.cleanup();
      };
      const onSignal = (): void => {
        void stop().finally(() => process.exit(130));
      };
      process.once("SIGINT", onSignal);
      try {
        const byRate: Trial[][] = [];
        for (const rate of args.rates) {
          const trials: Trial[] = [];
          for (let i = 0; i < args.trials; i++) {
            const t = await runTrial(node, daemon, pods, mode, rate, i, args.touch);
            trials.push(t);
            process.stdout.write(trialLine(t));
          }
          byRate.push(trials);
        }
        const others = (await daemon.status()).pods.filter((p) => !p.pod.startsWith("default/ramp-"));
        const hurt = others
          .filter((p) => p.phase !== "Running" || Object.values(p.restarts).some((n) => n > 0))
          .map((p) => `${p.pod} ${p.phase} ${p.reason ?? ""}`.trim());
        if (hurt.length > 0) console.log(`  resident or idle pods hurt: ${hurt.join("; ")}`);
        args.rates.forEach((rate, i) => {
          const trials = byRate[i] ?? [];
          all.push(...trials);
          summaries.push(summarize(pods, mode, rate, trials, hurt));
        });
      } finally {
        process.off("SIGINT", onSignal);
        await stop();
      }
    }
  }
  console.log();
  console.log(
    table(
      [
        "pods",
        "mode",
        "MiB/s",
        "ramp MiB/s median",
        "min",
        "trials",
        "evicted",
        "OOM-killed",
        "other",
        "pods evicted / needed",
        "over-evictions",
        "kernel OOM kills",
        "crossing→SIGTERM median ms",
        "p99",
        "max",
        "daemon wake→SIGTERM median",
        "p99",
        "MiB after crossing max",
        "woken by",
      ],
      summaries.map((s) => [
        String(s.pods),
        s.mode,
        String(s.rate),
        fmt(s.achievedMiBPerSecond?.median),
        fmt(s.achievedMiBPerSecond?.min),
        String(s.trials),
        String(s.evicted),
        String(s.oomKilled),
        String(s.other),
        `${s.podsEvicted} / ${s.minimumNeeded}`,
        String(s.overEvictions),
        String(s.kernelOomKills),
        fmt(s.reactionMs?.median),
        fmt(s.reactionMs?.p99),
        fmt(s.reactionMs?.max),
        fmt(s.daemonReactionMs?.median),
        fmt(s.daemonReactionMs?.p99),
        fmt(s.grownAfterCrossingMiB?.max),
        Object.entries(s.wokenBy)
          .map(([k, n]) => `${k} ${n}`)
          .join(", "),
      ]),
    ),
  );
  if (args.modes.includes("notify")) {
    console.log(`\nnotify mode, node sizes side by side (crossing → SIGTERM; ramp = achieved rate):\n`);
    console.log(sideBySide(summaries, args.pods, args.rates));
  }
  const slow = summaries.filter(
    (s) => s.achievedMiBPerSecond !== null && s.achievedMiBPerSecond.median < 0.9 * s.rate,
  );
  for (const s of slow)
    console.log(
      `WARNING: ${s.pods} pods ${s.mode} ${s.rate} MiB/s: the ramp achieved only ${num(s.achievedMiBPerSecond?.median ?? 0, 0)} MiB/s (median); this machine cannot fault memory in that fast`,
    );
  const resultFile = args.httpClients > 0 ? "reaction-http.json" : "reaction.json";
  const out = args.out ?? fileURLToPath(new URL(`../../bench/results/${resultFile}`, import.meta.url));
  writeResults(out, {
    benchmark: "reaction",
    machine,
    parameters: {
      capacity: CAPACITY,
      evictionHard: { "memory.available": THRESHOLD },
      housekeepingInterval: HOUSEKEEPING,
      pressureTransitionPeriod: "0s",
      residents:
        "guaranteed (holds 48 MiB, 64Mi), burstable (32 MiB, 64Mi request), besteffort (16 MiB), critical (16 MiB, system-node-critical)",
      rampPod: `Burstable, 16Mi request, ${RAMP_GRACE_SECONDS}s grace, 1 MiB chunks (${args.touch}), lingers ${LINGER_SECONDS}s after SIGTERM`,
      idlePods: "`sleep` each in its own pod, i%3: BestEffort / Burstable (10m, 1Mi) / Guaranteed (10m, 4Mi)",
      marginMiB: MARGIN_BYTES / MIB,
      lingerSeconds: LINGER_SECONDS,
      pods: args.pods,
      trials: args.trials,
      rates: args.rates,
      modes: args.modes,
      pollOnlyAtPods: args.pods[0],
      touch: args.touch,
      httpClients: args.httpClients,
    },
    summaries,
    ...(httpLoad.length > 0 ? { httpLoad } : {}),
    p99Ratios: ratios(summaries, args.pods, args.rates),
    trials: all,
  });
  console.log(`\nwritten to ${out}`);
}

await main();
