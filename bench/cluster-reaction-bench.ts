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
 * the cgroupfs or systemd driver's layout): 512Mi, hard memory.available 100Mi (transition period
 * 0), three residents (Guaranteed, BestEffort, system-node-critical), idle `sleep` pods up to
 * `--pods N`, each in its own pod cgroup and in the API (the fake API server, real payload shapes,
 * matching UIDs), and per trial a Burstable ramp pod (bench/ramp-pod.ts) that fills to 32 MiB under
 * the threshold, then grows at the rate until SIGTERM, which this bench sends when the Eviction API
 * call arrives (the kubelet's part), holding its memory 1 s more within its grace period.
 *
 * evictd as deployed (`--placement pod`, the default): `evictd watch --stats cgroups --enforce
 * --use-eviction-api` runs in a pod of its own on that node, the pod deploy/daemonset.yaml makes
 * (read from the manifest: namespace, name, system-node-critical, requests, the 256Mi memory limit,
 * NODE_OPTIONS). What is real here: the pod is in the API, so evictd lists and ranks itself as it
 * would; it is in the cgroup tree at its QoS class's place (Burstable), with the memory limit on its
 * pod and container cgroups as the kubelet writes it; the process starts inside its container
 * cgroup (through the same shim as every pod), so its memory is charged to the node it guards and
 * bounded by its limit; oom_score_adj -997 as the kubelet gives a node-critical pod, where this
 * process may lower it (that needs CAP_SYS_RESOURCE, which this machine's root lacks: each
 * configuration records what evictd got). CPU: this machine mounts cgroup v1's cpu controller
 * (/proc/cgroups: cpu enabled, its own hierarchy at /sys/fs/cgroup/cpu, cpuacct apart), so where a
 * cgroup v1 cpu hierarchy is mounted and writable the node gets a cpu tree too
 * (test/harness/kubelet-cpu-tree.ts) with the kubelet's cpu.shares: evictd's pod by its 50m request,
 * the burstable tier by the Burstable pods' requests, the besteffort tier 2; evictd, the hog and the
 * ramp pods start in it (the idle residents, which only sleep, stay outside it). Where there is none
 * (cgroup v2) CPU is not weighted, and the results say so. What is not real: no container runtime
 * (no namespaces, image or seccomp; evictd runs as root from this checkout with this node binary,
 * so it may arm the memcg threshold notifier that the manifest's unprivileged, read-only-mounted
 * container cannot without the grants in docs/kubernetes.md), no kubelet (this bench plays its
 * part), and the API server is this process, on loopback. `--placement outside`: evictd runs as a
 * plain child of this bench, outside the node's cgroups (what this bench measured before).
 *
 * `--hog`: a BestEffort pod `stress-ng --cpu 1` (in its own pod cgroup and in the API) runs through
 * each whole configuration; `--hog both` runs each configuration without it, then with it.
 *
 * Counted per trial: crossing → Eviction API call (the ramp's own crossing note and the server's
 * arrival time, one clock) and its phases, evictions of other pods (over-evictions; evictd's own pod
 * among them is a finding of its own), kernel OOM kills in the node, and trials in which the node
 * reached its limit (the ramp pre-faults its pages with MAP_POPULATE, which the kernel answers at the
 * limit with fewer pages rather than an OOM kill; any workload that faults its pages in is killed
 * there). The phases, from evictd's "evicted ..." log line (its wake reason, `reactionMs` = wake →
 * the call returned and its event was posted, `timings` = read / decide / kill of the step, and the
 * line's time = that end of `reactionMs`) and this bench's clocks:
 *   wake    crossing → the wake (the kernel's notification, and evictd's event loop getting to it;
 *           in summary mode the wait for the next tick); the wake's time is the line's time minus
 *           reactionMs, whole milliseconds on evictd's Date.now(), taken at the middle of its ms;
 *   read    evictd's stats read (timings.readMs);
 *   decide  evictd's decision (timings.decideMs: with the bounded pick's reads; builds before the
 *           eviction's own refusal answered for budgets also held the dry run's round trip here);
 *   send    the rest, up to the call's arrival at the API server: the wake waiting for the loop,
 *           the dry run with `--eviction-dry-run`, and the call built and sent.
 * wake and send are each within ±0.5 ms (evictd's whole-ms clock); the four add up to the total.
 * Beside them, on the server's clock alone: the preflight's dry run arriving → the real call
 * arriving (`dryRunToCallMs`: the dry run's answer, evictd acting on it, the real call sent), and
 * whether the call came on a connection opened for it (`callOnNewConnection`: a TLS handshake on
 * the way).
 *
 * `--baseline DIR` runs each configuration first with the evictd of another checkout (built), then
 * with this one: a before and after in one run. `--dry-run-first [on|both]` runs this one with
 * `--eviction-dry-run`.
 *
 *   node dist/bench/reaction-bench.js --mode cluster [--driver cgroupfs|systemd] [--pods 5,110]
 *        [--rates 512,1024,2048] [--trials 20] [--summary-trials 5] [--placement pod|outside]
 *        [--hog [on|off|both]] [--baseline DIR] [--dry-run-first [on|off|both]] [--out FILE]
 *
 * `--summary-trials 0` skips the summary mode. Needs root and a memory cgroup (and stress-ng for
 * `--hog`). Writes bench/results/reaction-cluster.json (reaction-cluster-systemd.json with --driver
 * systemd), or `--out FILE`. Everything it makes (cgroups, processes, the temporary directory) is
 * removed at the end, also when a run fails or is interrupted (SIGINT, SIGTERM).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readProcStatNow } from "../src/linux/procfs.js";
import {
  isDryRun,
  startFakeApiServer,
  type FakeApiServer,
  type FakePod,
  type RecordedRequest,
} from "../test/harness/fake-api-server/fake-api-server.js";
import { KubeletCpuTree, kubeletCpuTreeUnavailable } from "../test/harness/kubelet-cpu-tree.js";
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
import { readEvictdDaemonSetPod, type EvictdDaemonSetPod } from "./evictd-daemonset-pod.js";
import { clockTicksPerSecond } from "./proc-sampler.js";
import { parseRampNotes, rampPodCommand } from "./ramp-pod.js";

const MIB = 1024 * 1024;
const CAPACITY = 512 * MIB;
const THRESHOLD = 100 * MIB;
const MARGIN = 32 * MIB;
const LINGER_SECONDS = 1;
const RESIDENTS = 3;
const NODE_NAME = "bench-node";
const TRIAL_TIMEOUT_MS = 30_000;
const DAEMONSET_FILE = path.join(REPO_ROOT, "deploy", "daemonset.yaml");
const STRESS_NG = "/usr/bin/stress-ng";
const HOG_ARGV = [STRESS_NG, "--cpu", "1"];
/** The kubelet's oom_score_adj for a node-critical pod's containers (as for Guaranteed ones). */
const CRITICAL_OOM_SCORE_ADJ = -997;
const CRITICAL_PRIORITY = 2_000_000_000;

export type StatsMode = "cgroups" | "summary";
/** Where evictd runs: in a pod of its own on the node, as its DaemonSet puts it, or beside the node. */
export type Placement = "pod" | "outside";
/** Whether a configuration runs beside the CPU hog. */
export type HogSetting = boolean;

/** Which evictd a configuration runs. */
export interface Variant {
  /** In the tables and results ("current", "dry run first", "baseline 2b8f08d"). */
  readonly name: string;
  /** bin/evictd.js of another checkout (built); default this one's. */
  readonly bin?: string;
  /** With --eviction-dry-run. */
  readonly dryRunFirst?: boolean;
}

export const CURRENT: Variant = { name: "current" };

export interface ClusterArgs {
  readonly pods: readonly number[];
  readonly rates: readonly number[];
  readonly trials: number;
  /** Trials of `--stats summary` at the first node size (0: none). */
  readonly summaryTrials: number;
  /** The kubelet's cgroup driver whose layout the node gets (default cgroupfs). */
  readonly driver?: KubeletDriver;
  /** Default pod. */
  readonly placement?: Placement;
  /** Each configuration once per setting, in this order (default: without the hog). */
  readonly hogs?: readonly HogSetting[];
  /**
   * Each configuration once per evictd, in this order (default: this checkout's, as it is): an
   * earlier build (`--baseline DIR`) or this one with `--eviction-dry-run`, for a before and after
   * in one run.
   */
  readonly variants?: readonly Variant[];
  /** The results file (absolute); default bench/results/reaction-cluster[-systemd].json. */
  readonly out?: string;
}

/** Where the time from the crossing to the Eviction API call went (ms; see the header). */
interface Phases {
  readonly wakeMs: number;
  readonly readMs: number;
  readonly decideMs: number;
  readonly sendMs: number;
}

interface Trial {
  readonly mode: StatsMode;
  readonly placement: Placement;
  readonly hog: HogSetting;
  /** Which evictd ran. */
  readonly variant: string;
  readonly pods: number;
  readonly rate: number;
  readonly index: number;
  /** evicted: the Eviction API call came; oom: the kernel killed first; full: the node reached its limit first. */
  readonly outcome: "evicted" | "oom" | "full" | "other";
  /** Crossing → Eviction API call. */
  readonly reactionMs?: number;
  /** The call came on a connection opened for it (a TLS handshake on the way), not a kept one. */
  readonly callOnNewConnection?: boolean;
  readonly phasesMs?: Phases;
  /**
   * The preflight's dry-run eviction arriving → the real call arriving (server's clock): the dry
   * run's answer, evictd acting on it, and the real call sent (part of decide, and send).
   */
  readonly dryRunToCallMs?: number;
  /** What woke evictd's loop for the eviction, and its own wake → call returned time (its log line). */
  readonly wake?: string;
  readonly daemonReactionMs?: number;
  /** The step's own timings as evictd logs them (read, decide, kill). */
  readonly daemonTimings?: Record<string, number>;
  readonly overEvictions: number;
  /** Evictions of evictd's own pod (among the over-evictions): it must never ask for one. */
  readonly selfEvictions: number;
  readonly oomKills: number;
  /** Charges the node's limit refused (the node was full: a faulting workload is OOM-killed there). */
  readonly limitHits: number;
}

/** One configuration's evictd, hog and node, as found when it ended. */
interface ConfigurationRecord {
  readonly pods: number;
  readonly mode: StatsMode;
  readonly placement: Placement;
  readonly hog: HogSetting;
  readonly variant: string;
  /** The hog's CPU time over the configuration's wall time (1 = a whole core). */
  readonly hogCpuCores?: number;
  /** evictd's container cgroup's peak memory (v1 max_usage_in_bytes), with --placement pod. */
  readonly evictdPeakMemoryBytes?: number;
  /** The oom_score_adj evictd's process got, or why it kept its own. */
  readonly evictdOomScoreAdj?: number | string;
  readonly selfEvictions: number;
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

/**
 * What a configuration made, undone in reverse order, each step whatever the others did; run once
 * (at the end, on a failure, or on SIGINT/SIGTERM, whichever comes first).
 */
class Teardown {
  readonly #steps: { what: string; run: () => void | Promise<void> }[] = [];
  #done: Promise<void> | undefined;

  add(what: string, run: () => void | Promise<void>): void {
    this.#steps.push({ what, run });
  }

  run(): Promise<void> {
    this.#done ??= (async () => {
      for (const step of this.#steps.reverse()) {
        try {
          await step.run();
        } catch (error) {
          console.error(`cleanup: ${step.what}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    })();
    return this.#done;
  }
}

/** The teardown of the configuration under way, for the signal handlers. */
let current: Teardown | undefined;

/** SIGKILLs every process in a cgroup subtree (a pod's forked children too) and waits until it is empty. */
async function killEverythingIn(dir: string): Promise<void> {
  const procs = (d: string): number[] => {
    if (!existsSync(d)) return [];
    const own = readFileSync(path.join(d, "cgroup.procs"), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map(Number);
    const below = readdirSync(d, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((e) => procs(path.join(d, e.name)));
    return [...own, ...below];
  };
  await until(
    `the processes in ${dir} to exit`,
    () => {
      const left = procs(dir);
      for (const pid of left) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Exited meanwhile.
        }
      }
      return left.length === 0 ? true : undefined;
    },
    10_000,
    20,
  );
}

/** SIGTERM, then SIGKILL past the grace period; resolves when the process has exited. */
async function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Gives a process the oom_score_adj its pod's containers get; returns the value, or why it was not set. */
function setOomScoreAdj(pid: number, value: number): number | string {
  try {
    writeFileSync(`/proc/${pid}/oom_score_adj`, String(value));
    return value;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return code === "EACCES" || code === "EPERM"
      ? `${value} not set (${code}: lowering it needs CAP_SYS_RESOURCE, which this process lacks)`
      : `${value} not set (${code})`;
  }
}

/** A DaemonSet pod's name: the set's name and five characters of Kubernetes' name alphabet. */
function daemonSetPodName(daemonSet: string): string {
  const alphabet = "bcdfghjklmnpqrstvwxz2456789";
  return `${daemonSet}-${[...randomBytes(5)].map((b) => alphabet[b % alphabet.length]).join("")}`;
}

/** evictd's pod in the API, as the DaemonSet controller and the API server would have made it. */
function evictdApiPod(ds: EvictdDaemonSetPod, name: string, uid: string, id: string): FakePod {
  const pod = apiPod(NODE_NAME, {
    name,
    namespace: ds.namespace,
    uid,
    qos: ds.qos,
    containers: [{ name: ds.containerName, id }],
    ...(ds.priorityClassName !== undefined ? { priorityClassName: ds.priorityClassName } : {}),
    ...(ds.priority !== undefined ? { priority: ds.priority } : {}),
    terminationGracePeriodSeconds: ds.terminationGracePeriodSeconds,
  });
  pod.metadata["labels"] = { ...ds.labels };
  pod.metadata["ownerReferences"] = [
    {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      name: ds.daemonSet,
      uid: randomUUID(),
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
  const containers = pod.spec["containers"] as Record<string, unknown>[];
  for (const c of containers) c["resources"] = structuredClone(ds.resources);
  return pod;
}

interface Configuration {
  readonly mode: StatsMode;
  readonly pods: number;
  readonly driver: KubeletDriver;
  readonly placement: Placement;
  readonly hog: HogSetting;
  readonly variant: Variant;
}

interface Bench {
  readonly config: Configuration;
  readonly node: KubeletNode;
  readonly cpu: KubeletCpuTree | undefined;
  readonly server: FakeApiServer;
  readonly watch: ChildProcess;
  readonly url: string;
  readonly evictions: RecordedRequest[];
  /** The preflight's dry-run evictions. */
  readonly dryRuns: RecordedRequest[];
  readonly dir: string;
  /** evictd's pod: its API path prefix and container cgroup (with --placement pod). */
  readonly evictdPod?: { readonly path: string; readonly containerDir: string };
  readonly hogPod?: RunningPod;
  /** When the hog started (performance.now()). */
  readonly hogStartedAt?: number;
  /** The oom_score_adj evictd's process got, or why it kept its own. */
  readonly evictdOomScoreAdj?: number | string;
  readonly teardown: Teardown;
  /** evictd's log lines so far (JSON, one per line). */
  readonly log: () => string[];
}

function watchArgv(mode: StatsMode, node: KubeletNode, kubeconfig: string, variant: Variant): string[] {
  return [
    variant.bin ?? EVICTD_BIN,
    "watch",
    "--node",
    NODE_NAME,
    "--kubeconfig",
    kubeconfig,
    "--enforce",
    "--use-eviction-api",
    ...(variant.dryRunFirst === true ? ["--eviction-dry-run"] : []),
    "--interval",
    "10s",
    "--listen",
    "127.0.0.1:0",
    "--stats",
    mode,
    ...(mode === "cgroups" ? ["--cgroupfs", node.cgroupfs, "--node-cgroup", node.nodeCgroup] : []),
  ];
}

async function startBench(config: Configuration, ds: EvictdDaemonSetPod | undefined): Promise<Bench> {
  const { mode, pods, driver, placement, hog } = config;
  const teardown = new Teardown();
  current = teardown;
  try {
    const dir = mkdtempSync(path.join(os.tmpdir(), `evictd-cluster-bench-${mode}-`));
    teardown.add("the temporary directory", () => rmSync(dir, { recursive: true, force: true }));
    const node = new KubeletNode(driver, CAPACITY);
    let cpu: KubeletCpuTree | undefined;
    // The processes go first (evictd has had its SIGTERM by then: its step comes later, so runs
    // earlier), the memory cgroups next, the cpu cgroups, which hold the same processes, last.
    teardown.add("the node's cgroups", async () => {
      await killEverythingIn(node.nodeDir);
      await node.destroy();
      cpu?.destroy();
    });
    const evictdCpuMilli = placement === "pod" && ds?.qos === "Burstable" ? ds.cpuRequestMilli : 0;
    if (kubeletCpuTreeUnavailable() === false)
      cpu = new KubeletCpuTree(path.basename(node.nodeDir), {
        driver,
        allocatableMilliCpu: os.availableParallelism() * 1000,
        burstableMilliCpu: evictdCpuMilli,
      });
    const api = startResidents(node, NODE_NAME, pods - 1 - RESIDENTS);
    const evictd =
      placement === "pod" && ds !== undefined
        ? { uid: randomUUID(), id: containerId(), name: daemonSetPodName(ds.daemonSet) }
        : undefined;
    if (evictd !== undefined && ds !== undefined)
      api.push(evictdApiPod(ds, evictd.name, evictd.uid, evictd.id));
    let hogPod: RunningPod | undefined;
    let hogStartedAt: number | undefined;
    if (hog) {
      const uid = randomUUID();
      const id = containerId();
      api.push(
        apiPod(NODE_NAME, { name: "hog", uid, qos: "BestEffort", containers: [{ name: "stress-ng", id }] }),
      );
      hogStartedAt = performance.now();
      hogPod = node.addPod({
        uid,
        qos: "BestEffort",
        containers: [{ id, argv: HOG_ARGV, alsoJoin: cpu?.addPod(uid, "BestEffort", [{ id }]) ?? [] }],
      });
      const container = hogPod.containers[0];
      if (container === undefined) throw new Error("the hog's pod has no container");
      container.child.stdout?.resume();
      container.child.stderr?.resume();
      // stress-ng runs its stressor in a child of its own: both are there once the hog is spinning.
      await until(
        "stress-ng's stressor",
        () => {
          const { exitCode, signalCode } = container.child;
          if (exitCode !== null || signalCode !== null)
            throw new Error(`${STRESS_NG} exited at once (${exitCode ?? signalCode})`);
          const procs = readFileSync(path.join(container.dir, "cgroup.procs"), "utf8").trim().split("\n");
          return procs.length >= 2 ? true : undefined;
        },
        10_000,
        10,
      );
    }
    writeClusterData(dir, { nodeName: NODE_NAME, driver, pods: api });
    const server = await startFakeApiServer(clusterDataOptions(dir, NODE_NAME));
    teardown.add("the API server", () => server.close());
    const evictions: RecordedRequest[] = [];
    const dryRuns: RecordedRequest[] = [];
    server.onRequest = (r) => {
      // The real eviction: the preflight's dry run (on by default with --use-eviction-api) comes first.
      if (r.method === "POST" && r.path.endsWith("/eviction")) (isDryRun(r) ? dryRuns : evictions).push(r);
      if (mode === "summary" && r.path.endsWith("/stats/summary")) freshSummary(server, node);
    };
    const kubeconfig = await server.writeKubeconfig(path.join(dir, "kubeconfig"));
    const argv = watchArgv(mode, node, kubeconfig, config.variant);
    let watch: ChildProcess;
    let evictdPod: Bench["evictdPod"];
    let evictdOomScoreAdj: number | string | undefined;
    if (evictd !== undefined && ds !== undefined) {
      if (ds.qos === "Guaranteed")
        throw new Error(`${DAEMONSET_FILE}: a Guaranteed evictd pod is not modelled here`);
      const alsoJoin =
        cpu?.addPod(evictd.uid, ds.qos, [{ id: evictd.id, requestMilliCpu: ds.cpuRequestMilli }]) ?? [];
      const pod = node.addPod({
        uid: evictd.uid,
        qos: ds.qos,
        ...(ds.memoryLimitBytes !== undefined ? { limitBytes: ds.memoryLimitBytes } : {}),
        containers: [
          {
            id: evictd.id,
            argv: [process.execPath, ...argv],
            ...(ds.memoryLimitBytes !== undefined ? { limitBytes: ds.memoryLimitBytes } : {}),
            env: ds.env,
            alsoJoin,
          },
        ],
      });
      const container = pod.containers[0];
      if (container === undefined) throw new Error("evictd's pod has no container");
      watch = container.child;
      if (
        cpu !== undefined &&
        path.relative(node.nodeDir, container.dir) !==
          path.relative(cpu.nodeDir, path.dirname(alsoJoin[0] ?? ""))
      )
        throw new Error(
          "the cpu tree's layout differs from the memory tree's (kubelet-cpu-tree.ts, kubelet-node.ts)",
        );
      if ((ds.priority ?? 0) >= CRITICAL_PRIORITY && watch.pid !== undefined) {
        evictdOomScoreAdj = setOomScoreAdj(watch.pid, CRITICAL_OOM_SCORE_ADJ);
        if (typeof evictdOomScoreAdj === "string")
          console.log(`  evictd's oom_score_adj: ${evictdOomScoreAdj}`);
      }
      evictdPod = {
        path: `/api/v1/namespaces/${ds.namespace}/pods/${evictd.name}/`,
        containerDir: container.dir,
      };
    } else {
      watch = spawn(process.execPath, argv, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"] });
    }
    const grace = (ds?.terminationGracePeriodSeconds ?? 15) * 1000;
    teardown.add("evictd", () => stopProcess(watch, grace));
    watch.stderr?.setEncoding("utf8").on("data", (d: string) => process.stderr.write(d));
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
        if (watch.exitCode !== null || watch.signalCode !== null)
          throw new Error(`evictd exited before it watched (${watch.exitCode ?? watch.signalCode})`);
        const line = stdout.split("\n").find((l) => l.includes("evictd watching node"));
        return line === undefined ? undefined : (JSON.parse(line) as { url: string }).url;
      },
      30_000,
      25,
    );
    return {
      config,
      node,
      cpu,
      server,
      watch,
      url,
      evictions,
      dryRuns,
      dir,
      ...(evictdPod !== undefined ? { evictdPod } : {}),
      ...(hogPod !== undefined ? { hogPod } : {}),
      ...(hogStartedAt !== undefined ? { hogStartedAt } : {}),
      ...(evictdOomScoreAdj !== undefined ? { evictdOomScoreAdj } : {}),
      teardown,
      log: () => lines,
    };
  } catch (error) {
    await teardown.run();
    throw error;
  }
}

/** What the configuration left to record, read before its processes go. */
function configurationRecord(b: Bench): ConfigurationRecord {
  const { pods, mode, placement, hog } = b.config;
  let hogCpuCores: number | undefined;
  const hogDir = b.hogPod?.containers[0]?.dir;
  if (hogDir !== undefined) {
    const ticks = readFileSync(path.join(hogDir, "cgroup.procs"), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .reduce((n, pid) => n + (readProcStatNow(Number(pid))?.cpuTicks ?? 0), 0);
    hogCpuCores = ticks / clockTicksPerSecond() / ((performance.now() - (b.hogStartedAt ?? 0)) / 1000);
  }
  const peakFile =
    b.evictdPod === undefined
      ? undefined
      : path.join(
          b.evictdPod.containerDir,
          b.node.api === "v1" ? "memory.max_usage_in_bytes" : "memory.peak",
        );
  const peak =
    peakFile !== undefined && existsSync(peakFile) ? Number(readFileSync(peakFile, "utf8")) : undefined;
  const self =
    b.evictdPod === undefined
      ? 0
      : b.evictions.filter((r) => r.path.startsWith(b.evictdPod?.path ?? "")).length;
  return {
    pods,
    mode,
    placement,
    hog,
    variant: b.config.variant.name,
    ...(hogCpuCores !== undefined ? { hogCpuCores } : {}),
    ...(peak !== undefined ? { evictdPeakMemoryBytes: peak } : {}),
    ...(b.evictdOomScoreAdj !== undefined ? { evictdOomScoreAdj: b.evictdOomScoreAdj } : {}),
    selfEvictions: self,
  };
}

async function stopBench(b: Bench): Promise<void> {
  await b.teardown.run();
  if (current === b.teardown) current = undefined;
}

/** Whether evictd's /status lists the pod (it must know the pod before the pod can be ranked). */
async function knows(url: string, key: string): Promise<boolean> {
  const status = (await (await fetch(`${url}/status`)).json()) as { pods: { pod: string }[] };
  return status.pods.some((p) => p.pod === key);
}

interface EvictedLine {
  msg?: string;
  time?: string;
  wake?: string;
  reactionMs?: number;
  timings?: Record<string, number>;
}

/** The phases of one eviction (see the header), when evictd's line and both clocks' times are there. */
function phasesOf(line: EvictedLine | undefined, crossAt: number, callAt: number): Phases | undefined {
  const readMs = line?.timings?.["readMs"];
  const decideMs = line?.timings?.["decideMs"];
  if (
    line?.time === undefined ||
    line.reactionMs === undefined ||
    readMs === undefined ||
    decideMs === undefined
  )
    return undefined;
  // Whole ms on evictd's Date.now(): the wake happened within that ms, taken at its middle.
  const wakeAt = Date.parse(line.time) - line.reactionMs + 0.5;
  return {
    wakeMs: wakeAt - crossAt,
    readMs,
    decideMs,
    sendMs: callAt - wakeAt - readMs - decideMs,
  };
}

async function runTrial(b: Bench, rate: number, index: number): Promise<Trial> {
  const { mode, pods, placement, hog } = b.config;
  if (b.watch.exitCode !== null || b.watch.signalCode !== null)
    throw new Error(
      `evictd has exited (${b.watch.exitCode ?? b.watch.signalCode}) before trial ${index + 1} at ${rate} MiB/s`,
    );
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
  const dryRunsBefore = b.dryRuns.length;
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
        alsoJoin: b.cpu?.addPod(uid, "Burstable", [{ id }]) ?? [],
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
  b.cpu?.removePod(uid);
  if (first !== undefined) b.server.finishDeletion("default", name);
  else b.server.removePod("default", name);
  await sleep(500);
  const ramp = parseRampNotes(readFileSync(notes, "utf8"));
  const oomKills = b.node.oomKills() - oomBefore;
  const limitHits = b.node.limitHits() - limitBefore;
  const others = b.evictions.slice(before).filter((r) => !mine(r));
  const selfEvictions = others.filter(
    (r) => b.evictdPod !== undefined && r.path.startsWith(b.evictdPod.path),
  ).length;
  const evictedLine = b
    .log()
    .map((l): EvictedLine => {
      try {
        return JSON.parse(l) as EvictedLine;
      } catch {
        return {};
      }
    })
    .find((l) => l.msg?.startsWith(`evicted default/${name} `) === true);
  const dryRun =
    first === undefined
      ? undefined
      : b.dryRuns
          .slice(dryRunsBefore)
          .filter((r) => mine(r) && r.receivedAt <= first.receivedAt)
          .at(-1);
  const phases =
    first !== undefined && ramp.crossAt !== undefined
      ? phasesOf(evictedLine, ramp.crossAt, first.receivedAt)
      : undefined;
  return {
    mode,
    placement,
    hog,
    variant: b.config.variant.name,
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
    ...(phases !== undefined ? { phasesMs: phases } : {}),
    ...(first !== undefined ? { callOnNewConnection: first.newConnection } : {}),
    ...(first !== undefined && dryRun !== undefined
      ? { dryRunToCallMs: first.receivedAt - dryRun.receivedAt }
      : {}),
    overEvictions: others.length,
    selfEvictions,
    oomKills,
    limitHits,
  };
}

const ms = (x: number): string => num(x, 1);

function trialLine(t: Trial): string {
  const p = t.phasesMs;
  const parts = [
    `  ${t.pods} pods ${t.mode}${t.hog ? " +hog" : ""}${t.variant !== CURRENT.name ? ` (${t.variant})` : ""} ${t.rate} MiB/s #${t.index + 1}: ${t.outcome}`,
    t.reactionMs !== undefined ? ` ${ms(t.reactionMs)} ms` : "",
    p !== undefined
      ? ` = wake ${ms(p.wakeMs)} + read ${ms(p.readMs)} + decide ${ms(p.decideMs)} + send ${ms(p.sendMs)}`
      : "",
    t.dryRunToCallMs !== undefined ? ` (dry run → call ${ms(t.dryRunToCallMs)})` : "",
    t.callOnNewConnection === true ? " (on a new connection)" : "",
    t.overEvictions > 0 ? ` +${t.overEvictions} other pods` : "",
    t.selfEvictions > 0 ? ` (evictd's own pod ${t.selfEvictions}×: FINDING, it must never evict itself)` : "",
    t.oomKills > 0 ? ` oom ${t.oomKills}` : "",
    t.limitHits > 0 ? ` (node full: ${t.limitHits} charges refused)` : "",
    t.wake !== undefined
      ? ` [woken by ${t.wake}; ${t.daemonReactionMs !== undefined ? ms(t.daemonReactionMs) : "?"} ms to the call's return]`
      : "",
  ];
  return `${parts.join("")}\n`;
}

const spread = (values: readonly number[]) =>
  values.length === 0
    ? null
    : { median: median(values), p99: quantile(values, 0.99), max: Math.max(...values) };

function summarize(trials: readonly Trial[]) {
  const reactions = trials.flatMap((t) => (t.reactionMs === undefined ? [] : [t.reactionMs]));
  const phase = (k: keyof Phases) =>
    spread(trials.flatMap((t) => (t.phasesMs === undefined ? [] : [t.phasesMs[k]])));
  return {
    trials: trials.length,
    evicted: trials.filter((t) => t.outcome === "evicted").length,
    oomKilled: trials.filter((t) => t.outcome === "oom").length,
    nodeFull: trials.filter((t) => t.outcome === "full").length,
    trialsAtLimit: trials.filter((t) => t.limitHits > 0).length,
    kernelOomKills: trials.reduce((n, t) => n + t.oomKills, 0),
    overEvictions: trials.reduce((n, t) => n + t.overEvictions, 0),
    selfEvictions: trials.reduce((n, t) => n + t.selfEvictions, 0),
    reactionMs: spread(reactions),
    dryRunToCallMs: spread(trials.flatMap((t) => (t.dryRunToCallMs === undefined ? [] : [t.dryRunToCallMs]))),
    phasesMs: {
      wake: phase("wakeMs"),
      read: phase("readMs"),
      decide: phase("decideMs"),
      send: phase("sendMs"),
    },
  };
}

/** `median / p99`, or `-`. */
const cell = (s: { median: number; p99: number } | null): string =>
  s === null ? "-" : `${num(s.median, 1)} / ${num(s.p99, 1)}`;

export async function runClusterReaction(args: ClusterArgs): Promise<void> {
  const unavailable = kubeletNodeUnavailable();
  if (unavailable !== false) {
    console.error(`cluster reaction benchmark cannot run here: ${unavailable}`);
    process.exitCode = 1;
    return;
  }
  const driver = args.driver ?? "cgroupfs";
  const placement = args.placement ?? "pod";
  const hogs = args.hogs ?? [false];
  const variants = args.variants ?? [CURRENT];
  if (hogs.includes(true) && !existsSync(STRESS_NG)) {
    console.error(
      `cluster reaction benchmark: --hog runs ${STRESS_NG} --cpu 1, and ${STRESS_NG} is not there (install stress-ng)`,
    );
    process.exitCode = 1;
    return;
  }
  const ds = placement === "pod" ? readEvictdDaemonSetPod(DAEMONSET_FILE) : undefined;
  const cpuUnavailable = kubeletCpuTreeUnavailable();
  const cpuCgroups =
    cpuUnavailable === false
      ? "cgroup v1 cpu hierarchy: evictd's, the hog's and the ramps' pods at the kubelet's cpu.shares"
      : `not modelled: ${cpuUnavailable}`;
  const machine = machineInfo();
  console.log(
    `cluster reaction benchmark (evictd watch --enforce --use-eviction-api): ${describeMachine(machine)}`,
  );
  console.log(
    `node 512Mi (kubelet ${driver} layout), hard memory.available 100Mi, --interval 10s, pods ${args.pods.join(", ")}; ` +
      `cgroups: ${args.trials} trials per rate, summary: ${args.summaryTrials} (first node size only)`,
  );
  console.log(
    placement === "pod" && ds !== undefined
      ? `evictd in its DaemonSet pod ${ds.namespace}/${ds.daemonSet}-… (${ds.qos}, ${ds.priorityClassName ?? "no priority class"}, memory limit ${ds.resources.limits["memory"] ?? "none"}); CPU: ${cpuCgroups}`
      : `evictd outside the node's cgroups; CPU: ${cpuCgroups}`,
  );
  if (hogs.includes(true))
    console.log(
      `hog: BestEffort pod \`${HOG_ARGV.join(" ")}\` ${hogs.length > 1 ? "in every second configuration" : "in every configuration"}`,
    );
  const all: Trial[] = [];
  const rows: string[][] = [];
  const phaseRows: string[][] = [];
  const summaries: unknown[] = [];
  const configurations: ConfigurationRecord[] = [];
  const onSignal = (signal: NodeJS.Signals): void => {
    console.error(`\n${signal}: cleaning up`);
    void (current?.run() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    for (const pods of args.pods) {
      for (const mode of ["cgroups", "summary"] as const) {
        const trials = mode === "cgroups" ? args.trials : args.summaryTrials;
        if (trials === 0 || (mode === "summary" && pods !== args.pods[0])) continue;
        for (const hog of hogs)
          for (const variant of variants) {
            const b = await startBench({ mode, pods, driver, placement, hog, variant }, ds);
            try {
              for (const rate of args.rates) {
                const these: Trial[] = [];
                for (let i = 0; i < trials; i++) {
                  const t = await runTrial(b, rate, i);
                  these.push(t);
                  process.stdout.write(trialLine(t));
                }
                all.push(...these);
                const s = summarize(these);
                summaries.push({ pods, mode, placement, hog, variant: variant.name, rate, ...s });
                const key = [String(pods), mode, hog ? "yes" : "no", variant.name, String(rate)];
                rows.push([
                  ...key,
                  `${s.evicted}/${s.trials}`,
                  s.reactionMs === null ? "-" : num(s.reactionMs.median, 1),
                  s.reactionMs === null ? "-" : num(s.reactionMs.p99, 1),
                  String(s.kernelOomKills),
                  String(s.trialsAtLimit),
                  String(s.overEvictions),
                ]);
                phaseRows.push([
                  ...key,
                  cell(s.reactionMs),
                  cell(s.phasesMs.wake),
                  cell(s.phasesMs.read),
                  cell(s.phasesMs.decide),
                  cell(s.phasesMs.send),
                ]);
              }
              const record = configurationRecord(b);
              configurations.push(record);
              if (record.hogCpuCores !== undefined)
                console.log(`  the hog had ${num(record.hogCpuCores, 2)} of a core over this configuration`);
              if (record.selfEvictions > 0)
                console.log(`  FINDING: evictd asked to evict its own pod ${record.selfEvictions} time(s)`);
            } finally {
              await stopBench(b);
            }
          }
      }
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const keyHeader = ["pods", "stats", "hog", "evictd", "MiB/s"];
  console.log(
    `\ncrossing → Eviction API call (ms), evictd ${placement === "pod" ? "in its pod" : "outside the node"}:\n${table(
      [...keyHeader, "evicted", "median", "p99", "OOM kills", "node full", "over-evictions"],
      rows,
    )}`,
  );
  console.log(
    `\nphases (ms, median / p99; see cluster-reaction-bench.ts):\n${table(
      [...keyHeader, "total", "wake", "read", "decide", "send"],
      phaseRows,
    )}`,
  );
  const suffix = driver === "systemd" ? "-systemd" : "";
  const out =
    args.out ?? fileURLToPath(new URL(`../../bench/results/reaction-cluster${suffix}.json`, import.meta.url));
  writeResults(out, {
    benchmark: "reaction-cluster",
    machine,
    parameters: {
      capacity: "512Mi",
      evictionHard: { "memory.available": "100Mi" },
      interval: "10s",
      layout: `kubelet ${driver} driver`,
      enforce: "Eviction API",
      placement,
      ...(ds !== undefined
        ? {
            evictdPod: {
              from: "deploy/daemonset.yaml",
              namespace: ds.namespace,
              daemonSet: ds.daemonSet,
              qos: ds.qos,
              priorityClassName: ds.priorityClassName,
              resources: ds.resources,
              env: ds.env,
              // What the kubelet gives it; what it got here is in each configuration.
              kubeletOomScoreAdj:
                (ds.priority ?? 0) >= CRITICAL_PRIORITY ? CRITICAL_OOM_SCORE_ADJ : undefined,
            },
          }
        : {}),
      cpuCgroups,
      hog: hogs.length > 1 ? "both" : hogs[0] === true ? "on" : "off",
      variants: variants.map((v) => ({
        name: v.name,
        ...(v.bin !== undefined ? { bin: v.bin } : {}),
        ...(v.dryRunFirst === true ? { args: ["--eviction-dry-run"] } : {}),
      })),
      ...(hogs.includes(true) ? { hogPod: `BestEffort, ${HOG_ARGV.join(" ")}` } : {}),
      pods: args.pods,
      rates: args.rates,
      trials: args.trials,
      summaryTrials: args.summaryTrials,
    },
    summaries,
    configurations,
    trials: all,
  });
  console.log(`\nwritten to ${out}`);
}
