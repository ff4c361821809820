/**
 * emptyDir volumes as directories under the pod's state directory; `medium: Memory` ones are tmpfs
 * mounts sized from sizeLimit and the pod's memory limit, unmounted when the pod is removed.
 */
import { execFile } from "node:child_process";
import { mkdir, realpath, rm } from "node:fs/promises";
import type { Pod, Volume } from "../core/model.js";
import { quantityValue } from "../core/quantity.js";
import { AdapterError } from "../errors.js";
import { readOwnMounts } from "../linux/procfs.js";
import type { PodPaths } from "./pod-paths.js";

/** tmpfs size when neither sizeLimit nor a pod memory limit says otherwise. */
export const DEFAULT_TMPFS_BYTES = 64n * 1024n * 1024n;

/** Mounting, as a port: tests and unprivileged runs can stand in something else. */
export interface Mounter {
  mountTmpfs(dir: string, sizeBytes: bigint): Promise<void>;
  unmount(dir: string): Promise<void>;
  isMountPoint(dir: string): Promise<boolean>;
}

function run(file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 10_000 }, (error, _stdout, stderr) => {
      if (error === null) resolve();
      else
        reject(
          new AdapterError("mount-failed", `${file} ${args.join(" ")}: ${stderr.trim() || error.message}`, {
            cause: error,
          }),
        );
    });
  });
}

/** mount(8) and umount(8), and /proc/self/mountinfo. */
export const systemMounter: Mounter = {
  async mountTmpfs(dir, sizeBytes) {
    await run("mount", ["-t", "tmpfs", "-o", `size=${sizeBytes},mode=1777,nosuid,nodev`, "tmpfs", dir]);
  },
  async unmount(dir) {
    try {
      await run("umount", [dir]);
    } catch {
      // Busy (a process kept a file open): detach now, the kernel frees it when released.
      await run("umount", ["-l", dir]);
    }
  },
  async isMountPoint(dir) {
    const real = await realpath(dir).catch(() => dir);
    return (await readOwnMounts()).some((m) => m.mountPoint === real);
  },
};

/** A volume as set up. */
export interface VolumeSetup {
  readonly name: string;
  readonly dir: string;
  /** Bytes of the tmpfs, when memory-backed and mounted. */
  readonly tmpfsBytes?: bigint;
}

/**
 * Size of a memory-backed emptyDir: the smaller of sizeLimit and the pod's memory limit (upstream,
 * since SizeMemoryBackedVolumes), either alone when only one is known, else 64 MiB.
 */
export function tmpfsSizeBytes(volume: Volume, podMemoryLimitBytes: bigint | undefined): bigint {
  const limit = volume.sizeLimit === undefined ? undefined : quantityValue(volume.sizeLimit);
  const candidates = [limit, podMemoryLimitBytes].filter((b): b is bigint => b !== undefined && b > 0n);
  if (candidates.length === 0) return DEFAULT_TMPFS_BYTES;
  return candidates.reduce((a, b) => (a < b ? a : b));
}

/**
 * Creates every emptyDir of the pod (mounting tmpfs for medium Memory unless already mounted, as
 * after a daemon restart). Other volume kinds have no source here and are reported in `skipped`.
 * `canMount` false makes memory-backed volumes plain directories (reported in `warnings`).
 */
export async function setUpVolumes(
  pod: Pod,
  paths: PodPaths,
  podMemoryLimitBytes: bigint | undefined,
  mounter: Mounter,
  canMount: boolean,
): Promise<{ volumes: VolumeSetup[]; skipped: string[]; warnings: string[] }> {
  const volumes: VolumeSetup[] = [];
  const skipped: string[] = [];
  const warnings: string[] = [];
  for (const volume of pod.volumes) {
    if (volume.kind !== "emptyDir") {
      skipped.push(`${volume.name} (${volume.kind})`);
      continue;
    }
    const dir = paths.volume(volume.name);
    await mkdir(dir, { recursive: true, mode: 0o777 });
    if (volume.medium !== "Memory") {
      volumes.push({ name: volume.name, dir });
      continue;
    }
    const size = tmpfsSizeBytes(volume, podMemoryLimitBytes);
    if (!canMount) {
      warnings.push(`volume ${volume.name}: cannot mount tmpfs here; it is a plain directory on nodefs`);
      volumes.push({ name: volume.name, dir });
      continue;
    }
    if (!(await mounter.isMountPoint(dir))) await mounter.mountTmpfs(dir, size);
    volumes.push({ name: volume.name, dir, tmpfsBytes: size });
  }
  return { volumes, skipped, warnings };
}

/**
 * Unmounts and deletes every emptyDir of the pod, as the kubelet's volume manager tears down the
 * volumes of a terminated pod (the disk they used is freed here, not by container GC).
 */
export async function tearDownVolumes(pod: Pod, paths: PodPaths, mounter: Mounter): Promise<void> {
  for (const volume of pod.volumes) {
    if (volume.kind !== "emptyDir") continue;
    const dir = paths.volume(volume.name);
    // Unmount every layer (a crashed earlier run may have mounted twice).
    for (let i = 0; i < 4 && (await mounter.isMountPoint(dir).catch(() => false)); i++)
      await mounter.unmount(dir);
    if (await mounter.isMountPoint(dir).catch(() => false))
      throw new AdapterError(
        "unmount-failed",
        `volume ${volume.name} of pod ${pod.key} is still mounted at ${dir}`,
      );
    await rm(dir, { recursive: true, force: true });
  }
}
