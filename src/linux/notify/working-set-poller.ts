/**
 * Wake when a memory cgroup's working set (usage − inactive_file, the kubelet's formula) rises above
 * a limit, by reading two small cgroup files on a timer whose period follows the distance to the
 * limit: the time the fastest ramp we plan for (2 GiB/s) takes to cover what is left, at most
 * 1 s far from it and, near it, at least 5 ms while the working set is rising and 25 ms while it
 * holds still (every 25 ms above it, where the loop is awake already and only the fall matters).
 * A fixed period near the limit would let a crossing the memcg threshold missed wait a whole period;
 * 5 ms everywhere near it would cost a thread wake-up every 5 ms for as long as a node sits there,
 * so the short period is kept for a rising working set. earlyoom sleeps the same way (distance ÷
 * the fastest fill rate it expects, clamped to 100–1000 ms), and its 1 s is the cap far from the
 * limit: a node more than 2 GiB below it cannot cross within a second at 2 GiB/s.
 * memory.stat, the dearer file, is read only when usage alone is above the limit: below it the
 * working set, which never exceeds usage, cannot be, and the distance from usage is the smaller,
 * safer one.
 *
 * Why, next to the memcg threshold: the kernel compares a threshold with usage, so upstream arms it
 * at capacity − eviction quantity + inactive_file as of the last sample. When inactive_file shrinks
 * after that (file pages activated: every new process re-reads its binary and libraries; or
 * reclaimed: a cgroup at its limit grows its working set only by dropping page cache), the
 * notification comes late by the shrinkage, or never. Reading the working set itself has no such
 * error, for two small reads. On cgroup v2, which has no byte threshold, this poller is the
 * working-set threshold's only watcher.
 *
 * {@link WorkingSetPoller.poke} is the kernel's hint that the working set may be crossing: usage
 * crossed the limit itself (a second memcg threshold, armed with no inactive_file: the earliest the
 * working set can cross), or the kernel reclaimed for this cgroup (memory-reclaim-watch.ts: the
 * working set rising while usage stands still at the cgroup's limit). The next look then comes
 * within 5 ms instead of when the distance says, so a burst faster than the ramp the period plans
 * for is caught too. A node that reclaims all the time with its working set holding still is looked
 * at every 25 ms, the period near the limit, not every 5 ms.
 */
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { AdapterError, errnoCode } from "../../errors.js";
import { KernelFileReader } from "../node-stats/kernel-file-reader.js";
import type { WakeErrorListener, WakeListener, WakeSource } from "./wake-source.js";

export interface WorkingSetPollerOptions {
  /** The memory cgroup directory. */
  readonly cgroupDir: string;
  /** v1: memory.usage_in_bytes and total_inactive_file; v2: memory.current and inactive_file. */
  readonly api: "v1" | "v2";
  /**
   * The v2 root cgroup, which has no memory.current: usage is `anon + file` of its memory.stat, as
   * runc's rootStatsFromMeminfo (and so the kubelet) computes it.
   */
  readonly rootV2?: boolean;
  /** Wake reason prefix, e.g. `hard memory eviction threshold`. */
  readonly description: string;
  /** The shortest period, at the limit's edge while the working set rises (default 5 ms). */
  readonly edgeMs?: number;
  /** The shortest period while it holds still or falls (default 25 ms). */
  readonly steadyMs?: number;
  /** The longest period, far from the limit (default 1000 ms, earlyoom's cap). */
  readonly slowMs?: number;
  /** The period while the working set is above the limit (default 25 ms). */
  readonly aboveMs?: number;
  /** The clock {@link WorkingSetPoller.lastBelowAt} is read on (default Date.now: the loop's). */
  readonly now?: () => number;
}

/** The longest period, far from the limit: earlyoom's own cap (see the file's comment). */
export const SLOW_MS = 1000;

const INACTIVE_FILE = { v1: /^total_inactive_file (\d+)$/m, v2: /^inactive_file (\d+)$/m } as const;

/** The fastest ramp the poller plans for (the benchmarks' top rate): the next look comes before it could cross. */
export const FASTEST_RAMP_BYTES_PER_SECOND = 2n * 1024n * 1024n * 1024n;

/**
 * Growth faster than this, over at least one steady period, counts as rising: above any slow leak,
 * below what a starting process or an allocation burst adds.
 */
export const RISING_BYTES_PER_SECOND = 16 * 1024 * 1024;

/**
 * The wait before the next look, `distance` bytes below the limit: what the fastest ramp takes to
 * cover it, at least `floorMs` and at most `slowMs`.
 */
