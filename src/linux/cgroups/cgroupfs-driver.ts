/**
 * What the v1 and v2 drivers share: the node's lifecycle, tree walks, removal and teardown over
 * cgroupfs directories. One file because each of these is a template the two drivers fill in
 * (their abstract hooks) around the same node state and lock; what stands alone is in files of its
 * own (cgroup-layout, cgroup-files, dying-processes, wait-while-populated).
 */
import { join } from "node:path";
import type { QosClass } from "../../core/model.js";
import { AdapterError, errnoCode } from "../../errors.js";
import type {
  CgroupApi,
  CgroupDirectories,
  CgroupDriver,
  CgroupLimits,
  CgroupRef,
  ContainerCgroup,
  DestroyReport,
  MemoryReading,
  NodeCgroups,
  NodeSpec,
  PidsReading,
  PodCgroup,
  ProcsOptions,
} from "./cgroup-driver.js";
import { CgroupFiles, hostCgroupFs, type CgroupFs } from "./cgroup-files.js";
import { checkName, containerLayout, nodeLayout, podLayout, segmentsWithin } from "./cgroup-layout.js";
import { tryLockExclusive, type HeldLock } from "../file-lock.js";
import { readCmdline } from "../procfs.js";
import {
  DyingProcesses,
  describeDyingProcess,
  sampleProcess,
  type SampleProcess,
} from "./dying-processes.js";
import { waitWhilePopulated } from "./wait-while-populated.js";

/** The outside world a driver touches, injectable so fixture tests can stand in a fake kernel. */
export interface CgroupHost {
  /** Defaults to the real filesystem. */
  readonly fs?: CgroupFs;
  /** Defaults to `process.kill`. */
  readonly kill?: (pid: number, signal: "SIGKILL") => void;
  /** Defaults to a timer. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** The daemon's pid (default `process.pid`): never placed in, nor killed from, a node cgroup. */
  readonly selfPid?: number;
  /**
   * How a killed process is seen on its way out (default: `/proc/<pid>/stat` on the real
   * filesystem; nothing at all beside a fake one, where no process moves unless the fake says so).
   */
  readonly sampleProcess?: SampleProcess;
}

/** How long teardown sleeps between looks when no `cgroup.events` tells it the subtree emptied. */
const POLL_MS = 5;
/** How long teardown waits on `cgroup.events` before it looks again (for newcomers, and for progress). */
const LOOK_AGAIN_MS = 100;
const DEFAULT_TIMEOUT_MS = 5000;
/**
 * Teardown's last resort after the first SIGKILL, however short `timeoutMs` is: processes that keep
 * moving toward their end but never reach it (a kernel that keeps them running) must not hold it
 * forever; a slow machine's exits, however slow, end well within it.
 */
const DYING_AT_MOST_MS = 120_000;

/**
 * The shared half of both drivers. Subclasses say where a cgroup's directories are (one per
 * hierarchy on v1, one on v2), how to create one with limits, and how to read it.
 */
export abstract class CgroupfsDriver implements CgroupDriver {
  abstract readonly api: CgroupApi;
  abstract readonly hasPids: boolean;
  protected readonly files: CgroupFiles;
  protected readonly selfPid: number;
  readonly #kill: (pid: number, signal: "SIGKILL") => void;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #sampleProcess: SampleProcess;
  /** Whether `cgroup.events` can be watched (the real cgroupfs; a fixture's fake kernel never writes it). */
  readonly #watchable: boolean;
  #current: NodeCgroups | undefined;
  /** The flock on the node's directory ({@link NodeSpec.exclusive}). */
  #lock: HeldLock | undefined;
  /** Locks are taken on the real filesystem only (a fixture's fake kernel has no descriptors). */
  readonly #lockable: boolean;

  constructor(host: CgroupHost = {}) {
    this.#lockable = host.fs === undefined;
    this.files = new CgroupFiles(host.fs ?? hostCgroupFs);
    this.#kill = host.kill ?? ((pid, signal) => void process.kill(pid, signal));
    this.#sleep = host.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.selfPid = host.selfPid ?? process.pid;
    this.#watchable = host.fs === undefined;
    this.#sampleProcess = host.sampleProcess ?? (host.fs === undefined ? sampleProcess : () => undefined);
  }

