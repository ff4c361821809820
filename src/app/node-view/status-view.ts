/**
 * The /status document: the node, what the daemon can do here, its conditions, each signal against
 * its thresholds ("met", "met, grace 30s left", "ok"), the pods, who goes next and why, and the
 * latest evictions. Built from a DaemonSnapshot alone, so it is plain data in, plain data out.
 */
import type { DaemonSnapshot, EvictionRecord, ManifestProblem, PodStatusView } from "./snapshot.js";
import { formatThresholdValue } from "../replay/records.js";
import { formatRfc3339Ms } from "../../core/time/rfc3339.js";
import { formatDurationMs } from "../../core/time/duration.js";
import type { SyncReport } from "../../core/engine/types.js";
import { thresholdQuantity } from "../../core/engine/threshold-quantity.js";
import type { Signal, Threshold } from "../../core/model.js";
import type { RequestAllocation } from "../../core/pod/desired-resources.js";
import { formatQuantity, quantityFromInt } from "../../core/quantity.js";
import { ALL_SIGNALS, NODE_CONDITIONS, SIGNALS } from "../../core/signals.js";
import { nodeMemoryViewsView, type NodeMemoryViewsView } from "./node-memory-views-view.js";
import { olderThanLastReadMs, type PodMemoryFigures } from "./pod-memory-figures.js";

/** How many evictions /status lists (the decision log keeps them all). */
export const RECENT_EVICTIONS = 20;

export type ThresholdState = "met" | `met, grace ${number}s left` | "ok";

export interface ThresholdView {
  readonly id: string;
  readonly type: "hard" | "soft";
  /** As configured: `100Mi`, `10%`. */
  readonly value: string;
  /** Resolved against the signal's capacity; absent when a percentage has no capacity to resolve against. */
  readonly quantity?: string;
  readonly gracePeriod: string;
  readonly minReclaim?: string;
  readonly derivedFrom?: Signal;
  readonly state: ThresholdState;
}

/**
 * A pod ranked by an allocated request other than the one its spec asks (in-place resize): both
 * requests as quantities, and where the resize stands when the pod's status says.
 */
export interface AllocationView {
  readonly resource: string;
  readonly allocated: string;
  readonly desired: string;
  readonly resize?: { readonly state: string; readonly message?: string };
}

export interface SignalView {
  readonly signal: Signal;
  readonly available?: string;
  readonly capacity?: string;
  readonly time?: string;
  readonly thresholds: readonly ThresholdView[];
  /**
   * `memory.available` only, where the node's memory files are read: the kernel's MemAvailable and
   * a working set with kernel memory beside the kubelet's formula, labelled as evictd's additions
   * (never used for decisions).
   */
  readonly evictdAdditions?: NodeMemoryViewsView;
}

export interface StatusView {
  readonly node: {
    readonly name: string;
    readonly listen: string;
    readonly startedAt: string;
    readonly now: string;
  };
  readonly capabilities: readonly string[];
  readonly conditions: readonly { readonly type: string; readonly status: "True" | "False" }[];
  readonly lastSync: {
    readonly time: string;
    readonly ran: boolean;
    readonly statsUnavailable: boolean;
    readonly actedOn: string | null;
    readonly outcome: string;
  } | null;
  readonly signals: readonly SignalView[];
  readonly pods: readonly Record<string, unknown>[];
  readonly ranking: {
    readonly signal: Signal;
    /** The first pod that would be evicted (critical pods never are); null when none can be. */
    readonly next: string | null;
    readonly order: readonly {
      readonly place: number;
      readonly pod: string;
      readonly critical: boolean;
      readonly reason: string;
      readonly allocation?: AllocationView;
    }[];
  } | null;
  /** Newest first, at most RECENT_EVICTIONS. */
  readonly recentEvictions: readonly Record<string, unknown>[];
  /** Evictions since start, per `kubelet_evictions` label. */
  readonly evictionCounts: Readonly<Record<string, number>>;
  /** Manifest files that define no pod or only some of theirs, and why (empty when all are good). */
  readonly manifestErrors: readonly ManifestProblem[];
}

const msToDuration = formatDurationMs;

function show(signal: Signal, n: bigint): string {
  return formatQuantity(quantityFromInt(n, SIGNALS[signal].unit === "bytes" ? "BinarySI" : "DecimalSI"));
}

