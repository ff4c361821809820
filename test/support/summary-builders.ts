/**
 * Readable Summary API builders for engine scenarios: `node({memAvailable: "900Mi", ...})` and
 * `podStats("default/web", {ws: "500Mi", ...})` take quantity strings and produce a `SummarySpec`
 * whose missing time stamps are filled in with the time of the step that uses it.
 */
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
} from "../../src/core/model.js";
import { parseGoDuration, durationToMs } from "../../src/core/time/duration.js";
import { parseQuantity, quantityNanos } from "../../src/core/quantity.js";

/** A byte or count amount: a quantity string (`"1Gi"`, `"49k"`), a number or a bigint. */
export type Amount = string | number | bigint;

/**
 * When a stats block was sampled: an offset from the scenario start (`"10s"`), or `null` for Go's
 * zero time (no time stamp). Left out, the block carries the time of the step it is used at.
 */
export type StatsTime = string | null;

/** Every scenario starts here (2025-01-01T00:00:00Z); step times are offsets from it. */
export const SCENARIO_START: EpochMs = Date.UTC(2025, 0, 1);

/** An amount as an exact integer; quantity strings must be whole numbers (`500m` is rejected). */
export function amount(a: Amount): bigint {
  if (typeof a === "bigint") return a;
  if (typeof a === "number") {
    if (!Number.isSafeInteger(a)) throw new Error(`amount ${a} is not a safe integer`);
    return BigInt(a);
  }
  const nanos = quantityNanos(parseQuantity(a));
  if (nanos % 1_000_000_000n !== 0n) throw new Error(`amount ${JSON.stringify(a)} is not a whole number`);
  return nanos / 1_000_000_000n;
}

/** A step or stats offset (`"1m30s"`) as epoch milliseconds. */
export function offsetTime(offset: string): EpochMs {
  return SCENARIO_START + durationToMs(parseGoDuration(offset));
}

export interface ContainerStatsSpec {
  readonly ws?: Amount;
  readonly rootfs?: Amount;
  readonly rootfsInodes?: Amount;
  readonly logs?: Amount;
  readonly logsInodes?: Amount;
}

export interface VolumeStatsSpec {
  readonly used?: Amount;
  readonly inodes?: Amount;
}

export interface PodStatsSpec extends ContainerStatsSpec {
  /** Containers in stats order; absent = one container `app` built from the top-level fields. */
  readonly containers?: Readonly<Record<string, ContainerStatsSpec>>;
  /**
   * Pod cgroup working set (memory ranking). Defaults to `ws`, or to the sum of the containers'
   * working sets when `containers` is given; `null` reports a memory block without a working set.
   */
  readonly podWs?: Amount | null;
  /** Volume stats by volume name: used bytes, or `{used, inodes}`. */
  readonly volumes?: Readonly<Record<string, Amount | VolumeStatsSpec>>;
  /** `ephemeral-storage.usedBytes` (what the pod ephemeral-storage limit check reads). */
  readonly ephemeral?: Amount;
  readonly processes?: Amount;
  readonly uid?: string;
  readonly time?: StatsTime;
}

/** Pod stats awaiting the step time. */
export interface PodStatsBuilder {
  readonly key: string;
  build(stepTime: EpochMs): PodStats;
}

export interface NodeStatsSpec {
  /** Default sample time of every block (each block may override it). */
  readonly time?: StatsTime;
  readonly memAvailable?: Amount;
  readonly memWorkingSet?: Amount;
  readonly memTime?: StatsTime;
  /** The `pods` system container (node allocatable cgroup): allocatableMemory.available. */
  readonly allocAvailable?: Amount;
  readonly allocWorkingSet?: Amount;
  readonly allocTime?: StatsTime;
  readonly fsAvailable?: Amount;
  readonly fsCapacity?: Amount;
  readonly fsInodesFree?: Amount;
  readonly fsInodes?: Amount;
  readonly fsTime?: StatsTime;
  readonly imageFsAvailable?: Amount;
  readonly imageFsCapacity?: Amount;
  readonly imageFsInodesFree?: Amount;
  readonly imageFsInodes?: Amount;
  readonly imageFsTime?: StatsTime;
  readonly containerFsAvailable?: Amount;
  readonly containerFsCapacity?: Amount;
  readonly containerFsInodesFree?: Amount;
  readonly containerFsInodes?: Amount;
  readonly containerFsTime?: StatsTime;
  readonly maxPid?: Amount;
  readonly curProc?: Amount;
  readonly pidTime?: StatsTime;
  readonly pods?: readonly PodStatsBuilder[];
}

/** A summary awaiting the step time (the scenario runner calls `build`). */
export interface SummarySpec {
  readonly kind: "summary-spec";
  build(stepTime: EpochMs): NodeSummary;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function resolveTime(
  own: StatsTime | undefined,
  fallback: StatsTime | undefined,
  stepTime: EpochMs,
): EpochMs | undefined {
  const t = own !== undefined ? own : fallback;
  if (t === undefined) return stepTime;
  return t === null ? undefined : offsetTime(t);
}

/** Copies the defined fields only (exactOptionalPropertyTypes: absent, never `undefined`). */
function defined<T extends object>(fields: { [K in keyof T]: T[K] | undefined }): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out as T;
}

const opt = (a: Amount | undefined): bigint | undefined => (a === undefined ? undefined : amount(a));

