/**
 * Deterministic generator of a realistic recorded replay trace (docs/replay-format.md): a 110-pod
 * node scraped every 10 s, memory slowly ramping through the soft and hard thresholds (evicted pods
 * leave the summary; their controllers recreate them a little later), disk usage drifting. Used by
 * the replay benchmark; run directly it writes a trace file:
 *
 *   node dist/tools/trace-generator/generate-trace.js --steps 3000 [--pods 110] [--richness full|typical|eviction|recorded]
 *        [--seed 1] [--from 0] [--jsonl] [--kubelet-admission] [--node NAME] [--out trace.json]
 *
 * `--jsonl` writes the JSONL form (a header line, then one step per line), which `evictd replay`
 * streams; name the file `.jsonl`.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { EvictionModel, type MemoryThreshold, type PredictedEviction } from "./eviction-model.js";
import { Prng } from "./prng.js";
import { formatRfc3339Ms } from "../../src/core/time/rfc3339.js";
import { GI, MI, nodePods, podObject, type PodModel } from "./trace-pods.js";
import {
  podWorkingSet,
  renderSummary,
  RICHNESS,
  type ContainerRuntime,
  type FsSample,
  type NodeSample,
  type PodRuntime,
  type Richness,
  type ScrapeContext,
} from "./trace-summary.js";

export type { Richness } from "./trace-summary.js";

export interface TraceOptions {
  readonly steps: number;
  /** Pods on the node at the start (default 110, the kubelet's default maxPods). */
  readonly pods?: number;
  readonly seed?: number;
  readonly richness?: Richness;
  /** RFC 3339 wall time of the node history's step 0 (default 2025-03-03T08:00:00Z). */
  readonly start?: string;
  /**
   * Where in the node's history the trace begins: steps before it are played out but not written
   * (default 0). The first pressure episode comes after about 600 steps (1h40m).
   */
  readonly fromStep?: number;
  /**
   * `json` (default): one document, `{..., "steps": [...]}`; `jsonl`: the JSONL form, a header line
   * then one line per step (docs/replay-format.md, "JSONL scenarios").
   */
  readonly format?: TraceFormat;
  /**
   * `always` (default): a replacement pod lands when it comes due, whatever the node's conditions;
   * `kubelet`: a BestEffort replacement waits while the node reports MemoryPressure (the kubelet's
   * admission would refuse it, and its controller would place it again later), so that the trace is
   * what a node whose kubelet admits pods records.
   */
  readonly admission?: "always" | "kubelet";
  /** The node's name (default ip-10-0-37-142.eu-west-1.compute.internal): a fleet's nodes differ. */
  readonly node?: string;
  /**
   * Applied to each step's Summary object before it is written (the fleet benchmark writes the
   * lean Summaries `evictd record` keeps, core/summary/lean-summary.ts, without a parse between).
   */
  readonly summaryShape?: (summary: Record<string, unknown>) => unknown;
}

export type TraceFormat = "json" | "jsonl";

export type { PredictedEviction } from "./eviction-model.js";

export interface TraceInfo {
  readonly bytes: number;
  readonly steps: number;
  readonly initialPods: number;
  readonly addedPods: number;
  readonly predictedEvictions: readonly PredictedEviction[];
  /** Lowest node memory.available seen, bytes. */
  readonly minMemoryAvailable: number;
}

const STEP_MS = 10_000;
const NODE_NAME = "ip-10-0-37-142.eu-west-1.compute.internal";
/**
 * The node's memory, sized to its pods: the smallest multiple of 8 GiB that leaves them about 14%
 * headroom (64 GiB for 110 pods), reported as the kernel does, a little under the nominal size
 * (65,032,180 KiB for 64 GiB).
 */
function memoryCapacity(workingSet: number): number {
  const nominal = Math.max(2, Math.ceil(workingSet / 0.86 / (8 * GI))) * 8 * GI;
  return Math.round((nominal / 1024) * (65_032_180 / 67_108_864)) * 1024;
}
/** evictionPressureTransitionPeriod of {@link CONFIG}. */
const PRESSURE_TRANSITION_MS = 5 * 60_000;
const RESERVED_MEMORY = 1536 * MI; // kubeReserved 1Gi + systemReserved 512Mi
const NODEFS_CAPACITY = 107_374_182_400;
const IMAGEFS_CAPACITY = 214_748_364_800;

