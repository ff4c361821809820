/**
 * The budget check of `watch --enforce`: before an eviction, the same Eviction as a dry run, which
 * the API server answers as it would the eviction itself (the pod's PodDisruptionBudget checked)
 * without deleting the pod or spending the budget; or, through the Eviction API, the eviction's own
 * refusal, which changes nothing either. A refusal is reported (a log line with the budget's words,
 * a Warning event on the pod, a count) and the loop considers the next pod in the ranking
 * (app/loop/eviction-preflight.ts). The kubelet itself never asks: it fails node-pressure victims
 * itself, budgets or not. Any other answer to a dry run (a permission missing, no answer) is no
 * verdict: the eviction goes ahead as it would without a preflight, and the reason is logged.
 */
import type { Pod } from "../../core/model.js";
import type { ClockPort, EvictionPreflight, FailedPodStatus, LoggerPort } from "../ports.js";
import type { ClusterNodePort, PodRef } from "./cluster-node-port.js";

/** The reason of the Warning event on a pod whose eviction a budget refused. */
export const EVICTION_BLOCKED_EVENT_REASON = "EvictionBlocked";

/**
 * A pod stays at the top of the ranking while pressure lasts, and the loop looks every interval:
 * one event per pod in this long, as a recorder that aggregates would show it, not one per look.
 */
export const BLOCKED_EVENT_INTERVAL_MS = 10 * 60_000;

export interface DisruptionBudgetPreflightOptions {
  readonly api: ClusterNodePort;
  readonly clock: ClockPort;
  readonly log: LoggerPort;
  /** Told of every refusal (for a metric). */
  readonly onRefused?: (pod: PodRef, reason: string) => void;
}

export class DisruptionBudgetPreflight {
  readonly #o: DisruptionBudgetPreflightOptions;
  /** When the last EvictionBlocked event about each pod (by uid) was sent. */
  readonly #eventAt = new Map<string, number>();

  constructor(options: DisruptionBudgetPreflightOptions) {
    this.#o = options;
  }

  async ask(pod: Pod, gracePeriodSeconds: number, status: FailedPodStatus): Promise<EvictionPreflight> {
    const { api, log } = this.#o;
    const ref: PodRef = { namespace: pod.namespace, name: pod.name, uid: pod.uid };
    let outcome;
    try {
      outcome = await api.preflightEviction(ref, gracePeriodSeconds);
    } catch (e) {
      log.warn({ pod: pod.key, err: String(e) }, `cannot preflight the eviction of ${pod.key}; evicting it`);
      return { verdict: "allowed" };
    }
    if (outcome.kind === "unknown") {
      log.warn(
        { pod: pod.key, status: outcome.status },
        `the preflight of ${pod.key}'s eviction gave no verdict (${outcome.message}); evicting it`,
      );
      return { verdict: "allowed" };
    }
    // A pod already gone is the eviction's own business: it is done there.
    if (outcome.kind !== "blocked") return { verdict: "allowed" };
    await this.refused(pod, status, outcome.message);
    return { verdict: "refused", reason: outcome.message };
  }

  /** Reports a refusal (a dry run's or the eviction's own): a log line, the count, an event. */
  async refused(pod: Pod, status: FailedPodStatus, reason: string): Promise<void> {
    const ref: PodRef = { namespace: pod.namespace, name: pod.name, uid: pod.uid };
    this.#o.log.warn(
      { pod: pod.key, reason },
      `evicting ${pod.key} would violate its PodDisruptionBudget (${reason}); the next pod in the ranking is considered`,
    );
    this.#o.onRefused?.(ref, reason);
    await this.#event(ref, status, reason);
  }

  async #event(pod: PodRef, status: FailedPodStatus, reason: string): Promise<void> {
    const { api, clock, log } = this.#o;
    const now = clock.now();
    // Pods long gone or long unblocked are forgotten, so the bookkeeping stays as small as the node.
    for (const [uid, at] of this.#eventAt)
      if (now - at >= BLOCKED_EVENT_INTERVAL_MS) this.#eventAt.delete(uid);
    const last = this.#eventAt.get(pod.uid);
    if (last !== undefined && now - last < BLOCKED_EVENT_INTERVAL_MS) return;
    this.#eventAt.set(pod.uid, now);
    const message = `${status.message.trim()} Not evicted: ${reason}`;
    try {
      const r = await api.createPodEvent(pod, {
        type: "Warning",
        reason: EVICTION_BLOCKED_EVENT_REASON,
        message,
      });
      if (r.kind === "refused")
        log.warn(
          { pod: `${pod.namespace}/${pod.name}`, status: r.status },
          `cannot create the event: ${r.message}`,
        );
    } catch (e) {
      log.warn({ pod: `${pod.namespace}/${pod.name}`, err: String(e) }, "cannot create the event");
    }
  }
}
