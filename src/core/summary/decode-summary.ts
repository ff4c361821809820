/**
 * Raw Summary API object (stats/v1alpha1) → the model's `NodeSummary`. Node stats are built at once;
 * pod stats only when first read, because most synchronize steps never look at them (ranking runs only
 * under pressure) and a node carries up to 110 pods. Beside what eviction reads, the pressure (`psi`
 * of cpu, memory and io) and swap blocks are decoded wherever they are, for reports: no decision
 * reads them.
 *
 * One file because the lazy summary, its lazy pods and the block builders share one summary's
 * ValueReader (its memoised times and counters), and one builder per block serves the node, its
 * system containers, the pods and their containers alike.
 */
import type { IssueList } from "../issues.js";
import type {
  ContainerStats,
  CpuStats,
  EpochMs,
  FsStats,
  IoStats,
  MemoryStats,
  NodeStats,
  NodeSummary,
  PodStats,
  PsiData,
  PsiStats,
  RlimitStats,
  SwapStats,
  SystemContainerStats,
  VolumeStats,
} from "../model.js";
import { isRawObject } from "../raw/raw-object.js";
import {
  type RawContainer,
  type RawCpu,
  type RawFs,
  type RawIo,
  type RawMemory,
  type RawNode,
  type RawPod,
  type RawPodRef,
  type RawProcessStats,
  type RawPsi,
  type RawPsiData,
  type RawPvcRef,
  type RawRlimit,
  type RawRuntime,
  type RawSummary,
  type RawSwap,
  type RawVolume,
} from "./raw-summary.js";
import { Rfc3339Memo } from "../time/rfc3339.js";
import { toCounter } from "./uint64-counter.js";
import { validateSummary } from "./validate-summary.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export interface DecodeSummaryOptions {
  /**
   * `raw` has already passed `validateSummary` (replay checks every step up front so that bad input
   * exits before any output): skip the checks. Invalid input decoded this way is not reported, just
   * decoded as far as it makes sense (bad values are left out); it never throws.
   */
  readonly validated?: boolean;
  /**
   * An earlier summary decoded from a raw object that shares pod entries with `raw` (the same
   * objects, as a source that re-reads a few pods returns the others as they were): those entries
   * are neither checked nor built again. Only for sources that write every time field, because a
   * carried-over pod keeps the `defaultTime` it was decoded with.
   */
  readonly previous?: NodeSummary;
}

/**
 * Decodes `raw` (from `parseJsonExact` or the YAML reader) into a `NodeSummary`, or reports every
 * problem into `issues` and returns `undefined`.
 *
 * - `time` fields: RFC 3339 → epoch ms; Go's zero time → `undefined`; missing or null → `defaultTime`
 *   (replay: "every time field missing from a summary is taken as the step's time").
 * - Counters: exact bigints. Missing or null blocks, fields and lists mean "not reported".
 * - PSI averages: numbers (percentages); PSI totals: exact bigints, as counters.
 * - `pods` is a memoised getter: it is built from `raw` on first read, so `raw` must not be mutated
 *   afterwards (the engine treats all input as immutable anyway).
 */
export function decodeSummary(
  raw: unknown,
  path: string,
  defaultTime: EpochMs | undefined,
  issues: IssueList,
  options: DecodeSummaryOptions = {},
): NodeSummary | undefined {
  const previous = options.previous instanceof LazySummary ? options.previous.decodedPods() : undefined;
  if (options.validated !== true) {
    const before = issues.items.length;
    validateSummary(raw, path, issues, previous === undefined ? {} : { checkedPods: previous });
    if (issues.items.slice(before).some((issue) => issue.severity === "error")) return undefined;
  }
  const summary: RawSummary = isRawObject(raw) ? raw : {};
  const values = new ValueReader(defaultTime);
  const node = buildNode(isRawObject(summary.node) ? summary.node : {}, values);
  return new LazySummary(node, listOf(summary.pods), values, previous);
}

/**
 * A decoded summary whose pods are built from the raw data on first use. A class, not an object
 * literal with closures: the closures kept each step's whole parse tree reachable for longer, and a
 * long replay spent most of its garbage-collection time copying them (docs/benchmarks.md,
 * "Figures behind design choices").
 */