  get current(): NodeCgroups | undefined {
    return this.#current;
  }

  /** The directories of a cgroup given as path segments below the own cgroup: one per hierarchy. */
  protected abstract dirsOf(segments: readonly string[]): string[];

  /**
   * Creates one cgroup in every hierarchy and writes its limits; `leaf` is false for cgroups that
   * will get children. On failure, removes what this call created (and only that).
   */
  protected abstract makeCgroup(
    segments: readonly string[],
    limits: CgroupLimits,
    leaf: boolean,
  ): Promise<void>;

  /**
   * The `cgroup.events` of a cgroup's directory in a cgroup2 hierarchy (v2, or a hybrid host's
   * unified mirror), whose `populated` says whether its subtree holds a process; undefined without one.
   */
  protected abstract eventsFile(segments: readonly string[]): string | undefined;

  /** Runs before the node's first directory is created (v2: move the daemon to a leaf, enable controllers). */
  protected abstract prepareNode(): Promise<void>;

  /** Runs after the node subtree is gone (v2: undo {@link prepareNode}). */
  protected abstract afterNodeRemoved(): Promise<void>;

  abstract directories(cgroup: CgroupRef): CgroupDirectories;
  abstract memory(cgroup: CgroupRef): Promise<MemoryReading>;
  abstract pids(cgroup: CgroupRef): Promise<PidsReading>;
  abstract oomKills(cgroup: CgroupRef): Promise<number>;

  async createNode(spec: NodeSpec): Promise<NodeCgroups> {
    if (this.#current !== undefined) {
      throw new AdapterError(
        "cgroup-busy",
        `node ${JSON.stringify(this.#current.name)} is already managed by this driver: cannot create ${JSON.stringify(spec.name)}`,
        {
          hint: "destroy the current node first",
        },
      );
    }
    const layout = nodeLayout(spec.name);
    this.checkLimits(spec.name, spec);
    this.checkLimits(`${spec.name}/pods`, spec.pods ?? {});
    if (spec.adopt === true) {
      const dirs = this.dirsOf([spec.name]);
      const present = await Promise.all(dirs.map((d) => this.files.exists(d)));
      // Locked before anything of it is touched: another daemon's node is neither adopted nor cleaned.
      if (spec.exclusive === true && present[0] === true) this.#lockNode(spec.name);
      if (present.every(Boolean)) {
        this.#current = layout;
        return { ...layout, adopted: true };
      }
      // Partly present (an interrupted teardown): start clean.
      if (present.some(Boolean)) await this.destroyNode({ name: spec.name });
    }
    for (const dir of this.dirsOf([spec.name])) {
      if (await this.files.exists(dir)) {
        throw new AdapterError(
          "cgroup-exists",
          `cannot create node cgroup ${dir}: it already exists (left over from an earlier run?)`,
          {
            hint: `tear it down with destroyNode({ name: ${JSON.stringify(spec.name)} }), or choose another name`,
          },
        );
      }
    }
    const steps: [CgroupRef, CgroupLimits][] = [
      [layout.node, spec],
      [layout.pods, spec.pods ?? {}],
      [layout.burstable, {}],
      [layout.besteffort, {}],
    ];
    try {
      await this.prepareNode();
      for (const [ref, limits] of steps) await this.makeCgroup(ref.path.split("/"), limits, false);
    } catch (error) {
      // Undo everything, including a half-done prepareNode (v2: the daemon moved, enabling failed).
      this.#unlock();
      await this.removeQuietly([spec.name]);
      await this.afterNodeRemoved().catch(() => undefined);
      throw error;
    }
    // Another daemon that created the same node at the same instant adopted it first: it is theirs.
    if (spec.exclusive === true && this.#lock === undefined) this.#lockNode(spec.name);
    this.#current = layout;
    return layout;
  }

  release(): void {
    this.#current = undefined;
    this.#unlock();
  }

  /** Takes the node's lock, or fails with `cgroup-locked` naming the process that holds it. */
  #lockNode(name: string): void {
    if (!this.#lockable || this.#lock !== undefined) return;
    const dir = this.dirsOf([name])[0];
    if (dir === undefined) return;
    let attempt;
    try {
      attempt = tryLockExclusive(dir, "directory");
    } catch (cause) {
      throw new AdapterError("cgroup-lock-failed", `cannot lock node cgroup ${dir}: ${String(cause)}`, {
        cause,
      });
    }
    if (attempt.held) {
      this.#lock = attempt.lock;
      return;
    }
    throw lockedError(dir, attempt.holderPid);
  }

  #unlock(): void {
    this.#lock?.release();
    this.#lock = undefined;
  }

