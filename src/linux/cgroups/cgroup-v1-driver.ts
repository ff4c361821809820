/** cgroup v1: one hierarchy per controller; the node subtree is mirrored in the memory, pids (and on hybrid hosts unified) hierarchies. */
import { join } from "node:path";
import { AdapterError } from "../../errors.js";
import type {
  CgroupDirectories,
  CgroupLimits,
  CgroupRef,
  MemoryReading,
  PidsReading,
} from "./cgroup-driver.js";
import { counter } from "./cgroup-files.js";
import { CgroupfsDriver, type CgroupHost } from "./cgroupfs-driver.js";
import { readPidsController } from "./read-pids-controller.js";

/** Where the daemon's own cgroups are: `<mount>/<own path>` in each hierarchy. */
export interface CgroupV1Roots {
  /** The daemon's own memory cgroup directory, e.g. `/sys/fs/cgroup/memory/system.slice/evictd.service`. */
  readonly memory: string;
  /** The daemon's own pids cgroup directory; absent when the pids controller is not mounted. */
  readonly pids?: string;
  /**
   * On a hybrid host, the daemon's own directory in the cgroup2 hierarchy. The node is mirrored
   * there (no controllers needed) for per-cgroup PSI (`memory.pressure`) and `cgroup.kill`.
   */
  readonly unified?: string;
}

/**
 * The kernel reports "no limit" as the largest page-aligned signed 64-bit value
 * (9223372036854771712 with 4 KiB pages); anything this large is no real limit.
 */
const UNLIMITED_FROM = 1n << 62n;

/**
 * Driver for cgroup v1 (and for the v1 half of a hybrid host). v1 has no "no internal processes"
 * rule, so the daemon stays where it is and the node is created right under its own cgroup in each
 * hierarchy: memory, pids, and on hybrid hosts the unified one. Memory accounting is hierarchical
 * on every kernel this runs on (`memory.use_hierarchy` is always 1 since Linux 5.x), so the node's
 * usage includes its pods'.
 */
export class CgroupV1Driver extends CgroupfsDriver {
  readonly api = "v1" as const;
  readonly hasPids: boolean;
  readonly #roots: CgroupV1Roots;

  constructor(roots: CgroupV1Roots, host: CgroupHost = {}) {
    super(host);
    this.#roots = roots;
    this.hasPids = roots.pids !== undefined;
  }

  /** Memory first: it is the hierarchy reads refer to; the others mirror it. */
  protected dirsOf(segments: readonly string[]): string[] {
    const { memory, pids, unified } = this.#roots;
    return [memory, pids, unified]
      .filter((root) => root !== undefined)
      .map((root) => join(root, ...segments));
  }

  directories(cgroup: CgroupRef): CgroupDirectories {
    const segments = this.within(cgroup);
    const { memory, pids, unified } = this.#roots;
    return {
      memory: join(memory, ...segments),
      pids: pids === undefined ? undefined : join(pids, ...segments),
      unified: unified === undefined ? undefined : join(unified, ...segments),
    };
  }

  /** The unified mirror's, on a hybrid host: every process of the node is in it too. */
  protected eventsFile(segments: readonly string[]): string | undefined {
    const { unified } = this.#roots;
    return unified === undefined ? undefined : join(unified, ...segments, "cgroup.events");
  }

  protected async makeCgroup(
    segments: readonly string[],
    limits: CgroupLimits,
    _leaf: boolean,
  ): Promise<void> {
    const { memory, pids, unified } = this.#roots;
    const created: string[] = [];
    const make = async (dir: string): Promise<void> => {
      await this.files.mkdir(dir);
      created.push(dir);
    };
    try {
      await make(join(memory, ...segments));
      // Bytes in decimal; the kernel rounds down to a page. (-1 would mean unlimited, the default.)
      if (limits.memoryLimitBytes !== undefined) {
        await this.files.write(
          join(memory, ...segments, "memory.limit_in_bytes"),
          String(limits.memoryLimitBytes),
        );
      }
      if (pids !== undefined) {
        await make(join(pids, ...segments));
        if (limits.pidsMax !== undefined)
          await this.files.write(join(pids, ...segments, "pids.max"), String(limits.pidsMax));
      }
      // No controllers are enabled in the unified mirror, so its "no internal processes" rule does not bite.
      if (unified !== undefined) await make(join(unified, ...segments));
    } catch (error) {
      await this.removeCreated(created);
      throw error;
    }
  }

  /** With a unified mirror, `cgroup.kill` (Linux 5.14+) first: atomic, fork bombs included; then signals for the rest. */
  protected override async killAll(segments: readonly string[], pids: readonly number[]): Promise<void> {
    if (this.#roots.unified !== undefined) {
      const killFile = join(this.#roots.unified, ...segments, "cgroup.kill");
      if (await this.files.exists(killFile)) await this.files.write(killFile, "1");
    }
    await super.killAll(segments, pids);
  }

  protected async prepareNode(): Promise<void> {
    // v1 allows processes in inner cgroups: nothing to move, nothing to enable.
  }

  protected async afterNodeRemoved(): Promise<void> {
    // Nothing was changed outside the node.
  }

  async memory(cgroup: CgroupRef): Promise<MemoryReading> {
    const dir = this.directories(cgroup).memory;
    const usageBytes = await this.files.readInteger(join(dir, "memory.usage_in_bytes"));
    // total_inactive_file is hierarchical (the cgroup and its descendants), like usage_in_bytes;
    // cAdvisor uses it for the kubelet's working set on v1.
    const stat = await this.files.readKeyed(join(dir, "memory.stat"));
    const inactiveFileBytes = stat.get("total_inactive_file") ?? stat.get("inactive_file") ?? 0n;
    const limit = await this.files.readInteger(join(dir, "memory.limit_in_bytes"));
    return {
      usageBytes,
      inactiveFileBytes,
      workingSetBytes: usageBytes > inactiveFileBytes ? usageBytes - inactiveFileBytes : 0n,
      limitBytes: limit >= UNLIMITED_FROM ? undefined : limit,
      limitHits: Number(await this.files.readInteger(join(dir, "memory.failcnt"))),
      oomKills: await this.oomKills(cgroup),
    };
  }

  async pids(cgroup: CgroupRef): Promise<PidsReading> {
    const dir = this.directories(cgroup).pids;
    if (dir === undefined) {
      throw new AdapterError(
        "cgroup-controller-missing",
        `cannot read pids of ${cgroup.path}: the pids controller is not mounted`,
        {
          hint: "mount it (mount -t cgroup -o pids cgroup /sys/fs/cgroup/pids)",
        },
      );
    }
    return readPidsController(this.files, dir);
  }

  /**
   * v1's `oom_kill` (memory.oom_control, Linux 4.13+) is charged to the victim's own cgroup only and
   * is not propagated to ancestors (v2's memory.events is), so the subtree is summed.
   */
  async oomKills(cgroup: CgroupRef): Promise<number> {
    let total = 0;
    for (const dir of await this.postOrder(this.directories(cgroup).memory)) {
      total += counter(await this.files.readKeyed(join(dir, "memory.oom_control")), "oom_kill");
    }
    return total;
  }
}
