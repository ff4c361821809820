/**
 * The one reader of /proc for the whole daemon: pure parsers (text in, numbers out, `undefined` for
 * text that is not what the kernel writes) for meminfo, loadavg, `<pid>/statm`, `<pid>/stat` and
 * mountinfo (and status, limits and /proc/stat's boot time for the daemon's own figures,
 * own-process.ts), and the reads of a live process's stat and of this process's mounts. The stats
 * collector, the cgroup detection, the pod runtime and the benches all parse these files here.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";

/** The /proc/meminfo lines the stats source uses, in bytes. */
export interface MemInfo {
  readonly totalBytes: bigint;
  readonly freeBytes: bigint;
  /**
   * `MemAvailable` (Linux 3.14+): the kernel's estimate of memory a new workload can get without
   * swapping (free memory plus reclaimable page cache and slab). Undefined on older kernels.
   */
  readonly availableBytes: bigint | undefined;
  /** `Inactive(file)`: the system-wide counterpart of a cgroup's `inactive_file`. */
  readonly inactiveFileBytes: bigint | undefined;
}

const MEMINFO_LINE = /^([A-Za-z0-9_()]+):\s+(\d+)( kB)?\s*$/;

/**
 * Parses /proc/meminfo. Values carry a `kB` unit, which the kernel means as KiB. Returns undefined
 * when `MemTotal` or `MemFree` is missing (not a meminfo file).
 */
export function parseMeminfo(text: string): MemInfo | undefined {
  const values = new Map<string, bigint>();
  for (const line of text.split("\n")) {
    const m = MEMINFO_LINE.exec(line);
    if (m === null) continue;
    const [, key, digits, kb] = m;
    if (key === undefined || digits === undefined) continue;
    values.set(key, BigInt(digits) * (kb === undefined ? 1n : 1024n));
  }
  const totalBytes = values.get("MemTotal");
  const freeBytes = values.get("MemFree");
  if (totalBytes === undefined || freeBytes === undefined) return undefined;
  return {
    totalBytes,
    freeBytes,
    availableBytes: values.get("MemAvailable"),
    inactiveFileBytes: values.get("Inactive(file)"),
  };
}

/** /proc/loadavg: three load averages, then `running/total` scheduling entities, then the last pid. */
export interface LoadAvg {
  readonly load1: number;
  readonly load5: number;
  readonly load15: number;
  /** Tasks currently runnable. */
  readonly running: number;
  /** Every task (process or thread) on the system: upstream's `curproc` for `pid.available`. */
  readonly total: number;
  readonly lastPid: number;
}

const LOADAVG = /^(\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+)\/(\d+) (\d+)\s*$/;

/** Parses /proc/loadavg (`0.52 0.58 0.59 3/134 23996`). */
export function parseLoadavg(text: string): LoadAvg | undefined {
  const m = LOADAVG.exec(text);
  if (m === null) return undefined;
  return {
    load1: Number(m[1]),
    load5: Number(m[2]),
    load15: Number(m[3]),
    running: Number(m[4]),
    total: Number(m[5]),
    lastPid: Number(m[6]),
  };
}

/** /proc/<pid>/statm, in pages. */
export interface Statm {
  readonly sizePages: number;
  /** Resident set size: anonymous, file-backed and shared-memory pages mapped by the process. */
  readonly residentPages: number;
  /** Resident file-backed and shared-memory pages. */
  readonly sharedPages: number;
}

/** Parses /proc/<pid>/statm (`size resident shared text lib data dt`, all in pages). */
export function parseStatm(text: string): Statm | undefined {
  const fields = text.trim().split(" ");
  if (fields.length < 3 || !fields.every((f) => /^\d+$/.test(f))) return undefined;
  return { sizePages: Number(fields[0]), residentPages: Number(fields[1]), sharedPages: Number(fields[2]) };
}