/**
 * Met (grace satisfied, or hard), met but still inside its grace period, or not met, as of the last
 * synchronize; the grace time left is counted to `now` so a polled /status counts down.
 */
function thresholdState(t: Threshold, report: SyncReport | undefined, now: number): ThresholdState {
  if (report === undefined) return "ok";
  const waiting = report.awaitingGrace.find((w) => w.threshold.id === t.id);
  if (waiting !== undefined) {
    const left = Math.max(0, Math.ceil((waiting.since + t.gracePeriodMs - now) / 1000));
    return `met, grace ${left}s left`;
  }
  return report.thresholdsMet.some((m) => m.id === t.id) ? "met" : "ok";
}

function thresholdView(
  t: Threshold,
  capacity: bigint | undefined,
  report: SyncReport | undefined,
  now: number,
): ThresholdView {
  const value = t.value;
  const quantity =
    value === undefined || (value.kind === "percentage" && capacity === undefined)
      ? undefined
      : formatQuantity(thresholdQuantity(value, capacity ?? 0n));
  return {
    id: t.id,
    type: t.gracePeriodMs === 0 ? "hard" : "soft",
    value: formatThresholdValue(value),
    ...(quantity !== undefined ? { quantity } : {}),
    gracePeriod: msToDuration(t.gracePeriodMs),
    ...(t.minReclaim !== undefined ? { minReclaim: formatThresholdValue(t.minReclaim) } : {}),
    ...(t.derivedFrom !== undefined ? { derivedFrom: t.derivedFrom } : {}),
    state: thresholdState(t, report, now),
  };
}

/** The configured thresholds plus any the engine added (containerfs copies), minus inert mirrors. */
function allThresholds(s: DaemonSnapshot): Threshold[] {
  const byId = new Map<string, Threshold>();
  const r = s.lastReport;
  const seen = [
    ...s.node.eviction.thresholds,
    ...(r?.thresholdsMet ?? []),
    ...(r?.awaitingGrace.map((w) => w.threshold) ?? []),
  ];
  for (const t of seen) if (t.operator !== "" && !byId.has(t.id)) byId.set(t.id, t);
  return [...byId.values()];
}

function signalViews(s: DaemonSnapshot): SignalView[] {
  const thresholds = allThresholds(s);
  const observations = s.lastReport?.observations;
  const out: SignalView[] = [];
  for (const signal of ALL_SIGNALS) {
    const o = observations?.get(signal);
    const mine = thresholds.filter((t) => t.signal === signal);
    const additions =
      signal === "memory.available" && s.nodeMemoryViews !== undefined
        ? nodeMemoryViewsView(s.nodeMemoryViews)
        : undefined;
    if (o === undefined && mine.length === 0 && additions === undefined) continue;
    out.push({
      signal,
      ...(o !== undefined
        ? { available: show(signal, o.available), capacity: show(signal, o.capacity) }
        : {}),
      ...(o?.time !== undefined ? { time: formatRfc3339Ms(o.time) } : {}),
      thresholds: mine.map((t) => thresholdView(t, o?.capacity, s.lastReport, s.now)),
      ...(additions !== undefined ? { evictdAdditions: additions } : {}),
    });
  }
  return out;
}

/**
 * A pod's memory on /status: its last working set read, when it was read, and whether the last
 * sample read it; one an earlier read's says how much older it is than the last read.
 */
export interface PodMemoryView {
  /** As a quantity (`15Mi`); `workingSetBytes` is the exact figure. */
  readonly workingSet: string;
  readonly workingSetBytes: bigint;
  readonly usageBytes?: bigint;
  readonly time?: string;
  /** False: the last sample did not read this pod's working set (a memory wake reads usage alone). */
  readonly fromLastRead: boolean;
  /** With `fromLastRead` false: how much older than the last read the figure is. */
  readonly olderThanLastReadMs?: number;
  /** With `fromLastRead` false: `as of <time> (<age> before the last read)`. */
  readonly asOf?: string;
}

