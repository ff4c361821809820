/**
 * A Kubernetes node's cgroups as the kubelet lays them out, built for real under this process's own
 * memory cgroup, with real processes in the container cgroups: what `watch --stats cgroups` reads on
 * a real node, without a kubelet. The layouts are written out here from the kubelet's and the
 * runtimes' conventions (not computed by evictd's own code, which is what is under test):
 *
 *   cgroupfs: <node>/kubepods/{pod<uid>, burstable/pod<uid>, besteffort/pod<uid>}/<container id>
 *   systemd:  <node>/kubepods.slice/kubepods-pod<uid_>.slice/cri-containerd-<id>.scope,
 *             <node>/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_>.slice/...
 *
 * The node cgroup has a memory limit (the "machine's" memory) and stands in for the root cgroup:
 * evictd is pointed at it with --node-cgroup. Works on cgroup v1 (the memory hierarchy) and v2
 * (the unified one; controllers handed down level by level, this process moved to a leaf first if
 * its own cgroup must pass controllers on).
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { locateOwnCgroups } from "../../src/linux/cgroups/detect-cgroups.js";
import { spawnInCgroups } from "../../src/linux/cgroups/spawn-in-cgroup.js";

export type KubeletDriver = "cgroupfs" | "systemd";
export type Qos = "Guaranteed" | "Burstable" | "BestEffort";

/** Why a kubelet-shaped node cannot be built here, or false when it can. */
export function kubeletNodeUnavailable(): string | false {
  if (process.platform !== "linux") return "not Linux";
  if (process.getuid?.() !== 0) return "needs root to make cgroups";
  const memory = locateOwnCgroups().memory;
  if (memory === undefined) return "no memory cgroup hierarchy mounted";
  if (memory.readOnly) return "the memory cgroup hierarchy is mounted read-only";
  return false;
}

/** A 64-hex-digit container id, as containerd makes them. */
export function containerId(): string {
  return randomBytes(32).toString("hex");
}

export interface KubeletPodSpec {
  readonly uid?: string;
  readonly qos: Qos;
  /**
   * The pod cgroup's memory limit: the kubelet writes the sum of its containers' limits there when
   * every container has one.
   */
  readonly limitBytes?: number;
  readonly containers: readonly {
    readonly id?: string;
    readonly argv: readonly string[];
    /** The container's memory limit, written as the kubelet's runtime writes it (memory.max / limit_in_bytes). */
    readonly limitBytes?: number;
    /** Environment beyond PATH (a container's `env`). */
    readonly env?: Readonly<Record<string, string>>;
    /** More `cgroup.procs` files the process starts in: its cgroups in other v1 hierarchies (cpu). */
    readonly alsoJoin?: readonly string[];
  }[];
}

export interface RunningPod {
  readonly uid: string;
  readonly dir: string;
  readonly containers: readonly { readonly id: string; readonly dir: string; readonly child: ChildProcess }[];
}

function write(file: string, value: string): void {
  writeFileSync(file, value);
}

export class KubeletNode {
  readonly api: "v1" | "v2";
  /** The memory hierarchy's mount (what `--cgroupfs` names: its parent on v1). */
  readonly cgroupfs: string;
  /** The node cgroup relative to the hierarchy root (`--node-cgroup`). */
  readonly nodeCgroup: string;
  /** The node cgroup's memory directory. */
  readonly nodeDir: string;
  readonly kubepodsDir: string;
  readonly driver: KubeletDriver;
  readonly #pods = new Map<string, RunningPod>();

  constructor(driver: KubeletDriver, capacityBytes: number) {
    const own = locateOwnCgroups().memory;
    if (own === undefined) throw new Error("no memory cgroup");
    this.api = own.api;
    this.driver = driver;
    this.cgroupfs = own.api === "v1" ? path.dirname(own.mount) : own.mount;
    const name = `evictd-kubelet-node-${process.pid}-${randomBytes(3).toString("hex")}`;
    this.nodeCgroup = path.posix.join(own.ownPath, name);
    this.nodeDir = path.join(own.mount, this.nodeCgroup);
    if (this.api === "v2") this.#handDownMemory(own.dir, true);
    mkdirSync(this.nodeDir);
    write(
      path.join(this.nodeDir, this.api === "v1" ? "memory.limit_in_bytes" : "memory.max"),
      String(capacityBytes),
    );
    this.kubepodsDir = this.#make(driver === "systemd" ? "kubepods.slice" : "kubepods");
    this.#make(this.#tierPath("burstable"));
    this.#make(this.#tierPath("besteffort"));
  }