/** The eviction settings of the trace; MEMORY_THRESHOLDS mirrors them for the eviction model. */
const CONFIG = {
  apiVersion: "kubelet.config.k8s.io/v1beta1",
  kind: "KubeletConfiguration",
  evictionHard: {
    "memory.available": "500Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
    "imagefs.available": "15%",
    "imagefs.inodesFree": "5%",
  },
  evictionSoft: { "memory.available": "1536Mi", "nodefs.available": "15%" },
  evictionSoftGracePeriod: { "memory.available": "1m30s", "nodefs.available": "2m0s" },
  evictionMinimumReclaim: { "memory.available": "256Mi", "nodefs.available": "1Gi" },
  evictionMaxPodGracePeriod: 60,
  evictionPressureTransitionPeriod: "5m0s",
  enforceNodeAllocatable: ["pods"],
};

// Config order as the engine builds it: hard, soft, then the allocatable copy of the hard one.
const MEMORY_THRESHOLDS: readonly MemoryThreshold[] = [
  { id: "hard", signal: "memory.available", value: 500 * MI, minReclaim: 256 * MI, graceMs: 0 },
  { id: "soft", signal: "memory.available", value: 1536 * MI, minReclaim: 256 * MI, graceMs: 90_000 },
  {
    id: "allocatable",
    signal: "allocatableMemory.available",
    value: 500 * MI,
    minReclaim: 256 * MI,
    graceMs: 0,
  },
];

/** RFC 3339 in whole seconds, as metav1.Time marshals. */
export function rfc3339(ms: number): string {
  return formatRfc3339Ms(Math.floor(ms / 1000) * 1000);
}

/** A Go duration string (`1h2m30s`), as a recorder written in Go would print `at`. */
function goDuration(ms: number): string {
  if (ms === 0) return "0s";
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
}

function runtimeOf(model: PodModel, rng: Prng): PodRuntime {
  const containers = model.containers.map((c): ContainerRuntime => ({
    model: c,
    workingSet: c.baseWorkingSet,
    logBytes: rng.int(0, 10 * MI),
    rootfsBytes: c.rootfsBytes,
    cpuNanoSeconds: rng.int(1, 5000) * 1e9,
    pageFaults: rng.int(1000, 200_000),
    psiCpu: rng.int(0, 5_000_000),
    psiIo: rng.int(0, 200_000),
    startedAt: model.startedAt + rng.int(200, 3000),
  }));
  return {
    model,
    containers,
    volumeUsed: model.volumes.map((v) => v.usedBytes),
    lagSeconds: rng.int(0, 8),
    rxBytes: rng.int(1e6, 5e9),
    txBytes: rng.int(1e6, 5e9),
    burst: 0,
    burstSteps: 0,
  };
}

/** One step of each pod's behaviour: leaks, noise around the target, bursts, logs and disk. */
function advance(p: PodRuntime, rng: Prng, ageSteps: number): void {
  for (const c of p.containers) {
    const m = c.model;
    const target = m.baseWorkingSet + m.leakPerStep * ageSteps;
    const noise = target * rng.range(-0.004, 0.004);
    let ws = Math.round(c.workingSet + (target - c.workingSet) * 0.3 + noise);
    // A container at its memory limit is OOM-killed by the kernel and restarts small.
    if (m.memLimit !== undefined && ws >= m.memLimit) ws = m.baseWorkingSet;
    c.workingSet = Math.max(4 * MI, ws);
    c.logBytes += m.logBytesPerStep + rng.int(0, m.logBytesPerStep);
    if (c.logBytes > 10 * MI) c.logBytes -= 10 * MI; // rotation (containerLogMaxSize 10Mi)
    if (rng.chance(0.02)) c.rootfsBytes += 4096 * rng.int(1, 8);
    c.cpuNanoSeconds += (m.cpuRequestMilli ?? 20) * 1e7 * rng.range(0.1, 1.2);
    c.pageFaults += rng.int(0, 400);
    c.psiCpu += rng.int(0, 20_000);
    c.psiIo += rng.int(0, 800);
  }
  p.model.volumes.forEach((v, i) => {
    p.volumeUsed[i] = (p.volumeUsed[i] ?? 0) + v.growthPerStep;
  });
  if (p.burstSteps > 0) {
    p.burstSteps--;
    if (p.burstSteps === 0) p.burst = 0;
  } else if (!p.model.critical && rng.chance(0.0004)) {
    // A traffic spike or a big batch: a few hundred MiB more for up to a few minutes.
    p.burst = rng.int(300, 1200) * MI;
    p.burstSteps = rng.int(3, 18);
  }
  p.rxBytes += rng.int(2_000, 900_000);
  p.txBytes += rng.int(2_000, 700_000);
}

