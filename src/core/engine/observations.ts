/**
 * makeSignalObservations: the node-level Summary API fields turned into one (available, capacity,
 * time) per signal. A signal gets an observation only when every field it needs is reported.
 */
import type { FsStats, MemoryStats, NodeSummary, Signal } from "../model.js";
import type { Observation, Observations } from "./types.js";

function memoryObservation(m: MemoryStats | undefined): Observation | undefined {
  if (m?.availableBytes === undefined || m.workingSetBytes === undefined) return undefined;
  // Upstream derives capacity as available + working set (not the machine's memory capacity).
  return withTime(m.availableBytes, m.availableBytes + m.workingSetBytes, m.time);
}

function withTime(available: bigint, capacity: bigint, time: number | undefined): Observation {
  return time === undefined ? { available, capacity } : { available, capacity, time };
}

function bytesObservation(fs: FsStats | undefined): Observation | undefined {
  if (fs?.availableBytes === undefined || fs.capacityBytes === undefined) return undefined;
  return withTime(fs.availableBytes, fs.capacityBytes, fs.time);
}

function inodesObservation(fs: FsStats | undefined): Observation | undefined {
  if (fs?.inodesFree === undefined || fs.inodes === undefined) return undefined;
  return withTime(fs.inodesFree, fs.inodes, fs.time);
}

/** Builds the observations of every signal the summary can support. */
export function makeSignalObservations(summary: NodeSummary): Observations {
  const out = new Map<Signal, Observation>();
  const set = (signal: Signal, o: Observation | undefined): void => {
    if (o !== undefined) out.set(signal, o);
  };
  const node = summary.node;
  set("memory.available", memoryObservation(node.memory));
  // The node allocatable cgroup is reported as the system container named "pods".
  set(
    "allocatableMemory.available",
    memoryObservation(node.systemContainers.find((c) => c.name === "pods")?.memory),
  );
  set("nodefs.available", bytesObservation(node.fs));
  set("nodefs.inodesFree", inodesObservation(node.fs));
  set("imagefs.available", bytesObservation(node.runtime?.imageFs));
  set("imagefs.inodesFree", inodesObservation(node.runtime?.imageFs));
  set("containerfs.available", bytesObservation(node.runtime?.containerFs));
  set("containerfs.inodesFree", inodesObservation(node.runtime?.containerFs));
  const r = node.rlimit;
  if (r?.maxpid !== undefined && r.curproc !== undefined) {
    // PIDs available may go negative when curproc overshoots maxpid; signed arithmetic as upstream.
    set("pid.available", withTime(r.maxpid - r.curproc, r.maxpid, r.time));
  }
  return out;
}
