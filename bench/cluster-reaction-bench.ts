/**
 * Reaction benchmark of `evictd watch` on a Kubernetes node (`npm run bench:reaction -- --mode
 * cluster`): how long from the moment a pod's memory takes the node past `memory.available` to the
 * Eviction API call, for the two ways `watch` can see the node:
 * - `cgroups`: `--stats cgroups`, memory read from the kubelet's own cgroups, woken by the kernel;
 * - `summary`: the Summary API every `--interval` (10 s, the kubelet's housekeeping), what `watch`
 *   did before. Its Summary is read from the node's cgroups at the moment it is asked for, the best
 *   a kubelet could do (a real one serves stats up to 10–15 s old).
 *
 * The node is the `run` benchmark's, laid out as a kubelet lays it out (test/harness/kubelet-node.ts,
 * cgroupfs driver): 512Mi, hard memory.available 100Mi (transition period 0), three residents
 * (Guaranteed, BestEffort, system-node-critical), idle `sleep` pods up to `--pods N`, each in its own
 * pod cgroup and in the API (the fake API server, real payload shapes, matching UIDs), and per trial
 * a Burstable ramp pod (bench/ramp-pod.ts) that fills to 32 MiB under the threshold, then grows at
 * the rate until SIGTERM, which this bench sends when the Eviction API call arrives (the kubelet's
 * part), holding its memory 1 s more within its grace period. Counted per trial: crossing → Eviction
 * API call (the ramp's own crossing note and the server's arrival time, one clock), evictions of
 * other pods (over-evictions), kernel OOM kills in the node, and trials in which the node reached
 * its limit (the ramp pre-faults its pages with MAP_POPULATE, which the kernel answers at the limit
 * with fewer pages rather than an OOM kill; any workload that faults its pages in is killed there).
 *
 *   node dist/bench/reaction-bench.js --mode cluster [--driver cgroupfs|systemd] [--pods 5,110] [--rates 512,1024,2048]
 *                                     [--trials 20] [--summary-trials 5]
 *
 * Needs root and a memory cgroup. Writes bench/results/reaction-cluster.json (reaction-cluster-systemd.json
 * with --driver systemd).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  isDryRun,
  startFakeApiServer,
  type FakeApiServer,
  type RecordedRequest,
} from "../test/harness/fake-api-server/fake-api-server.js";
import {
  apiPod,
  clusterDataOptions,
  startResidents,
  writeClusterData,
} from "../test/harness/kubelet-node-cluster.js";
import {
  containerId,
  KubeletNode,
  kubeletNodeUnavailable,
  type KubeletDriver,
  type RunningPod,
} from "../test/harness/kubelet-node.js";
import { EVICTD_BIN, REPO_ROOT } from "../test/harness/node-harness.js";
import { describeMachine, machineInfo, median, num, quantile, table, writeResults } from "./bench-stats.js";
import { parseRampNotes, rampPodCommand } from "./ramp-pod.js";

const MIB = 1024 * 1024;
const CAPACITY = 512 * MIB;
const THRESHOLD = 100 * MIB;
const MARGIN = 32 * MIB;
const LINGER_SECONDS = 1;
const RESIDENTS = 3;
const NODE_NAME = "bench-node";
const TRIAL_TIMEOUT_MS = 30_000;

export type StatsMode = "cgroups" | "summary";

export interface ClusterArgs {
  readonly pods: readonly number[];
  readonly rates: readonly number[];
  readonly trials: number;
  readonly summaryTrials: number;
  /** The kubelet's cgroup driver whose layout the node gets (default cgroupfs). */
  readonly driver?: KubeletDriver;
}

interface Trial {
  readonly mode: StatsMode;
  readonly pods: number;
  readonly rate: number;
  readonly index: number;
  /** evicted: the Eviction API call came; oom: the kernel killed first; full: the node reached its limit first. */
  readonly outcome: "evicted" | "oom" | "full" | "other";
  /** Crossing → Eviction API call. */
  readonly reactionMs?: number;
  /** What woke evictd's loop for the eviction, and its own wake → call time (its log line). */
  readonly wake?: string;
  readonly daemonReactionMs?: number;
  /** The step's own timings as evictd logs them (read, decide, kill). */
  readonly daemonTimings?: Record<string, number>;
  readonly overEvictions: number;
  readonly oomKills: number;
  /** Charges the node's limit refused (the node was full: a faulting workload is OOM-killed there). */
  readonly limitHits: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => T | undefined, ms: number, pollMs = 5): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(pollMs);
  }
}