function fsSample(capacity: number, used: number, inodes: number, inodesUsed: number): FsSample {
  // ext4 keeps 5% of blocks for root: available is what an unprivileged writer gets.
  const available = Math.max(0, Math.floor(capacity * 0.95) - used);
  return {
    capacityBytes: capacity,
    availableBytes: available,
    usedBytes: used,
    inodes,
    inodesFree: inodes - inodesUsed,
    inodesUsed,
  };
}

/**
 * Writes the trace as JSON (or JSONL) text through `write` (chunk by chunk: a long trace of a busy
 * node does not fit in one string) and returns what it wrote.
 */
export function writeTrace(options: TraceOptions, write: (chunk: string) => void): TraceInfo {
  const rng = new Prng(options.seed ?? 1);
  const nodeName = options.node ?? NODE_NAME;
  // Rendering noise has its own stream, so that every richness plays out the same node history.
  const noise = new Prng((options.seed ?? 1) + 0x5bd1e995);
  const richness = options.richness ?? "full";
  const start = Date.parse(options.start ?? "2025-03-03T08:00:00Z");
  const from = options.fromStep ?? 0;
  const jsonl = options.format === "jsonl";
  const end = from + options.steps;
  if (!(options.steps >= 1) || !(from >= 0))
    throw new RangeError("a trace needs at least one step, from a step ≥ 0");
  let bytes = 0;
  const emit = (s: string): void => {
    bytes += Buffer.byteLength(s);
    write(s);
  };

  const catalogue = nodePods(rng, options.pods ?? 110, nodeName, start);
  const started = new Map<PodRuntime, number>();
  let active: PodRuntime[] = catalogue.pods.map((m) => {
    const p = runtimeOf(m, rng);
    // Leaky pods have been leaking since they started: the node begins part-way up the ramp.
    const age = Math.floor((start - m.startedAt) / STEP_MS);
    for (const c of p.containers) c.workingSet += c.model.leakPerStep * age;
    started.set(p, -age);
    return p;
  });
  const pending: { step: number; model: PodModel }[] = [];
  let model = new EvictionModel(MEMORY_THRESHOLDS);
  const predicted: PredictedEviction[] = [];
  let evicted: PodRuntime | undefined;
  let addedPods = 0;
  let minAvailable = Number.POSITIVE_INFINITY;

  // Node-level slow drifts: system daemons' memory, page cache, journal and image store.
  let systemWs = 2.4 * GI;
  let initialWs = systemWs;
  for (const p of active) initialWs += podWorkingSet(p);
  const capacityMemory = memoryCapacity(initialWs);
  let journal = 2.2 * GI;
  let images = 41 * GI;
  const bootedAt = start - 3 * 86_400_000 - rng.int(0, 86_400_000);
  let nodeRx = rng.int(1e10, 9e10);
  let nodeTx = rng.int(1e10, 9e10);

  const time = rfc3339;
  let initialPods = 0;

  for (let step = 0; step < end; step++) {
    const now = start + step * STEP_MS;
    const written = step >= from;
    // The pod evicted last step is gone (its kill took effect); its replacement comes later.
    if (evicted !== undefined) {
      const gone = evicted;
      active = active.filter((p) => p !== gone);
      pending.push({
        step: step + rng.int(3, 12),
        model: catalogue.replacementFor(gone.model, now + rng.int(30, 120) * 1000),
      });
      evicted = undefined;
    }
    const added: PodModel[] = [];
    const refusing =
      options.admission === "kubelet" && model.memoryPressure(now - STEP_MS, PRESSURE_TRANSITION_MS);
    for (let i = pending.length - 1; i >= 0; i--) {
      const due = pending[i];
      if (due === undefined || due.step > step) continue;
      if (refusing && due.model.qos === "BestEffort") continue;
      pending.splice(i, 1);
      const fresh = new Prng(rng.nextUint32());
      const p = runtimeOf({ ...due.model, startedAt: now - 5000 }, fresh);
      started.set(p, step);
      active.push(p);
      if (step > from) {
        added.push(p.model);
        addedPods++;
      }
    }
    if (step === from) {
      // The trace begins here: the pods running now are its initial pods, and the engine starts
      // with a fresh state, which the generator's model must too.
      initialPods = active.length;
      model = new EvictionModel(MEMORY_THRESHOLDS);
      emit(
        `{"start":${JSON.stringify(time(now))},"config":${JSON.stringify(CONFIG)},` +
          `"node":${JSON.stringify({ metadata: { name: nodeName }, status: { capacity: { cpu: "16", memory: `${capacityMemory / 1024}Ki`, pods: "110", "ephemeral-storage": `${NODEFS_CAPACITY / 1024}Ki` } } })},` +
          `"pods":${JSON.stringify(active.map((p) => podObject(p.model, nodeName, time)))}` +
          (jsonl ? "}\n" : `,"steps":[`),
      );
    }
    for (const p of active) advance(p, rng, step - (started.get(p) ?? 0));

    systemWs = Math.min(3.1 * GI, Math.max(2.0 * GI, systemWs + rng.range(-6, 6.4) * MI));
    journal += rng.int(0, 400_000);
    if (journal > 4 * GI) journal = 2.2 * GI; // journald vacuum
    if (rng.chance(0.001)) images += rng.int(200, 900) * MI; // an image pull
    if (rng.chance(0.0005) && images > 45 * GI) images -= 6 * GI; // image GC
    nodeRx += rng.int(1e6, 3e7);
    nodeTx += rng.int(1e6, 2e7);

    let logs = 0;
    let scratch = 0;
    let rootfs = 0;
    let processes = 0;
    let podsWs = 0;
    for (const p of active) {
      podsWs += podWorkingSet(p);
      for (const c of p.containers) {
        logs += c.logBytes;
        rootfs += c.rootfsBytes;
        processes += c.model.processes;
      }
      p.model.volumes.forEach((v, i) => {
        if (v.kind === "emptyDir") scratch += p.volumeUsed[i] ?? 0;
      });
    }
    const nodeFsUsed = Math.round(13.5 * GI + journal + logs + scratch);
    const imageFsUsed = Math.round(images + rootfs);
    const node: NodeSample = {
      name: nodeName,
      capacityMemory,
      allocatableMemory: capacityMemory - RESERVED_MEMORY,
      systemWorkingSet: Math.round(systemWs),
      pageCache: Math.round(9 * GI + (journal % GI)),
      nodeFs: fsSample(
        NODEFS_CAPACITY,
        nodeFsUsed,
        6_553_600,
        412_000 + Math.round(logs / 200_000) + Math.round(scratch / 80_000),
      ),
      imageFs: fsSample(
        IMAGEFS_CAPACITY,
        imageFsUsed,
        13_107_200,
        1_180_000 + Math.round(imageFsUsed / 90_000),
      ),
      maxPid: 4_194_304,
      curProc: 240 + processes,
      bootedAt,
      rxBytes: nodeRx,
      txBytes: nodeTx,
    };
    const memoryAvailable = capacityMemory - podsWs - node.systemWorkingSet;
    if (written) minAvailable = Math.min(minAvailable, memoryAvailable);
    const decision = model.decide(
      now,
      { "memory.available": memoryAvailable, "allocatableMemory.available": node.allocatableMemory - podsWs },
      active,
    );
    if (decision !== undefined) {
      evicted = decision.pod;
      const pod = `${decision.pod.model.namespace}/${decision.pod.model.name}`;
      if (written)
        predicted.push({
          step: step - from,
          pod,
          signal: decision.threshold.signal,
          threshold: decision.threshold.id,
        });
    }
    if (!written) continue;

    // Rendering draws only from `noise`: skipped steps cost little and change nothing.
    const summary = renderSummary({ richness, rng: noise, now, step, time }, node, active);
    const record: Record<string, unknown> = {
      at: goDuration((step - from) * STEP_MS),
      summary: options.summaryShape === undefined ? summary : options.summaryShape(summary),
    };
    if (added.length > 0) record["addPods"] = added.map((m) => podObject(m, nodeName, time));
    if (jsonl) emit(JSON.stringify(record) + "\n");
    else emit((step === from ? "" : ",") + JSON.stringify(record));
  }
  if (!jsonl) emit("]}\n");
  return {
    bytes,
    steps: options.steps,
    initialPods,
    addedPods,
    predictedEvictions: predicted,
    minMemoryAvailable: minAvailable,
  };
}

