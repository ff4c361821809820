/**
 * Requests with retries and with their results turned into what the port promises: a read returns
 * the body or throws a {@link KubeApiError} a user can act on; a write returns a WriteOutcome
 * (done, gone, refused); a watch opens a stream or throws. Transient failures (network, 409, 429,
 * 5xx) are retried per the {@link RetryPolicy}.
 */
import type { WriteOutcome } from "../app/cluster/cluster-node-port.js";
import { WatchExpiredError } from "../app/cluster/cluster-node-port.js";
import { AdapterError } from "../errors.js";
import { describePermission, type ApiOperation } from "./api-operation.js";
import {
  disruptionBudgetCauses,
  isMultipleBudgetsRefusal,
  isUidMismatch,
  parseApiStatus,
  responseMessage,
  statusLine,
  type ApiStatus,
} from "./api-status.js";
import {
  endpointUrl,
  exchange,
  openStream,
  TransportFailure,
  type ExchangeRequest,
  type ExchangeResponse,
  type StreamResponse,
} from "./http-exchange.js";
import { KubeApiError, type KubeApiErrorCode } from "./kube-api-error.js";
import type { KubeEndpoint } from "./kube-endpoint.js";
import { parseRetryAfter, retryDelay, type RetryPolicy } from "./retry-policy.js";
import { formatDurationMs } from "../core/time/duration.js";

/** A retry about to be made, for the log: what failed, which attempt it was, when the next one goes. */
export interface RetryNotice {
  readonly method: string;
  readonly path: string;
  /** Where the request went: "the API server at https://10.0.0.1:6443". */
  readonly endpoint: string;
  /** What went wrong: "no response within 10s", "503 Service Unavailable: ...". */
  readonly problem: string;
  /** The attempt that failed (1 for the first). */
  readonly attempt: number;
  /** The most attempts there will be (fewer when the time budget runs out first). */
  readonly maxAttempts: number;
  readonly retryInMs: number;
  /** All of it in one line. */
  readonly message: string;
}

/** What the client needs from its surroundings; clock, randomness and sleep are injectable for tests. */
export interface KubeClientOptions {
  readonly retry: RetryPolicy;
  /** Time one attempt may take (see ExchangeRequest.timeoutMs); 0: no limit. */
  readonly requestTimeoutMs: number;
  /** Told of every retry before its wait. */
  readonly onRetry?: (notice: RetryNotice) => void;
  /** Whose credentials are in use, for 401/403 messages. */
  readonly identity: string;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random: () => number;
  readonly now: () => number;
}

/** A write: method, path, JSON body and its content type. */
export interface WriteRequest {
  readonly method: "POST" | "PATCH" | "DELETE";
  readonly path: string;
  readonly body: unknown;
  readonly contentType: string;
  /**
   * Attempts when a PodDisruptionBudget refuses it, instead of the policy's: 1 for a dry run, whose
   * refusal is the answer it was sent for rather than a failure to wait out.
   */
  readonly disruptionBudgetAttempts?: number;
}

/**
 * Lets a write treat some final responses its own way (an event that already exists was written by
 * an earlier attempt whose answer got lost); undefined means "use the common rules".
 */
export type OutcomeOverride = (
  response: ExchangeResponse,
  status: ApiStatus | undefined,
) => WriteOutcome | undefined;

/** What one attempt came to. */
type Attempt =
  | { readonly kind: "response"; readonly response: ExchangeResponse; readonly status: ApiStatus | undefined }
  | { readonly kind: "failure"; readonly failure: TransportFailure };

/** Whether to try again, and how long the server asked us to wait. */
type RetryVerdict =
  { readonly retryAfterMs: number | undefined; readonly disruptionBudget: boolean } | undefined;

/** Sends requests to the API server or a kubelet. */
export class KubeClient {
  readonly #options: KubeClientOptions;

  constructor(options: KubeClientOptions) {
    this.#options = options;
  }

