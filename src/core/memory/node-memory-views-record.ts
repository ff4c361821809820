/**
 * The node-memory views (node-memory-views.ts) as a trace step carries them, in its optional
 * `nodeMemoryViews` field (docs/replay-format.md, "node memory views"): written by `watch --stats
 * cgroups --record` once the step was decided, read back for the report, never by a decision. Byte
 * figures are uint64 counters written with all their digits, as the Summaries' are.
 */
import { pathKey, type IssueList } from "../issues.js";
import { describeValue } from "../raw/describe-value.js";
import { isRawObject, type RawObject } from "../raw/raw-object.js";
import { counterProblem, toCounter } from "../summary/uint64-counter.js";
import { durationToMs, DurationError, formatDurationMs, parseGoDuration } from "../time/duration.js";
import type { NodeMemoryViews, NodeMemoryViewsReading } from "./node-memory-views.js";

/** The step field that holds them. */
export const NODE_MEMORY_VIEWS_FIELD = "nodeMemoryViews";

/** The views a step carries, as decoded. */
export interface RecordedNodeMemoryViews {
  /** When they were read, ms since the trace's start; absent: at the step's own time. */
  readonly atMs?: number;
  /** The files read, for the reader. */
  readonly source?: string;
  readonly views: NodeMemoryViews;
}

/**
 * The step field's value for one reading: `at` a Go duration since `startMs` (whole milliseconds,
 * as a step's own `at`), byte figures as bigints (written exact by toExactJson).
 */
export function nodeMemoryViewsRecord(
  reading: NodeMemoryViewsReading,
  startMs: number,
): Record<string, unknown> {
  const { views } = reading;
  const { kubelet, kernelAvailable, withKernelMemory: kernel } = views;
  return {
    at: formatDurationMs(Math.max(0, Math.round(reading.at - startMs))),
    source: reading.source,
    capacityBytes: views.capacityBytes,
    kubelet: {
      usageFrom: kubelet.usageFrom,
      workingSetBytes: kubelet.workingSetBytes,
      availableBytes: kubelet.availableBytes,
    },
    ...(kernelAvailable !== undefined
      ? { kernelAvailable: { availableBytes: kernelAvailable.availableBytes } }
      : {}),
    ...(kernel !== undefined
      ? {
          withKernelMemory: {
            kernelMemoryBytes: kernel.kernelMemoryBytes,
            kernelMemoryFrom: kernel.kernelMemoryFrom,
            alreadyInKubeletFigure: kernel.alreadyInKubeletFigure,
            workingSetBytes: kernel.workingSetBytes,
            availableBytes: kernel.availableBytes,
          },
        }
      : {}),
  };
}

/** A mapping's fields read one by one, every problem reported at its path, unknown keys warned about. */
class FieldReader {
  ok = true;
  private readonly raw: RawObject;
  private readonly path: string;
  private readonly issues: IssueList;

  constructor(raw: RawObject, path: string, issues: IssueList, known: readonly string[]) {
    this.raw = raw;
    this.path = path;
    this.issues = issues;
    for (const k of Object.keys(raw))
      if (!known.includes(k))
        issues.warning(pathKey(path, k), "unknown-field", `unknown field ${JSON.stringify(k)} (ignored)`);
  }

  private fail(key: string, code: string, message: string): undefined {
    this.ok = false;
    this.issues.error(pathKey(this.path, key), code, message);
    return undefined;
  }

  private required(key: string, what: string): undefined {
    return this.fail(key, "required", `missing: ${what}`);
  }

  bytes(key: string): bigint | undefined {
    const v = this.raw[key];
    if (v === undefined || v === null) return this.required(key, "a byte count (uint64)");
    const problem = counterProblem(v);
    if (problem !== undefined) return this.fail(key, "invalid-counter", problem);
    return toCounter(v);
  }

  text(key: string, required: boolean): string | undefined {
    const v = this.raw[key];
    if (v === undefined || v === null) return required ? this.required(key, "a string") : undefined;
    if (typeof v === "string" && (v !== "" || !required)) return v;
    return this.fail(
      key,
      "type",
      `expected ${required ? "a non-empty string" : "a string"}, got ${describeValue(v)}`,
    );
  }

