/**
 * Writes what a cluster node did as a replay scenario in the JSONL form (docs/replay-format.md):
 * a header line (start, the kubelet's configuration, the Node, what is known of the node's
 * environment, the pods active at the start), then
 * one line per sample: its time, the Summary (by default cut down to what the engine reads, see
 * core/summary/lean-summary; or exactly as the kubelet sent it), the pods that arrived or left
 * since the previous line, and the active pods whose requests changed since (`updatePods`: an
 * in-place resize, judged by pod-allocation-fingerprint), and, when the recorder read them, the
 * node's memory three ways (`nodeMemoryViews`, evictd's addition, never decided on). Every line is
 * complete when written, so
 * a recording cut short at any moment is still a valid scenario. Pure: lines go to a sink.
 */
import type { NodeEnvironment } from "../../core/node/node-environment.js";
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";
import { nodeMemoryViewsRecord } from "../../core/memory/node-memory-views-record.js";
import { formatDurationMs } from "../../core/time/duration.js";
import { leanSummary } from "../../core/summary/lean-summary.js";
import { toExactJson } from "../../core/summary/to-exact-json.js";
import { formatRfc3339Ms } from "../../core/time/rfc3339.js";
import type { LoopStep } from "../loop/eviction-loop.js";
import { podIdentity } from "./node-pod-set.js";
import { podAllocationFingerprint } from "./pod-allocation-fingerprint.js";

export interface TraceHeader {
  /** Wall time of `at: 0s`, epoch ms. */
  readonly start: number;
  /** A KubeletConfiguration object (from configz, or the one the watch loop was given). */
  readonly config: unknown;
  readonly flags?: readonly string[];
  /** The v1 Node object. */
  readonly node?: unknown;
  /**
   * `remove` when the recorded pods leave by themselves once evicted (the kubelet or `watch
   * --enforce` acted); `keep` when nothing acts on the decisions (`watch` in shadow mode).
   */
  readonly evictedPods: "remove" | "keep";
  readonly pods: readonly unknown[];
  /**
   * `lean` (default): each Summary as the engine reads it, with its pressure and swap figures (a
   * replay decides the same from a fraction of the bytes; the pods' and containers' pressure
   * figures a 1.34+ kubelet reports are left out, as they would be most of a lean sample:
   * docs/benchmarks.md, "A day of a node as a recording"); `full`: exactly as the kubelet sent it.
   */
  readonly summaries?: "lean" | "full";
  /** Where the figures come from, for a trace not recorded from a kubelet (docs/replay-format.md). */
  readonly source?: unknown;
  /** What is known of the node (kubelet, kernel, runtime, cgroups, stats provider); informational. */
  readonly environment?: NodeEnvironment;
}

export interface TraceStep {
  /** Epoch ms of the sample (the synchronize's time). */
  readonly now: number;
  /** The Summary API object (integers exact: bigints or parseJsonExact sentinels). */
  readonly summary: unknown;
  /** The Summary read again after node-level reclaim, when reclaim ran. */
  readonly afterReclaim?: unknown;
  /** The raw pods that were active for this sample. */
  readonly activePods: readonly unknown[];
  /** Pods (namespace/name) whose kill failed at this step. */
  readonly killFailures?: readonly string[];
  /** UIDs of pods evicted at this step whose kill did not fail: replay removes them itself. */
  readonly evicted?: readonly string[];
  /** The node's memory three ways, read after the step was decided; informational. */
  readonly nodeMemoryViews?: NodeMemoryViewsReading;
}

export class TraceRecorder {
  private readonly sink: (line: string) => void;
  private readonly start: number;
  private readonly evictedPods: "remove" | "keep";
  /**
   * uid → namespace/name of the pods the replay will have active after the last line, and the
   * fingerprint of the version of each it was last given (header, addPods or updatePods).
   */
  private readonly active = new Map<string, { key: string; fingerprint: string }>();
  private lastAtMs = -1;
  private count = 0;
  private readonly shape: (summary: unknown) => unknown;

