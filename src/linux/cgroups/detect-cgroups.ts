/** Finds the daemon's own cgroups (v1, v2 or hybrid) from /proc/self/cgroup and /proc/self/mountinfo, and says whether it can manage them. */
import { constants, readFileSync } from "node:fs";
import { access } from "node:fs/promises";
import { posix } from "node:path";
import { parseMountinfo, type MountInfo } from "../procfs.js";

/** The host's cgroup setup: v1 controllers only, the unified hierarchy only, both, or nothing mounted. */
export type CgroupVersion = "v1" | "v2" | "hybrid" | "none";

/** A controller's hierarchy as mounted, and where the daemon sits in it. */
export interface OwnCgroup {
  /** Which interface this hierarchy speaks. */
  readonly api: "v1" | "v2";
  /** Mount point, e.g. `/sys/fs/cgroup/memory`. */
  readonly mount: string;
  /** The daemon's cgroup relative to the mount, e.g. `/system.slice/evictd.service` (`/` at the mount). */
  readonly ownPath: string;
  /** `mount` + `ownPath`: the directory the node subtree is created in. */
  readonly dir: string;
  readonly readOnly: boolean;
}

/** Whether cgroups can be managed here; when not, a plain sentence why. */
export type ManageVerdict =
  | {
      readonly ok: true;
      readonly api: "v1" | "v2";
      /** What works only partly (no pids controller...), one sentence each. */
      readonly limitations: readonly string[];
    }
  | { readonly ok: false; readonly reason: string };

export interface CgroupDetection {
  readonly version: CgroupVersion;
  readonly memory: OwnCgroup | undefined;
  readonly pids: OwnCgroup | undefined;
  /** The daemon's place in the cgroup2 hierarchy, when one is mounted (on hybrid hosts, for PSI files). */
  readonly unified: OwnCgroup | undefined;
  readonly canManage: ManageVerdict;
}

/** What detection reads, as strings so tests can pass fixtures. */
export interface DetectionInput {
  /** Contents of /proc/self/cgroup. */
  readonly procSelfCgroup: string;
  /** Contents of /proc/self/mountinfo. */
  readonly mountinfo: string;
  readonly euid: number;
  /** Contents of `cgroup.controllers` of the own cgroup2 directory (see {@link unifiedOwnDir}), when there is one. */
  readonly unifiedControllers?: string;
  /** Whether this process may write in a directory; without it, only root is assumed to. */
  readonly writable?: (dir: string) => boolean;
}

/** The cgroup and cgroup2 mounts of a mountinfo file. */
function cgroupMounts(mountinfo: string): MountInfo[] {
  return parseMountinfo(mountinfo).filter((m) => m.fsType === "cgroup" || m.fsType === "cgroup2");
}

/** /proc/self/cgroup: `hierarchy-id:controller,list:path`; the v2 line is `0::path`. */
function parseProcCgroup(text: string): { v1: Map<string, string>; v2: string | undefined } {
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  for (const line of text.split("\n")) {
    const first = line.indexOf(":");
    const second = line.indexOf(":", first + 1);
    if (first < 0 || second < 0) continue;
    const controllers = line.slice(first + 1, second);
    const path = line.slice(second + 1).replace(/ \(deleted\)$/, "");
    if (line.slice(0, first) === "0" && controllers === "") v2 = path;
    else for (const c of controllers.split(",")) if (c !== "") v1.set(c, path);
  }
  return { v1, v2 };
}

/**
 * The daemon's directory in a mount: its cgroup path is relative to the cgroup namespace root,
 * and the mount may expose only a subtree (`root` in mountinfo, as inside containers without a
 * cgroup namespace), so the mount root is stripped as runc's libcontainer does.
 */
function locate(mount: MountInfo, path: string, api: "v1" | "v2"): OwnCgroup | string {
  let ownPath: string;
  if (mount.root === "/") ownPath = path;
  else if (path === mount.root) ownPath = "/";
  else if (path.startsWith(`${mount.root}/`)) ownPath = path.slice(mount.root.length);
  else
    return `this process's cgroup ${path} is outside the part of the hierarchy mounted at ${mount.mountPoint} (${mount.root})`;
  const dir = ownPath === "/" ? mount.mountPoint : posix.join(mount.mountPoint, ownPath);
  return { api, mount: mount.mountPoint, ownPath, dir, readOnly: mount.readOnly };
}

/** Where the own cgroup2 directory is (whose `cgroup.controllers` {@link detectCgroups} wants), if any. */
export function unifiedOwnDir(procSelfCgroup: string, mountinfo: string): string | undefined {
  const own = parseProcCgroup(procSelfCgroup).v2;
  const mount = cgroupMounts(mountinfo).find((m) => m.fsType === "cgroup2");
  if (own === undefined || mount === undefined) return undefined;
  const located = locate(mount, own, "v2");
  return typeof located === "string" ? undefined : located.dir;
}