/** The node's memory as a kubelet would report it this instant (usage − inactive_file, capacity − that). */
function freshSummary(server: FakeApiServer, node: KubeletNode): void {
  const v1 = node.api === "v1";
  const usage = Number(
    readFileSync(path.join(node.nodeDir, v1 ? "memory.usage_in_bytes" : "memory.current"), "utf8"),
  );
  const stat = readFileSync(path.join(node.nodeDir, "memory.stat"), "utf8");
  const inactive = Number(
    (v1 ? /^total_inactive_file (\d+)$/m : /^inactive_file (\d+)$/m).exec(stat)?.[1] ?? 0,
  );
  const workingSet = Math.max(0, usage - inactive);
  const time = new Date().toISOString();
  server.updateSummary((s) => {
    const n = s["node"] as Record<string, unknown>;
    n["memory"] = {
      time,
      usageBytes: usage,
      workingSetBytes: workingSet,
      availableBytes: Math.max(0, CAPACITY - workingSet),
    };
  });
}

interface Bench {
  readonly node: KubeletNode;
  readonly server: FakeApiServer;
  readonly watch: ChildProcess;
  readonly url: string;
  readonly evictions: RecordedRequest[];
  readonly dir: string;
  /** evictd's log lines so far (JSON, one per line). */
  readonly log: () => string[];
}

async function startBench(mode: StatsMode, pods: number, driver: KubeletDriver): Promise<Bench> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `evictd-cluster-bench-${mode}-`));
  const node = new KubeletNode(driver, CAPACITY);
  const api = startResidents(node, NODE_NAME, pods - 1 - RESIDENTS);
  writeClusterData(dir, { nodeName: NODE_NAME, driver, pods: api });
  const server = await startFakeApiServer(clusterDataOptions(dir, NODE_NAME));
  const evictions: RecordedRequest[] = [];
  server.onRequest = (r) => {
    // The real eviction: the preflight's dry run (on by default with --use-eviction-api) comes first.
    if (r.method === "POST" && r.path.endsWith("/eviction") && !isDryRun(r)) evictions.push(r);
    if (mode === "summary" && r.path.endsWith("/stats/summary")) freshSummary(server, node);
  };
  const kubeconfig = await server.writeKubeconfig(path.join(dir, "kubeconfig"));
  const watch = spawn(
    process.execPath,
    [
      EVICTD_BIN,
      "watch",
      "--node",
      NODE_NAME,
      "--kubeconfig",
      kubeconfig,
      "--enforce",
      "--use-eviction-api",
      "--interval",
      "10s",
      "--listen",
      "127.0.0.1:0",
      "--stats",
      mode,
      ...(mode === "cgroups" ? ["--cgroupfs", node.cgroupfs, "--node-cgroup", node.nodeCgroup] : []),
    ],
    { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  let stdout = "";
  const lines: string[] = [];
  let partial = "";
  watch.stdout?.setEncoding("utf8").on("data", (d: string) => {
    stdout = (stdout + d).slice(-100_000);
    const parts = (partial + d).split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts);
  });
  const url = await until(
    "evictd watching",
    () => {
      const line = stdout.split("\n").find((l) => l.includes("evictd watching node"));
      return line === undefined ? undefined : (JSON.parse(line) as { url: string }).url;
    },
    30_000,
    25,
  );
  return { node, server, watch, url, evictions, dir, log: () => lines };
}

async function stopBench(b: Bench): Promise<void> {
  b.watch.kill("SIGTERM");
  await new Promise((r) => b.watch.once("exit", r));
  await b.server.close();
  await b.node.destroy();
  rmSync(b.dir, { recursive: true, force: true });
}