/** One node at one instant, for benchmarks of a single synchronize. */
export interface NodeSnapshot {
  /** The KubeletConfiguration the trace uses. */
  readonly config: Record<string, unknown>;
  /** v1 Pod objects. */
  readonly pods: readonly Record<string, unknown>[];
  /** A Summary API response. */
  readonly summary: Record<string, unknown>;
}

/**
 * `pods` pods (system pods, then applications; the node's memory is sized to fit them) and one
 * scrape whose node `memory.available` is `memoryAvailable` bytes.
 */
export function nodeSnapshot(options: {
  readonly pods: number;
  readonly memoryAvailable: number;
  readonly seed?: number;
  readonly richness?: Richness;
}): NodeSnapshot {
  const rng = new Prng(options.seed ?? 1);
  const now = Date.parse("2025-03-03T08:00:00Z");
  const catalogue = nodePods(rng, options.pods, NODE_NAME, now);
  const active = catalogue.pods.map((m) => runtimeOf(m, rng));
  let podsWs = 0;
  for (const p of active) podsWs += podWorkingSet(p);
  const systemWs = Math.round(2.4 * GI);
  const capacity = podsWs + systemWs + options.memoryAvailable;
  const node: NodeSample = {
    name: NODE_NAME,
    capacityMemory: capacity,
    allocatableMemory: capacity - 1 * GI,
    systemWorkingSet: systemWs,
    pageCache: 9 * GI,
    nodeFs: fsSample(NODEFS_CAPACITY, 30 * GI, 6_553_600, 450_000),
    imageFs: fsSample(IMAGEFS_CAPACITY, 60 * GI, 13_107_200, 1_900_000),
    maxPid: 4_194_304,
    curProc: 240 + options.pods * 6,
    bootedAt: now - 3 * 86_400_000,
    rxBytes: 4e10,
    txBytes: 3e10,
  };
  const ctx: ScrapeContext = { richness: options.richness ?? "full", rng, now, step: 0, time: rfc3339 };
  return {
    config: CONFIG,
    pods: catalogue.pods.map((p) => podObject(p, NODE_NAME, rfc3339)),
    summary: renderSummary(ctx, node, active),
  };
}