  /** v2: lets `dir`'s children have memory files; a non-root cgroup holding processes moves them to a leaf first. */
  #handDownMemory(dir: string, mayHoldProcesses = false): void {
    if (this.api !== "v2") return;
    const control = path.join(dir, "cgroup.subtree_control");
    if (readFileSync(control, "utf8").split(/\s+/).includes("memory")) return;
    if (mayHoldProcesses && existsSync(path.join(dir, "cgroup.type")) && dir !== this.cgroupfs) {
      const procs = readFileSync(path.join(dir, "cgroup.procs"), "utf8")
        .split("\n")
        .filter((l) => l !== "");
      if (procs.length > 0) {
        const leaf = path.join(dir, "evictd-test-leaf");
        if (!existsSync(leaf)) mkdirSync(leaf);
        for (const pid of procs) {
          try {
            write(path.join(leaf, "cgroup.procs"), pid);
          } catch {
            // A process that exited meanwhile, or a kernel thread: nothing to move.
          }
        }
      }
    }
    write(control, "+memory");
  }

  /** mkdir of a path below the node (relative), handing memory down to it on v2; returns the directory. */
  #make(relative: string): string {
    const dir = path.join(this.nodeDir, relative);
    this.#handDownMemory(path.dirname(dir));
    mkdirSync(dir);
    return dir;
  }

  #tierPath(tier: "burstable" | "besteffort"): string {
    return this.driver === "systemd" ? `kubepods.slice/kubepods-${tier}.slice` : `kubepods/${tier}`;
  }

  #podPath(uid: string, qos: Qos): string {
    if (this.driver === "cgroupfs")
      return qos === "Guaranteed"
        ? `kubepods/pod${uid}`
        : `${this.#tierPath(qos === "Burstable" ? "burstable" : "besteffort")}/pod${uid}`;
    const escaped = uid.replaceAll("-", "_");
    if (qos === "Guaranteed") return `kubepods.slice/kubepods-pod${escaped}.slice`;
    const tier = qos === "Burstable" ? "burstable" : "besteffort";
    return `${this.#tierPath(tier)}/kubepods-${tier}-pod${escaped}.slice`;
  }

  /** Makes the pod's cgroups and starts one process per container in its container cgroup. */
  addPod(spec: KubeletPodSpec): RunningPod {
    const uid = spec.uid ?? randomUUID();
    const podPath = this.#podPath(uid, spec.qos);
    const dir = this.#make(podPath);
    if (spec.limitBytes !== undefined)
      write(
        path.join(dir, this.api === "v1" ? "memory.limit_in_bytes" : "memory.max"),
        String(spec.limitBytes),
      );
    const containers = spec.containers.map((c) => {
      const id = c.id ?? containerId();
      const leaf = this.driver === "systemd" ? `cri-containerd-${id}.scope` : id;
      const cdir = this.#make(path.join(podPath, leaf));
      if (c.limitBytes !== undefined)
        write(
          path.join(cdir, this.api === "v1" ? "memory.limit_in_bytes" : "memory.max"),
          String(c.limitBytes),
        );
      const child = spawnInCgroups(
        [...c.argv],
        { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...c.env },
        "/",
        [path.join(cdir, "cgroup.procs"), ...(c.alsoJoin ?? [])],
      );
      child.on("error", () => undefined);
      return { id, dir: cdir, child };
    });
    const pod: RunningPod = { uid, dir, containers };
    this.#pods.set(uid, pod);
    return pod;
  }

  /** Kills a pod's processes (as the kubelet stops its containers) and removes its cgroups once empty. */
  async removePod(uid: string, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    const pod = this.#pods.get(uid);
    if (pod === undefined) return;
    this.#pods.delete(uid);
    await Promise.all(
      pod.containers.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.child.exitCode !== null || c.child.signalCode !== null) return resolve();
            c.child.once("exit", () => resolve());
            c.child.kill(signal);
          }),
      ),
    );
    for (const c of pod.containers) rmdirWhenEmpty(c.dir);
    rmdirWhenEmpty(pod.dir);
  }

  /** Kernel OOM kills in the node so far (v1 memory.oom_control, v2 memory.events: `oom_kill`). */
  oomKills(): number {
    const file = path.join(this.nodeDir, this.api === "v1" ? "memory.oom_control" : "memory.events");
    return Number(/^oom_kill (\d+)$/m.exec(readFileSync(file, "utf8"))?.[1] ?? 0);
  }

  /**
   * Times the node's memory hit its limit so far (v1 memory.failcnt, v2 memory.events `max`): the
   * kernel refused a charge and had to reclaim; past that a workload that keeps faulting pages in
   * is OOM-killed (one that pre-faults with MAP_POPULATE just gets fewer pages than it asked for).
   */
  limitHits(): number {
    if (this.api === "v1") return Number(readFileSync(path.join(this.nodeDir, "memory.failcnt"), "utf8"));
    return Number(
      /^max (\d+)$/m.exec(readFileSync(path.join(this.nodeDir, "memory.events"), "utf8"))?.[1] ?? 0,
    );
  }

  /** Kills every pod and removes the whole tree. */
  async destroy(): Promise<void> {
    for (const uid of [...this.#pods.keys()]) await this.removePod(uid);
    const remove = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true }))
        if (e.isDirectory()) remove(path.join(dir, e.name));
      rmdirWhenEmpty(dir);
    };
    if (existsSync(this.nodeDir)) remove(this.nodeDir);
  }
}

/** rmdir, retried briefly: a cgroup whose last process just exited may still count it for a moment. */
function rmdirWhenEmpty(dir: string): void {
  for (let i = 0; i < 50; i++) {
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY") throw error;
      const until = Date.now() + 20;
      while (Date.now() < until) {
        // A short busy wait: teardown is synchronous and rare.
      }
    }
  }
  rmdirSync(dir);
}
