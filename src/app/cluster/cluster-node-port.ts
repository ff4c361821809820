/**
 * The port the cluster frontends (`evictd explain`, `record`, `watch`) drive: one Kubernetes node,
 * seen through its kubelet's Summary API and configz and through the API server's pod objects, and
 * acted on through the API. The adapter (src/kubernetes) implements it over HTTP with
 * @kubernetes/client-node authentication; tests drive it against a local server with real payloads.
 *
 * Payloads are plain JSON values exactly as the server sent them (no typed-model conversion), so a
 * recorded trace holds what the API returned; Summary counters keep every digit of a uint64
 * (see formats/json/parse-json-exact).
 */
import type { FailedPodStatus } from "../ports.js";

/** Where a pod lives, and which incarnation of it (a re-created pod has a new uid). */
export interface PodRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/**
 * One change to the node's pods, as a watch reports it; or a BOOKMARK, whose `pod` holds only
 * `metadata.resourceVersion`: the version the watch has reached although nothing on this node
 * changed (pods elsewhere did). Resuming from it, as client-go's reflector does, keeps a quiet
 * node's watch from falling behind the server's compacted history (410 and a full relist).
 */
export interface PodEvent {
  readonly type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";
  /** The v1 Pod object as the API sent it. */
  readonly pod: unknown;
}

/**
 * What evictd writes into a pod's status. Conditions merge by type; phase, reason and message
 * are set only by a writer that ends the pod itself (a terminal phase makes the API server delete
 * the pod at once, without its grace period, so a writer that wants the grace honoured leaves them out).
 */
export interface PodStatusPatch {
  readonly phase?: "Failed";
  readonly reason?: string;
  readonly message?: string;
  readonly conditions: FailedPodStatus["conditions"];
}

/** An event about a pod, with the annotations the kubelet's AnnotatedEventf attaches. */
export interface PodEventContent {
  readonly type: "Normal" | "Warning";
  readonly reason: string;
  readonly message: string;
  readonly annotations?: Readonly<Record<string, string>>;
}

/**
 * What an API write came to. `done`: the server accepted it. `gone`: the pod no longer exists (404,
 * or a different uid now has its name), which for an eviction means there is nothing left to do.
 * `refused`: the server said no for good (401/403/422, a PodDisruptionBudget that still blocks after
 * the retries, ...), with its status code and message. Transient failures (network, 409, 429, 5xx)
 * are retried with backoff inside the adapter before one of these is returned.
 */
export type WriteOutcome =
  | { readonly kind: "done" }
  | { readonly kind: "gone" }
  | { readonly kind: "refused"; readonly status: number | undefined; readonly message: string };

/**
 * What a dry run of an eviction (pods/NAME/eviction with `dryRun: ["All"]`) said. `allowed`: the
 * API server would evict the pod now. `blocked`: a PodDisruptionBudget would refuse it (429 with a
 * `DisruptionBudget` cause; or the pod has more than one budget, which the subresource refuses),
 * with the server's words. `gone`: no such pod (any more). `unknown`: no verdict (a permission
 * missing, the server not answering...), with the reason.
 */
export type EvictionPreflightOutcome =
  | { readonly kind: "allowed" }
  | { readonly kind: "blocked"; readonly message: string }
  | { readonly kind: "gone" }
  | { readonly kind: "unknown"; readonly status: number | undefined; readonly message: string };

/**
 * What an eviction sent for the budget's verdict came to: a write's outcome, or `blocked` when a
 * PodDisruptionBudget refused it (the 429 with a `DisruptionBudget` cause, or the 500 of two
 * budgets), with the server's words. The API server refuses before it changes anything: the pod is
 * neither deleted nor marked and the budget is not spent.
 */
export type EvictionAttemptOutcome = WriteOutcome | { readonly kind: "blocked"; readonly message: string };

/**
 * What creating an EvictionRequest came to: a write's outcome, or `not-served` when the API server
 * does not serve the resource (404: the alpha API is off), so the eviction must go another way.
 */
export type EvictionRequestOutcome = WriteOutcome | { readonly kind: "not-served"; readonly message: string };

/** One Kubernetes node. Reads reject with a typed error naming what failed (URL, status, message). */
export interface ClusterNodePort {
  readonly nodeName: string;
  /** Where Summary and configz come from, for messages ("API server proxy https://…", "kubelet https://…:10250"). */
  readonly describe: string;

  /** GET …/stats/summary, integers exact. */
  summary(signal?: AbortSignal): Promise<unknown>;
  /** GET …/configz: the `kubeletconfig` object (a KubeletConfiguration without apiVersion/kind). */
  kubeletConfig(signal?: AbortSignal): Promise<unknown>;
  /** GET /api/v1/nodes/NODE: the v1 Node. */
  node(signal?: AbortSignal): Promise<unknown>;
  /** Lists the pods bound to the node (fieldSelector spec.nodeName=NODE). */
  listPods(
    signal?: AbortSignal,
  ): Promise<{ readonly items: readonly unknown[]; readonly resourceVersion: string }>;
  /**
   * Watches the node's pods from `resourceVersion` until the server ends the watch or `signal`
   * aborts; resolves then. Rejects with {@link WatchExpiredError} on 410 Gone (relist), or with a
   * typed error on other failures.
   */
  watchPods(resourceVersion: string, onEvent: (event: PodEvent) => void, signal: AbortSignal): Promise<void>;

  /** PATCH pods/NAME/status (strategic merge): conditions, and phase, reason, message when given. */
  patchPodStatus(pod: PodRef, status: PodStatusPatch): Promise<WriteOutcome>;
  /** POST an event about the pod (involvedObject = the pod, source component "kubelet" host NODE). */
  createPodEvent(pod: PodRef, event: PodEventContent): Promise<WriteOutcome>;
  /** DELETE the pod with a grace period and a uid precondition (never the wrong incarnation). */
  deletePod(pod: PodRef, gracePeriodSeconds: number): Promise<WriteOutcome>;
  /** POST pods/NAME/eviction (policy/v1 Eviction): honours PodDisruptionBudgets; 429 = blocked by a PDB. */
  evictPod(pod: PodRef, gracePeriodSeconds: number): Promise<WriteOutcome>;
  /**
   * POST pods/NAME/eviction once as far as budgets go: a refusal is `blocked` at once, not retried
   * (other transient failures are), so the caller can evict the next pod instead of waiting.
   */
  evictPodOrBlocked(pod: PodRef, gracePeriodSeconds: number): Promise<EvictionAttemptOutcome>;
  /** The same Eviction as a dry run: the budget is checked, nothing is deleted or recorded. */
  preflightEviction(pod: PodRef, gracePeriodSeconds: number): Promise<EvictionPreflightOutcome>;
  /** POST an EvictionRequest (lifecycle.k8s.io/v1alpha1) for the pod; one that exists already is done. */
  createEvictionRequest(pod: PodRef): Promise<EvictionRequestOutcome>;
  /** DELETE the pod's EvictionRequest (its target is gone: the request has served). */
  deleteEvictionRequest(pod: PodRef): Promise<WriteOutcome>;
}

/** The watch's resourceVersion is too old (410 Gone): list again and watch from the new version. */
export class WatchExpiredError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WatchExpiredError";
  }
}
