/**
 * The Summary a node would report had some of its pods gone: their entries dropped, and what they
 * used given back to the node-level figures the eviction signals read. This is the what-if replay's
 * counterfactual (docs/replay-format.md, "what-if replay"): a pod the replayed configuration
 * evicted keeps its memory in every later recorded sample, and these are the samples as the node
 * would have seen them without it.
 *
 * What a pod gives back, from its own entry in the same sample:
 * - memory: its working set (the pod's, else the sum of its containers'), from the node's working
 *   set and the `pods` system container's (allocatable), whose available bytes rise by as much;
 * - disk: its ephemeral storage (bytes and inodes; else the sum of its containers' rootfs and logs
 *   and its volumes other than PVCs), given back to the filesystems that hold each part under the
 *   layout: all of it to nodefs on a single filesystem (and to imagefs, the same filesystem there);
 *   the writable layers (rootfs) to imagefs when it is dedicated, to containerfs when split, the
 *   rest (logs, volumes) to nodefs;
 * - processes: its process count, from the node's `curproc`.
 * No figure goes below zero or, for filesystems, above capacity; time stamps stay as recorded.
 */
import type {
  FilesystemLayout,
  FsStats,
  MemoryStats,
  NodeSummary,
  Pod,
  PodStats,
  SystemContainerStats,
} from "../model.js";

/** What the pods gone gave back, summed over their entries in one sample. */
export interface FreedByPods {
  readonly workingSetBytes: bigint;
  /** Bytes and inodes on the filesystem of pod data (logs, volumes) and, on a single filesystem, everything. */
  readonly nodefsBytes: bigint;
  readonly nodefsInodes: bigint;
  /** Bytes and inodes of the containers' writable layers, when they live on another filesystem. */
  readonly layerBytes: bigint;
  readonly layerInodes: bigint;
  readonly processes: bigint;
}

const ZERO: FreedByPods = {
  workingSetBytes: 0n,
  nodefsBytes: 0n,
  nodefsInodes: 0n,
  layerBytes: 0n,
  layerInodes: 0n,
  processes: 0n,
};

const sum = (values: readonly (bigint | undefined)[]): bigint =>
  values.reduce<bigint>((a, v) => a + (v ?? 0n), 0n);

/**
 * A pod's own entry in a summary: the one with its UID; else the one with its namespace/name that
 * carries no UID (a lean recording may name pods so), or any of that name for a pod given without a
 * UID (its UID is then its namespace/name). The engine also takes an entry of the same name with
 * another UID, but a pod gone from a recording may have a successor of the same name (a
 * StatefulSet's), whose entry is not the pod's.
 */
export function ownStatsLookup(summary: NodeSummary): (pod: Pod) => PodStats | undefined {
  const own = (pod: Pod, s: PodStats | undefined): PodStats | undefined =>
    s !== undefined && (s.podRef.uid === pod.uid || s.podRef.uid === "" || pod.uid === pod.key)
      ? s
      : undefined;
  const find = summary.findPod;
  if (find !== undefined) return (pod) => own(pod, find(pod.uid, pod.key));
  const byUid = new Map<string, PodStats>();
  const byKey = new Map<string, PodStats>();
  for (const s of summary.pods) {
    if (!byUid.has(s.podRef.uid)) byUid.set(s.podRef.uid, s);
    const key = `${s.podRef.namespace}/${s.podRef.name}`;
    if (!byKey.has(key)) byKey.set(key, s);
  }
  return (pod) => byUid.get(pod.uid) ?? own(pod, byKey.get(pod.key));
}

/** Whether the summary holds the pod's own entry ({@link ownStatsLookup}), building none where it can. */
export function hasOwnStats(summary: NodeSummary): (pod: Pod) => boolean {
  const has = summary.hasPod;
  if (has !== undefined) return (pod) => has(pod.uid, pod.key);
  const lookup = ownStatsLookup(summary);
  return (pod) => lookup(pod) !== undefined;
}

function podWorkingSet(s: PodStats): bigint {
  return s.memory?.workingSetBytes ?? sum(s.containers.map((c) => c.memory?.workingSetBytes));
}

/** One pod's share: its ephemeral storage split between pod data and writable layers. */
function freedBy(s: PodStats, layout: FilesystemLayout): FreedByPods {
  const layerBytes = sum(s.containers.map((c) => c.rootfs?.usedBytes));
  const layerInodes = sum(s.containers.map((c) => c.rootfs?.inodesUsed));
  const ownVolumes = s.volumes.filter((v) => v.pvcRef === undefined);
  const totalBytes =
    s.ephemeralStorage?.usedBytes ??
    layerBytes + sum(s.containers.map((c) => c.logs?.usedBytes)) + sum(ownVolumes.map((v) => v.usedBytes));
  const totalInodes =
    s.ephemeralStorage?.inodesUsed ??
    layerInodes + sum(s.containers.map((c) => c.logs?.inodesUsed)) + sum(ownVolumes.map((v) => v.inodesUsed));
  const separate = layout !== "single";
  const clamp = (v: bigint): bigint => (v < 0n ? 0n : v);
  return {
    workingSetBytes: podWorkingSet(s),
    nodefsBytes: separate ? clamp(totalBytes - layerBytes) : totalBytes,
    nodefsInodes: separate ? clamp(totalInodes - layerInodes) : totalInodes,
    layerBytes: separate ? layerBytes : 0n,
    layerInodes: separate ? layerInodes : 0n,
    processes: s.processCount ?? 0n,
  };
}

