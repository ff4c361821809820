/**
 * A local stand-in for the Kubernetes API server (and a node's kubelet) for tests: the paths evictd
 * uses, answered with real payloads from test/fixtures/real-data, every request recorded, failures injectable
 * per route, bearer-token authentication, and mutators that change the node and its pods over time
 * (pod changes reach open watches).
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import http from "node:http";
import https from "node:https";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { EXACT_INT_PREFIX, parseJsonExact } from "../../../src/formats/json/parse-json-exact.js";
import {
  FakeClusterState,
  kubeletStyleNode,
  type FakePod,
  type WatchLine,
  type WatchSink,
} from "./fake-cluster-state.js";
import { mergeStatus, nodeFromSelector, preconditionRefusal } from "./fake-pod-semantics.js";
import {
  FakeDisruptionBudgets,
  type FakeBudgetSpec,
  type FakeBudgetStatus,
} from "./fake-disruption-budgets.js";
import { FakeEvictionRequests, type FakeAnswer } from "./fake-eviction-requests.js";
import {
  attributesOf,
  defaultFailure,
  FailureRules,
  type Attributes,
  type FailureRule,
  type InjectedResponse,
  type RecordedRequest,
} from "./fake-requests.js";
import {
  asRecord,
  notFound,
  readBody,
  sendJson,
  sendRaw,
  sendStatus,
  sendText,
  tryJson,
} from "./fake-responses.js";
import { writeKubeconfig, type KubeconfigContext } from "../../k8s/write-kubeconfig.js";
import { REPO_ROOT, REAL_DATA } from "../../support/repo-paths.js";

export { writeKubeconfig, type KubeconfigContext } from "../../k8s/write-kubeconfig.js";
export type { FakePod } from "./fake-cluster-state.js";
export type { FakeBudgetSpec, FakeBudgetStatus } from "./fake-disruption-budgets.js";
export type { FailureRule, InjectedResponse, RecordedRequest } from "./fake-requests.js";
export { isDryRun } from "./fake-requests.js";

/** The real payloads the fake server answers with (test/fixtures/real-data, see its SOURCES.md). */
export { REAL_DATA };
/** Test-only TLS material: a CA, a server certificate for 127.0.0.1/localhost signed by it, and an unrelated CA. */
export const TLS_FIXTURES = path.join(REPO_ROOT, "test/harness/fake-api-server/fixtures/tls");

export interface FakeApiServerOptions {
  /** The bearer token every request must carry; default "evictd-test-token". */
  readonly token?: string;
  /** Default "datagen-1-35", the node of summary-1.json and pods-1.json. */
  readonly nodeName?: string;
  readonly dataDir?: string;
  /** Default "summary-1.json". */
  readonly summaryFile?: string;
  /** A PodList file; default "pods-1.json". */
  readonly podsFile?: string;
  /** KubeletConfiguration served by configz; default "kubeletconfig-1.yaml". */
  readonly kubeletConfigFile?: string;
  /** The Node's InternalIP; default 127.0.0.1 (so the kubelet source reaches this server). */
  readonly nodeAddress?: string;
  /** Serve HTTPS with the fixture certificate (test/harness/fake-api-server/fixtures/tls). */
  readonly tls?: boolean;
  /** The user named in Forbidden messages. */
  readonly user?: string;
  /** What happens after a graceful DELETE or eviction sets deletionTimestamp; see {@link DeletionMode}. */
  readonly deletion?: DeletionMode;
  /** How a watch from a too-old resourceVersion is refused: an ERROR event (current servers) or HTTP 410. */
  readonly expiredWatch?: "event" | "http";
  /**
   * Whether `evictionrequests.lifecycle.k8s.io/v1alpha1` is served (default: not, as on a cluster
   * that has not enabled the alpha API).
   */
  readonly evictionRequests?: "served" | "not-served";
  /**
   * What follows a served EvictionRequest: `evict` (default) stands in for the evictionrequest
   * controller and a pod without responders, whose last responder, the imperative evictor, evicts
   * the pod through the eviction subresource (budgets included) and the request is marked
   * TargetEvicted; `none` leaves it pending.
   */
  readonly evictionRequestResponder?: "evict" | "none";
}