function memory(
  available: Amount | undefined,
  ws: Amount | undefined,
  time: EpochMs | undefined,
): MemoryStats | undefined {
  if (available === undefined && ws === undefined) return undefined;
  return defined<MemoryStats>({ time, availableBytes: opt(available), workingSetBytes: opt(ws) });
}

function fs(
  available: Amount | undefined,
  capacity: Amount | undefined,
  inodesFree: Amount | undefined,
  inodes: Amount | undefined,
  time: EpochMs | undefined,
): FsStats | undefined {
  if ([available, capacity, inodesFree, inodes].every((x) => x === undefined)) return undefined;
  return defined<FsStats>({
    time,
    availableBytes: opt(available),
    capacityBytes: opt(capacity),
    inodesFree: opt(inodesFree),
    inodes: opt(inodes),
  });
}

/** A node summary; blocks appear only when one of their fields is given. */
export function node(spec: NodeStatsSpec = {}): SummarySpec {
  return {
    kind: "summary-spec",
    build(stepTime: EpochMs): NodeSummary {
      const at = (own: StatsTime | undefined): EpochMs | undefined => resolveTime(own, spec.time, stepTime);
      const systemContainers: SystemContainerStats[] = [];
      const alloc = memory(spec.allocAvailable, spec.allocWorkingSet, at(spec.allocTime));
      if (alloc !== undefined) systemContainers.push({ name: "pods", memory: alloc });
      const n: Mutable<NodeStats> = { nodeName: "node-1", systemContainers };
      const mem = memory(spec.memAvailable, spec.memWorkingSet, at(spec.memTime));
      if (mem !== undefined) n.memory = mem;
      const nodeFs = fs(spec.fsAvailable, spec.fsCapacity, spec.fsInodesFree, spec.fsInodes, at(spec.fsTime));
      if (nodeFs !== undefined) n.fs = nodeFs;
      const imageFs = fs(
        spec.imageFsAvailable,
        spec.imageFsCapacity,
        spec.imageFsInodesFree,
        spec.imageFsInodes,
        at(spec.imageFsTime),
      );
      const containerFs = fs(
        spec.containerFsAvailable,
        spec.containerFsCapacity,
        spec.containerFsInodesFree,
        spec.containerFsInodes,
        at(spec.containerFsTime),
      );
      if (imageFs !== undefined || containerFs !== undefined) {
        n.runtime = defined<{ imageFs?: FsStats; containerFs?: FsStats }>({ imageFs, containerFs });
      }
      if (spec.maxPid !== undefined || spec.curProc !== undefined) {
        n.rlimit = defined<RlimitStats>({
          time: at(spec.pidTime),
          maxpid: opt(spec.maxPid),
          curproc: opt(spec.curProc),
        });
      }
      return { node: n, pods: (spec.pods ?? []).map((p) => p.build(stepTime)) };
    },
  };
}

function containerStats(name: string, c: ContainerStatsSpec, time: EpochMs | undefined): ContainerStats {
  const out: Mutable<ContainerStats> = { name };
  if (c.ws !== undefined) out.memory = defined<MemoryStats>({ time, workingSetBytes: amount(c.ws) });
  if (c.rootfs !== undefined || c.rootfsInodes !== undefined) {
    out.rootfs = defined<FsStats>({ time, usedBytes: opt(c.rootfs), inodesUsed: opt(c.rootfsInodes) });
  }
  if (c.logs !== undefined || c.logsInodes !== undefined) {
    out.logs = defined<FsStats>({ time, usedBytes: opt(c.logs), inodesUsed: opt(c.logsInodes) });
  }
  return out;
}

/** Stats of one pod, keyed `namespace/name`; its podRef uid defaults to the key (as decodePod's). */
export function podStats(key: string, spec: PodStatsSpec = {}): PodStatsBuilder {
  const [namespace, name] = key.includes("/") ? key.split("/", 2) : ["default", key];
  if (namespace === undefined || name === undefined) throw new Error(`bad pod key ${key}`);
  return {
    key: `${namespace}/${name}`,
    build(stepTime: EpochMs): PodStats {
      const time = resolveTime(spec.time, undefined, stepTime);
      const specs: [string, ContainerStatsSpec][] =
        spec.containers === undefined ? [["app", spec]] : Object.entries(spec.containers);
      const containers = specs.map(([n, c]) => containerStats(n, c, time));
      const volumes: VolumeStats[] = Object.entries(spec.volumes ?? {}).map(([volName, v]) =>
        typeof v === "object"
          ? defined<VolumeStats>({ name: volName, usedBytes: opt(v.used), inodesUsed: opt(v.inodes) })
          : { name: volName, usedBytes: amount(v) },
      );
      const out: Mutable<PodStats> = {
        podRef: { name, namespace, uid: spec.uid ?? `${namespace}/${name}` },
        containers,
        volumes,
      };
      const wsSum = specs.reduce<bigint | undefined>(
        (sum, [, c]) => (c.ws === undefined ? sum : (sum ?? 0n) + amount(c.ws)),
        undefined,
      );
      const podWs = spec.podWs === undefined ? wsSum : spec.podWs;
      if (podWs === null) out.memory = defined<MemoryStats>({ time });
      else if (podWs !== undefined)
        out.memory = defined<MemoryStats>({ time, workingSetBytes: amount(podWs) });
      if (spec.ephemeral !== undefined)
        out.ephemeralStorage = defined<FsStats>({ time, usedBytes: amount(spec.ephemeral) });
      if (spec.processes !== undefined) out.processCount = amount(spec.processes);
      return out;
    },
  };
}
