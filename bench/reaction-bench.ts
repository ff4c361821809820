/**
 * Reaction benchmark of `evictd run` on this machine: real memory ramps in real cgroups.
 *
 * A small node (1 GiB, hard `memory.available` 256Mi, pressure transition period 0) runs four Burstable
 * pods holding 32 MiB each under their 64 Mi requests and one BestEffort pod holding 16 MiB. Each
 * trial adds a BestEffort "ramp" pod that fills memory to just under the threshold and then grows
 * at a fixed rate until it is SIGTERMed (see ramp-pod.ts); it keeps its memory 300 ms after
 * SIGTERM, so a daemon that does not count reclaim in flight would evict a second pod. Exactly one
 * eviction (the ramp pod) is needed per trial.
 *
 * Measured per trial: crossing → SIGTERM, both noted by the ramp pod itself on one clock (the
 * crossing time is the start of the MiB whose allocation crossed, so this is an upper bound); the
 * daemon's own wake → SIGTERM; pods evicted; kernel OOM kills in the node's cgroups. Modes: `notify`
 * (memcg threshold notifications, housekeeping 10 s) and `poll` (no notifications, housekeeping
 * 10 s: the kubelet on cgroup v2, or with --kernel-memcg-notification=false, its default).
 *
 *   node dist/bench/reaction-bench.js [--rates 20,100,500] [--trials 20] [--modes notify,poll]
 *
 * Needs root and a memory cgroup (cgroup v1 here). Writes bench/results/reaction.json.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  condition,
  type Daemon,
  E2E_SKIP,
  holdMemory,
  IDLE,
  podManifest,
  podStatus,
  sleep,
  TestNode,
  waitUntil,
} from "../test/harness/node-harness.js";
import { describeMachine, machineInfo, median, num, quantile, table, writeResults } from "./bench-stats.js";
import { Prng } from "../tools/trace-generator/prng.js";
import { parseRampNotes, rampPodCommand } from "./ramp-pod.js";

type Mode = "notify" | "poll";

const MIB = 1024 * 1024;
const CAPACITY = "1Gi";
const CAPACITY_BYTES = 1024 * MIB;
const THRESHOLD = "256Mi";
const THRESHOLD_BYTES = 256 * MIB;
const MARGIN_BYTES = 16 * MIB;
const LINGER_SECONDS = 0.3;
const HOUSEKEEPING = "10s";
const TRIAL_TIMEOUT_MS = 60_000;

interface Trial {
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
  /** What woke the loop for the eviction: the memcg notification, the working-set poller, or the tick. */
  readonly wake?: string;
  readonly evictedPods: readonly string[];
  readonly oomKills: number;
}

interface Args {
  readonly rates: number[];
  readonly trials: number;
  readonly modes: Mode[];
}

function parseArgs(argv: readonly string[]): Args {
  let rates = [20, 100, 500];
  let trials = 20;
  let modes: Mode[] = ["notify", "poll"];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1] ?? "";
    if (a === "--rates") rates = v.split(",").map(Number);
    else if (a === "--trials") trials = Number(v);
    else if (a === "--modes") modes = v.split(",") as Mode[];
    else throw new Error(`unknown argument ${a ?? ""}`);
    i++;
  }
  if (rates.some((r) => !(r > 0)))
    throw new Error(`--rates: positive MiB/s values expected, got ${rates.join(",")}`);
  if (!Number.isInteger(trials) || trials < 1)
    throw new Error(`--trials: a positive integer expected, got ${trials}`);
  for (const m of modes as string[])
    if (m !== "notify" && m !== "poll") throw new Error(`--modes: notify or poll, got ${m}`);
  return { rates, trials, modes };
}

