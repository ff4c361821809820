/**
 * Test support: a CgroupFs over a temp directory that behaves like cgroupfs where the drivers rely
 * on it (interface files appear on mkdir and go away on rmdir, writes are validated, processes move
 * between cgroup.procs files, the v2 top-down and no-internal-process rules), with a log of writes.
 */
import { mkdir, readdir, readFile, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import type { CgroupFs } from "../cgroup-files.js";
import type { ProcessSample } from "../dying-processes.js";

/** One mounted hierarchy: v1 memory or pids, or the v2 unified one. */
export interface FakeHierarchy {
  readonly kind: "memory" | "pids" | "unified";
  /** The mount point in the temp directory. */
  readonly mount: string;
}

/** The kernel's "no limit" for v1 memory with 4 KiB pages. */
export const V1_UNLIMITED = "9223372036854771712";

/** A Node-style system error. */
function errno(code: string, path: string): Error {
  return Object.assign(new Error(`${code}: fake cgroupfs, ${path}`), { code });
}

const V1_MEMORY_FILES: Readonly<Record<string, string>> = {
  "memory.limit_in_bytes": `${V1_UNLIMITED}\n`,
  "memory.usage_in_bytes": "0\n",
  "memory.failcnt": "0\n",
  "memory.stat":
    "cache 0\nrss 0\ninactive_file 0\nactive_file 0\ntotal_cache 0\ntotal_rss 0\ntotal_inactive_file 0\ntotal_active_file 0\n",
  "memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n",
  "cgroup.event_control": "",
  "cgroup.procs": "",
  tasks: "",
};
const V1_PIDS_FILES: Readonly<Record<string, string>> = {
  "pids.max": "max\n",
  "pids.current": "0\n",
  "pids.events": "max 0\n",
  "cgroup.procs": "",
  tasks: "",
};
const V2_CORE_FILES: Readonly<Record<string, string>> = {
  "cgroup.procs": "",
  "cgroup.subtree_control": "\n",
  "cgroup.type": "domain\n",
  "cgroup.kill": "",
  "cgroup.events": "populated 0\nfrozen 0\n",
  // PSI files exist in every cgroup2 cgroup, whatever controllers are enabled.
  "memory.pressure":
    "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
};
const V2_MEMORY_FILES: Readonly<Record<string, string>> = {
  "memory.max": "max\n",
  "memory.current": "0\n",
  "memory.stat": "anon 0\nfile 0\nactive_anon 0\ninactive_anon 0\nactive_file 0\ninactive_file 0\n",
  "memory.events": "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n",
};
const V2_PIDS_FILES: Readonly<Record<string, string>> = {
  "pids.max": "max\n",
  "pids.current": "0\n",
  "pids.events": "max 0\n",
};

/** Writes the kernel validates, by file name: the accepted value syntax. */
const VALID_WRITES: Readonly<Record<string, RegExp>> = {
  "memory.limit_in_bytes": /^(-1|[0-9]+)$/,
  "memory.max": /^(max|[0-9]+)$/,
  "memory.swap.max": /^(max|[0-9]+)$/,
  "pids.max": /^(max|[0-9]+)$/,
  "cgroup.procs": /^[0-9]+$/,
  "cgroup.kill": /^1$/,
};

export class FakeCgroupKernel implements CgroupFs {
  readonly hierarchies: readonly FakeHierarchy[];
  /** Every successful write, in order: `<path relative to base> <- <value>`. */
  readonly writes: string[] = [];
  /** Every cgroup removed, in order, relative to base. */
  readonly removed: string[] = [];
  /** Pids signalled with SIGKILL (by `kill` or `cgroup.kill`). */
  readonly killed: number[] = [];
  /** Pids that survive SIGKILL, like a process stuck in uninterruptible sleep. */
  readonly immortal = new Set<number>();
  /**
   * Pids whose exit takes this many {@link settle}s after SIGKILL, using CPU all along, like a
   * large process on a slow machine.
   */
  readonly slow = new Map<number, number>();
  /** CPU ticks each slow pid has used on its way out. */
  readonly #cpuTicks = new Map<number, number>();
  /** Slow pids killed and not yet gone. */
  readonly #exiting = new Set<number>();
  /**
   * Errno to throw on the next operation on a path ending with the key (for error tests); a key
   * `write:<suffix>` (or `read:`, `mkdir:`, `rmdir:`) limits it to one operation.
   */
  readonly failures = new Map<string, string>();
  readonly base: string;
  readonly #swap: boolean;
  readonly #pending: Promise<void>[] = [];

  readonly #rootControllers: string;

  /** `rootControllers`: what the v2 root offers (a hybrid host's unified hierarchy offers almost nothing). */
  constructor(
    base: string,
    hierarchies: readonly FakeHierarchy[],
    options: { swap?: boolean; rootControllers?: string } = {},
  ) {
    this.base = base;
    this.hierarchies = hierarchies;
    this.#swap = options.swap ?? false;
    this.#rootControllers = options.rootControllers ?? "cpu io memory pids";
  }

  /** Creates the mount roots with their interface files (the root cgroups). */
  async boot(): Promise<void> {
    for (const h of this.hierarchies) {
      await mkdir(h.mount, { recursive: true });
      const files =
        h.kind === "memory"
          ? V1_MEMORY_FILES
          : h.kind === "pids"
            ? V1_PIDS_FILES
            : { ...V2_CORE_FILES, "cgroup.controllers": `${this.#rootControllers}\n` };
      for (const [name, content] of Object.entries(files)) {
        // The root v2 cgroup has no cgroup.type; v1 and v2 roots have no limit files.
        if (name === "cgroup.type" || name.endsWith(".max") || name.endsWith("limit_in_bytes")) continue;
        await writeFile(join(h.mount, name), content);
      }
    }
  }

  /**
   * Makes the daemon's own cgroup (and its parents) as a service manager would. `delegate` lists the
   * v2 controllers each ancestor hands down (systemd's Delegate=yes); v1 ignores it.
   */
  async makeOwn(dir: string, delegate: readonly string[] = []): Promise<void> {
    const h = this.hierarchyOf(dir);
    const chain: string[] = [];
    for (let d = dir; d !== h.mount; d = dirname(d)) chain.unshift(d);
    for (const d of [h.mount, ...chain]) {
      if (d !== h.mount && !(await this.exists(d))) await this.mkdir(d);
      if (h.kind === "unified" && d !== dir && delegate.length > 0)
        await this.writeFile(join(d, "cgroup.subtree_control"), delegate.map((c) => `+${c}`).join(" "));
    }
    this.writes.length = 0;
  }

  /** Sets a file's content directly (usage figures, stats), as the kernel would. */
  async set(path: string, content: string): Promise<void> {
    await writeFile(path, content);
  }

  /** Places a process in a cgroup directly (as if it had been started there). */
  async place(dir: string, pid: number): Promise<void> {
    await this.movePid(dir, pid);
  }

  private hierarchyOf(path: string): FakeHierarchy {
    const h = this.hierarchies.find((x) => path === x.mount || path.startsWith(`${x.mount}/`));
    if (h === undefined) throw errno("ENOENT", path);
    return h;
  }

  private failIfAsked(op: "read" | "mkdir" | "rmdir" | "write", path: string): void {
    for (const [key, code] of this.failures) {
      const colon = key.indexOf(":");
      const [keyOp, suffix] = colon < 0 ? [op, key] : [key.slice(0, colon), key.slice(colon + 1)];
      if (keyOp === op && path.endsWith(suffix)) {
        this.failures.delete(key);
        throw errno(code, path);
      }
    }
  }

  async readFile(path: string): Promise<string> {
    this.failIfAsked("read", path);
    return readFile(path, "utf8");
  }

  async exists(path: string): Promise<boolean> {
    return stat(path).then(
      () => true,
      () => false,
    );
  }

  async subdirectories(path: string): Promise<string[]> {
    return (await readdir(path, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  }

  async mkdir(path: string): Promise<void> {
    this.failIfAsked("mkdir", path);
    const h = this.hierarchyOf(path);
    if (!(await this.exists(dirname(path)))) throw errno("ENOENT", path);
    await mkdir(path); // EEXIST as the kernel
    if (h.kind === "memory") return this.writeAll(path, V1_MEMORY_FILES);
    if (h.kind === "pids") return this.writeAll(path, V1_PIDS_FILES);
    const enabled = await this.words(join(dirname(path), "cgroup.subtree_control"));
    await this.writeAll(path, { ...V2_CORE_FILES, "cgroup.controllers": `${enabled.join(" ")}\n` });
    await this.addControllerFiles(path, enabled);
  }

  async rmdir(path: string): Promise<void> {
    this.failIfAsked("rmdir", path);
    this.hierarchyOf(path);
    if ((await this.subdirectories(path)).length > 0) throw errno("EBUSY", path);
    if ((await this.pidsIn(path)).length > 0) throw errno("EBUSY", path);
    for (const name of await readdir(path)) await rm(join(path, name));
    await rmdir(path);
    this.removed.push(relative(this.base, path));
  }

  async writeFile(path: string, data: string): Promise<void> {
    this.failIfAsked("write", path);
    const h = this.hierarchyOf(path);
    if (!(await this.exists(path))) throw errno("ENOENT", path); // no O_CREAT on cgroupfs
    const name = path.slice(path.lastIndexOf("/") + 1);
    const dir = dirname(path);
    const value = data.trim();
    const syntax = VALID_WRITES[name];
    if (syntax !== undefined && !syntax.test(value)) throw errno("EINVAL", path);
    if (name === "cgroup.procs") {
      if (h.kind === "unified" && (await this.isInner(dir))) throw errno("EBUSY", path);
      await this.movePid(dir, Number(value));
    } else if (name === "cgroup.subtree_control") {
      await this.changeControllers(dir, value);
    } else if (name === "cgroup.kill") {
      for (const d of await this.tree(dir)) for (const pid of await this.pidsIn(d)) this.kill(pid);
      await this.settle();
    } else if (name === "memory.limit_in_bytes" || name === "memory.max") {
      // The kernel rounds limits down to a page.
      await writeFile(
        path,
        value === "-1"
          ? `${V1_UNLIMITED}\n`
          : value === "max"
            ? "max\n"
            : `${(BigInt(value) / 4096n) * 4096n}\n`,
      );
    } else {
      await writeFile(path, `${value}\n`);
    }
    this.writes.push(`${relative(this.base, path)} <- ${value}`);
  }

  /** SIGKILL: the process leaves every cgroup (completed by the next {@link settle}, or later if slow). */
  kill(pid: number): void {
    this.killed.push(pid);
    if (this.immortal.has(pid)) return;
    if (this.slow.has(pid)) this.#exiting.add(pid);
    else this.#pending.push(this.removeEverywhere(pid));
  }

  /** Waits for kills in flight (the driver's `sleep` between polls); slow exits advance one step. */
  async settle(): Promise<void> {
    for (const pid of this.#exiting) {
      this.#cpuTicks.set(pid, (this.#cpuTicks.get(pid) ?? 0) + 1);
      const steps = (this.slow.get(pid) ?? 0) - 1;
      if (steps > 0) {
        this.slow.set(pid, steps);
        continue;
      }
      this.slow.delete(pid);
      this.#exiting.delete(pid);
      this.#pending.push(this.removeEverywhere(pid));
    }
    const pending = this.#pending.splice(0);
    await Promise.all(pending);
  }

  /** How a process looks on its way out (`CgroupHost.sampleProcess`): only a slow one moves. */
  sample(pid: number): ProcessSample {
    return { startTicks: 1, cpuTicks: this.#cpuTicks.get(pid) ?? 0, threads: 1 };
  }

  private async removeEverywhere(pid: number): Promise<void> {
    for (const h of this.hierarchies) for (const d of await this.tree(h.mount)) await this.dropPid(d, pid);
  }

  private async changeControllers(dir: string, value: string): Promise<void> {
    const available = await this.words(join(dir, "cgroup.controllers"));
    let enabled = await this.words(join(dir, "cgroup.subtree_control"));
    const isRoot = !(await this.exists(join(dir, "cgroup.type")));
    for (const token of value.split(/\s+/)) {
      const controller = token.slice(1);
      if (token.startsWith("+")) {
        if (!available.includes(controller)) throw errno("ENOENT", join(dir, "cgroup.subtree_control"));
        // The "no internal processes" rule.
        if (!isRoot && (await this.pidsIn(dir)).length > 0)
          throw errno("EBUSY", join(dir, "cgroup.subtree_control"));
        if (!enabled.includes(controller)) enabled = [...enabled, controller];
      } else if (token.startsWith("-")) {
        for (const child of await this.subdirectories(dir)) {
          if ((await this.words(join(dir, child, "cgroup.subtree_control"))).includes(controller))
            throw errno("EBUSY", join(dir, "cgroup.subtree_control"));
        }
        enabled = enabled.filter((c) => c !== controller);
      } else {
        throw errno("EINVAL", join(dir, "cgroup.subtree_control"));
      }
    }
    await writeFile(join(dir, "cgroup.subtree_control"), `${enabled.join(" ")}\n`);
    for (const child of await this.subdirectories(dir)) {
      await writeFile(join(dir, child, "cgroup.controllers"), `${enabled.join(" ")}\n`);
      await this.addControllerFiles(join(dir, child), enabled);
    }
  }

  private async addControllerFiles(dir: string, enabled: readonly string[]): Promise<void> {
    if (enabled.includes("memory")) {
      for (const [name, content] of Object.entries(V2_MEMORY_FILES))
        if (!(await this.exists(join(dir, name)))) await writeFile(join(dir, name), content);
      if (this.#swap && !(await this.exists(join(dir, "memory.swap.max"))))
        await writeFile(join(dir, "memory.swap.max"), "max\n");
    }
    if (enabled.includes("pids")) {
      for (const [name, content] of Object.entries(V2_PIDS_FILES))
        if (!(await this.exists(join(dir, name)))) await writeFile(join(dir, name), content);
    }
  }

  private async isInner(dir: string): Promise<boolean> {
    const isRoot = !(await this.exists(join(dir, "cgroup.type")));
    return !isRoot && (await this.words(join(dir, "cgroup.subtree_control"))).length > 0;
  }

  private async movePid(dir: string, pid: number): Promise<void> {
    const h = this.hierarchyOf(dir);
    for (const d of await this.tree(h.mount)) await this.dropPid(d, pid);
    const procs = join(dir, "cgroup.procs");
    await writeFile(procs, [...(await this.pidsIn(dir)), pid].map((p) => `${p}\n`).join(""));
  }

  private async dropPid(dir: string, pid: number): Promise<void> {
    const pids = await this.pidsIn(dir);
    if (pids.includes(pid))
      await writeFile(
        join(dir, "cgroup.procs"),
        pids
          .filter((p) => p !== pid)
          .map((p) => `${p}\n`)
          .join(""),
      );
  }

  private async pidsIn(dir: string): Promise<number[]> {
    const text = await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => "");
    return text
      .split("\n")
      .filter((l) => l !== "")
      .map(Number);
  }

  private async tree(dir: string): Promise<string[]> {
    const out = [dir];
    for (const child of await this.subdirectories(dir).catch(() => []))
      out.push(...(await this.tree(join(dir, child))));
    return out;
  }

  private async words(path: string): Promise<string[]> {
    return (await readFile(path, "utf8").catch(() => "")).split(/\s+/).filter((w) => w !== "");
  }

  private async writeAll(dir: string, files: Readonly<Record<string, string>>): Promise<void> {
    for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  }
}