export function pollPeriodMs(distance: bigint, floorMs: number, slowMs: number): number {
  const ms = Number((distance * 1000n) / FASTEST_RAMP_BYTES_PER_SECOND);
  return Math.min(slowMs, Math.max(floorMs, ms));
}

/** Whether the working set went from `before` to `now` in `elapsedMs` faster than {@link RISING_BYTES_PER_SECOND}. */
export function isRising(before: bigint, now: bigint, elapsedMs: number): boolean {
  return now > before && Number(now - before) * 1000 > RISING_BYTES_PER_SECOND * elapsedMs;
}

/** The v2 root's working set from its memory.stat: anon + file − inactive_file; undefined when it does not parse. */
export function rootWorkingSetFrom(statText: string): bigint | undefined {
  const anon = /^anon (\d+)$/m.exec(statText)?.[1];
  const file = /^file (\d+)$/m.exec(statText)?.[1];
  const inactive = INACTIVE_FILE.v2.exec(statText)?.[1];
  if (anon === undefined || file === undefined || inactive === undefined) return undefined;
  const ws = BigInt(anon) + BigInt(file) - BigInt(inactive);
  return ws < 0n ? 0n : ws;
}

/** usage − inactive_file from the two files' text; undefined when either does not parse. */
export function workingSetFrom(usageText: string, statText: string, api: "v1" | "v2"): bigint | undefined {
  const usage = /^\s*(\d+)\s*$/.exec(usageText)?.[1];
  const inactive = INACTIVE_FILE[api].exec(statText)?.[1];
  if (usage === undefined || inactive === undefined) return undefined;
  const ws = BigInt(usage) - BigInt(inactive);
  return ws < 0n ? 0n : ws;
}

/**
 * How the look that saw a crossing came: so long after the one before, so long after it was due
 * (a thread kept from its timer by other work or by the CPU shows here).
 */
function lookTiming(atMs: number, previousAtMs: number | undefined, dueAtMs: number | undefined): string {
  if (previousAtMs === undefined || dueAtMs === undefined) return "";
  const since = (atMs - previousAtMs).toFixed(1);
  const late = Math.max(0, atMs - dueAtMs).toFixed(1);
  return `; seen ${since} ms after the previous look, ${late} ms after it was due`;
}

export class WorkingSetPoller implements WakeSource {
  readonly name: string;
  readonly #usageFile: string;
  readonly #statFile: string;
  readonly #o: WorkingSetPollerOptions;
  #limit: bigint | undefined;
  /**
   * Whether the working set is rising, judged over at least one steady period (looks 5 ms apart
   * often see no change within a ramp that grows in steps), from the look that began that period:
   * its working set (or usage bound) and when it was taken (performance.now()).
   */
  #rising = false;
  #sinceBytes: bigint | undefined;
  #sinceAtMs = 0;
  #above = false;
  #lastBelowAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** When the last look was taken and when the next was due (performance.now()): a wake says how late it looked. */
  #lookAtMs: number | undefined;
  #dueAtMs: number | undefined;
  /** Set when the last look was a poke's and saw the working set neither rising nor above the limit. */
  #pokedFlat = false;
  #tick: ((hint: string | undefined) => void) | undefined;
  #running = false;
  /** Two descriptors kept open: one pread each per tick instead of open, fstat, read and close. */
  readonly #files = new KernelFileReader();

