/** Shared by the notify tests: open-fd counting, this process's cgroups (as the daemon finds its own), and scratch cgroups. */
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { locateOwnCgroups } from "../../cgroups/detect-cgroups.js";

// Descriptors the runtime opens on its own, at times of its choosing: stdio is set up on first use
// (a terminal is opened again by its /dev path, so a warning printed mid-test adds one), libuv may
// set up io_uring or another epoll instance lazily, the test runner talks over pipes and sockets.
// The notify code never opens any of them, so counting them would only make the leak checks flaky.
const RUNTIME_OWNED = /^(\/dev\/|pipe:|socket:|anon_inode:\[(io_uring|eventpoll|signalfd|timerfd|pidfd)\])/;

/**
 * Number of descriptors this process holds right now that the notify code could have opened:
 * files (pressure files, cgroup files) and eventfds.
 */
export function openFdCount(): number {
  let count = 0;
  for (const fd of fs.readdirSync("/proc/self/fd")) {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // the directory's own descriptor, closed by the time it is read
    }
    if (!RUNTIME_OWNED.test(target)) count += 1;
  }
  return count;
}

/** This process's cgroup v1 memory cgroup directory, or undefined if there is no v1 memory controller. */
export function ownMemoryCgroupV1(): string | undefined {
  const memory = locateOwnCgroups().memory;
  if (memory?.api !== "v1" || !fs.existsSync(path.join(memory.dir, "memory.usage_in_bytes")))
    return undefined;
  return memory.dir;
}

/** This process's cgroup v2 directory (on the hybrid `unified` mount, or the v2 root mount). */
/**
 * A cgroup v1 directory of another controller than memory (this process's pids cgroup), or
 * undefined: it passes a cgroup v1 check but has none of the memory controller's files.
 */
export function otherControllerCgroupV1(): string | undefined {
  const pids = locateOwnCgroups().pids;
  return pids?.api === "v1" ? pids.dir : undefined;
}

export function ownCgroupV2(): string | undefined {
  return locateOwnCgroups().unified?.dir;
}

/** Creates `<parent>/<prefix>-<pid>-<n>`; undefined (with the reason) if the kernel refuses. */
export function makeScratchCgroup(parent: string, prefix: string): { dir: string } | { skip: string } {
  const dir = path.join(parent, `${prefix}-${process.pid}-${Math.floor(Math.random() * 1e9)}`);
  try {
    fs.mkdirSync(dir);
    return { dir };
  } catch (error) {
    return { skip: `cannot create a cgroup under ${parent}: ${(error as Error).message}` };
  }
}

/** Removes a cgroup once its tasks are gone (rmdir fails with EBUSY until they have exited). */
export async function removeCgroup(dir: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.rmdirSync(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      if (Date.now() > deadline) throw error;
      await sleep(20);
    }
  }
}

/** Median and maximum of a non-empty list. */
export function medianMax(values: readonly number[]): { median: number; max: number } {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = sorted[Math.floor(sorted.length / 2)];
  const max = sorted[sorted.length - 1];
  if (middle === undefined || max === undefined) throw new Error("medianMax of an empty list");
  return { median: middle, max };
}

/** Resolves when `condition()` holds, checking every millisecond; rejects after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(1);
  }
}

/** `promise`, or a rejection naming `what` after `timeoutMs`. */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * inotify watches this process holds. libuv keeps its inotify instance (one fd) for the loop's
 * life, so a stopped fs.watch shows up here as a removed watch, not as a closed descriptor.
 */
export function inotifyWatchCount(): number {
  let count = 0;
  for (const fd of fs.readdirSync("/proc/self/fd")) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) !== "anon_inode:inotify") continue;
      count += fs
        .readFileSync(`/proc/self/fdinfo/${fd}`, "utf8")
        .split("\n")
        .filter((l) => l.startsWith("inotify wd:")).length;
    } catch {
      // The fd used by readdir itself is gone by now.
    }
  }
  return count;
}
