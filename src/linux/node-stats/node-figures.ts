/**
 * The node's own figures for the stats collector, read fresh on every collection:
 *
 * - `node.memory`: with cgroups, the node cgroup, exactly as the kubelet derives it from the root
 *   cgroup: working set = usage − inactive_file, available = limit − working set (clamped at 0),
 *   limit = the node cgroup's limit (the node's memory capacity). Without cgroups, /proc/meminfo:
 *   working set = MemTotal − MemAvailable (the kernel's own estimate of what cannot be reclaimed
 *   cheaply; usage − Inactive(file) on kernels before 3.14), available = MemAvailable, usage =
 *   MemTotal − MemFree. Without a node cgroup nothing caps the node below the machine, so the
 *   machine's memory is what runs out, and `capacity.memory` bounds only the pods' budget.
 * - `systemContainers[pods]`: the pods (allocatable) cgroup the same way, its limit being
 *   capacity − reservations. Without cgroups: the pods' resident memory added up, against
 *   `podsMemoryLimitBytes`.
 * - `rlimit`: with a `capacity.pids` the node's PID budget is its cgroup: maxpid = capacity.pids,
 *   curproc = the node cgroup's `pids.current` (or, without a pids controller or cgroups, the pods'
 *   process counts added up). Otherwise upstream's host view: maxpid = min(pid_max, threads-max),
 *   curproc = the task total from /proc/loadavg.
 *
 * Also the node's memory three ways for /status ({@link NodeFigures.memoryViews}), and the base page
 * size the pods' statm figures are counted in. Failures throw `AdapterError`.
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";
import type { NodeSpec } from "../../core/node/node-spec.js";
import { formatRfc3339Nano } from "../../core/time/rfc3339.js";
import { AdapterError, errnoCode } from "../../errors.js";
import { parseKernelInteger, parseKernelPageSize, parseLoadavg, parseMeminfo } from "../procfs.js";
import { readPidsCurrent, readWorkingSet, type KnownLimits, type ReadText } from "./cgroup-stats-reader.js";
import type { CollectorCgroups } from "./collector-cgroups.js";
import { readNodeMemoryViews } from "./node-memory-views-reader.js";
import { counter, memoryJson, type MemoryJson, type RlimitJson } from "./summary-json.js";
import type { NsClock } from "./usage-cache.js";

export interface NodeFiguresOptions {
  readonly node: Pick<NodeSpec, "capacity" | "podsMemoryLimitBytes">;
  /** The node's cgroups; absent when running without cgroups. */
  readonly cgroups: CollectorCgroups | undefined;
  /** Where procfs is mounted. */
  readonly procRoot: string;
  readonly clock: NsClock;
  /** Reads a cgroup or procfs file (the collector's kept-open descriptors). */
  readonly read: ReadText;
  /** The memory limits the collector's read reuses or reads again (shared with the pods' reads). */
  readonly limits: KnownLimits;
  /** Base page size for statm; read from `<procRoot>/self/smaps` when absent. */
  readonly pageSize?: number | undefined;
}

/** What the node's figures take of the pods' own: their working sets and task counts. */
export interface PodTotals {
  readonly workingSetBytes: bigint;
  readonly processCount: bigint | undefined;
}

/** Reads the node's memory, the pods cgroup's memory and the node's PID budget. */
export class NodeFigures {
  readonly #node: NodeFiguresOptions["node"];
  readonly #cgroups: CollectorCgroups | undefined;
  readonly #procRoot: string;
  readonly #clock: NsClock;
  readonly #read: ReadText;
  readonly #limits: KnownLimits;
  #pageSize: number | undefined;

  constructor(options: NodeFiguresOptions) {
    this.#node = options.node;
    this.#cgroups = options.cgroups;
    this.#procRoot = options.procRoot;
    this.#clock = options.clock;
    this.#read = options.read;
    this.#limits = options.limits;
    this.#pageSize = options.pageSize;
  }

