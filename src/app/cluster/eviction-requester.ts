/**
 * `--eviction-request`: a soft-threshold eviction as an EvictionRequest (KEP-4563, alpha in
 * Kubernetes 1.37) instead of a call to pods/eviction. The request lets the pod's eviction
 * responders (its owner scaling up first, a checkpoint...) act before the imperative evictor ends
 * it through pods/eviction, PodDisruptionBudgets included. A soft threshold has a grace period
 * already, so it can wait for them; a hard one cannot, and goes straight to pods/eviction.
 *
 * Where the API server does not serve the resource (the alpha API is off unless the cluster
 * enables it), the first create answers 404: evictd says so once and from then on evicts through
 * pods/eviction, without asking again. Once a requested pod is gone from the API, its request has
 * served and is deleted, as a requester should (deleting it also withdraws the intent).
 */
import type { LoggerPort } from "../ports.js";
import type { ClusterNodePort, PodRef, WriteOutcome } from "./cluster-node-port.js";

/** What became of a request: made (or made before), or the resource is not served. */
export type EvictionRequestResult =
  | { readonly kind: "requested" }
  | { readonly kind: "not-served" }
  | { readonly kind: "refused"; readonly outcome: WriteOutcome };

export class EvictionRequester {
  readonly #api: ClusterNodePort;
  readonly #log: LoggerPort;
  /** False once a create found the resource not served. */
  #served = true;
  /** Pods (by uid) with a request of ours, to delete once they are gone. */
  readonly #open = new Map<string, PodRef>();

  constructor(api: ClusterNodePort, log: LoggerPort) {
    this.#api = api;
    this.#log = log;
  }

  /** Whether requests are still worth making (the resource has not answered 404). */
  get served(): boolean {
    return this.#served;
  }

  async request(pod: PodRef): Promise<EvictionRequestResult> {
    const outcome = await this.#api.createEvictionRequest(pod);
    if (outcome.kind === "not-served") {
      this.#served = false;
      this.#log.warn(
        { err: outcome.message },
        "the API server does not serve EvictionRequests (lifecycle.k8s.io/v1alpha1, alpha in Kubernetes 1.37, off unless enabled): soft-threshold evictions go through pods/eviction from now on",
      );
      return { kind: "not-served" };
    }
    if (outcome.kind === "done") {
      this.#open.set(pod.uid, pod);
      return { kind: "requested" };
    }
    return { kind: "refused", outcome };
  }

  /** The pod `uid` is gone from the API: its request, if evictd made one, is deleted (best effort). */
  async podGone(uid: string): Promise<void> {
    const pod = this.#open.get(uid);
    if (pod === undefined) return;
    this.#open.delete(uid);
    try {
      const r = await this.#api.deleteEvictionRequest(pod);
      if (r.kind === "refused")
        this.#log.warn(
          { pod: `${pod.namespace}/${pod.name}`, status: r.status },
          `cannot delete the served EvictionRequest: ${r.message}`,
        );
    } catch (e) {
      this.#log.warn(
        { pod: `${pod.namespace}/${pod.name}`, err: String(e) },
        "cannot delete the served EvictionRequest",
      );
    }
  }
}