/** The /proc/<pid>/stat fields the daemon uses (proc(5) field numbers in brackets). */
export interface ProcStat {
  readonly pid: number;
  /** [2] The command name (at most 15 bytes), which may contain spaces and parentheses. */
  readonly comm: string;
  /**
   * [3] The state letter: R running, S sleeping, D uninterruptible (usually I/O; does not die before
   * the kernel call returns, so a SIGKILL does not free its memory at once), Z zombie, T stopped,
   * t traced, X dead, I idle kernel thread, P parked...
   */
  readonly state: string;
  /** [4] */
  readonly ppid: number;
  /** [5] The process group. */
  readonly pgrp: number;
  /** [6] */
  readonly session: number;
  /** [14] + [15]: user and system CPU time of the process itself, all its threads (clock ticks). */
  readonly cpuTicks: number;
  /** [16] + [17]: CPU time of the children it has waited for (clock ticks). */
  readonly childCpuTicks: number;
  /** [20] */
  readonly numThreads: number;
  /** [22] Clock ticks after boot at which the process started: with the pid, identifies a process across pid reuse. */
  readonly startTimeTicks: number;
  /** [24] Resident set size in pages. */
  readonly rssPages: number;
}

/**
 * Parses /proc/<pid>/stat. The command name sits in parentheses and may itself contain `)` and
 * spaces, so the fields are counted from the LAST `)` on (the kernel's own advice in proc(5)).
 */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf(" (");
  const close = text.lastIndexOf(")");
  if (open < 1 || close < open) return undefined;
  const pid = Number(text.slice(0, open));
  // Fields after the name start at field 3 (state); index i here is field i + 3.
  const rest = text
    .slice(close + 2)
    .trim()
    .split(" ");
  if (!Number.isSafeInteger(pid) || rest.length < 22) return undefined;
  const state = rest[0] ?? "";
  if (!/^[A-Za-z]$/.test(state)) return undefined;
  const int = (field: number): number => Number(rest[field - 3]);
  const out: ProcStat = {
    pid,
    comm: text.slice(open + 2, close),
    state,
    ppid: int(4),
    pgrp: int(5),
    session: int(6),
    cpuTicks: int(14) + int(15),
    childCpuTicks: int(16) + int(17),
    numThreads: int(20),
    startTimeTicks: int(22),
    rssPages: int(24),
  };
  const numbers = [
    out.ppid,
    out.pgrp,
    out.session,
    out.cpuTicks,
    out.childCpuTicks,
    out.numThreads,
    out.startTimeTicks,
    out.rssPages,
  ];
  return numbers.every((n) => Number.isSafeInteger(n)) ? out : undefined;
}