  constructor(header: TraceHeader, sink: (line: string) => void) {
    this.sink = sink;
    this.start = header.start;
    this.evictedPods = header.evictedPods;
    this.shape = header.summaries === "full" ? (s) => s : leanSummary;
    const pods = header.pods.filter((p) => podIdentity(p) !== undefined);
    for (const p of pods) {
      const id = podIdentity(p);
      if (id !== undefined)
        this.active.set(id.uid, { key: id.key, fingerprint: podAllocationFingerprint(p) });
    }
    sink(
      toExactJson({
        start: formatRfc3339Ms(header.start),
        config: header.config,
        ...(header.flags !== undefined && header.flags.length > 0 ? { flags: header.flags } : {}),
        ...(header.node !== undefined ? { node: header.node } : {}),
        ...(header.environment !== undefined ? { environment: header.environment } : {}),
        evictedPods: header.evictedPods,
        ...(header.source !== undefined ? { source: header.source } : {}),
        pods,
      }) + "\n",
    );
  }

  /** Lines written after the header. */
  get steps(): number {
    return this.count;
  }

  step(s: TraceStep): void {
    // `at` must increase strictly; two samples within one millisecond are one apart.
    const atMs = Math.max(s.now - this.start, this.lastAtMs + 1);
    this.lastAtMs = atMs;
    const current = new Map<string, { key: string; raw: unknown }>();
    for (const raw of s.activePods) {
      const id = podIdentity(raw);
      if (id !== undefined) current.set(id.uid, { key: id.key, raw });
    }
    const removePods: string[] = [];
    for (const [uid, { key }] of this.active) {
      if (!current.has(uid)) {
        removePods.push(key);
        this.active.delete(uid);
      }
    }
    const addPods: unknown[] = [];
    const updatePods: unknown[] = [];
    for (const [uid, p] of current) {
      const known = this.active.get(uid);
      const fingerprint = podAllocationFingerprint(p.raw);
      if (known === undefined) addPods.push(p.raw);
      else if (known.fingerprint !== fingerprint) updatePods.push(p.raw);
      else continue;
      this.active.set(uid, { key: p.key, fingerprint });
    }
    this.sink(
      toExactJson({
        at: formatDurationMs(atMs),
        summary: this.shape(s.summary),
        ...(s.afterReclaim !== undefined ? { afterReclaim: this.shape(s.afterReclaim) } : {}),
        ...(removePods.length > 0 ? { removePods } : {}),
        ...(addPods.length > 0 ? { addPods } : {}),
        ...(updatePods.length > 0 ? { updatePods } : {}),
        ...(s.killFailures !== undefined && s.killFailures.length > 0
          ? { killFailures: s.killFailures }
          : {}),
        ...(s.nodeMemoryViews !== undefined
          ? { nodeMemoryViews: nodeMemoryViewsRecord(s.nodeMemoryViews, this.start) }
          : {}),
      }) + "\n",
    );
    this.count++;
    // The replay drops the pods it evicted (evictedPods: remove); so must the bookkeeping here, or
    // their departure would be written again.
    if (this.evictedPods === "remove") for (const uid of s.evicted ?? []) this.active.delete(uid);
  }
}

/**
 * The trace line of one eviction-loop step (`evictd watch --record`): the sample it acted on, the
 * one after node-level reclaim, and which kills failed or went through, so a replay of the trace
 * reaches the same decisions. Undefined for a step without a sample (stats could not be read).
 * `readNodeMemoryViews` (`--stats cgroups`) is called only for a step that gets a line, and here,
 * once the step is decided and its kills made: a report's figures never delay a wake's eviction.
 */
export function traceStepOf(
  step: LoopStep,
  activePods: readonly unknown[],
  readNodeMemoryViews?: () => NodeMemoryViewsReading | undefined,
): TraceStep | undefined {
  if (step.sample === undefined) return undefined;
  const nodeMemoryViews = readNodeMemoryViews?.();
  return {
    now: step.now,
    summary: step.sample.raw,
    ...(step.afterReclaim !== undefined ? { afterReclaim: step.afterReclaim.raw } : {}),
    activePods,
    killFailures: step.evictions.filter((e) => e.kill === undefined).map((e) => e.eviction.pod.key),
    evicted: step.evictions.filter((e) => e.kill !== undefined).map((e) => e.eviction.pod.uid),
    ...(nodeMemoryViews !== undefined ? { nodeMemoryViews } : {}),
  };
}