  /** GETs `path`; the body on 2xx, else a KubeApiError after the retries. */
  async read(endpoint: KubeEndpoint, op: ApiOperation, path: string, signal?: AbortSignal): Promise<string> {
    const request = this.#request("GET", path, undefined, undefined, signal);
    const { last, attempts } = await this.#withRetries(endpoint, request, signal);
    if (last.kind === "response" && isSuccess(last.response.status)) return last.response.body;
    throw this.#readError(endpoint, op, request, last, attempts);
  }

  /**
   * Opens a watch stream. Resolves with a 200 response still streaming; an HTTP 410 rejects with
   * WatchExpiredError, other failures with KubeApiError after the retries.
   */
  async openWatch(
    endpoint: KubeEndpoint,
    op: ApiOperation,
    path: string,
    signal: AbortSignal,
  ): Promise<StreamResponse> {
    const request = this.#request("GET", path, undefined, undefined, signal);
    let stream: StreamResponse | undefined;
    const { last, attempts } = await this.#withRetries(endpoint, request, signal, async (req) => {
      const opened = await openStream(endpoint, req);
      if (isSuccess(opened.status)) {
        stream = opened;
        return { status: opened.status, headers: opened.headers, body: "" };
      }
      return { status: opened.status, headers: opened.headers, body: await readRest(opened) };
    });
    if (stream !== undefined && last.kind === "response" && isSuccess(last.response.status)) return stream;
    if (last.kind === "response" && last.response.status === 410) {
      throw new WatchExpiredError(
        `watch from ${request.method} ${request.path} expired: ${responseMessage(last.status, last.response.body) || "410 Gone"}`,
      );
    }
    throw this.#readError(endpoint, op, request, last, attempts);
  }

  /**
   * Sends a write and maps the final answer to done / gone / refused. Never throws for HTTP,
   * network or credential trouble (those are refusals with the reason).
   */
  async write(
    endpoint: KubeEndpoint,
    op: ApiOperation,
    write: WriteRequest,
    override?: OutcomeOverride,
  ): Promise<WriteOutcome> {
    const request = this.#request(
      write.method,
      write.path,
      JSON.stringify(write.body),
      write.contentType,
      undefined,
    );
    let result: { last: Attempt; attempts: number };
    try {
      result = await this.#withRetries(
        endpoint,
        request,
        undefined,
        undefined,
        write.disruptionBudgetAttempts,
      );
    } catch (error) {
      // No credentials to send (an exec plugin failed, a token file vanished): nothing was written.
      if (error instanceof AdapterError)
        return { kind: "refused", status: undefined, message: error.message };
      throw error;
    }
    const { last, attempts } = result;
    if (last.kind === "failure") {
      return {
        kind: "refused",
        status: undefined,
        message: this.#failureMessage(endpoint, request, last.failure, attempts),
      };
    }
    const { response, status } = last;
    const overridden = override?.(response, status);
    if (overridden !== undefined) return overridden;
    if (isSuccess(response.status)) return { kind: "done" };
    if (response.status === 404 || isUidMismatch(response.status, status, response.body))
      return { kind: "gone" };
    const said = responseMessage(status, response.body);
    const where = `${statusLine(response.status)} from ${request.method} ${request.path}`;
    if (response.status === 401 || response.status === 403) {
      return {
        kind: "refused",
        status: response.status,
        message: this.#authMessage(where, said, op, response.status),
      };
    }
    const budget = disruptionBudgetCauses(status);
    if (response.status === 429 && budget.length > 0) {
      return {
        kind: "refused",
        status: 429,
        message: `blocked by a PodDisruptionBudget: ${said} ${budget.join("; ")} (${attempts} attempts)`,
      };
    }
    const tries = attempts > 1 ? ` (after ${attempts} attempts)` : "";
    return { kind: "refused", status: response.status, message: `${where}: ${said || "no message"}${tries}` };
  }

  #request(
    method: string,
    path: string,
    body: string | undefined,
    contentType: string | undefined,
    signal: AbortSignal | undefined,
  ): ExchangeRequest {
    return {
      method,
      path,
      timeoutMs: this.#options.requestTimeoutMs,
      ...(body === undefined ? {} : { body }),
      ...(contentType === undefined ? {} : { headers: { "Content-Type": contentType } }),
      ...(signal === undefined ? {} : { signal }),
    };
  }

  /**
   * Runs attempts until one is final, the attempts are spent, or the time budget is. The budget
   * (`totalDelayMs`) counts the waits and every attempt that timed out (a full request timeout
   * each); after a timeout, a retry is made only if another full timeout still fits, so a server
   * that accepts and never answers ends the call in bounded time.
   */
  async #withRetries(
    endpoint: KubeEndpoint,
    request: ExchangeRequest,
    signal: AbortSignal | undefined,
    send: (request: ExchangeRequest) => Promise<ExchangeResponse> = (req) => exchange(endpoint, req),
    disruptionBudgetAttempts = this.#options.retry.disruptionBudgetAttempts,
  ): Promise<{ last: Attempt; attempts: number }> {
    const { retry, sleep, random, now, requestTimeoutMs } = this.#options;
    let spent = 0;
    for (let attempts = 1; ; attempts++) {
      const last = await attemptOnce(send, request);
      const timedOut = last.kind === "failure" && last.failure.code === "ETIMEDOUT";
      if (timedOut) spent += requestTimeoutMs;
      const verdict = retryVerdict(last, now());
      const limit = verdict?.disruptionBudget === true ? disruptionBudgetAttempts : retry.attempts;
      if (verdict === undefined || attempts >= limit) return { last, attempts };
      const delay = retryDelay(retry, attempts - 1, verdict.retryAfterMs, random);
      if (spent + delay + (timedOut ? requestTimeoutMs : 0) > retry.totalDelayMs) return { last, attempts };
      spent += delay;
      this.#options.onRetry?.(retryNotice(endpoint, request, last, attempts, limit, delay));
      await sleep(delay, signal);
      signal?.throwIfAborted();
    }
  }

  #readError(
    endpoint: KubeEndpoint,
    op: ApiOperation,
    request: ExchangeRequest,
    last: Attempt,
    attempts: number,
  ): KubeApiError {
    const url = endpointUrl(endpoint, request.path).href;
    if (last.kind === "failure") {
      const { failure } = last;
      const code: KubeApiErrorCode = failure.tls
        ? "kube-tls"
        : failure.code === "ETIMEDOUT"
          ? "kube-timeout"
          : "kube-unreachable";
      return new KubeApiError(code, this.#failureMessage(endpoint, request, failure, attempts), {
        method: request.method,
        url,
        status: undefined,
        reason: failure.code,
        transient: !failure.tls,
        cause: failure,
        ...(failure.tls
          ? { hint: tlsHint(endpoint) }
          : code === "kube-timeout"
            ? {
                hint: "the server did not answer in time (down, overloaded, or not an API server or kubelet); --request-timeout sets how long each attempt waits",
              }
            : {}),
      });
    }
    const { response, status } = last;
    const said = responseMessage(status, response.body);
    const where = `${statusLine(response.status)} from ${request.method} ${request.path}`;
    const details = {
      method: request.method,
      url,
      status: response.status,
      reason: status?.reason,
      transient: response.status === 429 || response.status >= 500 || response.status === 409,
    };
    if (response.status === 401 || response.status === 403) {
      return new KubeApiError(
        response.status === 401 ? "kube-unauthorized" : "kube-forbidden",
        this.#authMessage(where, said, op, response.status),
        details,
      );
    }
    if (isSuccess(response.status)) {
      return new KubeApiError("kube-bad-response", `${where}: unexpected response`, details);
    }
    const code: KubeApiErrorCode =
      response.status === 404 ? "kube-not-found" : response.status === 410 ? "kube-expired" : "kube-http";
    const tries = attempts > 1 ? ` (after ${attempts} attempts)` : "";
    return new KubeApiError(code, `${where}: ${said || "no message"}${tries}`, details);
  }

  #authMessage(where: string, said: string, op: ApiOperation, status: number): string {
    const server = said === "" || said === "Unauthorized" ? "" : `: ${said}`;
    if (status === 401) return `${where}${server}: check the credentials (${this.#options.identity})`;
    return `${where}${server}; evictd needs permission to ${describePermission(op)} (credentials: ${this.#options.identity})`;
  }

  #failureMessage(
    endpoint: KubeEndpoint,
    request: ExchangeRequest,
    failure: TransportFailure,
    attempts: number,
  ): string {
    const tries = attempts > 1 ? `, ${attempts} attempts` : "";
    const detail = failure.message.includes(failure.code)
      ? failure.message
      : `${failure.code}: ${failure.message}`;
    return `cannot reach ${endpoint.describe}: ${detail} (${request.method} ${request.path}${tries})`;
  }
}

