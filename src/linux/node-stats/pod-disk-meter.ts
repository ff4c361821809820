/** A pod's disk use, as the kubelet's stats provider reports it: each container's rootfs and logs, each volume, and their ephemeral-storage sum. */
import { basename, dirname } from "node:path";
import type { VolumeKind } from "../../core/model.js";
import type { ActivePodInfo, ActiveVolumeInfo } from "./active-pod-info.js";
import { measureDirectory, type DirectoryUsage } from "./directory-usage.js";
import { isMountPoint, statFilesystem, type FilesystemStats } from "./filesystem-stats.js";
import { isLogOf, measureLogs, type LogUsage } from "./log-usage.js";
import { UsageCache, type NsClock } from "./usage-cache.js";

/** Bytes and inodes of one thing, and when they were measured (epoch ns). */
export interface Usage {
  readonly bytes: bigint;
  readonly inodes: bigint;
  readonly atNs: bigint;
}

/** A volume's usage; `ownFs` when it is a filesystem of its own (a tmpfs), whose figures describe it. */
export interface VolumeUsage extends Usage {
  readonly ownFs?: FilesystemStats;
}

export interface PodDisk {
  /** Container → its writable directory; absent when the directory does not exist. */
  readonly rootfs: ReadonlyMap<string, Usage>;
  /** Container → its log files (zero when it has none yet). */
  readonly logs: ReadonlyMap<string, Usage>;
  /** Volume → usage, for the volumes that have metrics and a directory. */
  readonly volumes: ReadonlyMap<string, VolumeUsage>;
  /** rootfs + logs + ephemeral volumes, stamped with the newest of their times. */
  readonly ephemeral: Usage;
}

/** Volume kinds whose contents live in a directory and are measured (hostPath has no metrics upstream either). */
const MEASURED: ReadonlySet<VolumeKind> = new Set([
  "emptyDir",
  "configMap",
  "secret",
  "projected",
  "downwardAPI",
  "gitRepo",
]);

/**
 * Volumes upstream counts in `ephemeral-storage` (`isVolumeEphemeral` in the kubelet's stats
 * provider): disk-medium emptyDir, configMap and gitRepo. Memory-backed volumes use RAM, not disk.
 */
export function isEphemeralVolume(v: ActiveVolumeInfo): boolean {
  if (v.kind === "emptyDir") return v.medium === undefined || v.medium === "";
  return v.kind === "configMap" || v.kind === "gitRepo";
}

/**
 * Measures pods' directories, reusing a walk for `ttlMs` (disk use moves slower than memory and a
 * walk costs I/O). A pod never measured is walked on its first request, whatever the TTL. Directories are walked du-style (see `measureDirectory`); a Memory-medium
 * emptyDir that the pod runtime mounted as a tmpfs reports its tmpfs's statfs instead, which is
 * exact and free (the walk, staying on one filesystem, would not enter it anyway).
 *
 * `ephemeral-storage` sums what the kubelet's CRI stats provider sums (`calcEphemeralStorage`):
 * every container's rootfs and logs, bytes and inodes, and the ephemeral volumes.
 */
export class PodDiskMeter {
  readonly #clock: NsClock;
  readonly #maxEntries: number;
  readonly #dirs: UsageCache<DirectoryUsage | undefined>;
  readonly #logs: UsageCache<LogUsage>;

  constructor(ttlMs: number, clock: NsClock, maxEntries: number) {
    this.#clock = clock;
    this.#maxEntries = maxEntries;
    this.#dirs = new UsageCache(ttlMs, clock);
    this.#logs = new UsageCache(ttlMs, clock);
  }

  async measure(pod: ActivePodInfo): Promise<PodDisk> {
    // Containers' logs usually share one directory: each directory is listed once.
    const logDirs = [...new Set(pod.containers.map((c) => dirname(c.logFile)))];
    const [logs, rootfs, volumes] = await Promise.all([
      Promise.all(logDirs.map((dir) => this.#logs.get(dir, () => measureLogs(dir)))),
      Promise.all(pod.containers.map((c) => this.#walk(c.rootfsDir))),
      Promise.all(pod.volumes.map((v) => this.#volume(v))),
    ]);
    const logsByDir = new Map(logDirs.map((dir, i) => [dir, logs[i]]));
    const sum = { bytes: 0n, inodes: 0n, atNs: logs[0]?.atNs ?? this.#clock.nowNs() };
    const add = (u: Usage): void => {
      sum.bytes += u.bytes;
      sum.inodes += u.inodes;
      if (u.atNs > sum.atNs) sum.atNs = u.atNs;
    };

    const rootfsOut = new Map<string, Usage>();
    const logsOut = new Map<string, Usage>();
    pod.containers.forEach((c, i) => {
      const root = rootfs[i];
      if (root !== undefined) {
        rootfsOut.set(c.name, root);
        add(root);
      }
      let bytes = 0n;
      let inodes = 0n;
      const dirLogs = logsByDir.get(dirname(c.logFile));
      const live = basename(c.logFile);
      for (const [file, usage] of dirLogs?.value ?? []) {
        if (!isLogOf(file, live)) continue;
        bytes += usage.bytes;
        inodes += usage.inodes;
      }
      const log = { bytes, inodes, atNs: dirLogs?.atNs ?? sum.atNs };
      logsOut.set(c.name, log);
      add(log);
    });
    const volumesOut = new Map<string, VolumeUsage>();
    pod.volumes.forEach((v, i) => {
      const usage = volumes[i];
      if (usage === undefined) return;
      volumesOut.set(v.name, usage);
      if (isEphemeralVolume(v)) add(usage);
    });
    return { rootfs: rootfsOut, logs: logsOut, volumes: volumesOut, ephemeral: sum };
  }

  /** How long a walk is reused from now on (each walk keeps the time it was made at). */
  set ttlMs(ms: number) {
    this.#dirs.ttlMs = ms;
    this.#logs.ttlMs = ms;
  }

  get ttlMs(): number {
    return this.#dirs.ttlMs;
  }

  /** Forgets directories nobody asked about for a while (pods that went away). */
  sweep(): void {
    const idle = Math.max(10 * this.#dirs.ttlMs, 10_000);
    this.#dirs.sweep(idle);
    this.#logs.sweep(idle);
  }

  async #walk(dir: string): Promise<Usage | undefined> {
    const timed = await this.#dirs.get(dir, () => measureDirectory(dir, { maxEntries: this.#maxEntries }));
    if (timed.value === undefined) return undefined;
    return { bytes: timed.value.bytes, inodes: timed.value.inodes, atNs: timed.atNs };
  }

  async #volume(v: ActiveVolumeInfo): Promise<VolumeUsage | undefined> {
    if (!MEASURED.has(v.kind)) return undefined;
    const dir = v.dir;
    if (v.kind === "emptyDir" && v.medium === "Memory" && (await isMountPoint(dir)) === true) {
      const ownFs = await statFilesystem(dir).catch(() => undefined); // unmounted meanwhile: the pod is going
      if (ownFs === undefined) return undefined;
      return { bytes: ownFs.usedBytes, inodes: ownFs.inodesUsed, atNs: this.#clock.nowNs(), ownFs };
    }
    return this.#walk(dir);
  }
}
