/**
 * Per-layout tables: which node-level reclaim functions run for a signal, and which filesystem
 * usages count when ranking pods for a disk signal (buildSignalToNodeReclaimFuncs and
 * buildSignalToRankFunc upstream).
 */
import type { FilesystemLayout, Signal } from "../model.js";
import type { ReclaimFunction } from "./types.js";

/** Usage sources summed per pod for disk ranking. `images` is declared upstream but measures nothing. */
export type FsStatsType = "images" | "root" | "logs" | "localVolumes";

type DiskFamily = "nodefs" | "imagefs";

function familyOf(signal: Signal, layout: FilesystemLayout): DiskFamily | undefined {
  if (signal.startsWith("nodefs.")) return "nodefs";
  if (signal.startsWith("imagefs.")) return "imagefs";
  // containerfs follows nodefs, except in the dedicated layout where writable layers live on imagefs.
  if (signal.startsWith("containerfs.")) return layout === "dedicated" ? "imagefs" : "nodefs";
  return undefined;
}

const RECLAIM: Record<FilesystemLayout, Record<DiskFamily, readonly ReclaimFunction[]>> = {
  single: { nodefs: ["containers", "images"], imagefs: ["containers", "images"] },
  // Upstream has no reclaim for nodefs when images and writable layers live on a dedicated imagefs.
  dedicated: { nodefs: [], imagefs: ["containers", "images"] },
  split: { nodefs: ["containers"], imagefs: ["images"] },
};

const RANK_FS: Record<FilesystemLayout, Record<DiskFamily, readonly FsStatsType[]>> = {
  single: {
    nodefs: ["images", "root", "logs", "localVolumes"],
    imagefs: ["images", "root", "logs", "localVolumes"],
  },
  dedicated: { nodefs: ["logs", "localVolumes"], imagefs: ["root", "images"] },
  split: { nodefs: ["logs", "localVolumes", "root"], imagefs: ["images"] },
};

/** Node-level reclaim functions for a signal, in order; empty for memory and PID signals. */
export function reclaimFunctionsFor(signal: Signal, layout: FilesystemLayout): readonly ReclaimFunction[] {
  const family = familyOf(signal, layout);
  return family === undefined ? [] : RECLAIM[layout][family];
}

/** Filesystem usages that rank pods for a disk signal; undefined for non-disk signals. */
export function rankFsStatsFor(signal: Signal, layout: FilesystemLayout): readonly FsStatsType[] | undefined {
  const family = familyOf(signal, layout);
  return family === undefined ? undefined : RANK_FS[layout][family];
}