function podMemoryView(uid: string, figures: PodMemoryFigures | undefined): PodMemoryView | undefined {
  const f = figures?.byUid.get(uid);
  if (f === undefined || figures === undefined) return undefined;
  const older = olderThanLastReadMs(f, figures);
  const time = f.time !== undefined ? formatRfc3339Ms(f.time) : undefined;
  const asOf = f.fromLastRead
    ? undefined
    : `as of ${time ?? "an earlier read"}${older !== undefined ? ` (${msToDuration(Math.round(older))} before the last read)` : ""}`;
  return {
    workingSet: formatQuantity(quantityFromInt(f.workingSetBytes, "BinarySI")),
    workingSetBytes: f.workingSetBytes,
    ...(f.usageBytes !== undefined ? { usageBytes: f.usageBytes } : {}),
    ...(time !== undefined ? { time } : {}),
    fromLastRead: f.fromLastRead,
    ...(older !== undefined ? { olderThanLastReadMs: Math.round(older) } : {}),
    ...(asOf !== undefined ? { asOf } : {}),
  };
}

function podView(p: PodStatusView, figures: PodMemoryFigures | undefined): Record<string, unknown> {
  const memory = podMemoryView(p.pod.uid, figures);
  return {
    pod: p.pod.key,
    uid: p.pod.uid,
    phase: p.phase,
    ...(p.reason !== undefined ? { reason: p.reason } : {}),
    ...(p.message !== undefined ? { message: p.message } : {}),
    qosClass: p.qosClass,
    priority: p.pod.priority,
    conditions: p.conditions,
    restarts: p.restarts,
    ...(memory !== undefined ? { memory } : {}),
  };
}

/** A memory ranking's reason, saying when the working set it gives is an earlier read's than the last. */
function rankReason(
  signal: Signal,
  reason: string,
  uid: string,
  figures: PodMemoryFigures | undefined,
): string {
  if (SIGNALS[signal].resource !== "memory") return reason;
  const asOf = podMemoryView(uid, figures)?.asOf;
  return asOf === undefined ? reason : `${reason}; working set ${asOf}`;
}

function evictionView(e: EvictionRecord): Record<string, unknown> {
  return {
    time: formatRfc3339Ms(e.at),
    pod: e.pod,
    signal: e.signal,
    gracePeriodSeconds: e.gracePeriodSeconds,
    killFailed: e.killFailed,
    ...(e.reactionMs !== undefined ? { reactionMs: e.reactionMs } : {}),
    ...(e.sinceBelowMs !== undefined ? { sinceBelowMs: e.sinceBelowMs } : {}),
    message: e.message,
  };
}

function allocationView(a: RequestAllocation): AllocationView {
  return {
    resource: a.resource,
    allocated: formatQuantity(a.allocated),
    desired: formatQuantity(a.desired),
    ...(a.resize !== undefined ? { resize: a.resize } : {}),
  };
}

export function buildStatusView(s: DaemonSnapshot): StatusView {
  const r = s.lastReport;
  const ranking = s.ranking;
  const host = s.node.listen.host.includes(":") ? `[${s.node.listen.host}]` : s.node.listen.host;
  return {
    node: {
      name: s.node.name,
      listen: `${host}:${s.node.listen.port}`,
      startedAt: formatRfc3339Ms(s.startedAt),
      now: formatRfc3339Ms(s.now),
    },
    capabilities: s.capabilities,
    conditions: NODE_CONDITIONS.map((type) => ({
      type,
      status: s.conditions.includes(type) ? "True" : "False",
    })),
    lastSync:
      r === undefined
        ? null
        : {
            time: formatRfc3339Ms(r.now),
            ran: r.ran,
            statsUnavailable: r.statsUnavailable,
            actedOn: r.actedOn?.signal ?? null,
            outcome: r.outcome,
          },
    signals: signalViews(s),
    pods: s.pods.map((p) => podView(p, s.podMemory)),
    ranking:
      ranking === undefined
        ? null
        : {
            signal: ranking.signal,
            next: ranking.order.find((e) => !e.critical)?.pod.key ?? null,
            order: ranking.order.map((e) => ({
              place: e.place,
              pod: e.pod.key,
              critical: e.critical,
              reason: rankReason(ranking.signal, e.reason, e.pod.uid, s.podMemory),
              ...(e.allocation !== undefined ? { allocation: allocationView(e.allocation) } : {}),
            })),
          },
    recentEvictions: s.evictions.slice(-RECENT_EVICTIONS).reverse().map(evictionView),
    evictionCounts: s.evictionCounts,
    manifestErrors: s.manifestErrors ?? [],
  };
}