  flag(key: string): boolean | undefined {
    const v = this.raw[key];
    if (v === undefined || v === null) return this.required(key, "true or false");
    if (typeof v === "boolean") return v;
    return this.fail(key, "type", `expected true or false, got ${describeValue(v)}`);
  }

  /** A nested mapping (its own reader), or undefined when absent (`required`: an error then). */
  object(key: string, known: readonly string[], required: boolean): FieldReader | undefined {
    const v = this.raw[key];
    if (v === undefined || v === null) return required ? this.required(key, "a mapping") : undefined;
    if (!isRawObject(v)) return this.fail(key, "type", `expected a mapping, got ${describeValue(v)}`);
    return new FieldReader(v, pathKey(this.path, key), this.issues, known);
  }

  /** A Go duration since the trace's start, in ms; undefined when absent. */
  duration(key: string): number | undefined {
    const v = this.raw[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string" && v !== 0)
      return this.fail(
        key,
        "type",
        `expected a Go duration since start such as "10.5s", got ${describeValue(v)}`,
      );
    try {
      const ns = parseGoDuration(String(v));
      if (ns < 0n) return this.fail(key, "negative", `must not be negative, got ${describeValue(v)}`);
      return durationToMs(ns);
    } catch (e) {
      if (!(e instanceof DurationError)) throw e;
      return this.fail(key, "invalid-duration", e.message);
    }
  }
}

/**
 * Checks and decodes a step's `nodeMemoryViews` (its path `steps[i].nodeMemoryViews`). Every problem
 * is an error naming its field (a trace that says it carries the views says them right); an unknown
 * key is a warning. Undefined when there is an error.
 */
export function decodeNodeMemoryViewsRecord(
  raw: unknown,
  path: string,
  issues: IssueList,
): RecordedNodeMemoryViews | undefined {
  if (!isRawObject(raw)) {
    issues.error(path, "type", `expected a mapping of the node's memory views, got ${describeValue(raw)}`);
    return undefined;
  }
  const top = new FieldReader(raw, path, issues, [
    "at",
    "source",
    "capacityBytes",
    "kubelet",
    "kernelAvailable",
    "withKernelMemory",
  ]);
  const atMs = top.duration("at");
  const source = top.text("source", false);
  const capacityBytes = top.bytes("capacityBytes");
  const k = top.object("kubelet", ["usageFrom", "workingSetBytes", "availableBytes"], true);
  const kubelet =
    k &&
    complete({
      usageFrom: k.text("usageFrom", true),
      workingSetBytes: k.bytes("workingSetBytes"),
      availableBytes: k.bytes("availableBytes"),
    });
  const a = top.object("kernelAvailable", ["availableBytes"], false);
  const kernelAvailable = a && complete({ availableBytes: a.bytes("availableBytes") });
  const w = top.object(
    "withKernelMemory",
    ["kernelMemoryBytes", "kernelMemoryFrom", "alreadyInKubeletFigure", "workingSetBytes", "availableBytes"],
    false,
  );
  const withKernelMemory =
    w &&
    complete({
      kernelMemoryBytes: w.bytes("kernelMemoryBytes"),
      kernelMemoryFrom: w.text("kernelMemoryFrom", true),
      alreadyInKubeletFigure: w.flag("alreadyInKubeletFigure"),
      workingSetBytes: w.bytes("workingSetBytes"),
      availableBytes: w.bytes("availableBytes"),
    });
  const readers = [top, k, a, w];
  if (!readers.every((r) => r === undefined || r.ok) || capacityBytes === undefined || kubelet === undefined)
    return undefined;
  return {
    ...(atMs !== undefined ? { atMs } : {}),
    ...(source !== undefined ? { source } : {}),
    views: {
      capacityBytes,
      kubelet,
      ...(kernelAvailable !== undefined ? { kernelAvailable } : {}),
      ...(withKernelMemory !== undefined ? { withKernelMemory } : {}),
    },
  };
}

/** The object when every field has a value, else undefined (its problems are reported already). */
function complete<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]: Exclude<T[K], undefined> } | undefined {
  return Object.values(fields).every((v) => v !== undefined)
    ? (fields as { [K in keyof T]: Exclude<T[K], undefined> })
    : undefined;
}
