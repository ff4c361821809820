/** A snapshot of /proc's processes (pid, parent, threads, state), for measuring pods when the node runs without cgroups. */
import { readdirSync, readFileSync } from "node:fs";
import { AdapterError, errnoCode } from "../../errors.js";
import { parseProcStat, parseStatm, type ProcStat } from "../procfs.js";

/**
 * Reads a /proc file, or undefined when the process has exited meanwhile. Synchronously: procfs
 * files are generated from kernel memory and never wait for a disk, and a synchronous read is
 * far cheaper than `fs.promises.readFile` (see `cgroup-stats-reader.ts`).
 */
export function readProcFile(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = errnoCode(error);
    // ESRCH: the process died between open and read.
    if (code === "ENOENT" || code === "ESRCH") return undefined;
    throw error;
  }
}

/**
 * Every process's /proc/<pid>/stat at one moment, and their parent links. Without cgroups a pod is
 * the processes the runtime started plus everything they forked, which only the parent links can
 * tell (a process whose parent died is re-parented to init and leaves the pod: the price of having
 * no cgroup, documented in the collector).
 */
export class ProcessTable {
  readonly procRoot: string;
  readonly #stats: ReadonlyMap<number, ProcStat>;
  readonly #children: ReadonlyMap<number, readonly number[]>;

  private constructor(procRoot: string, stats: ReadonlyMap<number, ProcStat>) {
    this.procRoot = procRoot;
    this.#stats = stats;
    const children = new Map<number, number[]>();
    for (const s of stats.values()) {
      const list = children.get(s.ppid);
      if (list === undefined) children.set(s.ppid, [s.pid]);
      else list.push(s.pid);
    }
    this.#children = children;
  }

  /** Reads every numeric entry of `procRoot`; processes that exit during the scan are left out. */
  static read(procRoot: string): ProcessTable {
    let names: string[];
    try {
      names = readdirSync(procRoot);
    } catch (error) {
      throw new AdapterError(
        "stats-proc-unreadable",
        `cannot list ${procRoot}: ${errnoCode(error) ?? String(error)}`,
        {
          cause: error,
        },
      );
    }
    const stats = new Map<number, ProcStat>();
    for (const name of names) {
      if (!/^\d+$/.test(name)) continue;
      const text = readProcFile(`${procRoot}/${name}/stat`);
      const parsed = text === undefined ? undefined : parseProcStat(text);
      if (parsed !== undefined) stats.set(parsed.pid, parsed);
    }
    return new ProcessTable(procRoot, stats);
  }

  /** The stat of `pid` at the time of the scan. */
  stat(pid: number): ProcStat | undefined {
    return this.#stats.get(pid);
  }

  /** `roots` that still exist and all their descendants, each once, ascending. Zombies stay in: they still hold a pid, as in `pids.current`. */
  tree(roots: readonly number[]): number[] {
    const seen = new Set<number>();
    const stack = roots.filter((pid) => this.#stats.has(pid));
    while (stack.length > 0) {
      const pid = stack.pop() as number;
      if (seen.has(pid)) continue;
      seen.add(pid);
      for (const child of this.#children.get(pid) ?? []) stack.push(child);
    }
    return [...seen].sort((a, b) => a - b);
  }

  /** Tasks (threads) of the processes `pids`: what a pids cgroup's `pids.current` would count for them. */
  tasks(pids: readonly number[]): number {
    let n = 0;
    for (const pid of pids) n += this.#stats.get(pid)?.numThreads ?? 0;
    return n;
  }

  /**
   * Resident bytes of `pids` from /proc/<pid>/statm (processes gone by now count 0). Pages shared
   * between the processes (a forked child's untouched copy-on-write pages, shared libraries) are
   * counted once per process, so this can exceed what a memory cgroup would charge.
   */
  residentBytes(pids: readonly number[], pageSize: number): bigint {
    let pages = 0;
    for (const pid of pids) {
      const text = readProcFile(`${this.procRoot}/${pid}/statm`);
      pages += (text === undefined ? undefined : parseStatm(text))?.residentPages ?? 0;
    }
    return BigInt(pages) * BigInt(pageSize);
  }
}
