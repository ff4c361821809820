/**
 * The eviction loop's pods on a Kubernetes node: the node's pods from the API (list + watch), and
 * what "kill" means there. Shadow mode only reports. Enforce mode marks the pod as the kubelet does
 * (the DisruptionTarget condition with the eviction message, a Warning event with the kubelet's
 * annotations) and deletes it with the grace period, so the kubelet stops its containers within it;
 * or, with the Eviction API, asks the API server to evict it, which honours PodDisruptionBudgets
 * and sets the condition itself. Unlike the kubelet, evictd does not write the terminal phase
 * first: the API server deletes a Failed pod at once, ignoring the grace period
 * (CheckGracefulDelete), and the kubelet then tears it down without one. The kubelet writes
 * Failed itself once the containers have stopped.
 * A pod is evicted once: while its eviction is in flight it is not active, and it is "cleaned up"
 * when its object is removed from the API, which happens only after its containers stopped.
 * A pod that has finished (Succeeded or Failed) by the time its kill comes is left as it is, as the
 * kubelet ignores a kill of a terminated pod, and is not waited for.
 * Optionally, a pod a PodDisruptionBudget protects is left for the next one
 * (disruption-budget-preflight.ts): through the Eviction API the eviction's own refusal says so (it
 * changes nothing, and there is no preflight), with deletion a dry run of the Eviction asks first;
 * and in Eviction API mode a soft-threshold eviction can be an EvictionRequest
 * (eviction-requester.ts), which no budget refuses: a dry run asks about it first.
 */
import type { IssueList } from "../../core/issues.js";
import type { Pod } from "../../core/model.js";
import { isTerminalPhase } from "../../core/pod/terminal-phase.js";
import {
  EvictionBlockedError,
  type ClockPort,
  type EvictionPreflight,
  type EvictionUrgency,
  type FailedPodStatus,
  type KillResult,
  type LoggerPort,
  type PodsPort,
  type GcReport,
} from "../ports.js";
import { podIdentity, type NodePodSet } from "./node-pod-set.js";
import type { ClusterNodePort, PodEventContent, PodRef, WriteOutcome } from "./cluster-node-port.js";
import { DisruptionBudgetPreflight } from "./disruption-budget-preflight.js";
import { EvictionRequester } from "./eviction-requester.js";

/** The reason of the Warning event on a pod evictd asked to evict through an EvictionRequest. */
export const EVICTION_REQUESTED_EVENT_REASON = "EvictionRequested";

export type EnforceMode = "shadow" | "delete" | "eviction-api";

export interface ClusterPodsOptions {
  readonly api: ClusterNodePort;
  readonly pods: NodePodSet;
  readonly mode: EnforceMode;
  readonly clock: ClockPort;
  readonly log: LoggerPort;
  /** Decodes a raw v1 Pod (API defaults applied); undefined when it does not decode. */
  readonly decode: (raw: unknown, issues: IssueList) => Pod | undefined;
  readonly newIssues: () => IssueList;
  /**
   * Enforce modes: a pod whose PodDisruptionBudget refuses its pressure eviction is reported and
   * the next pod in the ranking considered. Through the Eviction API the eviction's own refusal is
   * the answer (an EvictionRequest, which no budget refuses, is asked about with a dry run first);
   * with deletion a dry run of the Eviction asks before each one.
   */
  readonly preflight?: boolean;
  /**
   * Through the Eviction API too, a dry run before every pressure eviction, as with deletion: one
   * round trip more before each, the way evictd worked before the refusal was taken as the answer.
   */
  readonly dryRunFirst?: boolean;
  /** Told of every eviction a preflight refused (for a metric). */
  readonly onPreflightRefused?: (pod: PodRef, reason: string) => void;
  /** Eviction API mode: a soft-threshold eviction is an EvictionRequest where the API serves it. */
  readonly evictionRequests?: boolean;
}

const NO_RECLAIM: GcReport = {
  freedBytes: 0,
  note: "the kubelet runs its own container and image garbage collection; evictd cannot from outside the node",
};

/** Thrown when the API refuses an eviction: the loop records a failed kill, as upstream. */
export class EvictionRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EvictionRefusedError";
  }
}

export class ClusterPods implements PodsPort {
  private readonly o: ClusterPodsOptions;
  /** Decoded pods by uid, reused while the raw object is the same one. */
  private readonly decoded = new Map<string, { raw: unknown; pod: Pod | undefined }>();
  /** UIDs whose eviction was accepted and has not finished. */
  private readonly inFlight = new Set<string>();
  /** The raw pods the last activePods() call returned (what the synchronize saw). */
  private lastActiveRaw: unknown[] = [];
  /** UIDs of the pods a preflight refused since the last activePods() call (this step). */
  private readonly refusedThisStep = new Set<string>();
  private readonly requester: EvictionRequester | undefined;
  /** Reports budget refusals; set when budgets are checked. */
  private readonly budgets: DisruptionBudgetPreflight | undefined;
  /** Whether a budget's refusal of the eviction itself is taken as the answer (Eviction API mode). */
  private readonly refusalAnswers: boolean;
  readonly preflight?: (
    pod: Pod,
    gracePeriodSeconds: number,
    status: FailedPodStatus,
    urgency: EvictionUrgency,
  ) => Promise<EvictionPreflight>;

