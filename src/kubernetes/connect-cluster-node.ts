/**
 * The ClusterNodePort over HTTP: one node's Summary and configz (through the API server's node
 * proxy, or straight from its kubelet), its pods from the API server, and the writes an eviction
 * makes. Payloads stay plain JSON as sent; the Summary keeps every digit of its uint64 counters.
 */
import { isRawObject } from "../core/raw/raw-object.js";
import { readFile } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import type {
  ClusterNodePort,
  EvictionAttemptOutcome,
  EvictionPreflightOutcome,
  EvictionRequestOutcome,
  PodEvent,
  PodRef,
  PodStatusPatch,
  WriteOutcome,
} from "../app/cluster/cluster-node-port.js";
import { AdapterError } from "../errors.js";
import { parseJsonExact } from "../formats/json/parse-json-exact.js";
import type { ApiOperation } from "./api-operation.js";
import { disruptionBudgetCauses, isMultipleBudgetsRefusal, parseApiStatus } from "./api-status.js";
import {
  EVICTION_REQUEST_GROUP,
  evictionRequestBody,
  evictionRequestName,
  evictionRequestsPath,
} from "./eviction-request.js";
import { endpointUrl } from "./http-exchange.js";
import { KubeApiError } from "./kube-api-error.js";
import { KubeClient, type OutcomeOverride, type RetryNotice } from "./kube-client.js";
import { apiServerEndpoint, kubeletEndpoint, type KubeEndpoint } from "./kube-endpoint.js";
import { loadKubeConfig, type KubeConfigSelection } from "./load-kube-config.js";
import { kubeletAddress } from "./node-address.js";
import { EventNamer, eventsPath, podEventBody, type PodEventContent } from "./pod-event.js";
import { deleteOptionsBody, evictionBody, nodePodsPath, podPath, statusPatchBody } from "./pod-requests.js";
import { consumePodWatch } from "./pod-watch-stream.js";
import { retryPolicyWith, type RetryPolicy } from "./retry-policy.js";

/** How to reach the node; only `nodeName` is required. */
export interface ConnectClusterNodeOptions extends KubeConfigSelection {
  readonly nodeName: string;
  /** Where Summary and configz come from: the API server's node proxy (default) or the kubelet itself. */
  readonly source?: "proxy" | "kubelet";
  /** The kubelet's port; default: the port the Node reports (`daemonEndpoints`), else 10250. */
  readonly kubeletPort?: number;
  /** Accept any kubelet serving certificate (wins over kubeletCa). */
  readonly kubeletInsecureTls?: boolean;
  /** CA bundle (PEM file) for the kubelet's serving certificate; default: the cluster CA. */
  readonly kubeletCa?: string;
  /**
   * Time one attempt of a request may take (connecting, then until the whole answer is in; for a
   * watch until its headers are); 0: no limit. Default {@link DEFAULT_REQUEST_TIMEOUT_MS}.
   */
  readonly requestTimeoutMs?: number;
  /** Told of every retry before its wait, for a log line. */
  readonly onRetry?: (notice: RetryNotice) => void;
  /** The `timeoutSeconds` of each watch request; default 300. */
  readonly watchTimeoutSeconds?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** Waits between retries; tests pass one that records and returns at once. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source, [0, 1). */
  readonly random?: () => number;
  /** Clock for event and condition timestamps and for Retry-After dates (epoch ms). */
  readonly now?: () => number;
}

/**
 * An API server answers a GET in well under a second and a kubelet's Summary comes from stats it
 * already holds, so an attempt silent for 10 s is a server that is not answering; with the retry
 * budget (30 s, timeouts counted) a call to such a server ends after two attempts. kubectl's own
 * default is no limit, which a loop cannot live with.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
const DEFAULT_WATCH_TIMEOUT_SECONDS = 300;
const JSON_TYPE = "application/json";
const STRATEGIC_MERGE_TYPE = "application/strategic-merge-patch+json";

/**
 * Loads the kubeconfig and returns the port for `options.nodeName`. With `source: "kubelet"` it
 * first reads the Node to find the kubelet's address, so that failure shows here. Throws
 * AdapterError `kubeconfig` for configuration problems and KubeApiError for failed requests.
 */