class LazySummary implements NodeSummary {
  readonly node: NodeStats;
  #rawPods: readonly unknown[];
  #values: ValueReader;
  #built: (PodStats | undefined)[] = [];
  #pods: readonly PodStats[] | undefined;
  #byUid: Map<string, number> | undefined;
  #byName: Map<string, Map<string, number>> | undefined;

  constructor(
    node: NodeStats,
    rawPods: readonly unknown[],
    values: ValueReader,
    previous?: ReadonlyMap<unknown, PodStats | undefined>,
  ) {
    this.node = node;
    this.#rawPods = rawPods;
    this.#values = values;
    if (previous !== undefined) this.#built = rawPods.map((item) => previous.get(item));
  }

  /** Each raw pod entry and its decoded stats (undefined where not built yet). */
  decodedPods(): ReadonlyMap<unknown, PodStats | undefined> {
    return new Map(this.#rawPods.map((item, i) => [item, this.#built[i]]));
  }

  #podAt(i: number): PodStats {
    let pod = this.#built[i];
    if (pod === undefined) {
      const item = this.#rawPods[i];
      pod = buildPod(isRawObject(item) ? item : {}, this.#values);
      this.#built[i] = pod;
    }
    return pod;
  }

  get pods(): readonly PodStats[] {
    this.#pods ??= this.#rawPods.map((_, i) => this.#podAt(i));
    return this.#pods;
  }

  // Local-storage checks look up a few pods every run: index the raw podRefs, build only those.
  // An arrow-function field, because callers take the method off the object.
  readonly findPod = (uid: string, key: string): PodStats | undefined => {
    this.#byUid ??= indexByUid(this.#rawPods);
    let i = this.#byUid.get(uid);
    if (i === undefined) {
      this.#byName ??= indexByName(this.#rawPods);
      const slash = key.indexOf("/");
      i = this.#byName.get(key.slice(0, slash))?.get(key.slice(slash + 1));
    }
    return i === undefined ? undefined : this.#podAt(i);
  };

  readonly hasPod = (uid: string, key: string): boolean => {
    this.#byUid ??= indexByUid(this.#rawPods);
    if (this.#byUid.has(uid)) return true;
    this.#byName ??= indexByName(this.#rawPods);
    const slash = key.indexOf("/");
    const i = this.#byName.get(key.slice(0, slash))?.get(key.slice(slash + 1));
    return i !== undefined && (uid === key || stringOf(refOf(this.#rawPods[i]).uid) === "");
  };
}

function refOf(item: unknown): RawPodRef {
  const pod: RawPod = isRawObject(item) ? item : {};
  return isRawObject(pod.podRef) ? pod.podRef : {};
}

/** First position of every pod UID, read straight from the raw podRefs. */
function indexByUid(rawPods: readonly unknown[]): Map<string, number> {
  const index = new Map<string, number>();
  for (let i = 0; i < rawPods.length; i++) {
    const uid = stringOf(refOf(rawPods[i]).uid);
    if (!index.has(uid)) index.set(uid, i);
  }
  return index;
}

/** First position of every namespace/name (nested maps: no key strings built per pod). */
function indexByName(rawPods: readonly unknown[]): Map<string, Map<string, number>> {
  const index = new Map<string, Map<string, number>>();
  for (let i = 0; i < rawPods.length; i++) {
    const ref = refOf(rawPods[i]);
    const namespace = stringOf(ref.namespace);
    let names = index.get(namespace);
    if (names === undefined) {
      names = new Map();
      index.set(namespace, names);
    }
    const name = stringOf(ref.name);
    if (!names.has(name)) names.set(name, i);
  }
  return index;
}

/**
 * Reads the values of one summary, memoised: a summary repeats a few time stamps and the same
 * filesystem figures (every rootfs, logs and ephemeral-storage block restates the node fs capacity,
 * availability and inodes) hundreds of times, and a Map hit is much cheaper than a parse or a
 * BigInt allocation (pod decoding measured markedly faster with the counter memo).
 */
class ValueReader {
  private readonly defaultTime: EpochMs | undefined;
  private readonly times = new Rfc3339Memo();
  private readonly counters = new Map<number, bigint>();

  constructor(defaultTime: EpochMs | undefined) {
    this.defaultTime = defaultTime;
  }

  /** Missing or null → the default (the step's time); Go's zero time (or anything unparsable) → unset. */
  time(raw: unknown): EpochMs | undefined {
    if (raw === undefined || raw === null) return this.defaultTime;
    if (typeof raw !== "string") return undefined;
    const parsed = this.times.parse(raw);
    return typeof parsed === "number" ? parsed : undefined;
  }

  /** Missing or null → not reported. */
  counter(raw: unknown): bigint | undefined {
    if (typeof raw !== "number") return raw === undefined || raw === null ? undefined : toCounter(raw);
    let counter = this.counters.get(raw);
    if (counter === undefined) {
      counter = toCounter(raw);
      if (counter !== undefined) this.counters.set(raw, counter);
    }
    return counter;
  }
}

function buildNode(raw: RawNode, values: ValueReader): NodeStats {
  const node: Mutable<NodeStats> = {
    systemContainers: listOf(raw.systemContainers).map((item) => {
      const container: RawContainer = isRawObject(item) ? item : {};
      const out: Mutable<SystemContainerStats> = { name: stringOf(container.name) };
      const memory = buildMemory(container.memory, values);
      if (memory !== undefined) out.memory = memory;
      addCpuIoSwap(out, container, values);
      return out;
    }),
  };
  if (typeof raw.nodeName === "string") node.nodeName = raw.nodeName;
  const memory = buildMemory(raw.memory, values);
  if (memory !== undefined) node.memory = memory;
  const fs = buildFs(raw.fs, values);
  if (fs !== undefined) node.fs = fs;
  if (isRawObject(raw.runtime)) {
    const runtime: RawRuntime = raw.runtime;
    const out: { imageFs?: FsStats; containerFs?: FsStats } = {};
    const imageFs = buildFs(runtime.imageFs, values);
    if (imageFs !== undefined) out.imageFs = imageFs;
    const containerFs = buildFs(runtime.containerFs, values);
    if (containerFs !== undefined) out.containerFs = containerFs;
    node.runtime = out;
  }
  if (isRawObject(raw.rlimit)) {
    const rlimit: RawRlimit = raw.rlimit;
    const out: Mutable<RlimitStats> = {};
    const time = values.time(rlimit.time);
    if (time !== undefined) out.time = time;
    const maxpid = values.counter(rlimit.maxpid);
    if (maxpid !== undefined) out.maxpid = maxpid;
    const curproc = values.counter(rlimit.curproc);
    if (curproc !== undefined) out.curproc = curproc;
    node.rlimit = out;
  }
  addCpuIoSwap(node, raw, values);
  return node;
}

/**
 * `containers` and `volumes` are memoised getters, built on first read: every synchronize looks pods
 * up by `podRef`, but only the local-storage check (pods with storage limits) and pressure handling
 * read further, so most steps never need most pods' container and volume stats (on a 110-pod node
 * with a few limited pods, most of a replay step's pod decoding is spared).
 */
function buildPod(raw: RawPod, values: ValueReader): PodStats {
  return new LazyPod(raw, values);
}

/**
 * A pod's stats; containers and volumes are built on first use (ranking by memory needs neither),
 * and so are its cpu, io and swap blocks.
 */
class LazyPod implements PodStats {
  readonly podRef: PodStats["podRef"];
  readonly memory?: MemoryStats;
  readonly ephemeralStorage?: FsStats;
  readonly processCount?: bigint;
  #raw: RawPod;
  #values: ValueReader;
  #containers: readonly ContainerStats[] | undefined;
  #volumes: readonly VolumeStats[] | undefined;
  #cpuIoSwap: { cpu?: CpuStats; io?: IoStats; swap?: SwapStats } | undefined;

  constructor(raw: RawPod, values: ValueReader) {
    const rawRef = raw.podRef;
    const ref: RawPodRef = isRawObject(rawRef) ? rawRef : {};
    this.podRef = { name: stringOf(ref.name), namespace: stringOf(ref.namespace), uid: stringOf(ref.uid) };
    this.#raw = raw;
    this.#values = values;
    const memory = buildMemory(raw.memory, values);
    if (memory !== undefined) this.memory = memory;
    const ephemeralStorage = buildFs(raw["ephemeral-storage"], values);
    if (ephemeralStorage !== undefined) this.ephemeralStorage = ephemeralStorage;
    if (isRawObject(raw.process_stats)) {
      const processCount = values.counter((raw.process_stats as RawProcessStats).process_count);
      if (processCount !== undefined) this.processCount = processCount;
    }
  }

  // Reports alone read a pod's cpu, io and swap: built on first use, as containers are (the pods
  // of a 110-pod Summary with pressure figures decode in a fraction of the time they took with
  // these built at once).
  get cpu(): CpuStats | undefined {
    return this.#pressure().cpu;
  }

  get io(): IoStats | undefined {
    return this.#pressure().io;
  }

  get swap(): SwapStats | undefined {
    return this.#pressure().swap;
  }

  #pressure(): { cpu?: CpuStats; io?: IoStats; swap?: SwapStats } {
    if (this.#cpuIoSwap === undefined) {
      this.#cpuIoSwap = {};
      addCpuIoSwap(this.#cpuIoSwap, this.#raw, this.#values);
    }
    return this.#cpuIoSwap;
  }

  get containers(): readonly ContainerStats[] {
    this.#containers ??= listOf(this.#raw.containers).map((item) =>
      buildContainer(isRawObject(item) ? item : {}, this.#values),
    );
    return this.#containers;
  }

  get volumes(): readonly VolumeStats[] {
    this.#volumes ??= listOf(this.#raw.volume).map((item) =>
      buildVolume(isRawObject(item) ? item : {}, this.#values),
    );
    return this.#volumes;
  }
}

function buildContainer(raw: RawContainer, values: ValueReader): ContainerStats {
  const container: Mutable<ContainerStats> = { name: stringOf(raw.name) };
  const memory = buildMemory(raw.memory, values);
  if (memory !== undefined) container.memory = memory;
  const rootfs = buildFs(raw.rootfs, values);
  if (rootfs !== undefined) container.rootfs = rootfs;
  const logs = buildFs(raw.logs, values);
  if (logs !== undefined) container.logs = logs;
  addCpuIoSwap(container, raw, values);
  return container;
}

function buildVolume(raw: RawVolume, values: ValueReader): VolumeStats {
  const volume: Mutable<VolumeStats> = { name: stringOf(raw.name) };
  const usedBytes = values.counter(raw.usedBytes);
  if (usedBytes !== undefined) volume.usedBytes = usedBytes;
  const inodesUsed = values.counter(raw.inodesUsed);
  if (inodesUsed !== undefined) volume.inodesUsed = inodesUsed;
  if (isRawObject(raw.pvcRef)) {
    const pvcRef: RawPvcRef = raw.pvcRef;
    volume.pvcRef = { name: stringOf(pvcRef.name), namespace: stringOf(pvcRef.namespace) };
  }
  return volume;
}

// Fields are read and set one by one, by name, in a fixed order: objects then share hidden classes
// and property access stays monomorphic, several times faster than looping over key lists.

function buildMemory(raw: unknown, values: ValueReader): MemoryStats | undefined {
  if (!isRawObject(raw)) return undefined;
  const block: RawMemory = raw;
  const memory: Mutable<MemoryStats> = {};
  const time = values.time(block.time);
  if (time !== undefined) memory.time = time;
  const availableBytes = values.counter(block.availableBytes);
  if (availableBytes !== undefined) memory.availableBytes = availableBytes;
  const workingSetBytes = values.counter(block.workingSetBytes);
  if (workingSetBytes !== undefined) memory.workingSetBytes = workingSetBytes;
  const usageBytes = values.counter(block.usageBytes);
  if (usageBytes !== undefined) memory.usageBytes = usageBytes;
  const psi = buildPsi(block.psi);
  if (psi !== undefined) memory.psi = psi;
  return memory;
}

/** Sets `cpu`, `io` and `swap` of a node, system container or container from its raw blocks. */
function addCpuIoSwap(
  out: { cpu?: CpuStats; io?: IoStats; swap?: SwapStats },
  raw: { readonly cpu?: unknown; readonly io?: unknown; readonly swap?: unknown },
  values: ValueReader,
): void {
  const cpu = buildCpu(raw.cpu);
  if (cpu !== undefined) out.cpu = cpu;
  const io = buildIo(raw.io, values);
  if (io !== undefined) out.io = io;
  const swap = buildSwap(raw.swap, values);
  if (swap !== undefined) out.swap = swap;
}

/** Only the pressure of a cpu block: without one there is nothing to decode. */
function buildCpu(raw: unknown): CpuStats | undefined {
  if (!isRawObject(raw)) return undefined;
  const psi = buildPsi((raw as RawCpu).psi);
  return psi === undefined ? undefined : { psi };
}

function buildIo(raw: unknown, values: ValueReader): IoStats | undefined {
  if (!isRawObject(raw)) return undefined;
  const block: RawIo = raw;
  const io: Mutable<IoStats> = {};
  const time = values.time(block.time);
  if (time !== undefined) io.time = time;
  const psi = buildPsi(block.psi);
  if (psi !== undefined) io.psi = psi;
  return io;
}

function buildSwap(raw: unknown, values: ValueReader): SwapStats | undefined {
  if (!isRawObject(raw)) return undefined;
  const block: RawSwap = raw;
  const swap: Mutable<SwapStats> = {};
  const time = values.time(block.time);
  if (time !== undefined) swap.time = time;
  const available = values.counter(block.swapAvailableBytes);
  if (available !== undefined) swap.swapAvailableBytes = available;
  const usage = values.counter(block.swapUsageBytes);
  if (usage !== undefined) swap.swapUsageBytes = usage;
  return swap;
}

/** PSI needs no value reader: its totals are not memoised, its averages are plain numbers. */
function buildPsi(raw: unknown): PsiStats | undefined {
  if (!isRawObject(raw)) return undefined;
  const block: RawPsi = raw;
  const psi: Mutable<PsiStats> = {};
  const some = buildPsiData(block.some);
  if (some !== undefined) psi.some = some;
  const full = buildPsiData(block.full);
  if (full !== undefined) psi.full = full;
  return psi;
}

function buildPsiData(raw: unknown): PsiData | undefined {
  if (!isRawObject(raw)) return undefined;
  const block: RawPsiData = raw;
  const data: Mutable<PsiData> = {};
  // Not through the counter memo: a cumulative total is nearly always a value of its own.
  const total = block.total === undefined || block.total === null ? undefined : toCounter(block.total);
  if (total !== undefined) data.total = total;
  const avg10 = percentageOf(block.avg10);
  if (avg10 !== undefined) data.avg10 = avg10;
  const avg60 = percentageOf(block.avg60);
  if (avg60 !== undefined) data.avg60 = avg60;
  const avg300 = percentageOf(block.avg300);
  if (avg300 !== undefined) data.avg300 = avg300;
  return data;
}

/** A PSI average as validated (a number from 0 to 100); anything else is left out. */
function percentageOf(raw: unknown): number | undefined {
  return typeof raw === "number" && raw >= 0 && raw <= 100 ? raw : undefined;
}

function buildFs(raw: unknown, values: ValueReader): FsStats | undefined {
  if (!isRawObject(raw)) return undefined;
  const block: RawFs = raw;
  const fs: Mutable<FsStats> = {};
  const time = values.time(block.time);
  if (time !== undefined) fs.time = time;
  const availableBytes = values.counter(block.availableBytes);
  if (availableBytes !== undefined) fs.availableBytes = availableBytes;
  const capacityBytes = values.counter(block.capacityBytes);
  if (capacityBytes !== undefined) fs.capacityBytes = capacityBytes;
  const usedBytes = values.counter(block.usedBytes);
  if (usedBytes !== undefined) fs.usedBytes = usedBytes;
  const inodesFree = values.counter(block.inodesFree);
  if (inodesFree !== undefined) fs.inodesFree = inodesFree;
  const inodes = values.counter(block.inodes);
  if (inodes !== undefined) fs.inodes = inodes;
  const inodesUsed = values.counter(block.inodesUsed);
  if (inodesUsed !== undefined) fs.inodesUsed = inodesUsed;
  return fs;
}

const EMPTY: readonly unknown[] = [];

function listOf(raw: unknown): readonly unknown[] {
  return Array.isArray(raw) ? (raw as readonly unknown[]) : EMPTY;
}

/** Go decodes a missing string as "". */
function stringOf(raw: unknown): string {
  return typeof raw === "string" ? raw : "";
}
