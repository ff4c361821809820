/** cgroup v2 memory.events watcher: wake when the high/max/oom/oom_kill counters go up. */
import fs from "node:fs";
import path from "node:path";
import { AdapterError, errnoCode } from "../../errors.js";
import type { WakeErrorListener, WakeListener, WakeSource } from "./wake-source.js";

/** The memory.events counters that mean the cgroup hit its limits (`low` is protection, not pressure). */
export type MemoryEventCounter = "high" | "max" | "oom" | "oom_kill";

/** Counters of a flat-keyed cgroup file (`<key> <integer>` per line); malformed lines are skipped. */
export function parseFlatKeyed(text: string): Map<string, bigint> {
  const counters = new Map<string, bigint>();
  for (const line of text.split("\n")) {
    const match = /^(\S+) (\d+)$/.exec(line.trim());
    if (match?.[1] !== undefined && match[2] !== undefined) counters.set(match[1], BigInt(match[2]));
  }
  return counters;
}

/**
 * The counters that went up between two readings, as `name +delta`. A counter missing from
 * `current` (a half-written file) is not a change; one that went down (the file was recreated)
 * is not an increment.
 */
export function counterIncrements(
  previous: ReadonlyMap<string, bigint>,
  current: ReadonlyMap<string, bigint>,
  watched: readonly string[],
): string[] {
  const increments: string[] = [];
  for (const name of watched) {
    const before = previous.get(name);
    const after = current.get(name);
    if (before !== undefined && after !== undefined && after > before)
      increments.push(`${name} +${after - before}`);
  }
  return increments;
}

/** Configuration of a {@link MemoryEventsWatcher}. */
export interface MemoryEventsWatcherOptions {
  /** The file to watch, normally `<cgroup v2 dir>/memory.events`. */
  readonly path: string;
  /** Counters whose increments wake the loop; default high, max, oom, oom_kill. */
  readonly counters?: readonly string[];
  /**
   * Re-read period in ms when inotify is unavailable (fs.watch threw, e.g. ENOSPC from
   * max_user_watches). Default 1000.
   */
  readonly fallbackPollMs?: number;
}

/** A started watcher: its listeners, the last counters seen, and what delivers change events. */
interface WatchState {
  readonly onWake: WakeListener;
  readonly onError: WakeErrorListener | undefined;
  readonly baseline: Map<string, bigint>;
  watcher: fs.FSWatcher | undefined;
  timer: NodeJS.Timeout | undefined;
  /** The read in progress; reads are chained so each compares against the previous one's result. */
  reading: Promise<void>;
}

const DEFAULT_COUNTERS: readonly MemoryEventCounter[] = ["high", "max", "oom", "oom_kill"];

/**
 * Watches a memory.events file with inotify (fs.watch). The kernel's cgroup_file_notify() raises
 * FS_MODIFY on the kernfs inode whenever a counter changes, so no polling is needed; the same
 * mechanism serves `cgroup.events` (populated), on which this watcher is tested live.
 */
export class MemoryEventsWatcher implements WakeSource {
  readonly name: string;
  readonly #path: string;
  readonly #counters: readonly string[];
  readonly #fallbackPollMs: number;
  #state: WatchState | undefined;

  constructor(options: MemoryEventsWatcherOptions) {
    this.#path = options.path;
    this.#counters = options.counters ?? DEFAULT_COUNTERS;
    this.#fallbackPollMs = options.fallbackPollMs ?? 1000;
    this.name = `memory-events:${options.path}`;
  }

  start(onWake: WakeListener, onError?: WakeErrorListener): void {
    if (this.#state !== undefined)
      throw new AdapterError("already-started", `${this.name} is already started`);
    let text: string;
    try {
      text = fs.readFileSync(this.#path, "utf8");
    } catch (cause) {
      throw new AdapterError(
        "memory-events-unavailable",
        `${this.name}: cannot read ${this.#path} (${errnoCode(cause) ?? "error"})`,
        {
          cause,
          hint: "memory.events exists in cgroup v2 cgroups whose parent enables the memory controller",
        },
      );
    }
    const state: WatchState = {
      onWake,
      onError,
      baseline: parseFlatKeyed(text),
      watcher: undefined,
      timer: undefined,
      reading: Promise.resolve(),
    };
    this.#state = state;
    this.#watch(state);
  }

  async stop(): Promise<void> {
    const state = this.#state;
    this.#state = undefined;
    if (state === undefined) return;
    state.watcher?.close();
    if (state.timer !== undefined) clearInterval(state.timer);
    await state.reading;
  }

  #watch(state: WatchState): void {
    try {
      state.watcher = fs.watch(this.#path, { persistent: true }, (event) => {
        // "rename": the file was replaced or its cgroup removed; the watch is on the old inode.
        if (event === "rename") this.#rewatch(state);
        else this.#schedule(state);
      });
      state.watcher.on("error", (cause) =>
        this.#fail(
          state,
          new AdapterError("memory-events-watch-failed", `${this.name}: inotify watch failed`, { cause }),
        ),
      );
    } catch {
      // inotify refused (watch limit, or a filesystem without it): re-read on a timer instead.
      state.timer = setInterval(() => this.#schedule(state), this.#fallbackPollMs);
    }
  }

  #rewatch(state: WatchState): void {
    state.watcher?.close();
    state.watcher = undefined;
    if (!fs.existsSync(this.#path)) {
      this.#fail(
        state,
        new AdapterError("memory-events-gone", `${this.name}: ${this.#path} was removed`, {
          hint: "the cgroup was deleted",
        }),
      );
      return;
    }
    this.#watch(state);
    this.#schedule(state);
  }

  /** Reads serially so two change events cannot compare against the same baseline twice. */
  #schedule(state: WatchState): void {
    state.reading = state.reading.then(() => this.#compare(state));
  }

  async #compare(state: WatchState): Promise<void> {
    if (this.#state !== state) return;
    let text: string;
    try {
      text = await fs.promises.readFile(this.#path, "utf8");
    } catch (cause) {
      if (this.#state === state)
        this.#fail(
          state,
          new AdapterError("memory-events-unreadable", `${this.name}: cannot read ${this.#path}`, { cause }),
        );
      return;
    }
    if (this.#state !== state) return;
    const current = parseFlatKeyed(text);
    const increments = counterIncrements(state.baseline, current, this.#counters);
    // Keep the last known value of counters missing from a partial read.
    for (const [name, value] of current) state.baseline.set(name, value);
    if (increments.length > 0)
      state.onWake(`${path.basename(this.#path)} ${increments.join(", ")} (${this.#path})`);
  }

  #fail(state: WatchState, error: AdapterError): void {
    state.watcher?.close();
    state.watcher = undefined;
    if (state.timer !== undefined) clearInterval(state.timer);
    state.timer = undefined;
    state.onError?.(error);
  }
}
