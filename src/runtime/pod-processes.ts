/**
 * Finding and signalling a pod's processes: its cgroup subtree when it runs in cgroups, otherwise
 * each container's process group; plus each container's main process itself, which is briefly
 * outside its cgroup while the spawn shim joins it. Zombies and the daemon never count.
 */
import type { ClockPort } from "../app/ports.js";
import { AdapterError } from "../errors.js";
import type { CgroupDriver, CgroupRef } from "../linux/cgroups/cgroup-driver.js";
import { containerLayout } from "../linux/cgroups/cgroup-layout.js";
import type { ContainerRecord, PodRecord, StuckProcess } from "./pod-record.js";
import { readProcStat, readProcStatNow } from "../linux/procfs.js";
import { cgroupProcsNow } from "../linux/cgroups/cgroup-procs-now.js";
import { isSameProcessAlive, processGroupMembers, signalQuietly } from "./proc-processes.js";

/** Codes meaning "that cgroup is not there (any more)": it holds no process. */
const GONE = new Set(["cgroup-not-found", "cgroup-no-node", "cgroup-outside-node"]);
const POLL_MS = 25;

export class PodProcesses {
  readonly #cgroups: CgroupDriver | undefined;
  readonly #clock: ClockPort;

  constructor(cgroups: CgroupDriver | undefined, clock: ClockPort) {
    this.#cgroups = cgroups;
    this.#clock = clock;
  }

  /**
   * Live processes of the whole pod, read synchronously ({@link podPidsNow}); or undefined without
   * cgroups, where finding a process group means scanning /proc (use {@link ofPod}).
   */
  ofPodNow(record: PodRecord): number[] | undefined {
    const target = this.signalTarget(record);
    return target === undefined ? undefined : podPidsNow(target);
  }

  /** Where the pod's processes are, for {@link podPidsNow} (in cgroups only; undefined otherwise). */
  signalTarget(record: PodRecord): PodSignalTarget | undefined {
    const driver = this.#cgroups;
    if (driver === undefined || record.cgroup === undefined) return undefined;
    const mains: { pid: number; startTicks?: number }[] = [];
    for (const c of record.containers)
      if (c.pid !== undefined)
        mains.push({ pid: c.pid, ...(c.startTicks !== undefined ? { startTicks: c.startTicks } : {}) });
    return { uid: record.pod.uid, cgroupDir: driver.directories(record.cgroup).memory, mains };
  }

  /** Live processes of the whole pod, ascending. */
  async ofPod(record: PodRecord): Promise<number[]> {
    const pids = new Set<number>();
    for (const c of record.containers) for (const pid of await this.ofContainer(record, c)) pids.add(pid);
    if (record.cgroup !== undefined)
      for (const pid of await this.#cgroupProcs(record.cgroup, true)) pids.add(pid);
    return live([...pids]);
  }

  /** Live processes of one container, ascending. */
  async ofContainer(record: PodRecord, c: ContainerRecord): Promise<number[]> {
    const pids = new Set<number>();
    if (c.pid !== undefined && (await isSameProcessAlive(c.pid, c.startTicks))) pids.add(c.pid);
    if (this.#cgroups !== undefined) {
      const cgroup =
        c.cgroup ?? (record.cgroup === undefined ? undefined : containerLayout(record.cgroup, c.spec.name));
      if (cgroup !== undefined) for (const pid of await this.#cgroupProcs(cgroup, false)) pids.add(pid);
    } else if (c.pid !== undefined) {
      for (const member of await processGroupMembers(new Set([c.pid]))) pids.add(member.pid);
    }
    return live([...pids]);
  }

  /** Sends `signal` to each pid and, without cgroups, to the process group of each of `containers`. */
  signal(containers: readonly ContainerRecord[], pids: readonly number[], signal: NodeJS.Signals): void {
    for (const pid of pids) if (pid > 1 && pid !== process.pid) signalQuietly(pid, signal);
    if (this.#cgroups !== undefined) return;
    for (const c of containers) if (c.pid !== undefined && c.pid > 1) signalQuietly(-c.pid, signal);
  }

  /**
   * Waits until the pod has no process or `kill.deadline` passes (re-read each round: a second
   * kill may shorten it), then SIGKILLs what is left, again each round, for up to `killTimeoutMs`.
   * Returns the processes still present then, with their /proc state (`D` = uninterruptible sleep).
   */
  async waitGone(
    record: PodRecord,
    kill: { readonly deadline: number },
    killTimeoutMs: number,
  ): Promise<StuckProcess[]> {
    for (;;) {
      if ((await this.ofPod(record)).length === 0) return [];
      const remaining = kill.deadline - this.#clock.now();
      if (remaining <= 0) break;
      await this.#clock.sleep(Math.min(POLL_MS, remaining));
    }
    const killBy = this.#clock.now() + killTimeoutMs;
    for (;;) {
      const pids = await this.ofPod(record);
      if (pids.length === 0) return [];
      this.signal(record.containers, pids, "SIGKILL");
      if (this.#clock.now() >= killBy) {
        const stuck: StuckProcess[] = [];
        for (const pid of pids) {
          const stat = await readProcStat(pid);
          if (stat !== undefined && stat.state !== "Z") stuck.push({ pid, state: stat.state });
        }
        return stuck;
      }
      await this.#clock.sleep(POLL_MS);
    }
  }

  async #cgroupProcs(cgroup: CgroupRef, recursive: boolean): Promise<number[]> {
    if (this.#cgroups === undefined) return [];
    try {
      return await this.#cgroups.procs(cgroup, { recursive });
    } catch (error) {
      if (error instanceof AdapterError && GONE.has(error.code)) return [];
      throw error;
    }
  }
}

/**
 * Where a pod's processes are, as data another thread can use to signal them without the runtime:
 * the pod cgroup's directory (its subtree holds every process of the pod) and each container's main
 * process, which is briefly outside its cgroup while the spawn shim joins it. `startTicks` (the
 * process's start time) tells the same process from a reused pid.
 */
export interface PodSignalTarget {
  readonly uid: string;
  readonly cgroupDir: string;
  readonly mains: readonly { readonly pid: number; readonly startTicks?: number }[];
}

/**
 * Live processes of a pod in cgroups, read synchronously from its cgroup subtree (a pod's subtree is
 * the pod and its containers: a few small kernel files) and each container's main process. This is
 * what a kill signals first: no thread-pool round trip, so SIGTERM leaves within a millisecond of
 * the decision even while the pool is busy with directory walks. Ascending, zombies and this
 * process left out.
 */
export function podPidsNow(target: PodSignalTarget): number[] {
  const pids = new Set<number>();
  for (const main of target.mains) {
    const stat = readProcStatNow(main.pid);
    if (stat !== undefined && (main.startTicks === undefined || stat.startTimeTicks === main.startTicks))
      pids.add(main.pid);
  }
  for (const pid of cgroupProcsNow(target.cgroupDir)) pids.add(pid);
  const out: number[] = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    const stat = readProcStatNow(pid);
    if (stat !== undefined && stat.state !== "Z" && stat.state !== "X") out.push(pid);
  }
  return out.sort((a, b) => a - b);
}

/** The pids that are alive and not zombies (a zombie holds no memory and cannot be killed again). */
async function live(pids: readonly number[]): Promise<number[]> {
  const out: number[] = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    const stat = await readProcStat(pid);
    if (stat !== undefined && stat.state !== "Z" && stat.state !== "X") out.push(pid);
  }
  return out.sort((a, b) => a - b);
}
