/**
 * The kernel's own word that a cgroup subtree has emptied: `populated 0` in a cgroup2 directory's
 * `cgroup.events`. It turns 0 the moment the subtree's last task has finished its exit (when
 * `cgroup.procs` lists nothing any more and rmdir succeeds), and the kernel announces each change
 * through inotify, so a teardown waits for it instead of reading the whole subtree's
 * `cgroup.procs` files again every few milliseconds, CPU the exiting processes need.
 */
import { watch, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";

/** Whether a `cgroup.events` text says the subtree holds no process. */
export function saysUnpopulated(eventsText: string): boolean {
  return /^populated 0$/m.test(eventsText);
}

/**
 * Waits while the subtree of `eventsFile` (a `cgroup.events`) holds processes: until the kernel
 * says `populated 0`, the cgroup is gone, or `maxMs` have passed. Resolves false at once when it
 * held none to begin with (nothing to wait for), true otherwise.
 */
export function waitWhilePopulated(eventsFile: string, maxMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let watcher: FSWatcher | undefined;
    let settled = false;
    const finish = (waited: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      watcher?.close();
      resolve(waited);
    };
    const timer = setTimeout(() => finish(true), maxMs);
    const look = (first: boolean): void => {
      readFile(eventsFile, "utf8").then(
        (text) => {
          if (saysUnpopulated(text)) finish(!first);
        },
        () => finish(!first), // the cgroup is gone: nothing left in it
      );
    };
    try {
      // Watched before the first read, so a change between the two is not missed.
      watcher = watch(eventsFile, { persistent: false }, () => look(false));
      watcher.on("error", () => finish(true));
    } catch {
      // No inotify (out of watches): the timer alone bounds the wait.
    }
    look(true);
  });
}
