/**
 * Where kernel memory notifications are armed for a memory eviction threshold, from the latest
 * sample, as the kubelet computes it (memory threshold notifier, `UpdateThreshold`): the working set
 * at which the threshold is met, and the memcg usage threshold that corresponds to it. Upstream
 * refuses to arm from incomplete stats ("summary was incomplete"); so does this.
 */
import { quantityValue } from "../quantity.js";
import type { NodeSummary, Threshold } from "../model.js";
import { thresholdQuantity } from "./threshold-quantity.js";

/** Node memory statistics the threshold is derived from, in bytes (a summary's `node.memory`). */
export interface MemcgThresholdInput {
  /** Memory capacity; upstream derives it as available + working set. */
  readonly capacity: bigint;
  readonly workingSet: bigint;
  readonly usage: bigint;
  /** The eviction threshold resolved against capacity (a percentage already applied; min-reclaim ignored). */
  readonly evictionQuantity: bigint;
}

/**
 * The `memory.usage_in_bytes` value at which the working set reaches the eviction threshold:
 * capacity − evictionQuantity + inactive_file, with inactive_file = usage − workingSet (upstream
 * `UpdateThreshold`). The kernel compares the threshold with usage, which includes inactive file
 * pages, so they are added back. Signed and exact: upstream's int64 conversion of the uint64
 * difference gives the same negative value when working set exceeds usage.
 */
export function memcgThreshold(input: MemcgThresholdInput): bigint {
  const inactiveFile = input.usage - input.workingSet;
  return input.capacity - input.evictionQuantity + inactiveFile;
}

export interface MemoryThresholdArming {
  readonly evictionQuantity: bigint;
  /** The threshold is met when the working set exceeds this (available < quantity). */
  readonly workingSetLimit: bigint;
  /** The memcg usage threshold (see {@link memcgThreshold}); may be ≤ 0, which is not armable. */
  readonly usageThreshold: bigint;
}

/** Arming for a `memory.available` or `allocatableMemory.available` threshold; undefined when the stats are incomplete. */
export function memoryThresholdArming(
  threshold: Threshold,
  summary: NodeSummary,
): MemoryThresholdArming | undefined {
  const memory =
    threshold.signal === "allocatableMemory.available"
      ? summary.node.systemContainers.find((c) => c.name === "pods")?.memory
      : summary.node.memory;
  if (
    memory?.availableBytes === undefined ||
    memory.workingSetBytes === undefined ||
    memory.usageBytes === undefined
  )
    return undefined;
  if (threshold.value === undefined) return undefined;
  const capacity = memory.availableBytes + memory.workingSetBytes;
  const evictionQuantity = quantityValue(thresholdQuantity(threshold.value, capacity));
  return {
    evictionQuantity,
    workingSetLimit: capacity - evictionQuantity,
    usageThreshold: memcgThreshold({
      capacity,
      workingSet: memory.workingSetBytes,
      usage: memory.usageBytes,
      evictionQuantity,
    }),
  };
}