/** The stat of a live process, or undefined when it is gone (or its stat does not parse). */
export async function readProcStat(pid: number): Promise<ProcStat | undefined> {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * The same, read synchronously: procfs files are generated from kernel memory and never wait for a
 * disk, and a kill that must land within milliseconds cannot queue behind the thread pool.
 */
export function readProcStatNow(pid: number): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * `/proc/<pid>/cmdline` text (arguments ended by NUL) as one line a message can quote: arguments
 * joined by spaces, control characters escaped, at most `max` characters. Undefined for no text.
 */
export function parseCmdline(text: string, max = 200): string | undefined {
  const line = text
    .replace(/\0+$/, "")
    .split("\0")
    .join(" ")
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  if (line === "") return undefined;
  return line.length <= max ? line : `${line.slice(0, max)}…`;
}

/** What `pid` runs, as {@link parseCmdline} quotes it; undefined when it is gone or unreadable. */
export function readCmdline(pid: number): string | undefined {
  try {
    return parseCmdline(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
  } catch {
    return undefined;
  }
}

/** Parses a /proc/sys/kernel value that is one non-negative integer (`pid_max`, `threads-max`). */
export function parseKernelInteger(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * The base page size from the start of /proc/self/smaps (`KernelPageSize:  4 kB`), which scales
 * statm's page counts to bytes. Node has no sysconf(_SC_PAGESIZE); the first mapping's line is
 * enough (huge-page mappings come later and are not the base size on any mainstream layout).
 */
export function parseKernelPageSize(smapsText: string): number | undefined {
  const m = /^KernelPageSize:\s+(\d+) kB$/m.exec(smapsText);
  if (m === null) return undefined;
  const bytes = Number(m[1]) * 1024;
  return bytes > 0 ? bytes : undefined;
}

/** One line of a mountinfo file (proc(5)), with the octal escapes of paths undone. */
export interface MountInfo {
  /** The part of the source filesystem mounted here (`/` for all of it). */
  readonly root: string;
  readonly mountPoint: string;
  /** Per-mount options (`rw`, `nosuid`...). */
  readonly mountOptions: readonly string[];
  readonly fsType: string;
  readonly source: string;
  /** Per-superblock options (for cgroup v1: the controllers, e.g. `memory`). */
  readonly superOptions: readonly string[];
  /** `ro` among the mount or superblock options. */
  readonly readOnly: boolean;
}

/** mountinfo escapes space, tab, newline and backslash in paths as octal (`\040`). */
export function unescapeMountinfo(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/**
 * Parses a mountinfo file: `id parent major:minor root mountpoint options [optional...] - fstype
 * source superoptions`. The optional fields vary in number, so the part after the lone `-` is
 * found by that separator. Lines that do not have that shape are skipped.
 */
export function parseMountinfo(text: string): MountInfo[] {
  const mounts: MountInfo[] = [];
  for (const line of text.split("\n")) {
    const fields = line.trim().split(" ");
    const dash = fields.indexOf("-");
    const fsType = fields[dash + 1];
    if (dash < 6 || fsType === undefined) continue;
    const mountOptions = (fields[5] ?? "").split(",");
    const superOptions = (fields[dash + 3] ?? "").split(",");
    mounts.push({
      root: unescapeMountinfo(fields[3] ?? "/"),
      mountPoint: unescapeMountinfo(fields[4] ?? ""),
      mountOptions,
      fsType,
      source: unescapeMountinfo(fields[dash + 2] ?? ""),
      superOptions,
      readOnly: mountOptions.includes("ro") || superOptions.includes("ro"),
    });
  }
  return mounts;
}

/** This process's mounts (/proc/self/mountinfo); none when it cannot be read. */
export async function readOwnMounts(): Promise<MountInfo[]> {
  return parseMountinfo(await readFile("/proc/self/mountinfo", "utf8").catch(() => ""));
}

/** The /proc/<pid>/status memory lines a process's own metrics use, in bytes. */
export interface ProcStatusMemory {
  /** `VmRSS`: resident set size (anonymous, file-backed and shared pages). */
  readonly residentBytes: number;
  /** `VmSize`: the whole virtual address space mapped. */
  readonly virtualBytes: number;
}

/**
 * Parses the memory lines of /proc/<pid>/status (`VmRSS:     78452 kB`; `kB` means KiB). The same
 * figures as stat's `rss` and `vsize`, already in bytes, so no page size is needed. Undefined for
 * text without both lines (a kernel thread has neither).
 */
export function parseProcStatusMemory(text: string): ProcStatusMemory | undefined {
  const kib = (name: string): number | undefined => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(text);
    return m === null ? undefined : Number(m[1]) * 1024;
  };
  const residentBytes = kib("VmRSS");
  const virtualBytes = kib("VmSize");
  return residentBytes === undefined || virtualBytes === undefined
    ? undefined
    : { residentBytes, virtualBytes };
}

/**
 * What an `unlimited` resource limit reads as: RLIM_INFINITY, the largest 64-bit value (as the
 * Prometheus Go client's procfs reads it, so `process_max_fds` and `process_virtual_memory_max_bytes`
 * say the same as a kubelet's).
 */
export const RLIMIT_UNLIMITED = 2 ** 64 - 1;

/** The soft limits from /proc/<pid>/limits a process's own metrics use. */
export interface ProcLimits {
  /** `Max open files`: one more than the highest file descriptor the process may open. */
  readonly openFiles: number;
  /** `Max address space`, in bytes. */
  readonly addressSpaceBytes: number;
}

/**
 * Parses /proc/<pid>/limits: a header, then one line per limit with its name, soft and hard value
 * and unit in columns (`Max open files            20000                20000                files`).
 * The names hold spaces, so a line is matched from its name. Undefined when either line is missing
 * or not a number or `unlimited`.
 */
export function parseProcLimits(text: string): ProcLimits | undefined {
  const soft = (name: string): number | undefined => {
    const m = new RegExp(`^${name}\\s+(\\d+|unlimited)\\s`, "m").exec(text);
    if (m === null) return undefined;
    return m[1] === "unlimited" ? RLIMIT_UNLIMITED : Number(m[1]);
  };
  const openFiles = soft("Max open files");
  const addressSpaceBytes = soft("Max address space");
  return openFiles === undefined || addressSpaceBytes === undefined
    ? undefined
    : { openFiles, addressSpaceBytes };
}

/** The boot time from /proc/stat's `btime` line, in seconds since the epoch. */
export function parseBootTimeSeconds(text: string): number | undefined {
  const m = /^btime (\d+)$/m.exec(text);
  return m === null ? undefined : Number(m[1]);
}
