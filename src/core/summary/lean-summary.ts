/**
 * A Summary cut down to what the eviction engine reads (docs/replay-format.md, "lean Summaries"):
 * what a recorder keeps so that a day of a 110-pod node fits in tens of megabytes instead of
 * gigabytes (385 KiB a sample as the kubelet sends it, some 70 KiB lean), while a replay of it makes
 * exactly the decisions a replay of the full Summaries makes.
 *
 * Kept: the node's memory, filesystems and rlimit whole (their times too: observations carry
 * them); system containers' names and memory; per pod its podRef, its memory's working set and
 * usage, each container's name, memory working set and rootfs/logs usage (bytes and inodes), each
 * volume's name, usage and pvcRef, ephemeral-storage usage and process count. Dropped: everything
 * the engine never reads (cpu, network, swap, io, PSI, user-defined metrics, accelerators), and per
 * pod the time stamps and filesystem totals (pods are ranked by usage alone; only node-level
 * figures are observations with times).
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

const SUMMARY: Shape = {
  node: {
    nodeName: true,
    systemContainers: [{ name: true, memory: MEMORY }],
    memory: MEMORY,
    fs: FS,
    runtime: { imageFs: FS, containerFs: FS },
    rlimit: { time: true, maxpid: true, curproc: true },
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
    } else out[field] = project(v, keep as Shape);
  }
  return out;
}

/** `raw` (a Summary API object) with only what the eviction engine reads. */
export function leanSummary(raw: unknown): unknown {
  return project(raw, SUMMARY);
}
