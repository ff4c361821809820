/**
 * Renders one Summary API response (stats/v1alpha1) of the benchmark node, in the field order and
 * shape a real kubelet returns (modelled on test/fixtures/real-data/summary-1.json, Kubernetes 1.35): every
 * block the kubelet reports, or at lower richness only what older kubelets or a lean recorder keep.
 */
import type { Prng } from "./prng.js";
import type { ContainerModel, PodModel, VolumeModel } from "./trace-pods.js";

/**
 * - `full`: everything a 1.35 kubelet on cgroup v2 reports: cpu, memory (all fields), io and their
 *   PSI blocks, swap, network with interfaces, rootfs, logs, volumes, ephemeral-storage, process_stats.
 * - `typical`: no PSI and no io blocks (cgroup v1, or kubelets before PSI), one network interface.
 * - `eviction`: only the blocks the eviction manager reads (memory, fs, rootfs/logs, volumes,
 *   ephemeral-storage, process_stats, rlimit), each with all its fields.
 * - `recorded`: what a lean recorder of memory pressure keeps: the node block as for `eviction`, and
 *   per pod only its namespace/name and working set (about 100 bytes a pod).
 */
export type Richness = "full" | "typical" | "eviction" | "recorded";

export const RICHNESS: readonly Richness[] = ["full", "typical", "eviction", "recorded"];

/** `eviction` and `recorded` share the lean node block. */
const isLean = (r: Richness): boolean => r === "eviction" || r === "recorded";

/** Per-container counters that only grow (cpu time, faults, network bytes, PSI totals). */
export interface ContainerRuntime {
  readonly model: ContainerModel;
  workingSet: number;
  logBytes: number;
  rootfsBytes: number;
  cpuNanoSeconds: number;
  pageFaults: number;
  psiCpu: number;
  psiIo: number;
  startedAt: number;
}

export interface PodRuntime {
  readonly model: PodModel;
  readonly containers: ContainerRuntime[];
  readonly volumeUsed: number[];
  /** Seconds the pod's cadvisor samples lag behind the scrape (0–8 s, fixed per pod). */
  readonly lagSeconds: number;
  rxBytes: number;
  txBytes: number;
  /** Extra working set of a transient burst, and the steps it still lasts. */
  burst: number;
  burstSteps: number;
}

export interface NodeSample {
  readonly name: string;
  readonly capacityMemory: number;
  readonly allocatableMemory: number;
  readonly systemWorkingSet: number;
  readonly pageCache: number;
  readonly nodeFs: FsSample;
  readonly imageFs: FsSample;
  readonly maxPid: number;
  readonly curProc: number;
  readonly bootedAt: number;
  readonly rxBytes: number;
  readonly txBytes: number;
}

export interface FsSample {
  readonly capacityBytes: number;
  readonly availableBytes: number;
  readonly usedBytes: number;
  readonly inodes: number;
  readonly inodesFree: number;
  readonly inodesUsed: number;
}

/** Pause container and pod cgroup overhead on top of the containers' working sets. */
export const POD_OVERHEAD_BYTES = 262_144;

export function podWorkingSet(p: PodRuntime): number {
  let ws = POD_OVERHEAD_BYTES + p.burst;
  for (const c of p.containers) ws += c.workingSet;
  return ws;
}

type Json = Record<string, unknown>;