/** The whole trace as one string (for traces that fit: a V8 string holds at most ~512 MiB). */
export function generateTrace(options: TraceOptions): { text: string; info: TraceInfo } {
  const chunks: string[] = [];
  const info = writeTrace(options, (s) => chunks.push(s));
  return { text: chunks.join(""), info };
}

/** Writes the trace to an open file descriptor in 4 MiB writes. */
function writeTraceToFd(fd: number, options: TraceOptions): TraceInfo {
  let buffered: string[] = [];
  let size = 0;
  const flush = (): void => {
    if (buffered.length === 0) return;
    writeSync(fd, buffered.join(""));
    buffered = [];
    size = 0;
  };
  const info = writeTrace(options, (s) => {
    buffered.push(s);
    size += s.length;
    if (size >= 4 * MI) flush();
  });
  flush();
  return info;
}

/** Writes the trace to `path`. */
export function writeTraceFile(path: string, options: TraceOptions): TraceInfo {
  const fd = openSync(path, "w");
  try {
    return writeTraceToFd(fd, options);
  } finally {
    closeSync(fd);
  }
}

const nodeOption = (node: string | undefined): { node?: string } => (node === undefined ? {} : { node });

function parseArgs(argv: readonly string[]): { options: TraceOptions; out: string | undefined } {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i === -1 ? undefined : argv[i + 1];
  };
  const richness = value("--richness") ?? "full";
  if (!(RICHNESS as readonly string[]).includes(richness))
    throw new Error(`--richness: expected one of ${RICHNESS.join(", ")}`);
  return {
    options: {
      steps: Number(value("--steps") ?? 3000),
      pods: Number(value("--pods") ?? 110),
      seed: Number(value("--seed") ?? 1),
      richness: richness as Richness,
      fromStep: Number(value("--from") ?? 0),
      format: argv.includes("--jsonl") ? "jsonl" : "json",
      admission: argv.includes("--kubelet-admission") ? "kubelet" : "always",
      ...nodeOption(value("--node")),
    },
    out: value("--out"),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { options, out } = parseArgs(process.argv.slice(2));
  const info = out === undefined ? writeTraceToFd(1, options) : writeTraceFile(out, options);
  process.stderr.write(
    `trace: ${info.steps} steps, ${info.initialPods} pods (+${info.addedPods} replacements), richness ${options.richness ?? "full"}: ` +
      `${(info.bytes / 1e6).toFixed(1)} MB (${Math.round(info.bytes / info.steps / 1024)} KiB/step), ` +
      `${info.predictedEvictions.length} evictions expected, lowest memory.available ${Math.round(info.minMemoryAvailable / MI)}Mi\n`,
  );
}
