/**
 * A Summary cut down to what the eviction engine reads (docs/replay-format.md, "lean Summaries"),
 * plus the node's pressure and swap figures a report shows beside the signals: what a recorder
 * keeps so that a day of a 110-pod node takes a small fraction of what the kubelet's Summaries
 * would (the engine reads a small part of each; docs/benchmarks.md, "A day of a node as a
 * recording"), while a replay of it makes exactly the decisions a replay of the full Summaries
 * makes.
 *
 * Kept: the node's memory, filesystems and rlimit whole (their times too: observations carry
 * them); system containers' names and memory; per pod its podRef, its memory's working set and
 * usage, each container's name, memory working set and rootfs/logs usage (bytes and inodes), each
 * volume's name, usage and pvcRef, ephemeral-storage usage and process count. Beside them, for the
 * node and its system containers: the pressure (`psi`) of memory, cpu and io, the io block's time,
 * and swap whole. They are data for people, never read by a decision, and kept because a recording
 * is the only place they can be read later (an eviction and the memory pressure that came with
 * it). The same figures per pod and per container would triple a 110-pod node's recording (a
 * 1.34+ kubelet reports them for every one), so they are kept only by `--full-summaries`.
 * Of cpu only the pressure is kept, not its usage. Dropped: everything else (cpu usage, network,
 * user-defined metrics, accelerators, rss and page faults), and per pod the time stamps and
 * filesystem totals (pods are ranked by usage alone; only node-level figures are observations
 * with times).
 *
 * A projection, not a validation: a value of the wrong type where a block is expected is kept as
 * it is, so a replay reports the same problem the full Summary would. Integers are copied as they
 * are (bigints and exact-integer sentinels included). Pure.
 */
import { isRawObject } from "../raw/raw-object.js";

/** Which fields to keep of an object: `true` keeps the value as is, a shape projects it, `[shape]` each list item. */
type Shape = { readonly [field: string]: true | Shape | readonly [Shape] };

const MEMORY: Shape = { time: true, availableBytes: true, workingSetBytes: true, usageBytes: true };
const FS: Shape = {
  time: true,
  availableBytes: true,
  capacityBytes: true,
  usedBytes: true,
  inodesFree: true,
  inodes: true,
  inodesUsed: true,
};
const USAGE: Shape = { usedBytes: true, inodesUsed: true };
/** Pressure whole: `some` and `full` with their totals and averages. */
const PSI = true;
const CPU: Shape = { psi: PSI };
/**
 * Shapes written only when something of them is kept: a cpu block without pressure (any kubelet
 * before KubeletPSI) would otherwise be an empty object in every pod and container.
 */
const ONLY_WITH_CONTENT: ReadonlySet<Shape> = new Set([CPU]);
const IO: Shape = { time: true, psi: PSI };
const SWAP: Shape = { time: true, swapAvailableBytes: true, swapUsageBytes: true };
/** A memory block's pressure, beside the figures the engine reads. */
const MEMORY_PSI: Shape = { ...MEMORY, psi: PSI };

const SUMMARY: Shape = {
  node: {
    nodeName: true,
    systemContainers: [{ name: true, memory: MEMORY_PSI, cpu: CPU, io: IO, swap: SWAP }],
    memory: MEMORY_PSI,
    fs: FS,
    runtime: { imageFs: FS, containerFs: FS },
    rlimit: { time: true, maxpid: true, curproc: true },
    cpu: CPU,
    io: IO,
    swap: SWAP,
  },
  pods: [
    {
      podRef: { name: true, namespace: true, uid: true },
      memory: { workingSetBytes: true, usageBytes: true },
      containers: [{ name: true, memory: { workingSetBytes: true }, rootfs: USAGE, logs: USAGE }],
      volume: [{ name: true, usedBytes: true, inodesUsed: true, pvcRef: { name: true, namespace: true } }],
      "ephemeral-storage": USAGE,
      process_stats: { process_count: true },
    },
  ],
};

function project(value: unknown, shape: Shape): unknown {
  if (!isRawObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const field in shape) {
    if (!Object.hasOwn(value, field)) continue;
    const keep = shape[field];
    const v = value[field];
    if (keep === true) out[field] = v;
    else if (Array.isArray(keep)) {
      const item = (keep as readonly [Shape])[0];
      out[field] = Array.isArray(v) ? v.map((x: unknown) => project(x, item)) : v;
    } else {
      const projected = project(v, keep as Shape);
      if (ONLY_WITH_CONTENT.has(keep as Shape) && isEmptyObject(projected)) continue;
      out[field] = projected;
    }
  }
  return out;
}

function isEmptyObject(value: unknown): boolean {
  if (!isRawObject(value)) return false;
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/** `raw` (a Summary API object) with only what the eviction engine reads. */
export function leanSummary(raw: unknown): unknown {
  return project(raw, SUMMARY);
}