/** The node and its resident pods for one mode. */
async function startNode(mode: Mode): Promise<{ node: TestNode; daemon: Daemon }> {
  const node = await TestNode.create(`reaction-${mode}`);
  await node.writeNodeFile({
    capacity: { memory: CAPACITY },
    config: { evictionHard: { "memory.available": THRESHOLD } },
    // A 0 in the config file is defaulted to 5m; a flag is not. Without the transition period the
    // next trial's BestEffort pod is admitted as soon as the previous one is gone.
    flags: ["--eviction-pressure-transition-period=0s"],
    housekeepingInterval: HOUSEKEEPING,
    notifications: mode === "notify",
  });
  const daemon = await node.start({ cleanupOnExit: true });
  for (let i = 1; i <= 4; i++)
    await node.addPod(
      podManifest({
        name: `steady-${i}`,
        containers: [{ name: "app", command: holdMemory(32), requests: { memory: "64Mi" } }],
      }),
    );
  await node.addPod(
    podManifest({ name: "idle-besteffort", containers: [{ name: "app", command: holdMemory(16) }] }),
  );
  await node.addPod(
    podManifest({
      name: "sleeper",
      containers: [{ name: "app", command: IDLE, requests: { memory: "8Mi" } }],
    }),
  );
  await daemon.waitForStatus(
    "resident pods running",
    (s) => (s.pods.filter((p) => p.phase === "Running").length === 6 ? true : undefined),
    30_000,
  );
  await sleep(1000); // let them allocate
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

async function runTrial(
  node: TestNode,
  daemon: Daemon,
  mode: Mode,
  rate: number,
  index: number,
): Promise<Trial> {
  const name = `ramp-${mode}-${rate}-${index}`;
  const key = `default/${name}`;
  const notesFile = join(node.dir, `${name}.notes`);
  const oomBefore = node.oomKills();
  const decisionsBefore = (await node.decisions()).length;
  const manifest = podManifest({
    name,
    restartPolicy: "Never",
    containers: [
      {
        name: "ramp",
        command: rampPodCommand({
          nodeCgroupDir: node.memoryCgroupDir(),
          capacityBytes: CAPACITY_BYTES,
          thresholdBytes: THRESHOLD_BYTES,
          mibPerSecond: rate,
          marginBytes: MARGIN_BYTES,
          lingerSeconds: LINGER_SECONDS,
          outFile: notesFile,
        }),
      },
    ],
  });
  if (mode === "poll") await sleep(Math.floor(phase.next() * HOUSEKEEPING_MS));
  await node.addPod(manifest);
  const final = await daemon.waitForStatus(
    `${key} to end`,
    (s) => {
      const p = podStatus(s, key);
      return p !== undefined && (p.phase === "Failed" || p.phase === "Succeeded") ? p : undefined;
    },
    TRIAL_TIMEOUT_MS,
  );
  // Let the loop finish its cleanup wait and any look it takes afterwards.
  await waitUntil(
    "the ramp pod's processes to be gone",
    () => (!rampAlive(node, name) ? true : undefined),
    10_000,
  );
  await sleep(200);
  const notes = parseRampNotes(await readFile(notesFile, "utf8").catch(() => ""));
  // Every eviction the daemon decided during the trial, from its decision log.
  const evictedPods = (await node.decisions())
    .slice(decisionsBefore)
    .flatMap((d) => (d.evictions ?? []).map((e) => e.pod));
  const evictionLine = daemon.lines.find((l) => l.msg.startsWith(`evicted ${key} `));
  const daemonReaction = evictionLine?.["reactionMs"];
  const oomKills = node.oomKills() - oomBefore;
  const outcome =
    final.reason === "Evicted" && notes.termAt !== undefined ? "evicted" : oomKills > 0 ? "oom" : "other";

  // Remove the pod and wait for the node to be calm again before the next trial.
  await rm(join(node.manifestDir, `${name}.json`), { force: true });
  await daemon.waitForStatus(
    "MemoryPressure to clear",
    (s) => (condition(s, "MemoryPressure") !== "True" && podStatus(s, key) === undefined ? true : undefined),
    30_000,
  );
  return {
    mode,
    rate,
    index,
    pod: key,
    outcome,
    ...(notes.crossAt !== undefined && notes.termAt !== undefined
      ? { reactionMs: notes.termAt - notes.crossAt }
      : {}),
    ...(typeof daemonReaction === "number" ? { daemonReactionMs: daemonReaction } : {}),
    ...(typeof evictionLine?.["wake"] === "string" ? { wake: evictionLine["wake"] } : {}),
    evictedPods,
    oomKills,
  };
}

/** Whether a process of the ramp pod still runs (its perl program names its notes file). */
function rampAlive(node: TestNode, name: string): boolean {
  const dir = node.memoryCgroupDir();
  return existsSync(dir) && findProcs(dir).some((pid) => cmdline(pid).includes(`${name}.notes`));
}

function findProcs(dir: string): number[] {
  const out: number[] = [];
  const walk = (d: string): void => {
    let procs = "";
    try {
      procs = readFileSync(join(d, "cgroup.procs"), "utf8");
    } catch {
      return;
    }
    for (const l of procs.split("\n")) if (l.trim() !== "") out.push(Number(l));
    for (const e of readdirSafe(d)) walk(join(d, e));
  };
  walk(dir);
  return out;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir).filter((e) => {
      try {
        return statSync(join(dir, e)).isDirectory();
      } catch {
        return false;
      }
    });
  } catch {
    return [];
  }
}
function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}