/** Whether evictd's /status lists the pod (it must know the pod before the pod can be ranked). */
async function knows(url: string, key: string): Promise<boolean> {
  const status = (await (await fetch(`${url}/status`)).json()) as { pods: { pod: string }[] };
  return status.pods.some((p) => p.pod === key);
}

async function runTrial(
  b: Bench,
  mode: StatsMode,
  pods: number,
  rate: number,
  index: number,
): Promise<Trial> {
  const name = `ramp-${mode}-${rate}-${index}`;
  const uid = randomUUID();
  const id = containerId();
  b.server.addPod(
    apiPod(NODE_NAME, {
      name,
      uid,
      qos: "Burstable",
      containers: [{ name: "ramp", id }],
      terminationGracePeriodSeconds: 5,
    }),
  );
  for (let i = 0; !(await knows(b.url, `default/${name}`)); i++) {
    if (i > 400) throw new Error(`evictd never listed ${name}`);
    await sleep(25);
  }
  const notes = path.join(b.dir, `${name}.notes`);
  writeFileSync(notes, "");
  const before = b.evictions.length;
  const oomBefore = b.node.oomKills();
  const limitBefore = b.node.limitHits();
  const pod: RunningPod = b.node.addPod({
    uid,
    qos: "Burstable",
    containers: [
      {
        id,
        argv: rampPodCommand({
          nodeCgroupDir: b.node.nodeDir,
          api: b.node.api,
          capacityBytes: CAPACITY,
          thresholdBytes: THRESHOLD,
          mibPerSecond: rate,
          marginBytes: MARGIN,
          lingerSeconds: LINGER_SECONDS,
          outFile: notes,
          touch: "populate",
        }),
      },
    ],
  });
  const child = pod.containers[0]?.child;
  const exited = new Promise<void>((r) => child?.once("exit", () => r()));
  const mine = (r: RecordedRequest): boolean => r.path === `/api/v1/namespaces/default/pods/${name}/eviction`;
  const first = await Promise.race([
    until(
      "an eviction or the ramp's end",
      () => b.evictions.slice(before).find(mine),
      TRIAL_TIMEOUT_MS,
    ).catch(() => undefined),
    exited.then(() => undefined),
  ]);
  // The kubelet's part: stop the container (it lingers, holding its memory), then the object goes.
  await b.node.removePod(uid, "SIGTERM");
  if (first !== undefined) b.server.finishDeletion("default", name);
  else b.server.removePod("default", name);
  await sleep(500);
  const ramp = parseRampNotes(readFileSync(notes, "utf8"));
  const oomKills = b.node.oomKills() - oomBefore;
  const limitHits = b.node.limitHits() - limitBefore;
  const others = b.evictions.slice(before).filter((r) => !mine(r)).length;
  const evictedLine = b
    .log()
    .map((l) => {
      try {
        return JSON.parse(l) as {
          msg?: string;
          wake?: string;
          reactionMs?: number;
          timings?: Record<string, number>;
        };
      } catch {
        return {};
      }
    })
    .find((l) => l.msg?.startsWith(`evicted default/${name} `) === true);
  return {
    mode,
    pods,
    rate,
    index,
    ...(evictedLine?.wake !== undefined ? { wake: evictedLine.wake } : {}),
    ...(evictedLine?.reactionMs !== undefined ? { daemonReactionMs: evictedLine.reactionMs } : {}),
    ...(evictedLine?.timings !== undefined ? { daemonTimings: evictedLine.timings } : {}),
    outcome: first !== undefined ? "evicted" : oomKills > 0 ? "oom" : limitHits > 0 ? "full" : "other",
    ...(first !== undefined && ramp.crossAt !== undefined
      ? { reactionMs: first.receivedAt - ramp.crossAt }
      : {}),
    overEvictions: others,
    oomKills,
    limitHits,
  };
}

function summarize(trials: readonly Trial[]) {
  const reactions = trials.flatMap((t) => (t.reactionMs === undefined ? [] : [t.reactionMs]));
  return {
    trials: trials.length,
    evicted: trials.filter((t) => t.outcome === "evicted").length,
    oomKilled: trials.filter((t) => t.outcome === "oom").length,
    nodeFull: trials.filter((t) => t.outcome === "full").length,
    trialsAtLimit: trials.filter((t) => t.limitHits > 0).length,
    kernelOomKills: trials.reduce((n, t) => n + t.oomKills, 0),
    overEvictions: trials.reduce((n, t) => n + t.overEvictions, 0),
    reactionMs:
      reactions.length === 0
        ? null
        : { median: median(reactions), p99: quantile(reactions, 0.99), max: Math.max(...reactions) },
  };
}

