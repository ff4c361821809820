/**
 * The kubelet's memory figures read from its own cgroups, as its stats provider (cAdvisor over
 * runc's cgroup readers) computes them, the moment the loop asks:
 * - node: the root cgroup's usage − inactive_file. v1: `memory.usage_in_bytes` and
 *   `total_inactive_file`. v2: the root has no `memory.current`, so usage is `anon + file` of the
 *   root's `memory.stat` (runc's rootStatsFromMeminfo), minus its `inactive_file`. Available is
 *   the machine's memory (MemTotal) − working set. A nested node (not the root) is read like any
 *   cgroup, its limit standing for the machine's memory when it has one.
 * - kubepods (the Summary's `pods` container): usage − inactive_file, available = its limit −
 *   working set (no limit, no availableBytes: no allocatable signal, as upstream).
 * - each pod and container cgroup: usage − inactive_file.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type {
  MemoryStatsJson,
  NodeLocalMemory,
  NodeMemoryPort,
  PodMemory,
} from "../../app/cluster/node-memory-port.js";
import type { StatsScope } from "../../app/ports.js";
import { AdapterError } from "../../errors.js";
import { formatRfc3339Nano } from "../../core/time/rfc3339.js";
import { NanoClock } from "../node-stats/nano-clock.js";
import type { CgroupRef } from "../cgroups/cgroup-driver.js";
import {
  readUsage,
  readWorkingSet,
  type CgroupLocator,
  type KnownLimits,
  type ReadText,
  type WorkingSetReading,
} from "../node-stats/cgroup-stats-reader.js";
import { KernelFileReader } from "../node-stats/kernel-file-reader.js";
import { counter } from "../node-stats/summary-json.js";
import { parseMeminfo } from "../procfs.js";
import type { KubeletCgroupTree, KubeletPodCgroup } from "./kubelet-cgroup-tree.js";

/** The cgroup readers address cgroups through a driver; here a cgroup is its memory directory. */
function locator(api: "v1" | "v2"): CgroupLocator {
  return { api, directories: (ref) => ({ memory: ref.path, pids: undefined, unified: undefined }) };
}

const at = (dir: string): CgroupRef => ({ kind: "pod", path: dir });

function statLine(file: string, text: string, pattern: RegExp): bigint {
  const m = pattern.exec(text);
  if (m?.[1] === undefined)
    throw new AdapterError(
      "cgroup-parse",
      `cannot parse ${file}: no ${pattern.source.replace(/[\^$()\\d+ ]/g, "")} line`,
    );
  return BigInt(m[1]);
}

/** `MemoryStats`: availableBytes = limit − working set (clamped at 0) where there is a limit, as cAdvisor. */
function memoryStats(
  time: string,
  usage: bigint,
  workingSet: bigint,
  limit: bigint | undefined,
): MemoryStatsJson {
  const base = { time, usageBytes: counter(usage), workingSetBytes: counter(workingSet) };
  return limit === undefined
    ? base
    : { ...base, availableBytes: counter(limit > workingSet ? limit - workingSet : 0n) };
}

export interface KubeletMemoryReaderOptions {
  /** Where procfs is (default `/proc`): MemTotal, the machine's memory. */
  readonly procRoot?: string;
  readonly clock?: NanoClock;
}

export class KubeletMemoryReader implements NodeMemoryPort {
  readonly describe: string;
  readonly #tree: KubeletCgroupTree;
  readonly #files = new KernelFileReader();
  readonly #clock: NanoClock;
  readonly #memTotal: bigint;
  #pods = new Map<string, KubeletPodCgroup>();
  readonly #locate: CgroupLocator;
  readonly #read: ReadText;
  /** Limits are read on full reads and reused on memory wakes (they change only by hand). */
  #limits: KnownLimits = { byDir: new Map(), reuse: false };

  constructor(tree: KubeletCgroupTree, options: KubeletMemoryReaderOptions = {}) {
    this.#tree = tree;
    this.#locate = locator(tree.api);
    this.#read = (file) => this.#files.read(file);
    this.#clock = options.clock ?? new NanoClock();
    const meminfoPath = path.join(options.procRoot ?? "/proc", "meminfo");
    const meminfo = parseMeminfo(readFileSync(meminfoPath, "utf8"));
    if (meminfo === undefined)
      throw new AdapterError("procfs-parse", `cannot parse ${meminfoPath}: no MemTotal/MemFree lines`);
    this.#memTotal = meminfo.totalBytes;
    const { driver, cgroupRoot } = tree.options;
    this.describe = `the kubelet's cgroups (cgroup ${tree.api}, ${driver} driver, cgroupRoot ${JSON.stringify(cgroupRoot)}) at ${tree.kubepodsDir}`;
    this.#pods = tree.scan();
  }

