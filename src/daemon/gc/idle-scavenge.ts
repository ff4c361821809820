/**
 * Young-generation garbage collection at a time of the loop thread's choosing. A scavenge takes a
 * noticeable part of a wake's few milliseconds, longer the more a wake's objects are still alive,
 * and V8 runs one whenever the young generation fills, which on the loop thread means in the
 * middle of whichever wake filled it: on a 110-pod node, inside many of its wakes
 * (docs/benchmarks.md, "Figures behind design choices"). Collected right after each step instead,
 * while nothing waits, the young generation starts every wake empty, and a wake's allocations
 * (well under its size) never stop it.
 */
import { gcFunction, youngGeneration } from "./v8-gc.js";

/**
 * Room a wake needs in the young generation: a 110-pod memory wake allocates less than this up to its
 * SIGTERM (measured with the allocation sampler), so with less than this left it is collected.
 */
const WAKE_ROOM_BYTES = 1024 * 1024;

/**
 * Schedules one young-generation collection for when the thread has nothing else to run, unless
 * enough room is left for a wake. On a small node most steps collect nothing; at 100 idle pods a
 * housekeeping step allocates a good part of the young generation, which is mostly at its 1 MiB
 * start size, so nearly every step collects.
 */
export function scavengeWhenIdle(): void {
  const collect = gcFunction();
  if (collect === undefined) return;
  setImmediate(() => {
    const young = youngGeneration();
    if (young === undefined || young.space_available_size < WAKE_ROOM_BYTES) collect({ type: "minor" });
  });
}