/** Everything needed to render one scrape. */
export interface ScrapeContext {
  readonly richness: Richness;
  readonly rng: Prng;
  /** Scrape time, epoch ms (whole seconds). */
  readonly now: number;
  readonly step: number;
  readonly time: (ms: number) => string;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

function psi(ctx: ScrapeContext, total: number, pressure: number): Json {
  const avg = (scale: number): number => round2(Math.max(0, pressure * scale * ctx.rng.range(0.8, 1.2)));
  return {
    full: { total: Math.round(total * 0.96), avg10: avg(0.95), avg60: avg(0.6), avg300: avg(0.25) },
    some: { total, avg10: avg(1), avg60: avg(0.63), avg300: avg(0.27) },
  };
}

function cpuBlock(
  ctx: ScrapeContext,
  time: number,
  nanoCores: number,
  coreNanoSeconds: number,
  psiTotal: number,
): Json {
  const block: Json = {
    time: ctx.time(time),
    usageNanoCores: Math.round(nanoCores),
    usageCoreNanoSeconds: Math.round(coreNanoSeconds),
  };
  if (ctx.richness === "full") block["psi"] = psi(ctx, Math.round(psiTotal), nanoCores > 4e8 ? 12 : 0.1);
  return block;
}

function memoryBlock(
  ctx: ScrapeContext,
  time: number,
  ws: number,
  limit: number | undefined,
  faults: number,
  psiTotal: number,
): Json {
  const block: Json = { time: ctx.time(time) };
  if (limit !== undefined) block["availableBytes"] = Math.max(0, limit - ws);
  block["usageBytes"] = Math.round(ws * 1.07 + 4096 * 37);
  block["workingSetBytes"] = ws;
  if (isLean(ctx.richness)) return block;
  block["rssBytes"] = Math.round(ws * 0.93);
  block["pageFaults"] = faults;
  block["majorPageFaults"] = Math.floor(faults / 50_000);
  if (ctx.richness === "full") block["psi"] = psi(ctx, Math.round(psiTotal), 0);
  return block;
}

function ioBlock(ctx: ScrapeContext, time: number, psiTotal: number): Json {
  return { time: ctx.time(time), psi: psi(ctx, Math.round(psiTotal), 0.02) };
}

function fsBlock(
  ctx: ScrapeContext,
  time: number | undefined,
  fs: FsSample,
  usedBytes: number,
  inodesUsed: number,
): Json {
  const block: Json = {};
  if (time !== undefined) block["time"] = ctx.time(time);
  block["availableBytes"] = fs.availableBytes;
  block["capacityBytes"] = fs.capacityBytes;
  block["usedBytes"] = usedBytes;
  block["inodesFree"] = fs.inodesFree;
  block["inodes"] = fs.inodes;
  block["inodesUsed"] = inodesUsed;
  return block;
}

function swapBlock(ctx: ScrapeContext, time: number, available: number | undefined): Json {
  return available === undefined
    ? { time: ctx.time(time), swapUsageBytes: 0 }
    : { time: ctx.time(time), swapAvailableBytes: available, swapUsageBytes: 0 };
}

function networkBlock(ctx: ScrapeContext, time: number, rx: number, tx: number): Json {
  const eth0 = { name: "eth0", rxBytes: rx, rxErrors: 0, txBytes: tx, txErrors: 0 };
  const interfaces =
    ctx.richness === "full"
      ? [{ name: "tunl0", rxBytes: 0, rxErrors: 0, txBytes: 0, txErrors: 0 }, eth0]
      : [eth0];
  return {
    time: ctx.time(time),
    name: "eth0",
    rxBytes: rx,
    rxErrors: 0,
    txBytes: tx,
    txErrors: 0,
    interfaces,
  };
}

/** cadvisor refreshes filesystem usage about once a minute: fs time stamps move in 60 s jumps. */
function fsTime(ctx: ScrapeContext, lagSeconds: number): number {
  const sampled = ctx.now - lagSeconds * 1000;
  return sampled - (sampled % 60_000) + (lagSeconds % 7) * 1000;
}

function containerStats(ctx: ScrapeContext, pod: PodRuntime, c: ContainerRuntime, node: NodeSample): Json {
  const t = ctx.now - pod.lagSeconds * 1000;
  const out: Json = { name: c.model.name };
  const rich = !isLean(ctx.richness);
  if (rich) {
    out["startTime"] = ctx.time(c.startedAt);
    out["cpu"] = cpuBlock(
      ctx,
      t,
      c.cpuNanoSeconds > 0 ? (c.model.cpuRequestMilli ?? 50) * 1e6 * ctx.rng.range(0.2, 1.1) : 0,
      c.cpuNanoSeconds,
      c.psiCpu,
    );
  }
  out["memory"] = memoryBlock(ctx, t, c.workingSet, c.model.memLimit, c.pageFaults, 0);
  if (ctx.richness === "full") out["io"] = ioBlock(ctx, t, c.psiIo);
  const ft = fsTime(ctx, pod.lagSeconds);
  out["rootfs"] = fsBlock(
    ctx,
    ft,
    node.imageFs,
    c.rootfsBytes,
    Math.max(1, Math.round(c.rootfsBytes / 16_384)),
  );
  out["logs"] = fsBlock(ctx, ft, node.nodeFs, c.logBytes, Math.max(1, Math.ceil(c.logBytes / 10_485_760)));
  if (rich) out["swap"] = swapBlock(ctx, t, c.model.memLimit === undefined ? undefined : 0);
  return out;
}

function volumeStats(
  ctx: ScrapeContext,
  pod: PodRuntime,
  v: VolumeModel,
  used: number,
  node: NodeSample,
): Json {
  const ft = fsTime(ctx, pod.lagSeconds);
  // Memory-backed and projected volumes report the tmpfs; disk-backed emptyDirs the node's fs.
  const tmpfs = v.kind === "projected" || v.kind === "emptyDirMemory" || v.kind === "secret";
  const pvc = v.kind === "pvc";
  const capacity = tmpfs ? (v.sizeLimit ?? 1_073_741_824) : pvc ? 107_374_182_400 : node.nodeFs.capacityBytes;
  const fs: FsSample =
    tmpfs || pvc
      ? {
          capacityBytes: capacity,
          availableBytes: capacity - used,
          usedBytes: used,
          inodes: 8_126_464,
          inodesFree: 8_126_455,
          inodesUsed: 9,
        }
      : node.nodeFs;
  const out = fsBlock(ctx, ft, fs, used, Math.max(1, Math.round(used / 65_536)));
  out["name"] = v.name;
  if (pvc) out["pvcRef"] = { name: v.claimName ?? v.name, namespace: pod.model.namespace };
  return out;
}

function podStats(ctx: ScrapeContext, pod: PodRuntime, node: NodeSample): Json {
  const m = pod.model;
  const t = ctx.now - pod.lagSeconds * 1000;
  const rich = !isLean(ctx.richness);
  if (ctx.richness === "recorded") {
    // A lean recording names pods by namespace/name (the scenario's pod list carries the UIDs).
    return {
      podRef: { name: m.name, namespace: m.namespace },
      memory: { workingSetBytes: podWorkingSet(pod) },
    };
  }
  const out: Json = { podRef: { name: m.name, namespace: m.namespace, uid: m.uid } };
  if (rich) out["startTime"] = ctx.time(m.startedAt);
  out["containers"] = pod.containers.map((c) => containerStats(ctx, pod, c, node));
  const ws = podWorkingSet(pod);
  let cpuTotal = 0;
  let faults = 0;
  let psiCpu = 0;
  for (const c of pod.containers) {
    cpuTotal += c.cpuNanoSeconds;
    faults += c.pageFaults;
    psiCpu += c.psiCpu;
  }
  if (rich)
    out["cpu"] = cpuBlock(
      ctx,
      t,
      cpuTotal > 0 ? 3e6 * pod.containers.length * ctx.rng.range(1, 40) : 0,
      cpuTotal,
      psiCpu,
    );
  const limits = pod.containers.every((c) => c.model.memLimit !== undefined)
    ? pod.containers.reduce((sum, c) => sum + (c.model.memLimit ?? 0), 0)
    : undefined;
  out["memory"] = memoryBlock(ctx, t, ws, limits, faults, 0);
  if (ctx.richness === "full") out["io"] = ioBlock(ctx, t, psiCpu / 9);
  if (rich) out["network"] = networkBlock(ctx, t, pod.rxBytes, pod.txBytes);
  const volumes = m.volumes.map((v, i) => volumeStats(ctx, pod, v, pod.volumeUsed[i] ?? 0, node));
  if (volumes.length > 0) out["volume"] = volumes;
  let ephemeral = 0;
  let ephemeralInodes = 0;
  for (const c of pod.containers) {
    ephemeral += c.rootfsBytes + c.logBytes;
    ephemeralInodes += Math.round(c.rootfsBytes / 16_384) + 2;
  }
  m.volumes.forEach((v, i) => {
    if (v.kind === "emptyDir" || v.kind === "configMap") ephemeral += pod.volumeUsed[i] ?? 0;
  });
  out["ephemeral-storage"] = fsBlock(
    ctx,
    fsTime(ctx, pod.lagSeconds),
    node.nodeFs,
    ephemeral,
    ephemeralInodes,
  );
  let processes = 0;
  for (const c of pod.containers) processes += c.model.processes;
  out["process_stats"] = { process_count: processes };
  if (rich) out["swap"] = swapBlock(ctx, t, undefined);
  return out;
}

function systemContainer(
  ctx: ScrapeContext,
  name: string,
  node: NodeSample,
  ws: number,
  available: number | undefined,
): Json {
  const t = ctx.now - 1000;
  if (isLean(ctx.richness)) {
    const memory: Json = { time: ctx.time(t) };
    if (available !== undefined) memory["availableBytes"] = available;
    memory["usageBytes"] = Math.round(ws * 1.1);
    memory["workingSetBytes"] = ws;
    return { name, memory };
  }
  const seconds = (ctx.now - node.bootedAt) / 1000;
  const memory = memoryBlock(
    ctx,
    t,
    ws,
    available === undefined ? undefined : available + ws,
    Math.round(seconds * 311),
    0,
  );
  const out: Json = {
    name,
    startTime: ctx.time(node.bootedAt + 4000),
    cpu: cpuBlock(
      ctx,
      t,
      name === "pods" ? 4.1e9 * ctx.rng.range(0.8, 1.2) : 9e7 * ctx.rng.range(0.5, 1.5),
      seconds * (name === "pods" ? 4.1e9 : 9e7),
      seconds * 1e4,
    ),
    memory,
  };
  if (ctx.richness === "full") out["io"] = ioBlock(ctx, t, seconds * 700);
  out["swap"] = swapBlock(ctx, t, undefined);
  return out;
}

/** One scrape of `/stats/summary`: the node block, then every running pod in `pods` order. */
export function renderSummary(ctx: ScrapeContext, node: NodeSample, pods: readonly PodRuntime[]): Json {
  let podsWs = 0;
  for (const p of pods) podsWs += podWorkingSet(p);
  const nodeWs = podsWs + node.systemWorkingSet;
  const t = ctx.now - 1000;
  const rich = !isLean(ctx.richness);
  const systemContainers = isLean(ctx.richness)
    ? [systemContainer(ctx, "pods", node, podsWs, node.allocatableMemory - podsWs)]
    : [
        systemContainer(ctx, "kubelet", node, Math.round(node.systemWorkingSet * 0.06), undefined),
        systemContainer(ctx, "runtime", node, Math.round(node.systemWorkingSet * 0.11), undefined),
        systemContainer(ctx, "pods", node, podsWs, node.allocatableMemory - podsWs),
      ];
  const seconds = (ctx.now - node.bootedAt) / 1000;
  const out: Json = { nodeName: node.name, systemContainers };
  if (rich) {
    out["startTime"] = ctx.time(node.bootedAt);
    out["cpu"] = cpuBlock(ctx, t, 4.6e9 * ctx.rng.range(0.8, 1.2), seconds * 4.6e9, seconds * 2e4);
  }
  const memory: Json = {
    time: ctx.time(t),
    // As cAdvisor reports it: never below 0, even when the working set has passed the capacity.
    availableBytes: Math.max(0, node.capacityMemory - nodeWs),
    usageBytes: nodeWs + node.pageCache,
    workingSetBytes: nodeWs,
  };
  if (rich) {
    memory["rssBytes"] = Math.round(nodeWs * 0.9);
    memory["pageFaults"] = Math.round(seconds * 2811);
    memory["majorPageFaults"] = Math.round(seconds / 600);
    if (ctx.richness === "full") memory["psi"] = psi(ctx, Math.round(seconds * 3), 0);
  }
  out["memory"] = memory;
  if (ctx.richness === "full") out["io"] = ioBlock(ctx, t, seconds * 900);
  if (rich) out["network"] = networkBlock(ctx, t, node.rxBytes, node.txBytes);
  out["fs"] = fsBlock(ctx, ctx.now - 3000, node.nodeFs, node.nodeFs.usedBytes, node.nodeFs.inodesUsed);
  const imageFs = fsBlock(ctx, ctx.now - 4000, node.imageFs, node.imageFs.usedBytes, node.imageFs.inodesUsed);
  out["runtime"] = { imageFs, containerFs: { ...imageFs } };
  out["rlimit"] = { time: ctx.time(ctx.now), maxpid: node.maxPid, curproc: node.curProc };
  if (rich) out["swap"] = { time: ctx.time(t), swapAvailableBytes: 0, swapUsageBytes: 0 };
  return { node: out, pods: pods.map((p) => podStats(ctx, p, node)) };
}