export async function runClusterReaction(args: ClusterArgs): Promise<void> {
  const unavailable = kubeletNodeUnavailable();
  if (unavailable !== false) {
    console.error(`cluster reaction benchmark cannot run here: ${unavailable}`);
    process.exitCode = 1;
    return;
  }
  const machine = machineInfo();
  console.log(
    `cluster reaction benchmark (evictd watch --enforce --use-eviction-api): ${describeMachine(machine)}`,
  );
  console.log(
    `node 512Mi (kubelet ${args.driver ?? "cgroupfs"} layout), hard memory.available 100Mi, --interval 10s, pods ${args.pods.join(", ")}; ` +
      `cgroups: ${args.trials} trials per rate, summary: ${args.summaryTrials} (first node size only)`,
  );
  const all: Trial[] = [];
  const rows: string[][] = [];
  const summaries: unknown[] = [];
  for (const pods of args.pods) {
    for (const mode of ["cgroups", "summary"] as const) {
      if (mode === "summary" && pods !== args.pods[0]) continue;
      const trials = mode === "cgroups" ? args.trials : args.summaryTrials;
      const b = await startBench(mode, pods, args.driver ?? "cgroupfs");
      try {
        for (const rate of args.rates) {
          const these: Trial[] = [];
          for (let i = 0; i < trials; i++) {
            const t = await runTrial(b, mode, pods, rate, i);
            these.push(t);
            process.stdout.write(
              `  ${pods} pods ${mode} ${rate} MiB/s #${i + 1}: ${t.outcome}${t.reactionMs !== undefined ? ` ${t.reactionMs.toFixed(1)} ms` : ""}${t.overEvictions > 0 ? ` +${t.overEvictions} other pods` : ""}${t.oomKills > 0 ? ` oom ${t.oomKills}` : ""}${t.limitHits > 0 ? ` (node full: ${t.limitHits} charges refused)` : ""}${t.wake !== undefined ? ` [woken by ${t.wake}; ${t.daemonReactionMs?.toFixed(1) ?? "?"} ms to the call${t.daemonTimings !== undefined ? ` ${JSON.stringify(t.daemonTimings)}` : ""}]` : ""}\n`,
            );
          }
          all.push(...these);
          const s = summarize(these);
          summaries.push({ pods, mode, rate, ...s });
          rows.push([
            String(pods),
            mode,
            String(rate),
            `${s.evicted}/${s.trials}`,
            s.reactionMs === null ? "-" : num(s.reactionMs.median, 1),
            s.reactionMs === null ? "-" : num(s.reactionMs.p99, 1),
            String(s.kernelOomKills),
            String(s.trialsAtLimit),
            String(s.overEvictions),
          ]);
        }
      } finally {
        await stopBench(b);
      }
    }
  }
  console.log(
    `\ncrossing → Eviction API call (ms):\n${table(
      ["pods", "stats", "MiB/s", "evicted", "median", "p99", "OOM kills", "node full", "over-evictions"],
      rows,
    )}`,
  );
  const suffix = args.driver === "systemd" ? "-systemd" : "";
  const out = fileURLToPath(new URL(`../../bench/results/reaction-cluster${suffix}.json`, import.meta.url));
  writeResults(out, {
    benchmark: "reaction-cluster",
    machine,
    parameters: {
      capacity: "512Mi",
      evictionHard: { "memory.available": "100Mi" },
      interval: "10s",
      layout: `kubelet ${args.driver ?? "cgroupfs"} driver`,
      enforce: "Eviction API",
      pods: args.pods,
      rates: args.rates,
      trials: args.trials,
      summaryTrials: args.summaryTrials,
    },
    summaries,
    trials: all,
  });
  console.log(`\nwritten to ${out}`);
}
