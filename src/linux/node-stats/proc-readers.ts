/** Pure parsers for the /proc files the Linux stats source reads: text in, numbers out, `undefined` for text that is not what the kernel writes. */

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

/** The /proc/<pid>/stat fields the stats source and the D-state check use. */
export interface ProcStat {
  readonly pid: number;
  /** The command name (at most 15 bytes), which may contain spaces and parentheses. */
  readonly comm: string;
  /**
   * The state letter: R running, S sleeping, D uninterruptible (usually I/O; does not die before
   * the kernel call returns, so a SIGKILL does not free its memory at once), Z zombie, T stopped,
   * t traced, X dead, I idle kernel thread, P parked...
   */
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  readonly numThreads: number;
  /** Clock ticks after boot at which the process started. */
  readonly startTimeTicks: number;
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
    numThreads: int(20),
    startTimeTicks: int(22),
    rssPages: int(24),
  };
  const numbers = [out.ppid, out.pgrp, out.session, out.numThreads, out.startTimeTicks, out.rssPages];
  return numbers.every((n) => Number.isSafeInteger(n)) ? out : undefined;
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
