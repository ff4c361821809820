/**
 * Wake when a memory cgroup's working set (usage − inactive_file, the kubelet's formula) rises above
 * a limit, by reading two small cgroup files on a short timer: every 25 ms while usage is within
 * reach of the limit, every 250 ms further away. Within reach means within one eviction quantity,
 * or within what a 2 GiB/s ramp covers in one slow period (512 MiB), whichever is more: with one
 * quantity (100 MiB) alone, a pod ramping at 1 GiB/s crossed the band and the threshold inside one
 * 250 ms sleep and filled the node before the poller looked again (measured on a 512Mi node, where
 * the memcg threshold had been armed above the crossing by inactive_file that was later reclaimed).
 * memory.stat, the dearer file, is read only when usage alone is above the limit: below it the
 * working set, which never exceeds usage, cannot be.
 *
 * Why, next to the memcg threshold: the kernel compares a threshold with usage, so upstream arms it
 * at capacity − eviction quantity + inactive_file as of the last sample. When inactive_file shrinks
 * after that (file pages activated: every new process re-reads its binary and libraries), the
 * notification comes late by the shrinkage, at 20 MiB/s about 50 ms per MiB (measured here: up to
 * 100 ms). Reading the working set itself has no such error; its cost is two reads of a few
 * hundred bytes, well under 1 % of a core.
 */
import fs from "node:fs";
import path from "node:path";
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
  /** Period near the limit (default 25 ms) and away from it (default 250 ms). */
  readonly fastMs?: number;
  readonly slowMs?: number;
}

const INACTIVE_FILE = { v1: /^total_inactive_file (\d+)$/m, v2: /^inactive_file (\d+)$/m } as const;

/** The fastest ramp the slow period must not let cross the whole band unseen (the benchmarks' top rate). */
export const FASTEST_RAMP_BYTES_PER_SECOND = 2n * 1024n * 1024n * 1024n;

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

function maxOf(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

export class WorkingSetPoller implements WakeSource {
  readonly name: string;
  readonly #usageFile: string;
  readonly #statFile: string;
  readonly #o: WorkingSetPollerOptions;
  #limit: bigint | undefined;
  #band = 0n;
  #above = false;
  #timer: NodeJS.Timeout | undefined;
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

  /** The working set above which the threshold is met (capacity − eviction quantity), and the near band. */
  setLimit(limitBytes: bigint, bandBytes: bigint): void {
    this.#limit = limitBytes;
    this.#band = bandBytes;
  }

  get limitBytes(): bigint | undefined {
    return this.#limit;
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
    const tick = (): void => {
      if (!this.#running) return;
      const slowMs = this.#o.slowMs ?? 250;
      let next = slowMs;
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
          if (above && !this.#above) onWake(`${this.#o.description} crossed (working set ${ws} > ${limit})`);
          this.#above = above;
          const reach = maxOf(this.#band, (FASTEST_RAMP_BYTES_PER_SECOND * BigInt(slowMs)) / 1000n);
          // The working set rises no faster than the ramp that raises it: within reach, look often.
          if (ws + reach > limit) next = this.#o.fastMs ?? 25;
        }
      }
      this.#timer = setTimeout(tick, next);
    };
    tick();
  }

  stop(): Promise<void> {
    this.#running = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#above = false;
    this.#files.close();
    return Promise.resolve();
  }
}
