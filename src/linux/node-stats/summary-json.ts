/**
 * The Summary API object (stats/v1alpha1) as this collector writes it: the kubelet's JSON field
 * names, uint64 counters as JS numbers while exact and as bigints beyond 2^53.
 */

/** A uint64 counter: a number when it is a safe integer, else a bigint (JSON writers must handle both). */
export type JsonCounter = number | bigint;

/** A counter in JSON form: a plain number whenever that is exact. */
export function counter(v: bigint): JsonCounter {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

/**
 * `MemoryStats`. `availableBytes` only where a limit exists (node, `pods`), as upstream; a pod read
 * on a memory wake has its usage alone (see `LinuxSummaryCollector.collect`), as a pointer field
 * upstream may be nil.
 */
export interface MemoryJson {
  time: string;
  availableBytes?: JsonCounter;
  usageBytes: JsonCounter;
  workingSetBytes?: JsonCounter;
  rssBytes?: JsonCounter;
}

/** `FsStats`: the filesystem-wide figures plus the usage of what is being described. */
export interface FsJson {
  time: string;
  availableBytes?: JsonCounter;
  capacityBytes?: JsonCounter;
  usedBytes?: JsonCounter;
  inodesFree?: JsonCounter;
  inodes?: JsonCounter;
  inodesUsed?: JsonCounter;
}

export interface ContainerJson {
  name: string;
  startTime?: string;
  memory?: MemoryJson;
  rootfs?: FsJson;
  logs?: FsJson;
}

/** `VolumeStats`: FsStats inlined, plus the volume's name. */
export interface VolumeJson extends FsJson {
  name: string;
}

export interface PodJson {
  podRef: { name: string; namespace: string; uid: string };
  startTime?: string;
  containers: ContainerJson[];
  memory?: MemoryJson;
  volume?: VolumeJson[];
  "ephemeral-storage"?: FsJson;
  process_stats?: { process_count: JsonCounter };
}

export interface RlimitJson {
  time: string;
  maxpid: JsonCounter;
  curproc: JsonCounter;
}

export interface NodeJson {
  nodeName: string;
  startTime?: string;
  systemContainers: { name: string; startTime?: string; memory: MemoryJson }[];
  memory: MemoryJson;
  fs: FsJson;
  runtime: { imageFs: FsJson; containerFs: FsJson };
  rlimit: RlimitJson;
}

/** The whole object, as GET /stats/summary serves it. */
export interface RawSummaryJson {
  node: NodeJson;
  pods: PodJson[];
}

/** One filesystem's figures (statfs), for {@link fsJson}. */
export interface FsFigures {
  readonly capacityBytes: bigint;
  readonly availableBytes: bigint;
  readonly inodes: bigint;
  readonly inodesFree: bigint;
}

/** `FsStats`: the filesystem's figures plus `usedBytes`/`inodesUsed` of what is being described. */
export function fsJson(fs: FsFigures, time: string, usedBytes: bigint, inodesUsed: bigint): FsJson {
  return {
    time,
    availableBytes: counter(fs.availableBytes),
    capacityBytes: counter(fs.capacityBytes),
    usedBytes: counter(usedBytes),
    inodesFree: counter(fs.inodesFree),
    inodes: counter(fs.inodes),
    inodesUsed: counter(inodesUsed),
  };
}

/**
 * `MemoryStats` of something with usage and working set. With a `limit`, `availableBytes` =
 * limit − working set, clamped at 0, as upstream's stats provider computes it; without one the
 * field is left out, as cAdvisor leaves it out for unlimited cgroups.
 */
export function memoryJson(
  time: string,
  usageBytes: bigint,
  workingSetBytes: bigint,
  limit: bigint | undefined,
): MemoryJson {
  const out: MemoryJson = {
    time,
    usageBytes: counter(usageBytes),
    workingSetBytes: counter(workingSetBytes),
  };
  if (limit !== undefined)
    out.availableBytes = counter(limit > workingSetBytes ? limit - workingSetBytes : 0n);
  return out;
}

const BIGINT_MARK = "\u0000bigint:";
const BIGINT_TOKEN = /"\\u0000bigint:(\d+)"/g;

/**
 * JSON text of a summary, bigint counters written as plain integer literals (JSON.stringify throws
 * on bigints; Go writes uint64 digits verbatim, and the engine's exact JSON reader reads them back).
 */
export function stringifySummaryJson(summary: RawSummaryJson, indent?: number): string {
  const text = JSON.stringify(
    summary,
    (_key, value: unknown) => (typeof value === "bigint" ? `${BIGINT_MARK}${value}` : value),
    indent,
  );
  return text.replace(BIGINT_TOKEN, "$1");
}