export async function connectClusterNode(options: ConnectClusterNodeOptions): Promise<ClusterNodePort> {
  const loaded = loadKubeConfig(options);
  const client = new KubeClient({
    retry: retryPolicyWith(options.retry),
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
    identity: loaded.identity,
    sleep: options.sleep ?? ((ms, signal) => delay(ms, undefined, signal === undefined ? {} : { signal })),
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
  });
  const api = apiServerEndpoint(loaded.kubeConfig, loaded.server, loaded.identity, loaded.tokenFile);
  const node = new ClusterNode(options, client, api, api);
  if (options.source !== "kubelet") return node;

  const address = kubeletAddress(await node.node(), options.kubeletPort);
  if (!address.ok) {
    throw new AdapterError(
      "kubelet-address",
      `cannot find the kubelet of node ${options.nodeName}: ${address.problem}`,
      {
        hint: "use --source proxy to read through the API server",
      },
    );
  }
  const kubelet = kubeletEndpoint(
    loaded.kubeConfig,
    address.host,
    address.port,
    { ca: await readCa(options.kubeletCa), insecure: options.kubeletInsecureTls === true },
    loaded.identity,
    loaded.tokenFile,
  );
  return new ClusterNode(options, client, api, kubelet);
}

/** The port for one node; `stats` is the API server (proxy source) or the kubelet. */
class ClusterNode implements ClusterNodePort {
  readonly nodeName: string;
  readonly describe: string;
  readonly #client: KubeClient;
  readonly #api: KubeEndpoint;
  readonly #stats: KubeEndpoint;
  readonly #statsPrefix: string;
  readonly #watchTimeoutSeconds: number;
  readonly #now: () => number;
  readonly #eventNames = new EventNamer();

  constructor(
    options: ConnectClusterNodeOptions,
    client: KubeClient,
    api: KubeEndpoint,
    stats: KubeEndpoint,
  ) {
    this.nodeName = options.nodeName;
    this.#client = client;
    this.#api = api;
    this.#stats = stats;
    this.#statsPrefix =
      stats.kind === "kubelet" ? "" : `/api/v1/nodes/${encodeURIComponent(options.nodeName)}/proxy`;
    this.describe =
      stats.kind === "kubelet"
        ? `kubelet ${stats.baseUrl.origin}`
        : `API server proxy ${endpointUrl(api, this.#statsPrefix).href}`;
    this.#watchTimeoutSeconds = options.watchTimeoutSeconds ?? DEFAULT_WATCH_TIMEOUT_SECONDS;
    this.#now = options.now ?? Date.now;
  }

  async summary(signal?: AbortSignal): Promise<unknown> {
    const path = `${this.#statsPrefix}/stats/summary`;
    const text = await this.#client.read(this.#stats, this.#statsOperation("stats"), path, signal);
    return this.#parse(text, path, parseJsonExact);
  }

  async kubeletConfig(signal?: AbortSignal): Promise<unknown> {
    const path = `${this.#statsPrefix}/configz`;
    const text = await this.#client.read(this.#stats, this.#statsOperation("proxy"), path, signal);
    const body = this.#parse(text, path, JSON.parse);
    // The kubelet's /configz answers {"kubeletconfig": {...}}: the KubeletConfiguration without apiVersion/kind.
    const inner = isRawObject(body) ? body.kubeletconfig : undefined;
    if (!isRawObject(inner)) throw this.#badResponse(path, `has no "kubeletconfig" object`);
    return inner;
  }

  async node(signal?: AbortSignal): Promise<unknown> {
    const path = `/api/v1/nodes/${encodeURIComponent(this.nodeName)}`;
    const text = await this.#client.read(this.#api, { verb: "get", resource: "nodes" }, path, signal);
    return this.#parse(text, path, JSON.parse);
  }

  async listPods(
    signal?: AbortSignal,
  ): Promise<{ readonly items: readonly unknown[]; readonly resourceVersion: string }> {
    const path = nodePodsPath(this.nodeName);
    const text = await this.#client.read(this.#api, { verb: "list", resource: "pods" }, path, signal);
    const list = this.#parse(text, path, JSON.parse);
    const items = isRawObject(list) ? list.items : undefined;
    const metadata = isRawObject(list) && isRawObject(list.metadata) ? list.metadata : {};
    const resourceVersion = metadata.resourceVersion;
    if (!Array.isArray(items) || typeof resourceVersion !== "string") {
      throw this.#badResponse(path, "is not a PodList with items and metadata.resourceVersion");
    }
    return { items: items as unknown[], resourceVersion };
  }