/** Locates the memory and pids controllers (v1 hierarchy first, else the unified one) and decides whether they can be managed. */
export function detectCgroups(input: DetectionInput): CgroupDetection {
  const mounts = cgroupMounts(input.mountinfo);
  const own = parseProcCgroup(input.procSelfCgroup);
  const hasV1 = mounts.some((m) => m.fsType === "cgroup");
  const v2Mount = mounts.find((m) => m.fsType === "cgroup2");
  const version: CgroupVersion = hasV1
    ? v2Mount !== undefined
      ? "hybrid"
      : "v1"
    : v2Mount !== undefined
      ? "v2"
      : "none";
  const problems: string[] = [];

  let unified: OwnCgroup | undefined;
  if (v2Mount !== undefined && own.v2 !== undefined) {
    const located = locate(v2Mount, own.v2, "v2");
    if (typeof located === "string") problems.push(located);
    else unified = located;
  }
  const unifiedControllers = (input.unifiedControllers ?? "").split(/\s+/).filter((c) => c !== "");

  const find = (controller: string): OwnCgroup | undefined => {
    const mount = mounts.find((m) => m.fsType === "cgroup" && m.superOptions.includes(controller));
    const path = own.v1.get(controller);
    if (mount !== undefined && path !== undefined) {
      const located = locate(mount, path, "v1");
      if (typeof located !== "string") return located;
      problems.push(located);
      return undefined;
    }
    return unified !== undefined && unifiedControllers.includes(controller) ? unified : undefined;
  };
  const memory = find("memory");
  const pids = find("pids");
  return { version, memory, pids, unified, canManage: verdict(input, version, memory, pids, problems) };
}

function verdict(
  input: DetectionInput,
  version: CgroupVersion,
  memory: OwnCgroup | undefined,
  pids: OwnCgroup | undefined,
  problems: readonly string[],
): ManageVerdict {
  if (version === "none")
    return {
      ok: false,
      reason: "no cgroup filesystem is mounted (nothing of type cgroup or cgroup2 in /proc/self/mountinfo)",
    };
  if (memory === undefined) {
    const why =
      problems[0] ??
      (version === "v2"
        ? `the memory controller is not delegated to this process's cgroup (its cgroup.controllers lists: ${input.unifiedControllers?.trim() || "nothing"})`
        : "the memory controller is not mounted");
    return { ok: false, reason: `cannot manage cgroups: ${why}` };
  }
  if (memory.readOnly)
    return {
      ok: false,
      reason: `cannot manage cgroups: ${memory.mount} is mounted read-only (as in most containers)`,
    };
  const writable = input.writable !== undefined ? input.writable(memory.dir) : input.euid === 0;
  if (!writable) {
    return {
      ok: false,
      reason: `cannot manage cgroups: ${memory.dir} is not writable by this process (euid ${input.euid}); run as root or delegate the cgroup`,
    };
  }
  const limitations: string[] = [];
  if (pids === undefined)
    limitations.push("the pids controller is not available: no pid limits and no per-pod pid readings");
  else if (pids.api !== memory.api)
    limitations.push(
      `the pids controller is on the ${pids.api} hierarchy while memory is on ${memory.api}: pid limits are not used`,
    );
  else if (pids.readOnly) limitations.push(`${pids.mount} is mounted read-only: pid limits are not used`);
  if (memory.api === "v2")
    limitations.push(
      "cgroup v2 has no memory threshold notification (cgroup.event_control): memory is observed by polling and PSI",
    );
  return { ok: true, api: memory.api, limitations };
}

function readOr(file: string, fallback: string | undefined): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return fallback;
  }
}

/**
 * What detection reads on this host: /proc/self/cgroup, /proc/self/mountinfo and the own cgroup2
 * `cgroup.controllers`. Synchronously, because all three are generated from kernel memory and
 * never wait for a disk, and so that test setup can ask at module load.
 */
function readOwnDetectionInput(): DetectionInput {
  const procSelfCgroup = readOr("/proc/self/cgroup", "") ?? "";
  const mountinfo = readOr("/proc/self/mountinfo", "") ?? "";
  const unifiedDir = unifiedOwnDir(procSelfCgroup, mountinfo);
  const unifiedControllers =
    unifiedDir === undefined ? undefined : readOr(posix.join(unifiedDir, "cgroup.controllers"), undefined);
  return {
    procSelfCgroup,
    mountinfo,
    euid: process.geteuid?.() ?? -1,
    ...(unifiedControllers === undefined ? {} : { unifiedControllers }),
  };
}

/**
 * Which cgroups this process is in on this host (memory, pids, the cgroup2 directory), without
 * probing whether it may write there (the verdict assumes only root may). For callers that need
 * the answer synchronously, such as test suites deciding at load time whether they can run.
 */
export function locateOwnCgroups(): CgroupDetection {
  return detectCgroups(readOwnDetectionInput());
}

/** Detection on this host, with the verdict based on whether the memory cgroup directory is actually writable. */
export async function detectOwnCgroups(): Promise<CgroupDetection> {
  const input = readOwnDetectionInput();
  // Writability is probed up front so the verdict is synchronous and pure over its inputs.
  const probe = detectCgroups(input).memory?.dir;
  const writableDir =
    probe === undefined
      ? false
      : await access(probe, constants.W_OK).then(
          () => true,
          () => false,
        );
  return detectCgroups({ ...input, writable: (dir) => dir === probe && writableDir });
}
