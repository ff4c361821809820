/**
 * Raw Summary API object (stats/v1alpha1) → the model's `NodeSummary`. Node stats are built at once;
 * pod stats only when first read, because most synchronize steps never look at them (ranking runs only
 * under pressure) and a node carries up to 110 pods.
 */
import type { IssueList } from "../issues.js";
import type {
  ContainerStats,
  EpochMs,
  FsStats,
  MemoryStats,
  NodeStats,
  NodeSummary,
  PodStats,
  RlimitStats,
  SystemContainerStats,
  VolumeStats,
} from "../model.js";
import {
  isRawObject,
  type RawContainer,
  type RawFs,
  type RawMemory,
  type RawNode,
  type RawPod,
  type RawPodRef,
  type RawProcessStats,
  type RawPvcRef,
  type RawRlimit,
  type RawRuntime,
  type RawSummary,
  type RawVolume,
} from "./raw-summary.js";
import { Rfc3339Memo } from "./rfc3339-time.js";
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
}

/**
 * Decodes `raw` (from `parseJsonExact` or the YAML reader) into a `NodeSummary`, or reports every
 * problem into `issues` and returns `undefined`.
 *
 * - `time` fields: RFC 3339 → epoch ms; Go's zero time → `undefined`; missing or null → `defaultTime`
 *   (replay: "every time field missing from a summary is taken as the step's time").
 * - Counters: exact bigints. Missing or null blocks, fields and lists mean "not reported".
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
  if (options.validated !== true) {
    const before = issues.items.length;
    validateSummary(raw, path, issues);
    if (issues.items.slice(before).some((issue) => issue.severity === "error")) return undefined;
  }
  const summary: RawSummary = isRawObject(raw) ? raw : {};
  const times = new TimeReader(defaultTime);
  const node = buildNode(isRawObject(summary.node) ? summary.node : {}, times);
  const rawPods = summary.pods;
  let pods: readonly PodStats[] | undefined;
  return {
    node,
    get pods(): readonly PodStats[] {
      pods ??= listOf(rawPods).map((pod) => buildPod(isRawObject(pod) ? pod : {}, times));
      return pods;
    },
  };
}

/** Reads the `time` fields of one summary. */
class TimeReader {
  private readonly defaultTime: EpochMs | undefined;
  private readonly memo = new Rfc3339Memo();

  constructor(defaultTime: EpochMs | undefined) {
    this.defaultTime = defaultTime;
  }

  /** Missing or null → the default (the step's time); Go's zero time (or anything unparsable) → unset. */
  read(raw: unknown): EpochMs | undefined {
    if (raw === undefined || raw === null) return this.defaultTime;
    if (typeof raw !== "string") return undefined;
    const parsed = this.memo.parse(raw);
    return typeof parsed === "number" ? parsed : undefined;
  }
}

function buildNode(raw: RawNode, times: TimeReader): NodeStats {
  const node: Mutable<NodeStats> = {
    systemContainers: listOf(raw.systemContainers).map((item) => {
      const container: RawContainer = isRawObject(item) ? item : {};
      const out: Mutable<SystemContainerStats> = { name: stringOf(container.name) };
      const memory = buildMemory(container.memory, times);
      if (memory !== undefined) out.memory = memory;
      return out;
    }),
  };
  if (typeof raw.nodeName === "string") node.nodeName = raw.nodeName;
  const memory = buildMemory(raw.memory, times);
  if (memory !== undefined) node.memory = memory;
  const fs = buildFs(raw.fs, times);
  if (fs !== undefined) node.fs = fs;
  if (isRawObject(raw.runtime)) {
    const runtime: RawRuntime = raw.runtime;
    const out: { imageFs?: FsStats; containerFs?: FsStats } = {};
    const imageFs = buildFs(runtime.imageFs, times);
    if (imageFs !== undefined) out.imageFs = imageFs;
    const containerFs = buildFs(runtime.containerFs, times);
    if (containerFs !== undefined) out.containerFs = containerFs;
    node.runtime = out;
  }
  if (isRawObject(raw.rlimit)) {
    const rlimit: RawRlimit = raw.rlimit;
    const out: Mutable<RlimitStats> = {};
    const time = times.read(rlimit.time);
    if (time !== undefined) out.time = time;
    const maxpid = counterOf(rlimit.maxpid);
    if (maxpid !== undefined) out.maxpid = maxpid;
    const curproc = counterOf(rlimit.curproc);
    if (curproc !== undefined) out.curproc = curproc;
    node.rlimit = out;
  }
  return node;
}

