/**
 * V8's own `gc` function, for the few places the daemon collects garbage at a time of its choosing
 * (a thread that knows it is idle knows better than V8's heuristics when a collection costs nothing
 * that waits). Exposed per thread: a context made after the flag is set carries it.
 */
import { getHeapSpaceStatistics, setFlagsFromString, type HeapSpaceInfo } from "node:v8";
import { runInNewContext } from "node:vm";

export type GcFunction = (options: { readonly type: "minor" | "major" }) => void;

let gc: GcFunction | undefined | null = null;

/** This thread's `gc`, or undefined if V8 would not expose it. */
export function gcFunction(): GcFunction | undefined {
  if (gc === null) {
    try {
      setFlagsFromString("--expose-gc");
      const fn: unknown = runInNewContext("gc");
      gc = typeof fn === "function" ? (fn as GcFunction) : undefined;
    } catch {
      gc = undefined;
    }
  }
  return gc ?? undefined;
}

/** This thread's young generation (V8's `new_space`) as V8 reports it now. */
export function youngGeneration(): HeapSpaceInfo | undefined {
  return getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
}
