/**
 * The cpu side of a kubelet-shaped node (kubelet-node.ts builds the memory side): on cgroup v1, a
 * tree in the cpu hierarchy with the same layout and the `cpu.shares` the kubelet and its runtime
 * write, so that pods started in it compete for CPU as on a node. The shares, from the kubelet's
 * conventions (MilliCPUToShares: millicores × 1024 / 1000, at least 2):
 *
 *   kubepods              the node's allocatable CPU
 *   burstable tier        the sum of the Burstable pods' CPU requests
 *   besteffort tier       2
 *   pod                   the sum of its containers' requests (a BestEffort pod: 2)
 *   container             its request (none: 2)
 *
 * Only the pods given to `addPod` are placed here (the others' processes stay in this process's cpu
 * cgroup). CPU limits (CFS quota) are not written, so Guaranteed pods, which have one, are not taken.
 * On cgroup v2 (cpu.weight in the unified tree) there is no tree: {@link kubeletCpuTreeUnavailable}
 * says so.
 */
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseMountinfo } from "../../src/linux/procfs.js";
import type { KubeletDriver, Qos } from "./kubelet-node.js";

const MIN_SHARES = 2;
const MAX_SHARES = 262_144;

/** The kubelet's MilliCPUToShares. */
export function milliCpuToShares(milliCpu: number): number {
  if (milliCpu <= 0) return MIN_SHARES;
  return Math.min(MAX_SHARES, Math.max(MIN_SHARES, Math.floor((milliCpu * 1024) / 1000)));
}

/** This process's cgroup in the v1 cpu hierarchy: the mount and the directory, or why there is none. */
function ownCpuCgroup(): { mount: string; dir: string } | string {
  const line = readFileSync("/proc/self/cgroup", "utf8")
    .split("\n")
    .map((l) => /^(\d+):([^:]*):(.*)$/.exec(l))
    .find((m) => m !== null && m[1] !== "0" && m[2]?.split(",").includes("cpu") === true);
  const mount = parseMountinfo(readFileSync("/proc/self/mountinfo", "utf8")).find(
    (m) => m.fsType === "cgroup" && m.superOptions.includes("cpu"),
  );
  if (line === undefined || line === null || mount === undefined)
    return "no cgroup v1 cpu hierarchy is mounted (cgroup v2 only, or no cpu controller)";
  if (mount.readOnly) return `the cpu hierarchy at ${mount.mountPoint} is mounted read-only`;
  const own = line[3] ?? "/";
  let relative: string;
  if (mount.root === "/") relative = own;
  else if (own === mount.root) relative = "/";
  else if (own.startsWith(`${mount.root}/`)) relative = own.slice(mount.root.length);
  else return `this process's cpu cgroup ${own} is outside the part mounted at ${mount.mountPoint}`;
  return { mount: mount.mountPoint, dir: path.join(mount.mountPoint, relative) };
}

/** Why the cpu tree cannot be built here, or false when it can. */
export function kubeletCpuTreeUnavailable(): string | false {
  if (process.platform !== "linux") return "not Linux";
  if (process.getuid?.() !== 0) return "needs root to make cgroups";
  const own = ownCpuCgroup();
  return typeof own === "string" ? own : false;
}

export interface CpuTreeSpec {
  readonly driver: KubeletDriver;
  /** The node's allocatable CPU, millicores (kubepods' shares). */
  readonly allocatableMilliCpu: number;
  /** The sum of the CPU requests of the node's Burstable pods, millicores (the burstable tier's shares). */
  readonly burstableMilliCpu: number;
}

export class KubeletCpuTree {
  /** The node's directory in the cpu hierarchy (the stand-in for its root, as on the memory side). */
  readonly nodeDir: string;
  readonly driver: KubeletDriver;
  readonly #pods = new Map<string, { readonly dir: string; readonly containers: readonly string[] }>();

