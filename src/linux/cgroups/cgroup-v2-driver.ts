/** cgroup v2: one unified hierarchy; controllers are enabled top-down and processes live only in leaves. */
import { join } from "node:path";
import { AdapterError, errnoCode } from "../../errors.js";
import type {
  CgroupDirectories,
  CgroupLimits,
  CgroupRef,
  MemoryReading,
  PidsReading,
} from "./cgroup-driver.js";
import { counter } from "./cgroup-files.js";
import { DAEMON_LEAF } from "./cgroup-layout.js";
import { CgroupfsDriver, type CgroupHost } from "./cgroupfs-driver.js";
import { readPidsController } from "./read-pids-controller.js";

/** Where the daemon's own cgroup is, and which controllers to manage. */
export interface CgroupV2Options {
  /** The daemon's own cgroup directory, e.g. `/sys/fs/cgroup/system.slice/evictd.service`. */
  readonly dir: string;
  /** Whether to manage pids too (it must be listed in `<dir>/cgroup.controllers`); default true. */
  readonly pids?: boolean;
}

/**
 * Driver for cgroup v2.
 *
 * The "no internal processes" rule: a non-root cgroup that distributes a controller to its children
 * (lists it in `cgroup.subtree_control`) may hold no processes itself. To enable memory and pids
 * for the node below its own cgroup, the driver therefore first moves every process of the own
 * cgroup (the daemon, and anything else in its delegated unit) to the leaf `<own>/evictd-daemon`,
 * then writes `+memory +pids` to `<own>/cgroup.subtree_control`. The same write goes to every inner
 * cgroup it creates (node, pods, QoS tiers, pods), so that each container leaf gets the controllers.
 * When the node is removed, it disables what it enabled and moves the processes back, unless other
 * children of the own cgroup still need the controllers. The real root cgroup is exempt from the
 * rule (it has no `cgroup.type` file) and needs no move.
 */
export class CgroupV2Driver extends CgroupfsDriver {
  readonly api = "v2" as const;
  readonly hasPids: boolean;
  readonly #dir: string;
  /** Controllers this driver enabled in the own cgroup, to disable on teardown. */
  #enabled: string[] = [];
  /** Whether this driver moved the own cgroup's processes to the daemon leaf. */
  #moved = false;

  constructor(options: CgroupV2Options, host: CgroupHost = {}) {
    super(host);
    this.#dir = options.dir;
    this.hasPids = options.pids ?? true;
  }

  private get controllers(): string[] {
    return this.hasPids ? ["memory", "pids"] : ["memory"];
  }