function retryNotice(
  endpoint: KubeEndpoint,
  request: ExchangeRequest,
  last: Attempt,
  attempt: number,
  maxAttempts: number,
  retryInMs: number,
): RetryNotice {
  const problem =
    last.kind === "failure"
      ? last.failure.message.includes(last.failure.code)
        ? last.failure.message
        : `${last.failure.code}: ${last.failure.message}`
      : `${statusLine(last.response.status)}${suffix(responseMessage(last.status, last.response.body))}`;
  return {
    method: request.method,
    path: request.path,
    endpoint: endpoint.describe,
    problem,
    attempt,
    maxAttempts,
    retryInMs,
    message: `${request.method} ${request.path} on ${endpoint.describe} failed: ${problem} (attempt ${attempt} of at most ${maxAttempts}); retrying in ${formatDurationMs(retryInMs)}`,
  };
}

function suffix(said: string): string {
  return said === "" ? "" : `: ${said}`;
}

async function attemptOnce(
  send: (request: ExchangeRequest) => Promise<ExchangeResponse>,
  request: ExchangeRequest,
): Promise<Attempt> {
  try {
    const response = await send(request);
    return {
      kind: "response",
      response,
      status: isSuccess(response.status) ? undefined : parseApiStatus(response.body),
    };
  } catch (error) {
    if (error instanceof TransportFailure) return { kind: "failure", failure: error };
    throw error;
  }
}

