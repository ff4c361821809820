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
 *
 * Beside them, when asked (`/status`, `explain`), the node's memory three ways: the kubelet's
 * formula, the kernel's MemAvailable and a working set with kernel memory in it
 * (node-stats/node-memory-views-reader.ts), evictd's additions that no decision uses.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type {
  MemoryStatsJson,
  NodeLocalMemory,
  NodeMemoryPort,
  NodeMemoryReadOptions,
  PodMemory,
} from "../../app/cluster/node-memory-port.js";
import type { StatsScope } from "../../app/ports.js";
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";
import { AdapterError } from "../../errors.js";
import { formatRfc3339Nano } from "../../core/time/rfc3339.js";
import { NanoClock } from "../node-stats/nano-clock.js";
import type { CgroupRef } from "../cgroups/cgroup-driver.js";
import {
  countsDescendants,
  readUsage,
  readWorkingSet,
  type CgroupLocator,
  type KnownLimits,
  type ReadText,
  type WorkingSetReading,
} from "../node-stats/cgroup-stats-reader.js";
import { KernelFileReader } from "../node-stats/kernel-file-reader.js";
import { readNodeMemoryViews } from "../node-stats/node-memory-views-reader.js";
import { MIN_PODS_READ, readLargestFirst } from "../node-stats/partial-usage-read.js";
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
  readonly #procRoot: string;
  #pods = new Map<string, KubeletPodCgroup>();
  readonly #locate: CgroupLocator;
  readonly #read: ReadText;
  /** Limits are read on full reads and reused on memory wakes (they change only by hand). */
  #limits: KnownLimits = { byDir: new Map(), reuse: false };
  /** Each pod's usage as last read (in full or alone), by UID: the order a memory wake reads pods in. */
  readonly #lastUsage = new Map<string, bigint>();
  /** Whether kubepods' usage counts its pods' (v1: `use_hierarchy`), checked once; unknown until then. */
  #kubepodsCountsPods: boolean | undefined;

  constructor(tree: KubeletCgroupTree, options: KubeletMemoryReaderOptions = {}) {
    this.#tree = tree;
    this.#locate = locator(tree.api);
    this.#read = (file) => this.#files.read(file);
    this.#clock = options.clock ?? new NanoClock();
    this.#procRoot = options.procRoot ?? "/proc";
    const meminfoPath = path.join(this.#procRoot, "meminfo");
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

  read(scope: StatsScope, uids: readonly string[], options: NodeMemoryReadOptions = {}): NodeLocalMemory {
    // Housekeeping (`node`) reads as `all` does, as the kubelet's own housekeeping reads every cgroup:
    // a pod's working set is what /status ranks and shows, and read by usage alone at every interval
    // it was never read after start. Only a memory wake, on its way to a kill, stays lean.
    const full = scope !== "memory";
    if (full) {
      this.#pods = this.#tree.scan();
      for (const uid of this.#lastUsage.keys()) if (!this.#pods.has(uid)) this.#lastUsage.delete(uid);
    } else if (uids.some((uid) => !this.#pods.has(uid))) this.#pods = this.#tree.scan(this.#pods);
    this.#limits = full ? { byDir: new Map(), reuse: false } : { byDir: this.#limits.byDir, reuse: true };
    const time = formatRfc3339Nano(this.#clock.nowNs());
    const api = this.#tree.api;
    const node = this.#tree.nodeIsRoot && api === "v2" ? this.#rootV2(time) : this.#nodeCgroup(time);
    const podsByUid = new Map<string, PodMemory>();
    const readPod = (uid: string, pod: KubeletPodCgroup): bigint | undefined => {
      const read = full ? this.#podInFull(pod, time) : this.#podUsage(pod, time);
      if (read !== undefined) podsByUid.set(uid, read);
      else {
        // Its cgroup is gone: forget it rather than fail to read it on every wake until housekeeping.
        this.#pods.delete(uid);
        this.#lastUsage.delete(uid);
      }
      return read === undefined ? undefined : BigInt(read.memory.usageBytes);
    };
    const left = full ? undefined : this.#readLargestPods(readPod, options.mayStayUnread);
    if (left === undefined) for (const [uid, pod] of [...this.#pods]) readPod(uid, pod);
    // Kubepods after the pods: a pod that grows meanwhile raises the bound on those left unread,
    // never lowers it below what they use.
    const kubepods = readWorkingSet(this.#locate, at(this.#tree.kubepodsDir), this.#read, this.#limits);
    const pods = memoryStats(time, kubepods.usageBytes, kubepods.workingSetBytes, kubepods.limitBytes);
    if (full) this.#files.sweep();
    if (left === undefined || left.length === 0) return { node, pods, podsByUid };
    let readBytes = 0n;
    for (const read of podsByUid.values()) readBytes += BigInt(read.memory.usageBytes);
    const bound = kubepods.usageBytes > readBytes ? kubepods.usageBytes - readBytes : 0n;
    return { node, pods, podsByUid, unread: { uids: new Set(left), usageBoundBytes: bound } };
  }

  /**
   * A memory wake's pod reads on a node of more than a few pods, as the node daemon's collector
   * makes them (partial-usage-read.ts): pods in `mayStayUnread` by last usage, largest first, the
   * others first of all, through `readPod` until kubepods' usage less the usage read bounds the
   * rest. The UIDs left unread, or undefined when every pod must be read (a small node, kubepods'
   * usage not counting its pods', or unreadable).
   */
  #readLargestPods(
    readPod: (uid: string, pod: KubeletPodCgroup) => bigint | undefined,
    mayStayUnread: ReadonlySet<string> | undefined,
  ): string[] | undefined {
    if (mayStayUnread === undefined || this.#pods.size <= MIN_PODS_READ) return undefined;
    const kubepods = at(this.#tree.kubepodsDir);
    this.#kubepodsCountsPods ??= this.#tolerate(() => countsDescendants(this.#locate, kubepods, this.#read));
    if (this.#kubepodsCountsPods !== true) return undefined;
    const podsUsage = this.#tolerate(() => readUsage(this.#locate, kubepods, this.#read));
    if (podsUsage === undefined) return undefined;
    const pods = [...this.#pods];
    const last = pods.map(([uid]) => (mayStayUnread.has(uid) ? this.#lastUsage.get(uid) : undefined));
    const left = readLargestFirst(last, podsUsage, (i) => {
      const [uid, pod] = pods[i] as [string, KubeletPodCgroup];
      return readPod(uid, pod);
    });
    return left.map((i) => (pods[i] as [string, KubeletPodCgroup])[0]);
  }

  /** `f()`, or undefined when the file it reads cannot be read or parsed (the caller then reads every pod). */
  #tolerate<T>(f: () => T): T | undefined {
    try {
      return f();
    } catch (error) {
      if (error instanceof AdapterError) return undefined;
      throw error;
    }
  }

  readPods(uids: readonly string[]): ReadonlyMap<string, PodMemory> {
    return this.#readEach(uids, (pod, time) => this.#podInFull(pod, time));
  }

  readUsages(uids: readonly string[]): ReadonlyMap<string, PodMemory> {
    return this.#readEach(uids, (pod, time) => this.#podUsage(pod, time));
  }

  /** The named pods read by `read`, all stamped with one time; unknown pods and gone cgroups left out. */
  #readEach(
    uids: readonly string[],
    read: (pod: KubeletPodCgroup, time: string) => PodMemory | undefined,
  ): ReadonlyMap<string, PodMemory> {
    const time = formatRfc3339Nano(this.#clock.nowNs());
    const out = new Map<string, PodMemory>();
    for (const uid of uids) {
      const pod = this.#pods.get(uid);
      const figures = pod === undefined ? undefined : read(pod, time);
      if (figures !== undefined) out.set(uid, figures);
    }
    return out;
  }

  /**
   * The node's memory three ways, read now (see node-memory-views-reader.ts); undefined when its
   * files cannot be read: an addition is left out, it never fails the page that shows it.
   */
  readNodeMemoryViews(): NodeMemoryViewsReading | undefined {
    try {
      return readNodeMemoryViews(
        {
          api: this.#tree.api,
          dir: this.#tree.nodeDir,
          isRoot: this.#tree.nodeIsRoot,
          describe: this.#tree.nodeIsRoot ? "the root cgroup" : "the node cgroup",
        },
        { procRoot: this.#procRoot, now: () => this.#clock.nowMs() },
      );
    } catch (error) {
      if (error instanceof AdapterError) return undefined;
      throw error;
    }
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
      this.#lastUsage.set(pod.uid, m.usageBytes);
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
      this.#lastUsage.set(pod.uid, usage);
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
