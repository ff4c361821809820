/**
 * The signal table: every eviction signal with its node condition, starved resource, the kind of
 * quantity it measures, and whether it is a memory signal (memory signals are acted on first).
 * Upstream spreads this over several init() maps in helpers.go; here it is one checked table.
 */
import type { NodeCondition, Signal, StarvedResource } from "./model.js";

export interface SignalSpec {
  readonly condition: NodeCondition;
  readonly resource: StarvedResource;
  /** Bytes print as BinarySI; inode and PID counts as DecimalSI (affects message text). */
  readonly unit: "bytes" | "count";
  /** Memory thresholds sort first when choosing which threshold to act on. */
  readonly memory: boolean;
}

export const SIGNALS = {
  "memory.available": { condition: "MemoryPressure", resource: "memory", unit: "bytes", memory: true },
  "allocatableMemory.available": {
    condition: "MemoryPressure",
    resource: "memory",
    unit: "bytes",
    memory: true,
  },
  "nodefs.available": {
    condition: "DiskPressure",
    resource: "ephemeral-storage",
    unit: "bytes",
    memory: false,
  },
  "nodefs.inodesFree": { condition: "DiskPressure", resource: "inodes", unit: "count", memory: false },
  "imagefs.available": {
    condition: "DiskPressure",
    resource: "ephemeral-storage",
    unit: "bytes",
    memory: false,
  },
  "imagefs.inodesFree": { condition: "DiskPressure", resource: "inodes", unit: "count", memory: false },
  "containerfs.available": {
    condition: "DiskPressure",
    resource: "ephemeral-storage",
    unit: "bytes",
    memory: false,
  },
  "containerfs.inodesFree": { condition: "DiskPressure", resource: "inodes", unit: "count", memory: false },
  "pid.available": { condition: "PIDPressure", resource: "pids", unit: "count", memory: false },
} as const satisfies Record<Signal, SignalSpec>;

/** All signals, in the catalogue order used for stable output. */
export const ALL_SIGNALS = Object.keys(SIGNALS) as Signal[];

export function isSignal(s: string): s is Signal {
  return Object.hasOwn(SIGNALS, s);
}

/**
 * Whether `signal` is a memory signal (memory.available, allocatableMemory.available), as the
 * table says: for the rank function, the memory wakes and a memory read's fresh figures. False for
 * anything not in the table (e.g. an eviction's ephemeralpodfs.limit).
 */
export function isMemorySignal(signal: string): boolean {
  return isSignal(signal) && SIGNALS[signal].memory;
}

/** Node conditions in reporting order. */
export const NODE_CONDITIONS: readonly NodeCondition[] = ["MemoryPressure", "DiskPressure", "PIDPressure"];
