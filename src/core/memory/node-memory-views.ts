/**
 * Three views of a node's memory, side by side: the kubelet's `memory.available` (the one every
 * decision uses), and two that evictd shows beside it and never decides on.
 *
 * - `kubelet`: capacity − working set, working set = usage − inactive_file (each clamped at 0), as
 *   cAdvisor computes it from runc's stats. On the cgroup v2 root, which has no `memory.current`,
 *   runc takes usage as `anon + file` of the root's `memory.stat` (opencontainers/runc#3933, to
 *   match v1's root usage, which the kernel also computes as file + anon pages): kernel memory
 *   (slab, stacks, page tables, socket buffers...) is in neither, so the kubelet never sees it
 *   (kubernetes/kubernetes#118916, opencontainers/runc#4059).
 * - `kernelAvailable`: /proc/meminfo's `MemAvailable`, the kernel's own estimate of what a new
 *   workload could get without swapping (free memory plus the page cache and slab it can reclaim).
 * - `withKernelMemory`: the kubelet's working set plus the kernel memory charged to the cgroup
 *   (kernel-memory.ts), against the same capacity. Where the usage the kubelet starts from already
 *   counts kernel memory (`memory.current` or v1 `memory.usage_in_bytes` of any cgroup but the
 *   root), nothing is added and this view is the kubelet's.
 */
import type { EpochMs } from "../model.js";
import { kernelMemoryFromStat, type KernelMemory, type MemoryStatFields } from "./kernel-memory.js";

/** What the views are computed from, in bytes. */
export interface NodeMemoryFigures {
  /** The machine's memory (MemTotal), or the node cgroup's limit when the node is a cgroup with one. */
  readonly capacityBytes: bigint;
  /** The usage the kubelet's formula starts from. */
  readonly usageBytes: bigint;
  /** Where `usageBytes` comes from, for the reader: `anon + file`, `memory.current`. */
  readonly usageFrom: string;
  readonly inactiveFileBytes: bigint;
  /** /proc/meminfo `MemAvailable`; undefined on kernels before 3.14, which do not write it. */
  readonly memAvailableBytes: bigint | undefined;
  /** Kernel memory charged to the node's cgroup; undefined when nothing says. */
  readonly kernelMemory: KernelMemory | undefined;
  /** Whether `usageBytes` already counts `kernelMemory` (every cgroup's usage but the root's). */
  readonly usageCountsKernelMemory: boolean;
}

export interface NodeMemoryViews {
  readonly capacityBytes: bigint;
  /** The kubelet's `memory.available` from these figures: the signal's own formula. */
  readonly kubelet: {
    readonly usageFrom: string;
    readonly workingSetBytes: bigint;
    readonly availableBytes: bigint;
  };
  /** `MemAvailable`, machine-wide; absent on kernels that do not write it. */
  readonly kernelAvailable?: { readonly availableBytes: bigint };
  /** The kubelet's working set with kernel memory in it; absent when nothing says what kernel memory is. */
  readonly withKernelMemory?: {
    readonly kernelMemoryBytes: bigint;
    readonly kernelMemoryFrom: string;
    /** The kubelet's usage counts it already: this view is then the kubelet's, nothing added. */
    readonly alreadyInKubeletFigure: boolean;
    readonly workingSetBytes: bigint;
    readonly availableBytes: bigint;
  };
}

/** One reading of the views: when, from which files, and the figures. */
export interface NodeMemoryViewsReading {
  readonly at: EpochMs;
  /** The files read, for the reader: `the root cgroup's memory.stat and /proc/meminfo`. */
  readonly source: string;
  readonly views: NodeMemoryViews;
}

const atLeastZero = (n: bigint): bigint => (n > 0n ? n : 0n);

export function nodeMemoryViews(f: NodeMemoryFigures): NodeMemoryViews {
  const workingSet = atLeastZero(f.usageBytes - f.inactiveFileBytes);
  const kernel = f.kernelMemory;
  const withKernel =
    kernel === undefined ? undefined : workingSet + (f.usageCountsKernelMemory ? 0n : kernel.bytes);
  return {
    capacityBytes: f.capacityBytes,
    kubelet: {
      usageFrom: f.usageFrom,
      workingSetBytes: workingSet,
      availableBytes: atLeastZero(f.capacityBytes - workingSet),
    },
    ...(f.memAvailableBytes !== undefined
      ? { kernelAvailable: { availableBytes: f.memAvailableBytes } }
      : {}),
    ...(kernel !== undefined && withKernel !== undefined
      ? {
          withKernelMemory: {
            kernelMemoryBytes: kernel.bytes,
            kernelMemoryFrom: kernel.from,
            alreadyInKubeletFigure: f.usageCountsKernelMemory,
            workingSetBytes: withKernel,
            availableBytes: atLeastZero(f.capacityBytes - withKernel),
          },
        }
      : {}),
  };
}

/** The /proc/meminfo lines the views take, in bytes. */
export interface MeminfoFigures {
  readonly totalBytes: bigint;
  readonly availableBytes: bigint | undefined;
}

/**
 * The views of a cgroup v2 node from its root cgroup's `memory.stat` and /proc/meminfo, as the
 * kubelet measures a node: capacity = MemTotal, usage = `anon + file` (runc). Undefined when the
 * stat lacks `anon`, `file` or `inactive_file`.
 */
export function rootCgroupV2MemoryViews(
  stat: MemoryStatFields,
  meminfo: MeminfoFigures,
): NodeMemoryViews | undefined {
  const anon = stat.get("anon");
  const file = stat.get("file");
  const inactiveFile = stat.get("inactive_file");
  if (anon === undefined || file === undefined || inactiveFile === undefined) return undefined;
  return nodeMemoryViews({
    capacityBytes: meminfo.totalBytes,
    usageBytes: anon + file,
    usageFrom: "anon + file",
    inactiveFileBytes: inactiveFile,
    memAvailableBytes: meminfo.availableBytes,
    kernelMemory: kernelMemoryFromStat(stat),
    usageCountsKernelMemory: false,
  });
}