  /** How many pod cgroups the last scan found. */
  get podCount(): number {
    return this.#pods.size;
  }

  read(scope: StatsScope, uids: readonly string[]): NodeLocalMemory {
    const full = scope === "all";
    if (full) this.#pods = this.#tree.scan();
    else if (uids.some((uid) => !this.#pods.has(uid))) this.#pods = this.#tree.scan(this.#pods);
    this.#limits = full ? { byDir: new Map(), reuse: false } : { byDir: this.#limits.byDir, reuse: true };
    const time = formatRfc3339Nano(this.#clock.nowNs());
    const api = this.#tree.api;
    const node = this.#tree.nodeIsRoot && api === "v2" ? this.#rootV2(time) : this.#nodeCgroup(time);
    const kubepods = readWorkingSet(this.#locate, at(this.#tree.kubepodsDir), this.#read, this.#limits);
    const pods = memoryStats(time, kubepods.usageBytes, kubepods.workingSetBytes, kubepods.limitBytes);
    const podsByUid = new Map<string, PodMemory>();
    for (const [uid, pod] of this.#pods) {
      const read = full ? this.#podInFull(pod, time) : this.#podUsage(pod, time);
      if (read !== undefined) podsByUid.set(uid, read);
      // Its cgroup is gone: forget it rather than fail to read it on every wake until housekeeping.
      else this.#pods.delete(uid);
    }
    if (full) this.#files.sweep();
    return { node, pods, podsByUid };
  }

  readPods(uids: readonly string[]): ReadonlyMap<string, PodMemory> {
    const time = formatRfc3339Nano(this.#clock.nowNs());
    const out = new Map<string, PodMemory>();
    for (const uid of uids) {
      const pod = this.#pods.get(uid);
      const read = pod === undefined ? undefined : this.#podInFull(pod, time);
      if (read !== undefined) out.set(uid, read);
    }
    return out;
  }

  close(): void {
    this.#files.close();
  }

  /** A pod's working set and its containers'; undefined when its cgroup just went. */
  #podInFull(pod: KubeletPodCgroup, time: string): PodMemory | undefined {
    let memory: MemoryStatsJson;
    try {
      const m = this.#cgroup(pod.dir);
      memory = memoryStats(time, m.usageBytes, m.workingSetBytes, undefined);
    } catch (error) {
      if (error instanceof AdapterError && error.code === "cgroup-not-found") return undefined;
      throw error;
    }
    const containersById = new Map<string, MemoryStatsJson>();
    for (const [id, dir] of pod.containers) {
      try {
        const m = this.#cgroup(dir);
        containersById.set(id, memoryStats(time, m.usageBytes, m.workingSetBytes, undefined));
      } catch (error) {
        if (!(error instanceof AdapterError && error.code === "cgroup-not-found")) throw error;
      }
    }
    return { memory, containersById };
  }

  /**
   * A pod's usage alone: on a memory wake, memory.stat (v1 sums it over the subtree) is the dearest
   * file of a read, and usage bounds the working set from above.
   */
  #podUsage(pod: KubeletPodCgroup, time: string): PodMemory | undefined {
    try {
      const usage = readUsage(this.#locate, at(pod.dir), this.#read);
      return { memory: { time, usageBytes: counter(usage) }, containersById: new Map() };
    } catch (error) {
      if (error instanceof AdapterError && error.code === "cgroup-not-found") return undefined;
      throw error;
    }
  }

  /** Usage and working set of a pod or container cgroup (its limit, unused, is read once). */
  #cgroup(dir: string): WorkingSetReading {
    return readWorkingSet(this.#locate, at(dir), this.#read, { byDir: this.#limits.byDir, reuse: true });
  }

  /** The node cgroup on v1 (the root has the usual files there) or a nested node. */
  #nodeCgroup(time: string): MemoryStatsJson {
    const m = readWorkingSet(this.#locate, at(this.#tree.nodeDir), this.#read, this.#limits);
    const limit = this.#tree.nodeIsRoot ? undefined : m.limitBytes;
    return memoryStats(time, m.usageBytes, m.workingSetBytes, limit ?? this.#memTotal);
  }

  /** The v2 root: anon + file of its memory.stat as usage (runc's rootStatsFromMeminfo). */
  #rootV2(time: string): MemoryStatsJson {
    const statPath = path.join(this.#tree.nodeDir, "memory.stat");
    const text = this.#files.read(statPath);
    const usage = statLine(statPath, text, /^anon (\d+)$/m) + statLine(statPath, text, /^file (\d+)$/m);
    const inactive = statLine(statPath, text, /^inactive_file (\d+)$/m);
    return memoryStats(time, usage, usage > inactive ? usage - inactive : 0n, this.#memTotal);
  }
}