/**
 * After a DELETE with a grace period: `at-once` removes the pod right after marking it (a kubelet
 * that stops it instantly), `after-grace` removes it when the grace period has passed, `hold` keeps
 * it terminating until {@link FakeApiServer.finishDeletion}. `{ containersStopInMs }` is the
 * kubelet of 1.27+: its containers stop after that long (at most the grace period), it writes the
 * terminal phase Failed, then removes the object (a DELETE with grace 0). Grace 0 always removes at
 * once; so does any DELETE of a pod already Failed or Succeeded, or never scheduled
 * (`CheckGracefulDelete` in pkg/registry/core/pod/strategy.go).
 */
export type DeletionMode = "at-once" | "after-grace" | "hold" | { readonly containersStopInMs: number };

/** A PodDisruptionBudget that currently allows no disruption. */
export interface BlockingBudget {
  readonly name: string;
  readonly desiredHealthy: number;
  readonly currentHealthy: number;
}

/** Starts a fake API server on 127.0.0.1 (random port). */
export async function startFakeApiServer(options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const server = new FakeApiServer(options);
  await server.listen();
  return server;
}

/** The fake server; see the module comment. */
export class FakeApiServer {
  readonly token: string;
  readonly nodeName: string;
  readonly requests: RecordedRequest[] = [];
  /** Called with every request as it is recorded, before it is answered (e.g. a kubelet reacting to an eviction). */
  onRequest: ((request: RecordedRequest) => void) | undefined;
  /** Deletion behaviour; may be changed between requests. */
  deletion: DeletionMode;
  expiredWatch: "event" | "http";
  readonly #options: FakeApiServerOptions;
  readonly #server: http.Server;
  readonly #sockets = new Set<Socket>();
  /** Connections that have carried a request. */
  readonly #used = new WeakSet<object>();
  /** Connections accepted so far (TCP; over TLS each is a handshake): what a client's keep-alive saves. */
  connectionsAccepted = 0;
  readonly #failures = new FailureRules();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #user: string;
  #state: FakeClusterState | undefined;
  #budget: BlockingBudget | undefined;
  readonly #budgets = new FakeDisruptionBudgets();
  readonly #evictionRequests: FakeEvictionRequests;
  /** What follows a served EvictionRequest; may be changed between requests. */
  evictionRequestResponder: "evict" | "none";
  #port = 0;