/** Which source woke the loop, from the wake reason. */
function wakeKind(reason: string): "working-set poller" | "memcg notification" | "housekeeping" | "other" {
  if (reason.includes("(working set")) return "working-set poller";
  if (reason.endsWith("crossed")) return "memcg notification";
  if (reason === "housekeeping") return "housekeeping";
  return "other";
}

interface Summary {
  readonly mode: Mode;
  readonly rate: number;
  readonly trials: number;
  readonly evicted: number;
  readonly oomKilled: number;
  readonly other: number;
  readonly podsEvicted: number;
  readonly minimumNeeded: number;
  readonly overEvictions: number;
  readonly kernelOomKills: number;
  readonly reactionMs: { readonly median: number; readonly p99: number; readonly max: number } | null;
  readonly daemonReactionMs: { readonly median: number; readonly p99: number; readonly max: number } | null;
  /** How many evictions each wake source started. */
  readonly wokenBy: Readonly<Record<string, number>>;
}

function stats(values: readonly number[]): Summary["reactionMs"] {
  if (values.length === 0) return null;
  return { median: median(values), p99: quantile(values, 0.99), max: Math.max(...values) };
}

function summarize(mode: Mode, rate: number, trials: readonly Trial[]): Summary {
  const podsEvicted = trials.reduce((n, t) => n + t.evictedPods.length, 0);
  // One pod must go per trial: the ramp pod. Anything evicted besides it once is one too many.
  const overEvictions = trials.reduce(
    (n, t) => n + t.evictedPods.filter((p, i, all) => p !== t.pod || all.indexOf(p) !== i).length,
    0,
  );
  return {
    mode,
    rate,
    trials: trials.length,
    evicted: trials.filter((t) => t.outcome === "evicted").length,
    oomKilled: trials.filter((t) => t.outcome === "oom").length,
    other: trials.filter((t) => t.outcome === "other").length,
    podsEvicted,
    minimumNeeded: trials.length,
    overEvictions,
    kernelOomKills: trials.reduce((n, t) => n + t.oomKills, 0),
    reactionMs: stats(trials.flatMap((t) => (t.reactionMs !== undefined ? [t.reactionMs] : []))),
    daemonReactionMs: stats(
      trials.flatMap((t) => (t.daemonReactionMs !== undefined ? [t.daemonReactionMs] : [])),
    ),
    wokenBy: trials.reduce<Record<string, number>>((acc, t) => {
      if (t.wake !== undefined) acc[wakeKind(t.wake)] = (acc[wakeKind(t.wake)] ?? 0) + 1;
      return acc;
    }, {}),
  };
}