  async watchPods(
    resourceVersion: string,
    onEvent: (event: PodEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    if (signal.aborted) return;
    const path = nodePodsPath(this.nodeName, { resourceVersion, timeoutSeconds: this.#watchTimeoutSeconds });
    let stream;
    try {
      stream = await this.#client.openWatch(this.#api, { verb: "watch", resource: "pods" }, path, signal);
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    await consumePodWatch(stream, onEvent, signal, {
      method: "GET",
      path,
      url: endpointUrl(this.#api, path).href,
      // The server ends the watch after timeoutSeconds; silence well past that means a dead connection.
      idleTimeoutMs: (this.#watchTimeoutSeconds + 60) * 1000,
    });
  }

  patchPodStatus(pod: PodRef, status: PodStatusPatch): Promise<WriteOutcome> {
    return this.#client.write(
      this.#api,
      { verb: "patch", resource: "pods", subresource: "status", namespace: pod.namespace },
      {
        method: "PATCH",
        path: `${podPath(pod)}/status`,
        body: statusPatchBody(pod, status, this.#now()),
        contentType: STRATEGIC_MERGE_TYPE,
      },
    );
  }

  createPodEvent(pod: PodRef, event: PodEventContent): Promise<WriteOutcome> {
    const now = this.#now();
    const name = this.#eventNames.next(pod.name, now);
    return this.#client.write(
      this.#api,
      { verb: "create", resource: "events", namespace: pod.namespace },
      {
        method: "POST",
        path: eventsPath(pod),
        body: podEventBody(pod, event, this.nodeName, name, now),
        contentType: JSON_TYPE,
      },
      // AlreadyExists: an earlier attempt was stored though its answer was lost (the name is unique to this event).
      (response, status) =>
        response.status === 409 && status?.reason === "AlreadyExists" ? { kind: "done" } : undefined,
    );
  }

  deletePod(pod: PodRef, gracePeriodSeconds: number): Promise<WriteOutcome> {
    return this.#client.write(
      this.#api,
      { verb: "delete", resource: "pods", namespace: pod.namespace },
      {
        method: "DELETE",
        path: podPath(pod),
        body: deleteOptionsBody(pod, gracePeriodSeconds),
        contentType: JSON_TYPE,
      },
    );
  }

  evictPod(pod: PodRef, gracePeriodSeconds: number): Promise<WriteOutcome> {
    return this.#client.write(
      this.#api,
      { verb: "create", resource: "pods", subresource: "eviction", namespace: pod.namespace },
      {
        method: "POST",
        path: `${podPath(pod)}/eviction`,
        body: evictionBody(pod, gracePeriodSeconds),
        contentType: JSON_TYPE,
      },
      // A budget that allows no disruption now is the client's common 429 (retried a few times);
      // a pod that two budgets select is refused for good, and no 2xx may hide that.
      (response, status) => {
        const said = status ?? parseApiStatus(response.body);
        return isMultipleBudgetsRefusal(said)
          ? {
              kind: "refused",
              status: 500,
              message: `blocked by PodDisruptionBudgets: ${said?.message ?? ""}`,
            }
          : undefined;
      },
    );
  }

  async preflightEviction(pod: PodRef, gracePeriodSeconds: number): Promise<EvictionPreflightOutcome> {
    const outcome = await this.#evictOnce(pod, gracePeriodSeconds, true);
    if (outcome.kind === "blocked") return outcome;
    if (outcome.kind === "refused")
      return { kind: "unknown", status: outcome.status, message: outcome.message };
    return outcome.kind === "done" ? { kind: "allowed" } : { kind: "gone" };
  }

  evictPodOrBlocked(pod: PodRef, gracePeriodSeconds: number): Promise<EvictionAttemptOutcome> {
    return this.#evictOnce(pod, gracePeriodSeconds, false);
  }

  /** pods/NAME/eviction, a budget's refusal taken as the answer (not retried); transient failures retried. */
  async #evictOnce(
    pod: PodRef,
    gracePeriodSeconds: number,
    dryRun: boolean,
  ): Promise<EvictionAttemptOutcome> {
    let blocked: string | undefined;
    const outcome = await this.#client.write(
      this.#api,
      // A dry run is authorized as the request itself: `create pods/eviction`.
      { verb: "create", resource: "pods", subresource: "eviction", namespace: pod.namespace },
      {
        method: "POST",
        path: `${podPath(pod)}/eviction`,
        body: evictionBody(pod, gracePeriodSeconds, dryRun),
        contentType: JSON_TYPE,
        disruptionBudgetAttempts: 1,
      },
      (response, status) => {
        blocked = budgetRefusal(response, status);
        return blocked === undefined
          ? undefined
          : { kind: "refused", status: response.status, message: blocked };
      },
    );
    return blocked !== undefined ? { kind: "blocked", message: blocked } : outcome;
  }

  async createEvictionRequest(pod: PodRef): Promise<EvictionRequestOutcome> {
    const path = evictionRequestsPath(pod.namespace);
    let notServed: string | undefined;
    const outcome = await this.#client.write(
      this.#api,
      {
        verb: "create",
        group: EVICTION_REQUEST_GROUP,
        resource: "evictionrequests",
        namespace: pod.namespace,
      },
      { method: "POST", path, body: evictionRequestBody(pod), contentType: JSON_TYPE },
      (response, status) => {
        // The pod's namespace exists, so a 404 on its collection is the resource not being served.
        if (response.status === 404) {
          notServed = `404 from POST ${path}: ${status?.message ?? "not found"}`;
          return { kind: "gone" };
        }
        // Ours: the name is the pod's uid, and an earlier attempt was stored though its answer was lost.
        return response.status === 409 && status?.reason === "AlreadyExists" ? { kind: "done" } : undefined;
      },
    );
    return notServed === undefined ? outcome : { kind: "not-served", message: notServed };
  }