/**
 * Network trouble (not a refused certificate), 409 (except a uid that no longer matches: retrying
 * cannot bring the old pod back), 429 and 5xx (except an eviction of a pod that two budgets select,
 * which stays refused until someone removes one) are worth another try.
 */
function retryVerdict(attempt: Attempt, nowMs: number): RetryVerdict {
  if (attempt.kind === "failure")
    return attempt.failure.tls ? undefined : { retryAfterMs: undefined, disruptionBudget: false };
  const { response, status } = attempt;
  const code = response.status;
  const retryAfterMs =
    parseRetryAfter(response.headers["retry-after"], nowMs) ??
    (status?.retryAfterSeconds === undefined ? undefined : status.retryAfterSeconds * 1000);
  if (code === 429) return { retryAfterMs, disruptionBudget: disruptionBudgetCauses(status).length > 0 };
  if (code === 409 && !isUidMismatch(code, status, response.body) && status?.reason !== "AlreadyExists") {
    return { retryAfterMs, disruptionBudget: false };
  }
  if (code >= 500 && code !== 501 && !isMultipleBudgetsRefusal(status))
    return { retryAfterMs, disruptionBudget: false };
  return undefined;
}

function tlsHint(endpoint: KubeEndpoint): string {
  return endpoint.kind === "kubelet"
    ? "the kubelet's serving certificate was not accepted: pass --kubelet-ca FILE, or --kubelet-insecure-tls, or use --source proxy"
    : "the API server's certificate was not accepted: check certificate-authority in the kubeconfig";
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

async function readRest(stream: StreamResponse): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream.message) chunks.push(chunk as Buffer);
  } catch {
    // A broken error body still leaves the status code to go by.
  }
  return Buffer.concat(chunks).toString("utf8");
}
