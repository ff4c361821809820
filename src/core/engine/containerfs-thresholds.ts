/**
 * UpdateContainerFsThresholds (KEP-4191): once the filesystem layout is known, containerfs
 * thresholds mirror the nodefs ones (single and split layouts) or the imagefs ones (dedicated
 * layout). User-written containerfs thresholds are replaced in place; missing mirrors are appended.
 * A mirror of a threshold that does not exist is inert (no operator, never met).
 */
import type { FilesystemLayout, Signal, Threshold } from "../model.js";

interface Slot {
  readonly target: Signal;
  readonly hard: boolean;
  readonly source: Record<FilesystemLayout, Signal>;
}

const SLOTS: readonly Slot[] = [
  {
    target: "containerfs.available",
    hard: true,
    source: { single: "nodefs.available", split: "nodefs.available", dedicated: "imagefs.available" },
  },
  {
    target: "containerfs.available",
    hard: false,
    source: { single: "nodefs.available", split: "nodefs.available", dedicated: "imagefs.available" },
  },
  {
    target: "containerfs.inodesFree",
    hard: true,
    source: { single: "nodefs.inodesFree", split: "nodefs.inodesFree", dedicated: "imagefs.inodesFree" },
  },
  {
    target: "containerfs.inodesFree",
    hard: false,
    source: { single: "nodefs.inodesFree", split: "nodefs.inodesFree", dedicated: "imagefs.inodesFree" },
  },
];

const isHard = (t: Threshold): boolean => t.gracePeriodMs === 0;

function mirror(slot: Slot, layout: FilesystemLayout, thresholds: readonly Threshold[]): Threshold {
  const sourceSignal = slot.source[layout];
  // Upstream scans the whole list and keeps the last match (a soft-map threshold with a 0s grace
  // period is "hard" too, and comes after the hard map's one).
  const source = thresholds.findLast((t) => t.signal === sourceSignal && isHard(t) === slot.hard);
  const id = `containerfs/${slot.hard ? "hard" : "soft"}/${slot.target}`;
  if (source === undefined) {
    return { id, signal: slot.target, operator: "", gracePeriodMs: 0, origin: "containerfs" };
  }
  return {
    id,
    signal: slot.target,
    operator: source.operator,
    ...(source.value !== undefined ? { value: source.value } : {}),
    ...(source.minReclaim !== undefined ? { minReclaim: source.minReclaim } : {}),
    gracePeriodMs: source.gracePeriodMs,
    origin: "containerfs",
    derivedFrom: sourceSignal,
  };
}

/** The threshold list with containerfs mirrors for the layout. */
export function withContainerFsThresholds(
  thresholds: readonly Threshold[],
  layout: FilesystemLayout,
): Threshold[] {
  const out = [...thresholds];
  for (const slot of SLOTS) {
    const copy = mirror(slot, layout, thresholds);
    const existing = out.findLastIndex(
      (t) => t.signal === slot.target && isHard(t) === slot.hard && t.origin !== "containerfs",
    );
    if (existing >= 0)
      out[existing] = copy; // upstream logs "found conflicting containerfs eviction. Ignoring."
    else out.push(copy);
  }
  return out;
}