  protected dirsOf(segments: readonly string[]): string[] {
    return [join(this.#dir, ...segments)];
  }

  directories(cgroup: CgroupRef): CgroupDirectories {
    const dir = join(this.#dir, ...this.within(cgroup));
    return { memory: dir, pids: this.hasPids ? dir : undefined, unified: dir };
  }

  protected eventsFile(segments: readonly string[]): string {
    return join(this.#dir, ...segments, "cgroup.events");
  }

  protected async prepareNode(): Promise<void> {
    const own = this.#dir;
    const available = words(await this.files.read(join(own, "cgroup.controllers")));
    const missing = this.controllers.filter((c) => !available.includes(c));
    if (missing.length > 0) {
      throw new AdapterError(
        "cgroup-controller-missing",
        `cannot manage ${missing.join(" and ")} under ${own}: not in ${join(own, "cgroup.controllers")}`,
        {
          hint: `the parent cgroup must delegate it (systemd: Delegate=yes; by hand: echo +${missing[0] ?? "memory"} > <parent>/cgroup.subtree_control)`,
        },
      );
    }
    const enabled = words(await this.files.read(join(own, "cgroup.subtree_control")));
    const toEnable = this.controllers.filter((c) => !enabled.includes(c));
    if (toEnable.length === 0) return;
    const isRoot = !(await this.files.exists(join(own, "cgroup.type")));
    // A child the daemon forks between the move and the write lands in the own cgroup and makes the
    // write fail with EBUSY: move again and retry a few times.
    for (let attempt = 1; ; attempt++) {
      if (!isRoot && (await this.moveProcesses(own, join(own, DAEMON_LEAF)))) this.#moved = true;
      try {
        await this.files.write(join(own, "cgroup.subtree_control"), toEnable.map((c) => `+${c}`).join(" "));
        break;
      } catch (error) {
        if (!(error instanceof AdapterError && error.code === "cgroup-busy") || attempt === 3) throw error;
      }
    }
    this.#enabled = toEnable;
  }

  protected async afterNodeRemoved(): Promise<void> {
    const own = this.#dir;
    if (this.#enabled.length > 0) {
      // Other children (not ours) may rely on the controllers: then leave the own cgroup as it is.
      const others = (await this.files.subdirectories(own)).filter((name) => name !== DAEMON_LEAF);
      if (others.length > 0) return;
      await this.files.write(
        join(own, "cgroup.subtree_control"),
        this.#enabled.map((c) => `-${c}`).join(" "),
      );
      this.#enabled = [];
    }
    // Also reached when enabling failed after the move: the daemon goes back either way.
    if (this.#moved) {
      const leaf = join(own, DAEMON_LEAF);
      await this.moveProcesses(leaf, own);
      await this.files.rmdir(leaf);
      this.#moved = false;
    }
  }

  /**
   * Moves every process of `from` to `to` (creating `to` if needed); processes that exit meanwhile
   * are skipped. Returns whether there was anything to move.
   */
  private async moveProcesses(from: string, to: string): Promise<boolean> {
    const pids = await this.files.readPids(join(from, "cgroup.procs"));
    if (pids.length === 0) return false;
    if (!(await this.files.exists(to))) await this.files.mkdir(to);
    for (const pid of pids) {
      try {
        await this.files.write(join(to, "cgroup.procs"), String(pid));
      } catch (error) {
        // ESRCH: the process exited since the listing.
        if (!(error instanceof AdapterError && errnoCode(error.cause) === "ESRCH")) throw error;
      }
    }
    return true;
  }

  protected async makeCgroup(
    segments: readonly string[],
    limits: CgroupLimits,
    leaf: boolean,
  ): Promise<void> {
    const dir = join(this.#dir, ...segments);
    await this.files.mkdir(dir);
    try {
      if (!leaf)
        await this.files.write(
          join(dir, "cgroup.subtree_control"),
          this.controllers.map((c) => `+${c}`).join(" "),
        );
      if (limits.memoryLimitBytes !== undefined)
        await this.files.write(join(dir, "memory.max"), String(limits.memoryLimitBytes));
      if (limits.pidsMax !== undefined) await this.files.write(join(dir, "pids.max"), String(limits.pidsMax));
      // The kubelet's default swap behaviour on v2 (NoSwap) gives containers memory.swap.max = 0, so
      // a container at its limit is OOM-killed instead of swapping. The file exists only with swap
      // accounting.
      const swapMax = join(dir, "memory.swap.max");
      if (leaf && (await this.files.exists(swapMax))) await this.files.write(swapMax, "0");
    } catch (error) {
      await this.removeCreated([dir]);
      throw error;
    }
  }

  /** `cgroup.kill` (Linux 5.14+) kills the whole subtree atomically, fork bombs included. */
  protected override async killAll(segments: readonly string[], pids: readonly number[]): Promise<void> {
    const killFile = join(this.#dir, ...segments, "cgroup.kill");
    if (await this.files.exists(killFile)) await this.files.write(killFile, "1");
    else await super.killAll(segments, pids);
  }

  async memory(cgroup: CgroupRef): Promise<MemoryReading> {
    const dir = this.directories(cgroup).memory;
    const usageBytes = await this.files.readInteger(join(dir, "memory.current"));
    const stat = await this.files.readKeyed(join(dir, "memory.stat"));
    const inactiveFileBytes = stat.get("inactive_file") ?? 0n;
    const events = await this.files.readKeyed(join(dir, "memory.events"));
    return {
      usageBytes,
      inactiveFileBytes,
      workingSetBytes: usageBytes > inactiveFileBytes ? usageBytes - inactiveFileBytes : 0n,
      limitBytes: await this.files.readLimit(join(dir, "memory.max")),
      limitHits: counter(events, "max"),
      oomKills: counter(events, "oom_kill"),
    };
  }

  async pids(cgroup: CgroupRef): Promise<PidsReading> {
    const dir = this.directories(cgroup).pids;
    if (dir === undefined) {
      throw new AdapterError(
        "cgroup-controller-missing",
        `cannot read pids of ${cgroup.path}: the pids controller is not delegated to ${this.#dir}`,
      );
    }
    return readPidsController(this.files, dir);
  }

  /** `oom_kill` in memory.events is hierarchical: the kernel counts it in the victim's cgroup and every ancestor. */
  async oomKills(cgroup: CgroupRef): Promise<number> {
    return counter(
      await this.files.readKeyed(join(this.directories(cgroup).memory, "memory.events")),
      "oom_kill",
    );
  }
}

/** The space-separated words of a controller list file. */
function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== "");
}