  deleteEvictionRequest(pod: PodRef): Promise<WriteOutcome> {
    return this.#client.write(
      this.#api,
      {
        verb: "delete",
        group: EVICTION_REQUEST_GROUP,
        resource: "evictionrequests",
        namespace: pod.namespace,
      },
      {
        method: "DELETE",
        path: evictionRequestsPath(pod.namespace, evictionRequestName(pod)),
        body: { kind: "DeleteOptions", apiVersion: "v1" },
        contentType: JSON_TYPE,
      },
    );
  }

  /**
   * The permission a Summary/configz read needs: through the API server, `get nodes/proxy`; on the
   * kubelet, `get nodes/stats` for /stats and `get nodes/proxy` for everything else.
   */
  #statsOperation(kubeletSubresource: "stats" | "proxy"): ApiOperation {
    return {
      verb: "get",
      resource: "nodes",
      subresource: this.#stats.kind === "kubelet" ? kubeletSubresource : "proxy",
    };
  }

  #parse(text: string, path: string, parse: (text: string) => unknown): unknown {
    try {
      return parse(text);
    } catch (error) {
      throw this.#badResponse(
        path,
        `is not JSON (${error instanceof Error ? error.message : String(error)})`,
        error,
      );
    }
  }

  #badResponse(path: string, what: string, cause?: unknown): KubeApiError {
    const endpoint = path.startsWith("/api/") ? this.#api : this.#stats;
    return new KubeApiError("kube-bad-response", `the response to GET ${path} ${what}`, {
      method: "GET",
      url: endpointUrl(endpoint, path).href,
      status: 200,
      reason: undefined,
      transient: false,
      ...(cause === undefined ? {} : { cause }),
    });
  }
}

/**
 * The words of an Eviction that PodDisruptionBudgets refuse, or undefined: 429 with
 * `DisruptionBudget` causes (the budget allows no disruption now, or is still being processed), or
 * the refusal of a pod that more than one budget selects (a Failure Status of code 500; read from a
 * successful answer too, should a server send that Status with the 201 of its create handler).
 */
const budgetRefusal: (...args: Parameters<OutcomeOverride>) => string | undefined = (response, status) => {
  const causes = disruptionBudgetCauses(status);
  if (response.status === 429 && causes.length > 0)
    return [status?.message ?? "", ...causes].join(" ").trim();
  const said = status ?? parseApiStatus(response.body);
  return isMultipleBudgetsRefusal(said) ? (said?.message ?? "") : undefined;
};

async function readCa(file: string | undefined): Promise<Buffer | undefined> {
  if (file === undefined) return undefined;
  try {
    return await readFile(file);
  } catch (error) {
    throw new AdapterError(
      "kubelet-ca",
      `cannot read the kubelet CA file ${file}: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    );
  }
}