const fmt = (x: number | undefined): string => (x === undefined ? "-" : num(x, 1));

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (E2E_SKIP !== false) {
    console.error(`reaction benchmark cannot run here: ${E2E_SKIP}`);
    process.exitCode = 1;
    return;
  }
  const machine = machineInfo();
  console.log(`reaction benchmark: ${describeMachine(machine)}`);
  console.log(
    `node ${CAPACITY}, hard memory.available ${THRESHOLD}, housekeeping ${HOUSEKEEPING}, ${args.trials} trials per rate`,
  );
  const all: Trial[] = [];
  const summaries: Summary[] = [];
  for (const mode of args.modes) {
    const { node, daemon } = await startNode(mode);
    const stop = async (): Promise<void> => {
      await daemon.stop().catch(() => undefined);
      await node.cleanup();
    };
    const onSignal = (): void => {
      void stop().finally(() => process.exit(130));
    };
    process.once("SIGINT", onSignal);
    try {
      for (const rate of args.rates) {
        const trials: Trial[] = [];
        for (let i = 0; i < args.trials; i++) {
          const t = await runTrial(node, daemon, mode, rate, i);
          trials.push(t);
          process.stdout.write(
            `  ${mode} ${rate} MiB/s #${i + 1}: ${t.outcome}${t.reactionMs !== undefined ? ` ${t.reactionMs.toFixed(1)} ms` : ""}${t.wake !== undefined ? ` (woken by ${wakeKind(t.wake)}${t.daemonReactionMs !== undefined ? `, SIGTERM ${t.daemonReactionMs} ms later` : ""})` : ""}` +
              `${t.evictedPods.length !== 1 ? ` evicted [${t.evictedPods.join(", ")}]` : ""}${t.oomKills > 0 ? ` oom ${t.oomKills}` : ""}\n`,
          );
        }
        all.push(...trials);
        summaries.push(summarize(mode, rate, trials));
      }
      const residents = (await daemon.status()).pods.filter((p) => !p.pod.startsWith("default/ramp-"));
      const hurt = residents.filter(
        (p) => p.phase !== "Running" || Object.values(p.restarts).some((n) => n > 0),
      );
      if (hurt.length > 0)
        console.log(
          `  resident pods hurt: ${hurt.map((p) => `${p.pod} ${p.phase} ${p.reason ?? ""}`).join("; ")}`,
        );
    } finally {
      process.off("SIGINT", onSignal);
      await stop();
    }
  }
  console.log();
  console.log(
    table(
      [
        "mode",
        "MiB/s",
        "trials",
        "evicted",
        "OOM-killed",
        "pods evicted / needed",
        "over-evictions",
        "crossing→SIGTERM median ms",
        "p99",
        "max",
        "daemon wake→SIGTERM median",
        "p99",
        "woken by",
      ],
      summaries.map((s) => [
        s.mode,
        String(s.rate),
        String(s.trials),
        String(s.evicted),
        String(s.oomKilled),
        `${s.podsEvicted} / ${s.minimumNeeded}`,
        String(s.overEvictions),
        fmt(s.reactionMs?.median),
        fmt(s.reactionMs?.p99),
        fmt(s.reactionMs?.max),
        fmt(s.daemonReactionMs?.median),
        fmt(s.daemonReactionMs?.p99),
        Object.entries(s.wokenBy)
          .map(([k, n]) => `${k} ${n}`)
          .join(", "),
      ]),
    ),
  );
  const out = fileURLToPath(new URL("../../bench/results/reaction.json", import.meta.url));
  writeResults(out, {
    benchmark: "reaction",
    machine,
    parameters: {
      capacity: CAPACITY,
      evictionHard: { "memory.available": THRESHOLD },
      housekeepingInterval: HOUSEKEEPING,
      marginMiB: MARGIN_BYTES / MIB,
      lingerSeconds: LINGER_SECONDS,
      trials: args.trials,
      rates: args.rates,
      modes: args.modes,
    },
    summaries,
    trials: all,
  });
  console.log(`\nwritten to ${out}`);
}

await main();