  constructor(options: FakeApiServerOptions) {
    this.#options = options;
    this.token = options.token ?? "evictd-test-token";
    this.nodeName = options.nodeName ?? "datagen-1-35";
    this.deletion = options.deletion ?? "at-once";
    this.expiredWatch = options.expiredWatch ?? "event";
    this.#evictionRequests = new FakeEvictionRequests(options.evictionRequests === "served");
    this.evictionRequestResponder = options.evictionRequestResponder ?? "evict";
    this.#user = options.user ?? "system:serviceaccount:kube-system:evictd";
    const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
      this.#handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) sendStatus(res, 500, "InternalError", `fake server bug: ${String(error)}`);
        else res.destroy();
      });
    };
    this.#server =
      options.tls === true
        ? https.createServer(
            {
              cert: readFileSync(path.join(TLS_FIXTURES, "server.crt")),
              key: readFileSync(path.join(TLS_FIXTURES, "server.key")),
            },
            handler,
          )
        : http.createServer(handler);
    // kube-apiserver keeps idle connections for 90 s (IdleTimeout in apiserver/pkg/server/
    // secure_serving.go, "matches http.DefaultTransport keep-alive timeout"); node's default is 5 s.
    this.#server.keepAliveTimeout = 90_000;
    this.#server.on("connection", (socket: Socket) => {
      this.connectionsAccepted += 1;
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
    this.#server.on("secureConnection", (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  /** Binds 127.0.0.1:0 and loads the data (the Node needs the port). */
  async listen(): Promise<void> {
    // The data first: a server left listening after a failed load would keep the test process alive.
    const dir = this.#options.dataDir ?? REAL_DATA;
    const summaryText = readFileSync(path.join(dir, this.#options.summaryFile ?? "summary-1.json"), "utf8");
    const podList = JSON.parse(
      readFileSync(path.join(dir, this.#options.podsFile ?? "pods-1.json"), "utf8"),
    ) as { items: FakePod[] };
    const config = parseYaml(
      readFileSync(path.join(dir, this.#options.kubeletConfigFile ?? "kubeletconfig-1.yaml"), "utf8"),
    ) as Record<string, unknown>;
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.#port = (this.#server.address() as AddressInfo).port;
    const node = kubeletStyleNode(
      this.nodeName,
      this.#options.nodeAddress ?? "127.0.0.1",
      this.#port,
      summaryText,
    );
    this.#state = new FakeClusterState(this.nodeName, node, summaryText, configzText(config), podList.items);
  }

  get port(): number {
    return this.#port;
  }

  /** `http://127.0.0.1:PORT` (or https). */
  get url(): string {
    return `${this.#options.tls === true ? "https" : "http"}://127.0.0.1:${this.#port}`;
  }

  /** The CA file clients need for the TLS server. */
  get caFile(): string {
    return path.join(TLS_FIXTURES, "ca.crt");
  }

  get state(): FakeClusterState {
    if (this.#state === undefined) throw new Error("fake: not listening");
    return this.#state;
  }

  /** A kubeconfig context for this server (token, and CA or insecure-skip-tls-verify). */
  context(name = "fake", token: string | undefined = this.token): KubeconfigContext {
    return {
      name,
      server: this.url,
      ...(token === undefined ? {} : { token }),
      ...(this.#options.tls === true ? { caFile: this.caFile } : { insecureSkipTlsVerify: true }),
    };
  }

  /** Writes a kubeconfig with one context for this server to `file`. */
  writeKubeconfig(file: string, name = "fake", token: string | undefined = this.token): Promise<string> {
    return writeKubeconfig(file, [this.context(name, token)]);
  }

  // ----- recording -----

  /** Recorded requests with this method whose path starts with `prefix`. */
  requestsTo(method: string, prefix = "/"): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.startsWith(prefix));
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  // ----- failures -----

  /** Adds a failure rule; later rules are checked after earlier ones. */
  fail(rule: FailureRule): void {
    this.#failures.add(rule);
  }

  clearFailures(): void {
    this.#failures.clear();
  }

  /** Evictions of running pods are refused with 429, as a PodDisruptionBudget with no disruptions left does. */
  blockEvictions(budget: BlockingBudget): void {
    this.#budget = budget;
  }

  allowEvictions(): void {
    this.#budget = undefined;
  }

  /** Declares a PodDisruptionBudget; the eviction subresource checks it as upstream does. */
  addPodDisruptionBudget(spec: FakeBudgetSpec): void {
    this.#budgets.add(spec);
  }

  removePodDisruptionBudget(namespace: string, name: string): void {
    this.#budgets.remove(namespace, name);
  }

  /** A budget's status as the disruption controller would write it now. */
  podDisruptionBudgetStatus(namespace: string, name: string): FakeBudgetStatus | undefined {
    return this.#budgets.status(namespace, name, this.state.pods());
  }

  /** Starts or stops serving EvictionRequests (the alpha API enabled or not). */
  serveEvictionRequests(served: boolean): void {
    this.#evictionRequests.served = served;
  }

  /** The EvictionRequests stored, as stored. */
  get evictionRequests(): Record<string, unknown>[] {
    return this.#evictionRequests.all();
  }

  // ----- mutators -----

  /** Replaces the Summary served (raw text: uint64 values survive). */
  setSummary(text: string): void {
    this.state.summaryText = text;
  }

  /**
   * Changes the Summary through `mutate` on an exactly parsed copy: numbers beyond 2^53 are
   * sentinel strings (parse-json-exact) and are written back as bare numbers with every digit.
   */
  updateSummary(mutate: (summary: Record<string, unknown>) => void): void {
    const summary = parseJsonExact(this.state.summaryText) as Record<string, unknown>;
    mutate(summary);
    this.state.summaryText = stringifyExact(summary);
  }

  /** The configz payload: `{"kubeletconfig": config}`. */
  setKubeletConfig(config: Record<string, unknown>): void {
    this.state.configzText = configzText(config);
  }

  setNode(node: Record<string, unknown>): void {
    this.state.node = node;
  }

  addPod(pod: FakePod): FakePod {
    return this.state.addPod(pod);
  }

  modifyPod(namespace: string, name: string, mutate: (pod: FakePod) => void): FakePod {
    return this.state.modifyPod(namespace, name, mutate);
  }

  removePod(namespace: string, name: string): FakePod | undefined {
    return this.state.removePod(namespace, name);
  }

  /** Ends the termination of a pod held by deletion mode `hold`. */
  finishDeletion(namespace: string, name: string): void {
    this.state.removePod(namespace, name);
  }

  pod(namespace: string, name: string): FakePod | undefined {
    return this.state.pod(namespace, name);
  }

  /** Events created through the API, as stored. */
  get events(): readonly Record<string, unknown>[] {
    return this.state.events;
  }

  // ----- watches -----

  waitForWatchers(count = 1): Promise<void> {
    return this.state.waitForWatchers(count);
  }

  sendBookmark(): void {
    this.state.bookmark();
  }

  expireWatches(): void {
    this.state.expireWatches();
  }

  endWatches(): void {
    this.state.endWatches();
  }

  compactHistory(): void {
    this.state.compactHistory();
  }

  /** Destroys every open connection (open watches break off mid-stream). */
  dropConnections(): void {
    for (const socket of this.#sockets) socket.destroy();
  }

  /** Stops the server, dropping open connections (watches, hung requests) and timers. */
  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#state?.endWatches();
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  // ----- HTTP -----

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const receivedAt = performance.timeOrigin + performance.now();
    const newConnection = !this.#used.has(req.socket);
    this.#used.add(req.socket);
    const url = new URL(req.url ?? "/", "http://fake");
    const body = await readBody(req);
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      contentType: req.headers["content-type"],
      authorization: req.headers.authorization,
      body,
      json: tryJson(body),
      receivedAt,
      newConnection,
    };
    this.requests.push(recorded);
    this.onRequest?.(recorded);
    const attributes = attributesOf(recorded);

    const injected = this.#failures.take(recorded);
    if (injected !== undefined) {
      this.#inject(injected, res, recorded, attributes);
      return;
    }
    if (recorded.authorization !== `Bearer ${this.token}`) {
      if (attributes.kubelet) sendText(res, 401, "Unauthorized");
      else sendStatus(res, 401, "Unauthorized", "Unauthorized");
      return;
    }
    this.#route(recorded, res, req);
  }

  #inject(
    response: InjectedResponse,
    res: http.ServerResponse,
    request: RecordedRequest,
    attributes: Attributes,
  ): void {
    if (response.kind === "close") {
      res.socket?.destroy();
      return;
    }
    if (response.kind === "hang") return;
    const headers = response.headers ?? {};
    if (response.body !== undefined) {
      const text = typeof response.body === "string" ? response.body : JSON.stringify(response.body);
      res.writeHead(response.status, { "Content-Type": "application/json", ...headers }).end(text);
      return;
    }
    if (attributes.kubelet && (response.status === 401 || response.status === 403)) {
      const text =
        response.status === 401
          ? "Unauthorized"
          : `Forbidden (user=${this.#user}, verb=${attributes.verb}, resource=${attributes.resource}, subresource=${attributes.subresource ?? ""})`;
      sendText(res, response.status, response.message ?? text, headers);
      return;
    }
    const [reason, message] = defaultFailure(response.status, attributes, this.#user, request);
    sendStatus(res, response.status, reason, response.message ?? message, headers);
  }

  #route(request: RecordedRequest, res: http.ServerResponse, req: http.IncomingMessage): void {
    const state = this.state;
    const { method, path: p } = request;
    let m: RegExpExecArray | null;

    if (method === "GET" && (m = /^\/api\/v1\/nodes\/([^/]+)$/.exec(p))) {
      if (decodeURIComponent(m[1] ?? "") !== this.nodeName) return notFound(res, "nodes", m[1]);
      return sendJson(res, 200, state.node);
    }
    if (method === "GET" && (m = /^\/api\/v1\/nodes\/([^/]+)\/proxy\/(stats\/summary|configz)$/.exec(p))) {
      if (decodeURIComponent(m[1] ?? "") !== this.nodeName) return notFound(res, "nodes", m[1]);
      return sendRaw(res, 200, m[2] === "configz" ? state.configzText : state.summaryText);
    }
    if (method === "GET" && p === "/stats/summary") return sendRaw(res, 200, state.summaryText);
    if (method === "GET" && p === "/configz") return sendRaw(res, 200, state.configzText);
    if (method === "GET" && p === "/api/v1/pods") {
      const nodeName = nodeFromSelector(request.query.fieldSelector);
      if (nodeName === false) {
        return sendStatus(
          res,
          400,
          "BadRequest",
          `unable to parse requirement: field label not supported: ${request.query.fieldSelector}`,
        );
      }
      if (request.query.watch === "1" || request.query.watch === "true")
        return this.#watch(request, res, req, nodeName);
      return sendJson(res, 200, {
        kind: "PodList",
        apiVersion: "v1",
        metadata: { resourceVersion: state.resourceVersion },
        items: state.pods(nodeName),
      });
    }
    if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)(\/status|\/eviction)?$/.exec(p))) {
      const namespace = decodeURIComponent(m[1] ?? "");
      const name = decodeURIComponent(m[2] ?? "");
      const sub = m[3];
      if (method === "GET" && sub === undefined) {
        const pod = state.pod(namespace, name);
        return pod === undefined ? notFound(res, "pods", name) : sendJson(res, 200, pod);
      }
      if (method === "PATCH" && sub === "/status") return this.#patchStatus(request, res, namespace, name);
      if (method === "DELETE" && sub === undefined) return this.#delete(request, res, namespace, name);
      if (method === "POST" && sub === "/eviction") return this.#evict(request, res, namespace, name);
    }
    if (method === "POST" && (m = /^\/api\/v1\/namespaces\/([^/]+)\/events$/.exec(p))) {
      return this.#createEvent(request, res, decodeURIComponent(m[1] ?? ""));
    }
    if (
      this.#evictionRequests.served &&
      (m = /^\/apis\/lifecycle\.k8s\.io\/v1alpha1\/namespaces\/([^/]+)\/evictionrequests(?:\/([^/]+))?$/.exec(
        p,
      ))
    ) {
      const namespace = decodeURIComponent(m[1] ?? "");
      const name = m[2] === undefined ? undefined : decodeURIComponent(m[2]);
      if (method === "POST" && name === undefined)
        return this.#createEvictionRequest(request, res, namespace);
      if (method === "DELETE" && name !== undefined)
        return send(res, this.#evictionRequests.delete(namespace, name));
      if (method === "GET" && name !== undefined) {
        const stored = this.#evictionRequests.get(namespace, name);
        return stored === undefined
          ? notFound(res, "evictionrequests.lifecycle.k8s.io", name)
          : sendJson(res, 200, stored);
      }
    }
    sendStatus(res, 404, "NotFound", "the server could not find the requested resource");
  }

  #watch(
    request: RecordedRequest,
    res: http.ServerResponse,
    req: http.IncomingMessage,
    nodeName: string | undefined,
  ): void {
    const state = this.state;
    const rv = request.query.resourceVersion ?? "";
    const replay = state.replayFrom(rv, nodeName);
    if (replay === "expired" && this.expiredWatch === "http") {
      sendJson(res, 410, state.expiredStatus(rv));
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
    res.flushHeaders();
    const write = (line: WatchLine): void => {
      if (!res.writableEnded) res.write(`${JSON.stringify(line)}\n`);
    };
    if (replay === "expired") {
      write({ type: "ERROR", object: state.expiredStatus(rv) });
      res.end();
      return;
    }
    for (const line of replay) write(line);
    let timer: NodeJS.Timeout | undefined;
    const sink: WatchSink = {
      nodeName,
      send: write,
      end: () => {
        state.unsubscribe(sink);
        if (timer !== undefined) clearTimeout(timer);
        if (!res.writableEnded) res.end();
      },
    };
    const timeout = Number(request.query.timeoutSeconds ?? "0");
    if (timeout > 0) {
      timer = setTimeout(() => sink.end(), timeout * 1000);
      timer.unref();
    }
    req.on("close", () => sink.end());
    res.on("close", () => sink.end());
    state.subscribe(sink);
  }

  #patchStatus(request: RecordedRequest, res: http.ServerResponse, namespace: string, name: string): void {
    const type = request.contentType?.split(";")[0]?.trim();
    if (type !== "application/strategic-merge-patch+json" && type !== "application/merge-patch+json") {
      return sendStatus(
        res,
        415,
        "UnsupportedMediaType",
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
      );
    }
    const patch = asRecord(request.json);
    if (patch === undefined)
      return sendStatus(res, 400, "BadRequest", "the request body is not a JSON object");
    const pod = this.state.pod(namespace, name);
    if (pod === undefined) return notFound(res, "pods", name);
    const uid = asRecord(patch.metadata)?.uid;
    if (typeof uid === "string" && uid !== pod.metadata.uid) {
      // ValidateObjectMetaUpdate: uid is immutable, so a patch naming another incarnation is invalid.
      return sendJson(res, 422, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `Pod "${name}" is invalid: metadata.uid: Invalid value: "${uid}": field is immutable`,
        reason: "Invalid",
        details: {
          name,
          kind: "Pod",
          causes: [
            {
              reason: "FieldValueInvalid",
              message: `Invalid value: "${uid}": field is immutable`,
              field: "metadata.uid",
            },
          ],
        },
        code: 422,
      });
    }
    const statusPatch = asRecord(patch.status) ?? {};
    const updated = this.state.modifyPod(namespace, name, (p) => mergeStatus(p, statusPatch));
    sendJson(res, 200, updated);
  }

  #delete(request: RecordedRequest, res: http.ServerResponse, namespace: string, name: string): void {
    const pod = this.state.pod(namespace, name);
    if (pod === undefined) return notFound(res, "pods", name);
    const options = asRecord(request.json) ?? {};
    const refusal = preconditionRefusal(pod, options);
    if (refusal !== undefined) return sendJson(res, 409, refusal);
    const result = this.#terminate(pod, options);
    sendJson(res, 200, result);
  }

  /**
   * POST pods/NAME/eviction, as `EvictionREST.Create` (pkg/registry/core/pod/storage/eviction.go)
   * answers it. `dryRun` may come in the query or in the Eviction's DeleteOptions (`propagateDryRun`:
   * either, or both when they are equal). A terminal, pending or terminating pod is deleted without
   * a budget (`canIgnorePDB`). Otherwise the pod's budgets decide (fake-disruption-budgets.ts): more
   * than one is a Failure Status of code 500, none allowing a disruption a 429 TooManyRequests with
   * a `DisruptionBudget` cause. An allowed eviction marks the pod DisruptionTarget and deletes it
   * (`addConditionAndDeletePod`); a dry run does neither and records nothing in the budget, and
   * answers as the real one does: 201 with a Success Status (the create handler's code).
   */
  #evict(request: RecordedRequest, res: http.ServerResponse, namespace: string, name: string): void {
    const eviction = asRecord(request.json);
    const metadata = asRecord(eviction?.metadata);
    if (eviction === undefined || metadata?.name !== name) {
      return sendStatus(res, 400, "BadRequest", "name in URL does not match name in Eviction object");
    }
    const options = asRecord(eviction.deleteOptions) ?? {};
    const inQuery = request.query.dryRun === undefined ? [] : [request.query.dryRun];
    const inBody = Array.isArray(options.dryRun) ? (options.dryRun as unknown[]) : [];
    if (inQuery.length > 0 && inBody.length > 0 && JSON.stringify(inQuery) !== JSON.stringify(inBody)) {
      return sendStatus(
        res,
        500,
        "InternalError",
        `Internal error occurred: Non-matching dry-run options in request and content: [${inQuery.join(" ")}] and [${inBody.join(" ")}]`,
      );
    }
    const dryRun = [...inQuery, ...inBody];
    if (dryRun.some((v) => v !== "All"))
      return sendStatus(
        res,
        400,
        "BadRequest",
        `Unsupported value: ${JSON.stringify(dryRun)}: supported values: "All"`,
      );
    const answer = this.#evictPod(namespace, name, options, dryRun.length > 0);
    sendJson(res, answer.status, answer.body);
  }

  /** The eviction subresource on one pod (see #evict): its answer, and its effect unless `dryRun`. */
  #evictPod(namespace: string, name: string, options: Record<string, unknown>, dryRun: boolean): FakeAnswer {
    const success: FakeAnswer = {
      status: 201,
      body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 },
    };
    const pod = this.state.pod(namespace, name);
    if (pod === undefined) return notFoundAnswer("pods", name);
    const phase = pod.status?.phase;
    const ignoreBudget =
      phase === "Succeeded" ||
      phase === "Failed" ||
      phase === "Pending" ||
      pod.metadata.deletionTimestamp !== undefined;
    if (!ignoreBudget && this.#budget !== undefined) {
      const b = this.#budget;
      return budgetRefusal(b.name, b.desiredHealthy, b.currentHealthy);
    }
    if (!ignoreBudget) {
      // As upstream, the budget records the disruption before the delete checks the preconditions.
      const check = this.#budgets.check(pod, this.state.pods(), dryRun, new Date());
      if (check.kind === "too-many-budgets")
        return {
          status: 500,
          body: {
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Failure",
            message:
              "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
            code: 500,
          },
        };
      if (check.kind === "refused")
        return budgetRefusal(check.budget, check.status.desiredHealthy, check.status.currentHealthy);
    }
    // The store checks the uid precondition on a dry-run delete too.
    const refusal = preconditionRefusal(pod, options);
    if (refusal !== undefined) return { status: 409, body: refusal };
    if (dryRun) return success;
    // The eviction subresource marks a pod it is about to delete (PodDisruptionConditions, GA in 1.31).
    const marked = this.state.modifyPod(namespace, name, (p) =>
      mergeStatus(p, {
        conditions: [
          {
            type: "DisruptionTarget",
            status: "True",
            reason: "EvictionByEvictionAPI",
            message: "Eviction API: evicting",
            lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
          },
        ],
      }),
    );
    this.#terminate(marked, options);
    return success;
  }

  /**
   * POST of an EvictionRequest (fake-eviction-requests.ts), then, with the `evict` responder, what
   * the evictionrequest controller and the imperative evictor would do for a pod without responders
   * of its own: evict the target through the eviction subresource, budgets included, and mark the
   * request TargetEvicted once that went through. Done a little later, as a controller reacts to
   * the object it watches.
   */
  #createEvictionRequest(request: RecordedRequest, res: http.ServerResponse, namespace: string): void {
    const answer = this.#evictionRequests.create(
      namespace,
      request.json,
      this.state.resourceVersion,
      new Date(),
    );
    send(res, answer);
    if (answer.status !== 201 || this.evictionRequestResponder !== "evict") return;
    const stored = answer.body as {
      metadata: { name: string };
      spec: { intent: string; target: { pod: { name: string; uid: string } } };
    };
    if (stored.spec.intent !== "Eviction") return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      const target = stored.spec.target.pod;
      if (this.state.pod(namespace, target.name)?.metadata.uid !== target.uid) return;
      const evicted = this.#evictPod(namespace, target.name, { preconditions: { uid: target.uid } }, false);
      if (evicted.status === 201)
        this.#evictionRequests.setCondition(
          namespace,
          stored.metadata.name,
          "TargetEvicted",
          "Evicted",
          new Date(),
        );
    }, 20);
    this.#timers.add(timer);
  }

  /**
   * Graceful deletion as the pod strategy's CheckGracefulDelete decides it: the DeleteOptions'
   * grace, else the pod's terminationGracePeriodSeconds, else 0 (the API's default of 30 s is set at
   * creation); 0 for a pod never scheduled and for one already in a terminal phase. Grace 0
   * removes at once; otherwise the pod is marked with deletionTimestamp, then removed per the
   * deletion mode.
   */
  #terminate(pod: FakePod, options: Record<string, unknown>): FakePod {
    const { namespace, name } = pod.metadata;
    let grace =
      typeof options.gracePeriodSeconds === "number"
        ? options.gracePeriodSeconds
        : typeof pod.spec.terminationGracePeriodSeconds === "number"
          ? pod.spec.terminationGracePeriodSeconds
          : 0;
    const phase = pod.status?.phase;
    if (typeof pod.spec.nodeName !== "string" || pod.spec.nodeName === "") grace = 0;
    if (phase === "Failed" || phase === "Succeeded") grace = 0;
    if (grace <= 0) return this.state.removePod(namespace, name) ?? pod;
    const marked = this.state.modifyPod(namespace, name, (p) => {
      p.metadata.deletionTimestamp ??= new Date(Date.now() + grace * 1000)
        .toISOString()
        .replace(/\.\d{3}Z$/, "Z");
      p.metadata.deletionGracePeriodSeconds = grace;
    });
    const later = (ms: number, act: () => void): void => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        act();
      }, ms);
      this.#timers.add(timer);
    };
    const mode = this.deletion;
    if (mode === "at-once") this.state.removePod(namespace, name);
    else if (mode === "after-grace") later(grace * 1000, () => this.state.removePod(namespace, name));
    else if (typeof mode === "object") {
      later(Math.min(mode.containersStopInMs, grace * 1000), () => {
        if (this.state.pod(namespace, name)?.metadata.uid !== pod.metadata.uid) return;
        // The kubelet's status manager: containers stopped, the terminal phase, then the removal.
        this.state.modifyPod(namespace, name, (p) => mergeStatus(p, { phase: "Failed" }));
        this.state.removePod(namespace, name);
      });
    }
    return marked;
  }

  #createEvent(request: RecordedRequest, res: http.ServerResponse, namespace: string): void {
    const event = asRecord(request.json);
    if (event === undefined)
      return sendStatus(res, 400, "BadRequest", "the request body is not a JSON object");
    const metadata = { ...(asRecord(event.metadata) ?? {}) };
    if (metadata.namespace !== undefined && metadata.namespace !== namespace) {
      return sendStatus(
        res,
        400,
        "BadRequest",
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    let name = typeof metadata.name === "string" ? metadata.name : "";
    if (name === "" && typeof metadata.generateName === "string")
      name = `${metadata.generateName}${randomUUID().slice(0, 5)}`;
    if (name === "")
      return sendStatus(
        res,
        422,
        "Invalid",
        'Event.v1 "" is invalid: metadata.name: Required value: name or generateName is required',
      );
    const events = this.state.events;
    if (
      events.some((e) => asRecord(e.metadata)?.namespace === namespace && asRecord(e.metadata)?.name === name)
    ) {
      return sendJson(res, 409, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `events "${name}" already exists`,
        reason: "AlreadyExists",
        details: { name, kind: "events" },
        code: 409,
      });
    }
    const stored = {
      ...event,
      metadata: {
        ...metadata,
        name,
        namespace,
        uid: randomUUID(),
        resourceVersion: this.state.resourceVersion,
        creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      },
    };
    events.push(stored);
    sendJson(res, 201, stored);
  }
}