  constructor(options: ClusterPodsOptions) {
    this.o = options;
    this.requester =
      options.mode === "eviction-api" && options.evictionRequests === true
        ? new EvictionRequester(options.api, options.log)
        : undefined;
    const budgets =
      options.mode !== "shadow" && options.preflight === true
        ? new DisruptionBudgetPreflight({
            api: options.api,
            clock: options.clock,
            log: options.log,
            ...(options.onPreflightRefused !== undefined ? { onRefused: options.onPreflightRefused } : {}),
          })
        : undefined;
    this.budgets = budgets;
    this.refusalAnswers =
      budgets !== undefined && options.mode === "eviction-api" && options.dryRunFirst !== true;
    // Where the eviction's refusal always answers (no EvictionRequests), a preflight would ask
    // nothing: there is none, and the loop has nothing to wait for before each eviction.
    if (budgets !== undefined && (!this.refusalAnswers || this.requester !== undefined)) {
      this.preflight = async (pod, gracePeriodSeconds, status, urgency) => {
        // The eviction's refusal will answer, unless the kill creates an EvictionRequest instead.
        if (this.refusalAnswers && !this.requests(urgency)) return { verdict: "allowed" };
        const answer = await budgets.ask(pod, gracePeriodSeconds, status);
        if (answer.verdict === "refused") this.refusedThisStep.add(pod.uid);
        return answer;
      };
    }
  }

  /** Whether a kill of this urgency creates an EvictionRequest (while the API serves them). */
  private requests(urgency: EvictionUrgency): boolean {
    return urgency === "soft" && this.requester?.served === true;
  }

  /**
   * The raw objects behind the last activePods() answer, for the trace recorder, less the pods a
   * preflight refused this step: the engine's last decision was made without them, and a replay of
   * the trace makes it again only if they are not there for that step either.
   */
  get activeRaw(): readonly unknown[] {
    if (this.refusedThisStep.size === 0) return this.lastActiveRaw;
    return this.lastActiveRaw.filter((raw) => {
      const uid = podIdentity(raw)?.uid;
      return uid === undefined || !this.refusedThisStep.has(uid);
    });
  }

  activePods(): readonly Pod[] {
    this.refusedThisStep.clear();
    const out: Pod[] = [];
    const raws: unknown[] = [];
    for (const raw of this.o.pods.active()) {
      const pod = this.podOf(raw);
      if (pod === undefined || this.inFlight.has(pod.uid)) continue;
      out.push(pod);
      raws.push(raw);
    }
    // Forget pods the API no longer has.
    if (this.decoded.size > this.o.pods.size) {
      for (const uid of this.decoded.keys()) if (this.o.pods.get(uid) === undefined) this.decoded.delete(uid);
    }
    this.lastActiveRaw = raws;
    return out;
  }

  /** A raw pod decoded (API defaults applied), decoded once per version of the object. */
  podOf(raw: unknown): Pod | undefined {
    const uid = podIdentity(raw)?.uid;
    if (uid === undefined) return undefined;
    const cached = this.decoded.get(uid);
    if (cached !== undefined && cached.raw === raw) return cached.pod;
    const issues = this.o.newIssues();
    const pod = this.o.decode(raw, issues);
    if (pod === undefined) {
      this.o.log.warn(
        { pod: podIdentity(raw)?.key, issues: issues.items.map((i) => `${i.path}: ${i.message}`) },
        "pod does not decode; it is not considered",
      );
    }
    this.decoded.set(uid, { raw, pod });
    return pod;
  }