function add(a: FreedByPods, b: FreedByPods): FreedByPods {
  return {
    workingSetBytes: a.workingSetBytes + b.workingSetBytes,
    nodefsBytes: a.nodefsBytes + b.nodefsBytes,
    nodefsInodes: a.nodefsInodes + b.nodefsInodes,
    layerBytes: a.layerBytes + b.layerBytes,
    layerInodes: a.layerInodes + b.layerInodes,
    processes: a.processes + b.processes,
  };
}

function lessMemory(m: MemoryStats | undefined, bytes: bigint): MemoryStats | undefined {
  if (m === undefined || bytes === 0n || m.workingSetBytes === undefined) return m;
  const workingSetBytes = m.workingSetBytes > bytes ? m.workingSetBytes - bytes : 0n;
  const given = m.workingSetBytes - workingSetBytes;
  return {
    ...m,
    workingSetBytes,
    ...(m.availableBytes !== undefined ? { availableBytes: m.availableBytes + given } : {}),
    ...(m.usageBytes !== undefined ? { usageBytes: m.usageBytes > given ? m.usageBytes - given : 0n } : {}),
  };
}

function lessFs(fs: FsStats | undefined, bytes: bigint, inodes: bigint): FsStats | undefined {
  if (fs === undefined || (bytes === 0n && inodes === 0n)) return fs;
  const cap = (v: bigint, limit: bigint | undefined): bigint =>
    limit !== undefined && v > limit ? limit : v;
  const floor = (v: bigint): bigint => (v < 0n ? 0n : v);
  return {
    ...fs,
    ...(fs.availableBytes !== undefined
      ? { availableBytes: cap(fs.availableBytes + bytes, fs.capacityBytes) }
      : {}),
    ...(fs.usedBytes !== undefined ? { usedBytes: floor(fs.usedBytes - bytes) } : {}),
    ...(fs.inodesFree !== undefined ? { inodesFree: cap(fs.inodesFree + inodes, fs.inodes) } : {}),
    ...(fs.inodesUsed !== undefined ? { inodesUsed: floor(fs.inodesUsed - inodes) } : {}),
  };
}

/**
 * `summary` without the entries of `gone` (each pod's own entry: see {@link ownStatsLookup}), their
 * usage given back to the node. Returns the summary itself when
 * none of them has an entry, and what was given back.
 */
export function summaryWithoutPods(
  summary: NodeSummary,
  gone: readonly Pod[],
  layout: FilesystemLayout,
): { readonly summary: NodeSummary; readonly freed: FreedByPods; readonly removed: readonly PodStats[] } {
  if (gone.length === 0) return { summary, freed: ZERO, removed: [] };
  const lookup = ownStatsLookup(summary);
  const removed = new Set<PodStats>();
  for (const pod of gone) {
    const s = lookup(pod);
    if (s !== undefined) removed.add(s);
  }
  if (removed.size === 0) return { summary, freed: ZERO, removed: [] };
  let freed = ZERO;
  for (const s of removed) freed = add(freed, freedBy(s, layout));

  const node = summary.node;
  const systemContainers: SystemContainerStats[] = node.systemContainers.map((c) =>
    c.name === "pods" ? { ...c, ...optional("memory", lessMemory(c.memory, freed.workingSetBytes)) } : c,
  );
  const runtime = node.runtime;
  const nodefsBytes = freed.nodefsBytes;
  const nodefsInodes = freed.nodefsInodes;
  const adjustedRuntime =
    runtime === undefined
      ? undefined
      : layout === "single"
        ? // One filesystem: imagefs's available figures are nodefs's.
          {
            ...optional("imageFs", lessFs(runtime.imageFs, nodefsBytes, nodefsInodes)),
            ...optional("containerFs", lessFs(runtime.containerFs, nodefsBytes, nodefsInodes)),
          }
        : layout === "dedicated"
          ? {
              ...optional("imageFs", lessFs(runtime.imageFs, freed.layerBytes, freed.layerInodes)),
              ...optional("containerFs", lessFs(runtime.containerFs, freed.layerBytes, freed.layerInodes)),
            }
          : {
              ...optional("imageFs", runtime.imageFs),
              ...optional("containerFs", lessFs(runtime.containerFs, freed.layerBytes, freed.layerInodes)),
            };
  const rlimit =
    node.rlimit?.curproc === undefined || freed.processes === 0n
      ? node.rlimit
      : {
          ...node.rlimit,
          curproc: node.rlimit.curproc > freed.processes ? node.rlimit.curproc - freed.processes : 0n,
        };
  const find = summary.findPod;
  let pods: readonly PodStats[] | undefined;
  return {
    summary: {
      // Built on first use, as the decoder's are: a step with no threshold met never lists the pods.
      get pods(): readonly PodStats[] {
        pods ??= summary.pods.filter((p) => !removed.has(p));
        return pods;
      },
      node: {
        ...node,
        ...optional("memory", lessMemory(node.memory, freed.workingSetBytes)),
        systemContainers,
        ...optional("fs", lessFs(node.fs, nodefsBytes, nodefsInodes)),
        ...optional("runtime", adjustedRuntime),
        ...optional("rlimit", rlimit),
      },
      ...(find !== undefined
        ? {
            findPod: (uid: string, key: string): PodStats | undefined => {
              const s = find(uid, key);
              return s !== undefined && removed.has(s) ? undefined : s;
            },
          }
        : {}),
    },
    freed,
    removed: [...removed],
  };
}

/** `{ [key]: value }` when value is defined, else `{}` (exactOptionalPropertyTypes). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