  constructor(options: WorkingSetPollerOptions) {
    this.#o = options;
    this.#usageFile = path.join(
      options.cgroupDir,
      options.rootV2 === true
        ? "memory.stat"
        : options.api === "v1"
          ? "memory.usage_in_bytes"
          : "memory.current",
    );
    this.#statFile = path.join(options.cgroupDir, "memory.stat");
    this.name = `working-set:${options.cgroupDir}`;
  }

  /** The working set above which the threshold is met (capacity − eviction quantity). */
  setLimit(limitBytes: bigint): void {
    this.#limit = limitBytes;
  }

  get limitBytes(): bigint | undefined {
    return this.#limit;
  }

  /**
   * When a look last saw the working set at or below the limit: with the wake that follows, it
   * brackets the crossing, so a loop that could not look for a while (its process stopped, its
   * CPU taken) shows it in the reaction it reports.
   */
  get lastBelowAt(): number | undefined {
    return this.#lastBelowAt;
  }

  /**
   * The working set now, or undefined when the files cannot be read. With `atMost`: when usage
   * alone is at most that, usage itself (the working set's upper bound) without reading
   * memory.stat, which on cgroup v1 sums the node's whole subtree and on a 110-pod node is by far
   * the dearer of the two files.
   */
  read(atMost?: bigint): bigint | undefined {
    try {
      if (this.#o.rootV2 === true) return rootWorkingSetFrom(this.#files.read(this.#statFile));
      const usageText = this.#files.read(this.#usageFile);
      const usage = /^\s*(\d+)\s*$/.exec(usageText)?.[1];
      if (atMost !== undefined && usage !== undefined && BigInt(usage) <= atMost) return BigInt(usage);
      return workingSetFrom(usageText, this.#files.read(this.#statFile), this.#o.api);
    } catch {
      return undefined;
    }
  }

  start(onWake: WakeListener, onError?: WakeErrorListener): void {
    if (this.#running) throw new AdapterError("already-started", `${this.name} is already started`);
    try {
      fs.accessSync(this.#usageFile, fs.constants.R_OK);
      fs.accessSync(this.#statFile, fs.constants.R_OK);
    } catch (cause) {
      throw new AdapterError(
        "working-set-unavailable",
        `${this.name}: cannot read ${this.#usageFile} and memory.stat (${errnoCode(cause) ?? "error"})`,
        { cause },
      );
    }
    this.#running = true;
    let failures = 0;
    const tick = (hint: string | undefined): void => {
      if (!this.#running) return;
      const slowMs = this.#o.slowMs ?? SLOW_MS;
      let next = slowMs;
      const lookAtMs = performance.now();
      const previousLookAtMs = this.#lookAtMs;
      const dueAtMs = this.#dueAtMs;
      this.#lookAtMs = lookAtMs;
      const limit = this.#limit;
      if (limit !== undefined) {
        // Usage at most the limit settles it without memory.stat: the working set is no more.
        const ws = this.read(limit);
        if (ws === undefined) {
          if (++failures === 3)
            onError?.(
              new AdapterError("working-set-unreadable", `${this.name}: the working set cannot be read`),
            );
        } else {
          failures = 0;
          const above = ws > limit;
          if (!above) this.#lastBelowAt = (this.#o.now ?? Date.now)();
          if (above && !this.#above)
            onWake(
              `${this.#o.description} crossed (working set ${ws} > ${limit}${hint !== undefined ? `; looked when ${hint}` : ""}${lookTiming(lookAtMs, previousLookAtMs, dueAtMs)})`,
            );
          this.#above = above;
          const steadyMs = this.#o.steadyMs ?? 25;
          const atMs = performance.now();
          if (this.#sinceBytes === undefined || atMs - this.#sinceAtMs >= steadyMs) {
            this.#rising =
              this.#sinceBytes !== undefined && isRising(this.#sinceBytes, ws, atMs - this.#sinceAtMs);
            this.#sinceBytes = ws;
            this.#sinceAtMs = atMs;
          }
          this.#pokedFlat = hint !== undefined && !this.#rising && !above;
          const floorMs = this.#rising ? (this.#o.edgeMs ?? 5) : steadyMs;
          next = above ? (this.#o.aboveMs ?? 25) : pollPeriodMs(limit - ws, floorMs, slowMs);
        }
      }
      this.#dueAtMs = performance.now() + next;
      this.#timer = setTimeout(tick, next, undefined);
    };
    this.#tick = tick;
    tick(undefined);
  }

  /**
   * Looks soon, not when the distance says: the kernel hints that the working set may be crossing
   * (`hint`, for the wake's reason: it reclaimed for this cgroup, so the working set may be rising
   * while usage stands still at the limit; usage reached the limit). The look comes 5 ms after the
   * last one at the earliest, or 25 ms after it when the last look was a poke's that found the
   * working set holding still below the limit (a node that reclaims all the time); never later than
   * the look already due.
   */
  poke(hint = "the kernel reported reclaim"): void {
    const tick = this.#tick;
    const lookAtMs = this.#lookAtMs;
    if (!this.#running || tick === undefined || lookAtMs === undefined || this.#limit === undefined) return;
    const gapMs = this.#pokedFlat ? (this.#o.steadyMs ?? 25) : (this.#o.edgeMs ?? 5);
    const nowMs = performance.now();
    const atMs = Math.max(nowMs, lookAtMs + gapMs);
    if (this.#dueAtMs !== undefined && this.#dueAtMs <= atMs) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#dueAtMs = atMs;
    this.#timer = setTimeout(tick, atMs - nowMs, hint);
  }

  stop(): Promise<void> {
    this.#running = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#above = false;
    this.#lastBelowAt = undefined;
    this.#rising = false;
    this.#sinceBytes = undefined;
    this.#lookAtMs = undefined;
    this.#dueAtMs = undefined;
    this.#pokedFlat = false;
    this.#tick = undefined;
    this.#files.close();
    return Promise.resolve();
  }
}