  async createPod(uid: string, qos: QosClass, limits: CgroupLimits = {}): Promise<PodCgroup> {
    const pod = podLayout(this.requireNode(), uid, qos);
    this.checkLimits(pod.path, limits);
    await this.makeCgroup(pod.path.split("/"), limits, false);
    return pod;
  }

  async createContainer(pod: PodCgroup, name: string, limits: CgroupLimits = {}): Promise<ContainerCgroup> {
    this.within(pod, "pod");
    const container = containerLayout(pod, name);
    this.checkLimits(container.path, limits);
    await this.makeCgroup(container.path.split("/"), limits, true);
    return container;
  }

  async addProcess(cgroup: ContainerCgroup, pid: number): Promise<void> {
    if (!Number.isSafeInteger(pid) || pid <= 0) {
      throw new AdapterError(
        "cgroup-invalid-pid",
        `cannot move process ${pid} into ${cgroup.path}: not a process id`,
      );
    }
    if (pid === this.selfPid) {
      throw new AdapterError(
        "cgroup-invalid-pid",
        `refusing to move the daemon itself (pid ${pid}) into pod cgroup ${cgroup.path}`,
      );
    }
    for (const file of this.procFiles(cgroup)) await this.files.write(file, String(pid));
  }

  procFiles(cgroup: ContainerCgroup): string[] {
    return this.dirsOf(this.within(cgroup, "container")).map((dir) => join(dir, "cgroup.procs"));
  }

  async procs(cgroup: CgroupRef, options: ProcsOptions = {}): Promise<number[]> {
    return this.procsAt(this.within(cgroup), options.recursive ?? false);
  }

  async remove(cgroup: CgroupRef): Promise<void> {
    const segments = this.within(cgroup);
    const left = await this.procsAt(segments, true);
    if (left.length > 0) {
      throw new AdapterError(
        "cgroup-busy",
        `cannot remove cgroup ${cgroup.path}: processes ${left.join(", ")} are still in it`,
        {
          hint: "stop them first (destroyNode kills whatever is left)",
        },
      );
    }
    await this.removeTree(segments, Date.now() + DEFAULT_TIMEOUT_MS);
    if (segments.length === 1) {
      this.#current = undefined;
      this.#unlock();
      await this.afterNodeRemoved();
    }
  }

  async destroyNode(
    options: { readonly name?: string; readonly timeoutMs?: number } = {},
  ): Promise<DestroyReport> {
    const name = options.name ?? this.#current?.name;
    if (name === undefined) return { killed: [], removed: [] };
    checkName("node", name);
    // A leftover is torn down only when no live process manages it.
    let probe: HeldLock | undefined;
    if (this.#lockable && name !== this.#current?.name) {
      const dir = this.dirsOf([name])[0];
      if (dir !== undefined && dir !== this.#lock?.path && (await this.files.exists(dir))) {
        const attempt = tryLockExclusive(dir, "directory");
        if (!attempt.held) throw lockedError(dir, attempt.holderPid);
        probe = attempt.lock;
      }
    }
    try {
      return await this.#destroy(name, options.timeoutMs);
    } finally {
      probe?.release();
    }
  }

