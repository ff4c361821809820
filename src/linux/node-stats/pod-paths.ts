/** Where a pod's files live under its directory, in the pod runtime's layout (`<stateDir>/pods/<uid>/...`). */
import { join } from "node:path";

/** The directory of pod `uid` on nodefs. */
export function podDir(stateDir: string, uid: string): string {
  return join(stateDir, "pods", uid);
}

/** The pod runtime's layout below one pod directory. */
export interface PodPaths {
  /** `logs/`: one `<container>.log` per container (rotated copies as `<container>.log.<n>`). */
  readonly logsDir: string;
  /** `volumes/<name>/`: emptyDir, configMap, secret, projected and downwardAPI contents. */
  volume(name: string): string;
  /** `containers/<name>/rootfs/`: the container's writable directory (its "writable layer"). */
  rootfs(container: string): string;
}

/** The paths of the pod whose directory is `dir`. */
export function podPaths(dir: string): PodPaths {
  return {
    logsDir: join(dir, "logs"),
    volume: (name) => join(dir, "volumes", name),
    rootfs: (container) => join(dir, "containers", container, "rootfs"),
  };
}

/** Whether `file` (a name in `logs/`) belongs to `container`: its live log or a rotated copy. */
export function isLogOf(file: string, container: string): boolean {
  const live = `${container}.log`;
  return file === live || file.startsWith(`${live}.`);
}
