/**
 * Local storage capacity isolation (localStorageEviction upstream): every run, independent of node
 * pressure, pods exceeding an emptyDir sizeLimit, their pod-level ephemeral-storage limit or a
 * container's ephemeral-storage limit are evicted with a 1 s grace, no annotations and no
 * DisruptionTarget condition. Unlike pressure evictions, several pods may go in one run.
 */
import type { FilesystemLayout, Pod, PodStats } from "../model.js";
import { goQuote } from "../go-quote.js";
import { isCriticalPod } from "../pod/critical.js";
import { podEphemeralStorageLimit } from "../pod/resources.js";
import { formatQuantity, isQuantityZero, quantityNanos, type Quantity } from "../quantity.js";
import type { PodStatsLookup } from "../rank/pod-stats-lookup.js";
import { IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS } from "./grace-period.js";
import type { Eviction, Refusal } from "./types.js";

const NANOS = 1_000_000_000n;

interface Violation {
  readonly signal: "emptydirfs.limit" | "ephemeralpodfs.limit" | "ephemeralcontainerfs.limit";
  readonly message: string;
}

/** usage > limit, exactly (limits may be fractional quantities). */
function over(usage: bigint, limit: Quantity): boolean {
  return usage * NANOS > quantityNanos(limit);
}


/** The first emptyDir (spec order, any medium) whose usage exceeds its sizeLimit. */
function emptyDirViolation(pod: Pod, stats: PodStats): Violation | undefined {
  for (const v of pod.volumes) {
    if (v.kind !== "emptyDir" || v.sizeLimit === undefined || quantityNanos(v.sizeLimit) <= 0n) continue;
    const used = stats.volumes.find((s) => s.name === v.name)?.usedBytes;
    // A stats entry without usedBytes crashes upstream; it is treated as absent here.
    if (used !== undefined && over(used, v.sizeLimit)) {
      return {
        signal: "emptydirfs.limit",
        message: `Usage of EmptyDir volume ${goQuote(v.name)} exceeds the limit ${goQuote(formatQuantity(v.sizeLimit))}. `,
      };
    }
  }
  return undefined;
}

function podLimitViolation(pod: Pod, stats: PodStats): Violation | undefined {
  const limit = podEphemeralStorageLimit(pod);
  if (limit === undefined) return undefined;
  const used = stats.ephemeralStorage?.usedBytes ?? 0n;
  if (!over(used, limit)) return undefined;
  return {
    signal: "ephemeralpodfs.limit",
    message: `Pod ephemeral local storage usage exceeds the total limit of containers ${formatQuantity(limit)}. `,
  };
}

function containerLimitViolation(pod: Pod, stats: PodStats, layout: FilesystemLayout): Violation | undefined {
  // Regular containers and, since 2026, sidecar (restartable init) containers are checked.
  const limits = new Map<string, Quantity>();
  for (const c of [...pod.containers, ...pod.initContainers.filter((i) => i.restartPolicy === "Always")]) {
    const l = c.resources.limits["ephemeral-storage"];
    if (l !== undefined && !isQuantityZero(l) && !limits.has(c.name)) limits.set(c.name, l);
  }
  if (limits.size === 0) return undefined;
  for (const cs of stats.containers) {
    const limit = limits.get(cs.name);
    if (limit === undefined) continue;
    let used = cs.logs?.usedBytes ?? 0n;
    // The writable layer counts only when it lives on the node's filesystem (no dedicated imagefs).
    if (layout === "single") used += cs.rootfs?.usedBytes ?? 0n;
    if (over(used, limit)) {
      return {
        signal: "ephemeralcontainerfs.limit",
        message: `Container ${cs.name} exceeded its local ephemeral storage limit ${goQuote(formatQuantity(limit))}. `,
      };
    }
  }
  return undefined;
}

export interface LocalStorageResult {
  readonly evictions: Eviction[];
  readonly refused: Refusal[];
}

/** Runs the three checks per pod, in active-pod order; the first check that evicts ends the pod's checks. */
export function localStorageEvictions(pods: readonly Pod[], lookup: PodStatsLookup, layout: FilesystemLayout): LocalStorageResult {
  const evictions: Eviction[] = [];
  const refused: Refusal[] = [];
  for (const pod of pods) {
    const stats = lookup(pod);
    if (stats === undefined) continue;
    const checks = [
      () => emptyDirViolation(pod, stats),
      () => podLimitViolation(pod, stats),
      () => containerLimitViolation(pod, stats, layout),
    ];
    for (const check of checks) {
      const v = check();
      if (v === undefined) continue;
      if (isCriticalPod(pod)) {
        // A refused eviction reports "not evicted" and the next check runs, as upstream.
        refused.push({ pod, reason: "critical", kind: "localStorage" });
        continue;
      }
      evictions.push({
        pod,
        kind: "localStorage",
        signal: v.signal,
        gracePeriodSeconds: IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS,
        message: v.message,
        annotations: {},
      });
      break;
    }
  }
  return { evictions, refused };
}
