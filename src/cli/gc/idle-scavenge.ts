/**
 * Young-generation garbage collection at a time of the loop thread's choosing. A scavenge costs
 * about a millisecond here, longer the more a wake's objects are still alive, and V8 runs one
 * whenever the young generation fills, which on the loop thread means in the middle of whichever
 * wake filled it: measured, scavenges of 1–3 ms (10 ms at worst) inside about half of a 110-pod
 * node's wakes. Collected right after each step instead, while nothing waits, the young
 * generation starts every wake empty, and a wake's allocations (well under its size) never stop it.
 */
import { getHeapSpaceStatistics } from "node:v8";
import { gcFunction } from "./v8-gc.js";

/**
 * Room a wake needs in the young generation: a 110-pod memory wake allocates about 0.6 MB up to its
 * SIGTERM (measured with the allocation sampler), so with less than this left it is collected.
 */
const WAKE_ROOM_BYTES = 1024 * 1024;

/**
 * Schedules one young-generation collection for when the thread has nothing else to run, unless
 * enough room is left for a wake (a quiet housekeeping step allocates little: most steps collect
 * nothing, and no CPU is spent on an empty young generation).
 */
export function scavengeWhenIdle(): void {
  const collect = gcFunction();
  if (collect === undefined) return;
  setImmediate(() => {
    const young = getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
    if (young === undefined || young.space_available_size < WAKE_ROOM_BYTES) collect({ type: "minor" });
  });
}