  /**
   * Kills the node's processes and waits until the kernel has taken every one of them out, then
   * removes its directories. The wait has no fixed length: an exit runs as fast as the machine
   * lets it. It ends in `cgroup-not-empty` only when nothing left has moved toward its end for
   * `timeoutMs` (see {@link DyingProcesses}), and in `cgroup-not-empty` too when processes still
   * join the node `timeoutMs` after the first SIGKILL (something keeps starting them).
   */
  async #destroy(name: string, timeoutMs: number | undefined): Promise<DestroyReport> {
    const patience = timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const segments = [name];
    const killed = new Set<number>();
    const dying = new DyingProcesses(this.#sampleProcess, Date.now());
    let firstKillAt: number | undefined;
    for (;;) {
      const left = await this.procsAt(segments, true, true);
      if (left.length === 0) break;
      if (left.includes(this.selfPid)) {
        throw new AdapterError(
          "cgroup-invalid-pid",
          `refusing to destroy node ${name}: the daemon itself (pid ${this.selfPid}) is inside it`,
        );
      }
      const now = Date.now();
      const newcomers = dying.look(left, now);
      if (newcomers.length > 0) {
        // Killed as soon as seen, also when teardown then gives up on them.
        await this.killAll(segments, newcomers);
        for (const pid of newcomers) killed.add(pid);
        if (firstKillAt !== undefined && now - firstKillAt > patience) {
          throw new AdapterError(
            "cgroup-not-empty",
            `node ${name} still gets new processes ${newcomers.map(describeDyingProcess).join(", ")} ${now - firstKillAt} ms after its processes were killed`,
            { hint: "something keeps starting processes in it: stop it (a restarting container) first" },
          );
        }
        firstKillAt ??= now;
      } else if (
        dying.stillFor(now) > patience ||
        (firstKillAt !== undefined && now - firstKillAt > Math.max(patience, DYING_AT_MOST_MS))
      ) {
        throw new AdapterError(
          "cgroup-not-empty",
          dying.stillFor(now) > patience
            ? `node ${name} still holds processes ${left.map(describeDyingProcess).join(", ")} after SIGKILL, none of them nearer its end for ${patience} ms`
            : `node ${name} still holds processes ${left.map(describeDyingProcess).join(", ")} ${now - (firstKillAt ?? now)} ms after SIGKILL`,
          {
            hint: "a process in uninterruptible sleep (state D) cannot die until its I/O completes",
          },
        );
      }
      await this.#untilExitsProgress(segments);
    }
    const removed = await this.removeTree(segments, Date.now() + patience, true);
    if (this.#current !== undefined && name === this.#current.name) {
      this.#current = undefined;
      this.#unlock();
      await this.afterNodeRemoved();
    }
    return { killed: [...killed].sort((a, b) => a - b), removed };
  }

