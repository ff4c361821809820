/**
 * Where a pod lives on nodefs: `<stateDir>/pods/<dir>/{status.json,logs,containers,volumes}`, where
 * `<dir>` is {@link podDirName} of its UID. This is the only pod layout: the stats collector is
 * handed these paths (`ProcessPodRuntime.statsTargets`) and computes none of its own.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";

/** UIDs as the API server makes them (UUIDs) fit a cgroup and directory name as they are. */
const SAFE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,59}$/;

/**
 * The directory (and pod cgroup) name of a pod: its UID when that is a safe name, otherwise a
 * readable prefix plus a hash, so any UID maps to one stable name that cannot escape the directory.
 */
export function podDirName(uid: string): string {
  if (SAFE.test(uid)) return uid;
  const readable = uid
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/^[-_]+/, "")
    .slice(0, 40);
  const hash = createHash("sha256").update(uid).digest("hex").slice(0, 16);
  return readable === "" ? hash : `${readable}-${hash}`;
}

/** Environment variable suffix of a volume: `cache-dir` → `CACHE_DIR`. */
export function volumeEnvName(volume: string): string {
  return `EVICTD_VOLUME_${volume.toUpperCase().replace(/[^A-Z0-9_]/g, "_")}`;
}

/** The paths of one pod. */
export class PodPaths {
  /** `<stateDir>/pods`. */
  readonly root: string;
  /** `<stateDir>/pods/<podDirName(uid)>`. */
  readonly dir: string;
  readonly name: string;

  constructor(stateDir: string, uid: string) {
    this.root = join(stateDir, "pods");
    this.name = podDirName(uid);
    this.dir = join(this.root, this.name);
  }

  get statusFile(): string {
    return join(this.dir, "status.json");
  }

  get logsDir(): string {
    return join(this.dir, "logs");
  }

  log(container: string): string {
    return join(this.dir, "logs", `${container}.log`);
  }

  /** The container's directory; its `rootfs` is the writable directory the command runs in. */
  containerDir(container: string): string {
    return join(this.dir, "containers", container);
  }

  rootfs(container: string): string {
    return join(this.dir, "containers", container, "rootfs");
  }

  volume(name: string): string {
    return join(this.dir, "volumes", name);
  }
}
