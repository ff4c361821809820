/**
 * The Summary API (stats/v1alpha1) JSON shape, as far as evictd reads it, with every field still
 * `unknown`: the contract the validator checks and the decoder reads (by name, which keeps property
 * access monomorphic and fast). What the eviction manager reads, and beside it the pressure (`psi` of
 * cpu, memory and io) and swap blocks, which reports show and no decision reads. Everything else in
 * a response (cpu usage, network, userDefinedMetrics, ...) is ignored.
 */

export interface RawSummary {
  readonly node?: unknown;
  readonly pods?: unknown;
}

export interface RawNode {
  readonly nodeName?: unknown;
  readonly systemContainers?: unknown;
  readonly memory?: unknown;
  readonly fs?: unknown;
  readonly runtime?: unknown;
  readonly rlimit?: unknown;
  readonly cpu?: unknown;
  readonly io?: unknown;
  readonly swap?: unknown;
}

export interface RawRuntime {
  readonly imageFs?: unknown;
  readonly containerFs?: unknown;
}

/** `node.systemContainers[]` and `pods[].containers[]` (system containers have no rootfs/logs). */
export interface RawContainer {
  readonly name?: unknown;
  readonly memory?: unknown;
  readonly rootfs?: unknown;
  readonly logs?: unknown;
  readonly cpu?: unknown;
  readonly io?: unknown;
  readonly swap?: unknown;
}

export interface RawMemory {
  readonly time?: unknown;
  readonly availableBytes?: unknown;
  readonly workingSetBytes?: unknown;
  readonly usageBytes?: unknown;
  readonly psi?: unknown;
}

/** `cpu`: only its pressure is read (usage figures are nobody's input here). */
export interface RawCpu {
  readonly psi?: unknown;
}

/** `io` (KubeletPSI): a time and the pressure, nothing else. */
export interface RawIo {
  readonly time?: unknown;
  readonly psi?: unknown;
}

export interface RawSwap {
  readonly time?: unknown;
  readonly swapAvailableBytes?: unknown;
  readonly swapUsageBytes?: unknown;
}

/** `psi`: `some` and `full`, each a PSI line. */
export interface RawPsi {
  readonly some?: unknown;
  readonly full?: unknown;
}

/** `total` is uint64 (the kernel's microseconds); the averages are float64 percentages. */
export interface RawPsiData {
  readonly total?: unknown;
  readonly avg10?: unknown;
  readonly avg60?: unknown;
  readonly avg300?: unknown;
}

export interface RawFs {
  readonly time?: unknown;
  readonly availableBytes?: unknown;
  readonly capacityBytes?: unknown;
  readonly usedBytes?: unknown;
  readonly inodesFree?: unknown;
  readonly inodes?: unknown;
  readonly inodesUsed?: unknown;
}

/** int64 upstream; a negative PID count is meaningless, so both are checked as uint64 counters. */
export interface RawRlimit {
  readonly time?: unknown;
  readonly maxpid?: unknown;
  readonly curproc?: unknown;
}

export interface RawPod {
  readonly podRef?: unknown;
  readonly memory?: unknown;
  readonly containers?: unknown;
  /** Singular in JSON (`json:"volume,omitempty"` upstream). */
  readonly volume?: unknown;
  readonly "ephemeral-storage"?: unknown;
  readonly process_stats?: unknown;
  readonly cpu?: unknown;
  readonly io?: unknown;
  readonly swap?: unknown;
}

export interface RawPodRef {
  readonly name?: unknown;
  readonly namespace?: unknown;
  readonly uid?: unknown;
}

/** Volume stats embed FsStats upstream; ranking reads only these. */
export interface RawVolume {
  readonly name?: unknown;
  readonly usedBytes?: unknown;
  readonly inodesUsed?: unknown;
  readonly pvcRef?: unknown;
}

export interface RawPvcRef {
  readonly name?: unknown;
  readonly namespace?: unknown;
}

export interface RawProcessStats {
  readonly process_count?: unknown;
}