  async kill(
    pod: Pod,
    gracePeriodSeconds: number,
    status: FailedPodStatus,
    annotations: Readonly<Record<string, string>> = {},
    urgency: EvictionUrgency = "hard",
  ): Promise<KillResult> {
    const { api, log, clock, mode } = this.o;
    const phase = podIdentity(this.o.pods.get(pod.uid))?.phase;
    if (isTerminalPhase(phase)) {
      log.info({ pod: pod.key, phase }, `${pod.key} has already finished (${phase}): nothing to evict`);
      return { terminatedAt: clock.now(), done: Promise.resolve({ ok: true, stuck: [] }) };
    }
    const ref: PodRef = { namespace: pod.namespace, name: pod.name, uid: pod.uid };
    const event: PodEventContent = {
      type: "Warning",
      reason: "Evicted",
      message: status.message,
      annotations,
    };
    if (mode === "shadow") {
      log.info(
        { pod: pod.key, grace: gracePeriodSeconds, message: status.message },
        `shadow mode: would evict ${pod.key}`,
      );
      return { terminatedAt: clock.now(), done: Promise.resolve({ ok: true, stuck: [] }) };
    }
    this.inFlight.add(pod.uid);
    try {
      if (mode === "eviction-api") {
        if (this.requests(urgency) && this.requester !== undefined) {
          const asked = await this.requester.request(ref);
          if (asked.kind === "requested") {
            const requested: PodEventContent = {
              ...event,
              reason: EVICTION_REQUESTED_EVENT_REASON,
              message: `${status.message.trim()} Eviction requested through an EvictionRequest.`,
            };
            await this.note(api.createPodEvent(ref, requested), pod, "event");
            return { terminatedAt: clock.now(), done: Promise.resolve({ ok: true, stuck: [] }) };
          }
          if (asked.kind === "refused") {
            if (asked.outcome.kind === "gone") return this.gone(pod);
            this.check(asked.outcome, pod, "POST evictionrequests");
          }
          // Not served: through pods/eviction, as every eviction from now on.
        }
        if (this.refusalAnswers && this.budgets !== undefined) {
          const evicted = await api.evictPodOrBlocked(ref, gracePeriodSeconds);
          if (evicted.kind === "blocked") {
            // Nothing changed: reported, and thrown for the loop to consider the next pod.
            this.refusedThisStep.add(pod.uid);
            await this.budgets.refused(pod, status, evicted.message);
            throw new EvictionBlockedError(evicted.message);
          }
          if (evicted.kind === "gone") return this.gone(pod);
          this.check(evicted, pod, "POST pods/eviction");
        } else {
          const evicted = await api.evictPod(ref, gracePeriodSeconds);
          this.check(evicted, pod, "POST pods/eviction");
        }
        await this.note(api.createPodEvent(ref, event), pod, "event");
      } else {
        // The kubelet's order: the condition says why, the event tells the user, deletion stops it.
        if (status.conditions.length > 0) {
          const patched = await api.patchPodStatus(ref, { conditions: status.conditions });
          if (patched.kind === "gone") return this.gone(pod);
          this.check(patched, pod, "PATCH pods/status");
        }
        await this.note(api.createPodEvent(ref, event), pod, "event");
        const deleted = await api.deletePod(ref, gracePeriodSeconds);
        this.check(deleted, pod, "DELETE pod");
      }
      return { terminatedAt: clock.now(), done: Promise.resolve({ ok: true, stuck: [] }) };
    } catch (e) {
      // Not evicted: it may be chosen again, as upstream after a failed kill.
      this.inFlight.delete(pod.uid);
      throw e;
    }
  }

  private gone(pod: Pod): KillResult {
    this.o.log.info({ pod: pod.key }, `${pod.key} is already gone`);
    return { terminatedAt: this.o.clock.now(), done: Promise.resolve({ ok: true, stuck: [] }) };
  }

  private check(outcome: WriteOutcome, pod: Pod, what: string): void {
    if (outcome.kind === "refused")
      throw new EvictionRefusedError(
        `${what} ${pod.key} refused${outcome.status !== undefined ? ` (${outcome.status})` : ""}: ${outcome.message}`,
      );
  }

  /** A failed event is logged, not fatal: the eviction itself went through. */
  private async note(p: Promise<WriteOutcome>, pod: Pod, what: string): Promise<void> {
    try {
      const r = await p;
      if (r.kind === "refused")
        this.o.log.warn({ pod: pod.key, status: r.status }, `cannot create the ${what}: ${r.message}`);
    } catch (e) {
      this.o.log.warn({ pod: pod.key, err: String(e) }, `cannot create the ${what}`);
    }
  }

  isCleanedUp(pod: Pod): Promise<boolean> {
    if (this.o.mode === "shadow") return Promise.resolve(true);
    // Removed from the API: the kubelet has stopped its containers and reported it (a
    // deletionTimestamp says only that they were asked to stop). A pod that finished before evictd
    // evicted it was left as it was: nothing of evictd's to wait for, and its object may stay for
    // as long as its owner keeps it (a Job's pods).
    const raw = this.o.pods.get(pod.uid);
    const done =
      raw === undefined || (!this.inFlight.has(pod.uid) && isTerminalPhase(podIdentity(raw)?.phase));
    if (done) {
      this.inFlight.delete(pod.uid);
      if (this.requester !== undefined) void this.requester.podGone(pod.uid);
    }
    return Promise.resolve(done);
  }

  containerGC(): Promise<GcReport> {
    return Promise.resolve(NO_RECLAIM);
  }

  imageGC(): Promise<GcReport> {
    return Promise.resolve(NO_RECLAIM);
  }
}