  /**
   * Waits between two looks at a subtree being emptied: for the kernel's `populated 0` where a
   * cgroup2 directory says it (at most {@link LOOK_AGAIN_MS}), a short sleep otherwise.
   */
  async #untilExitsProgress(segments: readonly string[]): Promise<void> {
    const events = this.#watchable ? this.eventsFile(segments) : undefined;
    // Not populated and yet processes listed (a process in a v1 hierarchy only): sleep then.
    if (events === undefined || !(await waitWhilePopulated(events, LOOK_AGAIN_MS)))
      await this.#sleep(POLL_MS);
  }

  /** Sends SIGKILL to every listed process (v2 overrides this with `cgroup.kill`). */
  protected killAll(_segments: readonly string[], pids: readonly number[]): Promise<void> {
    for (const pid of pids) {
      try {
        this.#kill(pid, "SIGKILL");
      } catch (error) {
        // Already gone between listing and killing: that is the goal.
        if (errnoCode(error) !== "ESRCH")
          return Promise.reject(
            new AdapterError("cgroup-kill-failed", `cannot SIGKILL process ${pid}`, { cause: error }),
          );
      }
    }
    return Promise.resolve();
  }

  /** Checks a cgroup handle lies in the current node (and has the expected kind); returns its segments. */
  protected within(cgroup: CgroupRef, kind?: CgroupRef["kind"]): string[] {
    const segments = segmentsWithin(this.#current, cgroup);
    if (kind !== undefined && cgroup.kind !== kind) {
      throw new AdapterError(
        "cgroup-wrong-kind",
        `${cgroup.path} is a ${cgroup.kind} cgroup, not a ${kind} cgroup`,
      );
    }
    return segments;
  }

  /** Every directory of the subtree at `dir`, deepest first (the order rmdir needs). */
  protected async postOrder(dir: string): Promise<string[]> {
    const out: string[] = [];
    for (const child of (await this.files.subdirectories(dir)).sort())
      out.push(...(await this.postOrder(join(dir, child))));
    out.push(dir);
    return out;
  }

  /** Removes, deepest first, whatever this call created; errors are swallowed (used while failing anyway). */
  protected async removeCreated(created: readonly string[]): Promise<void> {
    for (const dir of [...created].reverse()) await this.files.rmdir(dir).catch(() => undefined);
  }

  private requireNode(): NodeCgroups {
    const node = this.#current;
    if (node === undefined)
      throw new AdapterError("cgroup-no-node", "no node cgroup exists", { hint: "call createNode first" });
    return node;
  }

  private checkLimits(path: string, limits: CgroupLimits): void {
    const { memoryLimitBytes, pidsMax } = limits;
    if (memoryLimitBytes !== undefined && memoryLimitBytes <= 0n) {
      throw new AdapterError(
        "cgroup-invalid-limit",
        `invalid memory limit ${memoryLimitBytes} for ${path}: must be positive`,
      );
    }
    if (pidsMax !== undefined && (!Number.isSafeInteger(pidsMax) || pidsMax < 0)) {
      throw new AdapterError(
        "cgroup-invalid-limit",
        `invalid pids limit ${pidsMax} for ${path}: must be a non-negative integer`,
      );
    }
    if (pidsMax !== undefined && !this.hasPids) {
      throw new AdapterError(
        "cgroup-controller-missing",
        `cannot limit ${path} to ${pidsMax} pids: the pids controller is not available`,
        {
          hint: "mount the pids controller (v1) or delegate it (v2), or run without pid limits",
        },
      );
    }
  }

  /** Pids in the cgroup (or subtree) in every hierarchy; `missingOk` treats an absent cgroup as empty (teardown). */
  private async procsAt(
    segments: readonly string[],
    recursive: boolean,
    missingOk = false,
  ): Promise<number[]> {
    const pids = new Set<number>();
    for (const root of this.dirsOf(segments)) {
      const dirs = recursive ? await this.postOrder(root) : [root];
      for (const dir of dirs) {
        try {
          for (const pid of await this.files.readPids(join(dir, "cgroup.procs"))) pids.add(pid);
        } catch (error) {
          // A child removed while walking is simply empty; the cgroup asked about must exist.
          if (!(
            error instanceof AdapterError &&
            error.code === "cgroup-not-found" &&
            (dir !== root || missingOk)
          ))
            throw error;
        }
      }
    }
    return [...pids].sort((a, b) => a - b);
  }

  /**
   * rmdir deepest first in every hierarchy. Right after its last process died the kernel may still
   * report a cgroup busy for a moment (it finishes the exit asynchronously), so EBUSY is retried
   * until `deadline`.
   */
  private async removeTree(
    segments: readonly string[],
    deadline: number,
    missingOk = false,
  ): Promise<string[]> {
    const removed: string[] = [];
    for (const root of this.dirsOf(segments)) {
      for (const dir of await this.postOrder(root)) {
        for (;;) {
          try {
            await this.files.rmdir(dir);
            removed.push(dir);
            break;
          } catch (error) {
            if (
              error instanceof AdapterError &&
              error.code === "cgroup-not-found" &&
              (dir !== root || missingOk)
            )
              break;
            if (!(error instanceof AdapterError && error.code === "cgroup-busy") || Date.now() > deadline)
              throw error;
            await this.#sleep(POLL_MS);
          }
        }
      }
    }
    return removed;
  }

  /** Best-effort removal of a subtree, used while failing anyway. */
  private async removeQuietly(segments: readonly string[]): Promise<void> {
    for (const root of this.dirsOf(segments)) {
      for (const dir of await this.postOrder(root).catch(() => [root]))
        await this.files.rmdir(dir).catch(() => undefined);
    }
  }
}

/** The refusal of a node that another live process manages. */
function lockedError(dir: string, holder: number | undefined): AdapterError {
  const who =
    holder === undefined
      ? "another process"
      : `process ${holder}${((c) => (c === undefined ? "" : ` (${c})`))(readCmdline(holder))}`;
  return new AdapterError("cgroup-locked", `node cgroup ${dir} is managed by ${who}`, {
    hint: "one evictd per node: stop that daemon first, or give this node file another name",
  });
}
