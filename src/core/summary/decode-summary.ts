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
import { parseRfc3339 } from "./rfc3339-time.js";
import { FS_COUNTERS, MEMORY_COUNTERS, RLIMIT_COUNTERS, VOLUME_COUNTERS } from "./summary-fields.js";
import { toCounter } from "./uint64-counter.js";
import { validateSummary } from "./validate-summary.js";

type RawObject = Readonly<Record<string, unknown>>;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export interface DecodeSummaryOptions {
  /**
   * `raw` has already passed `validateSummary` (replay checks every step up front so that bad input
   * exits before any output): skip the checks. Unvalidated input decoded this way is not an error,
   * just garbage in, garbage out; it never throws.
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
  return buildSummary(asObject(raw) ?? {}, defaultTime);
}

function buildSummary(raw: RawObject, defaultTime: EpochMs | undefined): NodeSummary {
  const node = buildNode(asObject(raw.node) ?? {}, defaultTime);
  const rawPods = raw.pods;
  let pods: readonly PodStats[] | undefined;
  return {
    node,
    get pods(): readonly PodStats[] {
      pods ??= asList(rawPods).map((pod) => buildPod(asObject(pod) ?? {}, defaultTime));
      return pods;
    },
  };
}

function buildNode(raw: RawObject, defaultTime: EpochMs | undefined): NodeStats {
  const node: Mutable<NodeStats> = {
    systemContainers: asList(raw.systemContainers).map((item) => {
      const container = asObject(item) ?? {};
      const out: Mutable<SystemContainerStats> = { name: asString(container.name) };
      const memory = buildMemory(container.memory, defaultTime);
      if (memory !== undefined) out.memory = memory;
      return out;
    }),
  };
  if (typeof raw.nodeName === "string") node.nodeName = raw.nodeName;
  const memory = buildMemory(raw.memory, defaultTime);
  if (memory !== undefined) node.memory = memory;
  const fs = buildFs(raw.fs, defaultTime);
  if (fs !== undefined) node.fs = fs;
  const runtime = asObject(raw.runtime);
  if (runtime !== undefined) {
    const out: { imageFs?: FsStats; containerFs?: FsStats } = {};
    const imageFs = buildFs(runtime.imageFs, defaultTime);
    if (imageFs !== undefined) out.imageFs = imageFs;
    const containerFs = buildFs(runtime.containerFs, defaultTime);
    if (containerFs !== undefined) out.containerFs = containerFs;
    node.runtime = out;
  }
  const rlimit = asObject(raw.rlimit);
  if (rlimit !== undefined) {
    const out: Mutable<RlimitStats> = {};
    setTime(out, rlimit.time, defaultTime);
    copyCounters(out, rlimit, RLIMIT_COUNTERS);
    node.rlimit = out;
  }
  return node;
}

function buildPod(raw: RawObject, defaultTime: EpochMs | undefined): PodStats {
  const ref = asObject(raw.podRef) ?? {};
  const pod: Mutable<PodStats> = {
    podRef: { name: asString(ref.name), namespace: asString(ref.namespace), uid: asString(ref.uid) },
    containers: asList(raw.containers).map((item) => buildContainer(asObject(item) ?? {}, defaultTime)),
    volumes: asList(raw.volume).map((item) => buildVolume(asObject(item) ?? {})),
  };
  const memory = buildMemory(raw.memory, defaultTime);
  if (memory !== undefined) pod.memory = memory;
  const ephemeralStorage = buildFs(raw["ephemeral-storage"], defaultTime);
  if (ephemeralStorage !== undefined) pod.ephemeralStorage = ephemeralStorage;
  const processStats = asObject(raw.process_stats);
  if (processStats !== undefined) {
    const count = processStats.process_count;
    const processCount = count === undefined || count === null ? undefined : toCounter(count);
    if (processCount !== undefined) pod.processCount = processCount;
  }
  return pod;
}

function buildContainer(raw: RawObject, defaultTime: EpochMs | undefined): ContainerStats {
  const container: Mutable<ContainerStats> = { name: asString(raw.name) };
  const memory = buildMemory(raw.memory, defaultTime);
  if (memory !== undefined) container.memory = memory;
  const rootfs = buildFs(raw.rootfs, defaultTime);
  if (rootfs !== undefined) container.rootfs = rootfs;
  const logs = buildFs(raw.logs, defaultTime);
  if (logs !== undefined) container.logs = logs;
  return container;
}

function buildVolume(raw: RawObject): VolumeStats {
  const volume: Mutable<VolumeStats> = { name: asString(raw.name) };
  copyCounters(volume, raw, VOLUME_COUNTERS);
  const pvcRef = asObject(raw.pvcRef);
  if (pvcRef !== undefined) volume.pvcRef = { name: asString(pvcRef.name), namespace: asString(pvcRef.namespace) };
  return volume;
}

function buildMemory(raw: unknown, defaultTime: EpochMs | undefined): MemoryStats | undefined {
  const block = asObject(raw);
  if (block === undefined) return undefined;
  const memory: Mutable<MemoryStats> = {};
  setTime(memory, block.time, defaultTime);
  copyCounters(memory, block, MEMORY_COUNTERS);
  return memory;
}

function buildFs(raw: unknown, defaultTime: EpochMs | undefined): FsStats | undefined {
  const block = asObject(raw);
  if (block === undefined) return undefined;
  const fs: Mutable<FsStats> = {};
  setTime(fs, block.time, defaultTime);
  copyCounters(fs, block, FS_COUNTERS);
  return fs;
}

/** Missing or null → the default (the step's time); Go's zero time (or anything unparsable) → unset. */
function setTime(target: { time?: EpochMs }, raw: unknown, defaultTime: EpochMs | undefined): void {
  let time = defaultTime;
  if (raw !== undefined && raw !== null) {
    const parsed = typeof raw === "string" ? parseRfc3339(raw) : "invalid";
    time = typeof parsed === "number" ? parsed : undefined;
  }
  if (time !== undefined) target.time = time;
}

function copyCounters<K extends string>(
  target: { [P in K]?: bigint },
  raw: RawObject,
  keys: readonly K[],
): void {
  for (const key of keys) {
    const v = raw[key];
    if (v === undefined || v === null) continue;
    const counter = toCounter(v);
    if (counter !== undefined) target[key] = counter;
  }
}

function asObject(raw: unknown): RawObject | undefined {
  return typeof raw === "object" && raw !== null && !Array.isArray(raw) ? (raw as RawObject) : undefined;
}

function asList(raw: unknown): readonly unknown[] {
  return Array.isArray(raw) ? (raw as readonly unknown[]) : [];
}

/** Go decodes a missing string as "". */
function asString(raw: unknown): string {
  return typeof raw === "string" ? raw : "";
}