function buildPod(raw: RawPod, times: TimeReader): PodStats {
  const ref: RawPodRef = isRawObject(raw.podRef) ? raw.podRef : {};
  const pod: Mutable<PodStats> = {
    podRef: { name: stringOf(ref.name), namespace: stringOf(ref.namespace), uid: stringOf(ref.uid) },
    containers: listOf(raw.containers).map((item) => buildContainer(isRawObject(item) ? item : {}, times)),
    volumes: listOf(raw.volume).map((item) => buildVolume(isRawObject(item) ? item : {})),
  };
  const memory = buildMemory(raw.memory, times);
  if (memory !== undefined) pod.memory = memory;
  const ephemeralStorage = buildFs(raw["ephemeral-storage"], times);
  if (ephemeralStorage !== undefined) pod.ephemeralStorage = ephemeralStorage;
  if (isRawObject(raw.process_stats)) {
    const processCount = counterOf((raw.process_stats as RawProcessStats).process_count);
    if (processCount !== undefined) pod.processCount = processCount;
  }
  return pod;
}

function buildContainer(raw: RawContainer, times: TimeReader): ContainerStats {
  const container: Mutable<ContainerStats> = { name: stringOf(raw.name) };
  const memory = buildMemory(raw.memory, times);
  if (memory !== undefined) container.memory = memory;
  const rootfs = buildFs(raw.rootfs, times);
  if (rootfs !== undefined) container.rootfs = rootfs;
  const logs = buildFs(raw.logs, times);
  if (logs !== undefined) container.logs = logs;
  return container;
}

function buildVolume(raw: RawVolume): VolumeStats {
  const volume: Mutable<VolumeStats> = { name: stringOf(raw.name) };
  const usedBytes = counterOf(raw.usedBytes);
  if (usedBytes !== undefined) volume.usedBytes = usedBytes;
  const inodesUsed = counterOf(raw.inodesUsed);
  if (inodesUsed !== undefined) volume.inodesUsed = inodesUsed;
  if (isRawObject(raw.pvcRef)) {
    const pvcRef: RawPvcRef = raw.pvcRef;
    volume.pvcRef = { name: stringOf(pvcRef.name), namespace: stringOf(pvcRef.namespace) };
  }
  return volume;
}

// Fields are read and set one by one, by name, in a fixed order: objects then share hidden classes
// and property access stays monomorphic, several times faster than looping over key lists.

function buildMemory(raw: unknown, times: TimeReader): MemoryStats | undefined {
  if (!isRawObject(raw)) return undefined;
  const block: RawMemory = raw;
  const memory: Mutable<MemoryStats> = {};
  const time = times.read(block.time);
  if (time !== undefined) memory.time = time;
  const availableBytes = counterOf(block.availableBytes);
  if (availableBytes !== undefined) memory.availableBytes = availableBytes;
  const workingSetBytes = counterOf(block.workingSetBytes);
  if (workingSetBytes !== undefined) memory.workingSetBytes = workingSetBytes;
  const usageBytes = counterOf(block.usageBytes);
  if (usageBytes !== undefined) memory.usageBytes = usageBytes;
  return memory;
}

function buildFs(raw: unknown, times: TimeReader): FsStats | undefined {
  if (!isRawObject(raw)) return undefined;
  const block: RawFs = raw;
  const fs: Mutable<FsStats> = {};
  const time = times.read(block.time);
  if (time !== undefined) fs.time = time;
  const availableBytes = counterOf(block.availableBytes);
  if (availableBytes !== undefined) fs.availableBytes = availableBytes;
  const capacityBytes = counterOf(block.capacityBytes);
  if (capacityBytes !== undefined) fs.capacityBytes = capacityBytes;
  const usedBytes = counterOf(block.usedBytes);
  if (usedBytes !== undefined) fs.usedBytes = usedBytes;
  const inodesFree = counterOf(block.inodesFree);
  if (inodesFree !== undefined) fs.inodesFree = inodesFree;
  const inodes = counterOf(block.inodes);
  if (inodes !== undefined) fs.inodes = inodes;
  const inodesUsed = counterOf(block.inodesUsed);
  if (inodesUsed !== undefined) fs.inodesUsed = inodesUsed;
  return fs;
}

function counterOf(raw: unknown): bigint | undefined {
  return raw === undefined || raw === null ? undefined : toCounter(raw);
}

const EMPTY: readonly unknown[] = [];

function listOf(raw: unknown): readonly unknown[] {
  return Array.isArray(raw) ? (raw as readonly unknown[]) : EMPTY;
}

/** Go decodes a missing string as "". */
function stringOf(raw: unknown): string {
  return typeof raw === "string" ? raw : "";
}