function send(res: http.ServerResponse, answer: FakeAnswer): void {
  sendJson(res, answer.status, answer.body);
}

function notFoundAnswer(resource: string, name: string): FakeAnswer {
  return {
    status: 404,
    body: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `${resource} "${name}" not found`,
      reason: "NotFound",
      details: { name, kind: resource },
      code: 404,
    },
  };
}

/**
 * The 429 of `checkAndDecrement` when the budget allows no disruption: `NewTooManyRequests` with
 * no Retry-After (0 is omitted) and one `DisruptionBudget` cause naming the budget.
 */
function budgetRefusal(budget: string, desiredHealthy: number, currentHealthy: number): FakeAnswer {
  return {
    status: 429,
    body: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: "TooManyRequests",
      details: {
        causes: [
          {
            reason: "DisruptionBudget",
            message: `The disruption budget ${budget} needs ${desiredHealthy} healthy pods and has ${currentHealthy} currently`,
          },
        ],
      },
      code: 429,
    },
  };
}

function configzText(config: Record<string, unknown>): string {
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = config;
  return JSON.stringify({ kubeletconfig: rest });
}

/** JSON.stringify that writes parse-json-exact's sentinel strings back as bare numbers. */
function stringifyExact(value: unknown): string {
  const escapedPrefix = JSON.stringify(EXACT_INT_PREFIX).slice(1, -1).replace(/\\/g, "\\\\");
  return JSON.stringify(value, null, 1).replace(
    new RegExp(`"${escapedPrefix}(-?[0-9][0-9.eE+-]*)"`, "g"),
    "$1",
  );
}