  constructor(name: string, spec: CpuTreeSpec) {
    const own = ownCpuCgroup();
    if (typeof own === "string") throw new Error(`cannot build the node's cpu cgroups: ${own}`);
    this.driver = spec.driver;
    this.nodeDir = path.join(own.dir, name);
    mkdirSync(this.nodeDir);
    const systemd = spec.driver === "systemd";
    this.#make(systemd ? "kubepods.slice" : "kubepods", milliCpuToShares(spec.allocatableMilliCpu));
    this.#make(this.#tierPath("burstable"), milliCpuToShares(spec.burstableMilliCpu));
    this.#make(this.#tierPath("besteffort"), MIN_SHARES);
  }

  #make(relative: string, shares: number): string {
    const dir = path.join(this.nodeDir, relative);
    mkdirSync(dir);
    writeFileSync(path.join(dir, "cpu.shares"), String(shares));
    return dir;
  }

  #tierPath(tier: "burstable" | "besteffort"): string {
    return this.driver === "systemd" ? `kubepods.slice/kubepods-${tier}.slice` : `kubepods/${tier}`;
  }

  /** The pod cgroup's path below the node, as kubelet-node.ts lays it out on the memory side. */
  podPath(uid: string, qos: Qos): string {
    if (this.driver === "cgroupfs")
      return qos === "Guaranteed"
        ? `kubepods/pod${uid}`
        : `${this.#tierPath(qos === "Burstable" ? "burstable" : "besteffort")}/pod${uid}`;
    const escaped = uid.replaceAll("-", "_");
    if (qos === "Guaranteed") return `kubepods.slice/kubepods-pod${escaped}.slice`;
    const tier = qos === "Burstable" ? "burstable" : "besteffort";
    return `${this.#tierPath(tier)}/kubepods-${tier}-pod${escaped}.slice`;
  }

  /**
   * Makes a pod's cpu cgroup and its containers', with their shares; returns each container's
   * `cgroup.procs` (for `alsoJoin` in kubelet-node.ts, so the process starts in it).
   */
  addPod(
    uid: string,
    qos: Exclude<Qos, "Guaranteed">,
    containers: readonly { readonly id: string; readonly requestMilliCpu?: number }[],
  ): string[] {
    const podPath = this.podPath(uid, qos);
    const requested = containers.reduce((n, c) => n + (c.requestMilliCpu ?? 0), 0);
    const dir = this.#make(podPath, qos === "BestEffort" ? MIN_SHARES : milliCpuToShares(requested));
    const dirs = containers.map((c) => {
      const leaf = this.driver === "systemd" ? `cri-containerd-${c.id}.scope` : c.id;
      return this.#make(path.join(podPath, leaf), milliCpuToShares(c.requestMilliCpu ?? 0));
    });
    this.#pods.set(uid, { dir, containers: dirs });
    return dirs.map((d) => path.join(d, "cgroup.procs"));
  }

  /** Removes a pod's cpu cgroups; its processes must have exited (kubelet-node.ts's removePod). */
  removePod(uid: string): void {
    const pod = this.#pods.get(uid);
    if (pod === undefined) return;
    this.#pods.delete(uid);
    for (const dir of pod.containers) rmdirRetried(dir);
    rmdirRetried(pod.dir);
  }

  /** Removes the whole tree; its processes must have exited (kubelet-node.ts stops them). */
  destroy(): void {
    const remove = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true }))
        if (e.isDirectory()) remove(path.join(dir, e.name));
      rmdirRetried(dir);
    };
    try {
      remove(this.nodeDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}

/** rmdir, retried briefly: a cgroup whose last process just exited may still count it for a moment. */
function rmdirRetried(dir: string): void {
  for (let i = 0; ; i++) {
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY" || i >= 50) throw error;
      const until = Date.now() + 20;
      while (Date.now() < until) {
        // A short busy wait: teardown is synchronous and rare.
      }
    }
  }
}