  /** `node.memory`, read now. */
  nodeMemory(): MemoryJson {
    if (this.#cgroups !== undefined) {
      const r = readWorkingSet(this.#cgroups.driver, this.#cgroups.node.node, this.#read, this.#limits);
      return memoryJson(
        this.#time(),
        r.usageBytes,
        r.workingSetBytes,
        r.limitBytes ?? this.#node.capacity.memoryBytes,
      );
    }
    const info = parseMeminfo(this.#readProc("meminfo"));
    if (info === undefined)
      throw new AdapterError("stats-proc-unreadable", `cannot parse ${this.#procRoot}/meminfo`);
    const usage = info.totalBytes - info.freeBytes;
    const workingSet =
      info.availableBytes !== undefined
        ? clampSub(info.totalBytes, info.availableBytes)
        : clampSub(usage, info.inactiveFileBytes ?? 0n);
    return memoryJson(this.#time(), usage, workingSet, info.totalBytes);
  }

  /** The `pods` system container's memory, read now (without cgroups, `pods`' working sets added up). */
  podsMemory(pods: readonly PodTotals[]): MemoryJson {
    if (this.#cgroups !== undefined) {
      const r = readWorkingSet(this.#cgroups.driver, this.#cgroups.node.pods, this.#read, this.#limits);
      return memoryJson(
        this.#time(),
        r.usageBytes,
        r.workingSetBytes,
        r.limitBytes ?? this.#node.podsMemoryLimitBytes,
      );
    }
    const ws = pods.reduce((sum, l) => sum + l.workingSetBytes, 0n);
    return memoryJson(this.#time(), ws, ws, this.#node.podsMemoryLimitBytes);
  }

  /** `node.rlimit`, read now (`pods`' task counts added up where no cgroup counts them). */
  rlimit(pods: readonly PodTotals[]): RlimitJson {
    const budget = this.#node.capacity.pids;
    if (budget !== undefined) {
      const cgroups = this.#cgroups;
      const current =
        cgroups !== undefined && cgroups.driver.hasPids
          ? readPidsCurrent(cgroups.driver, cgroups.node.node, this.#read)
          : undefined;
      const curproc =
        current !== undefined ? BigInt(current) : pods.reduce((sum, l) => sum + (l.processCount ?? 0n), 0n);
      return { time: this.#time(), maxpid: counter(budget), curproc: counter(curproc) };
    }
    const pidMax = parseKernelInteger(this.#readProc("sys/kernel/pid_max"));
    const threadsMax = parseKernelInteger(this.#readProc("sys/kernel/threads-max"));
    const load = parseLoadavg(this.#readProc("loadavg"));
    if (pidMax === undefined || threadsMax === undefined || load === undefined) {
      throw new AdapterError(
        "stats-proc-unreadable",
        `cannot parse ${this.#procRoot}/sys/kernel/{pid_max,threads-max} or loadavg`,
      );
    }
    return { time: this.#time(), maxpid: Math.min(pidMax, threadsMax), curproc: load.total };
  }

  /**
   * The node's memory three ways, read now, for /status (node-memory-views-reader.ts): the kubelet's
   * formula on the node cgroup (what `memory.available` is), /proc/meminfo's MemAvailable, and the
   * working set with the node cgroup's kernel memory. The node is a cgroup of its own, not the
   * machine, so its `memory.current` (v1 `memory.usage_in_bytes`) already counts the kernel memory
   * charged to it: the third view equals the kubelet's and says how much of it is kernel memory
   * (`memory.stat`'s `kernel + sock`, v1 kmem). Undefined without cgroups (the signal is then
   * MemAvailable itself, and there is no cgroup to say what kernel memory is) and when the files
   * cannot be read.
   */
  memoryViews(): NodeMemoryViewsReading | undefined {
    const cgroups = this.#cgroups;
    if (cgroups === undefined) return undefined;
    try {
      return readNodeMemoryViews(
        {
          api: cgroups.driver.api,
          dir: cgroups.driver.directories(cgroups.node.node).memory,
          isRoot: false,
          capacityBytes: this.#node.capacity.memoryBytes,
          describe: "evictd's node cgroup",
        },
        { procRoot: this.#procRoot, now: () => Number(this.#clock.nowNs()) / 1e6 },
      );
    } catch (error) {
      if (error instanceof AdapterError) return undefined;
      throw error;
    }
  }

  /** The base page size, from the first mapping in /proc/self/smaps (read once; 4 KiB if unreadable). */
  pageSize(): number {
    if (this.#pageSize !== undefined) return this.#pageSize;
    let size: number | undefined;
    try {
      // The first mapping's lines are enough; the whole file can be hundreds of KiB.
      const fd = openSync(`${this.#procRoot}/self/smaps`, "r");
      try {
        const buffer = Buffer.alloc(8192);
        const n = readSync(fd, buffer, 0, buffer.length, 0);
        size = parseKernelPageSize(buffer.subarray(0, n).toString("utf8"));
      } finally {
        closeSync(fd);
      }
    } catch {
      size = undefined;
    }
    // 4 KiB is the base page on x86-64 and the default on arm64.
    this.#pageSize = size ?? 4096;
    return this.#pageSize;
  }

  #time(): string {
    return formatRfc3339Nano(this.#clock.nowNs());
  }

  /**
   * A node-wide procfs file (meminfo, loadavg, the PID limits), through a kept-open descriptor like
   * the cgroup files: read on every step, where opening and reading each file anew was a
   * noticeable part of a memory wake's read on a node without a PID capacity (docs/benchmarks.md,
   * "Figures behind design choices").
   */
  #readProc(relative: string): string {
    const path = `${this.#procRoot}/${relative}`;
    try {
      return this.#read(path);
    } catch (error) {
      const failure = error instanceof AdapterError ? error : undefined;
      if (failure?.code === "cgroup-not-found")
        throw new AdapterError("stats-proc-unreadable", `cannot read ${path}: no such file`, {
          hint: "is procfs mounted?",
        });
      const cause: unknown = failure?.cause ?? error;
      throw new AdapterError(
        "stats-proc-unreadable",
        `cannot read ${path}: ${errnoCode(cause) ?? String(cause)}`,
        {
          cause,
        },
      );
    }
  }
}

function clampSub(a: bigint, b: bigint): bigint {
  return a > b ? a - b : 0n;
}
