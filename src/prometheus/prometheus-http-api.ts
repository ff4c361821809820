/**
 * The Prometheus import's reads over Prometheus' HTTP API
 * (https://prometheus.io/docs/prometheus/latest/querying/api/): raw samples through an instant
 * query of a range selector (`/api/v1/query`, `sel[Nms]`), which returns every scraped sample
 * unaligned, unlike `/api/v1/query_range`; the series that exist through `/api/v1/series`.
 *
 * Plain node:http/https rather than fetch: a private CA (--ca-file) must go into an https.Agent,
 * which Node's built-in fetch cannot take without the undici package. Both endpoints are called
 * with POST and a form body, as Prometheus' own clients do, so a long selector never meets a URL
 * length limit of a proxy in front of Prometheus.
 *
 * Every request has its own timeout and is retried on what a restarting or overloaded Prometheus,
 * or a proxy in front of it, answers (refused or reset connections, 429, 502–504). Credentials
 * written in the URL are sent as basic auth and never shown: every message names the URL without
 * them (prometheus-url.ts). The files the options name are read by prometheus-option-files.ts, and
 * the data of an answer by prometheus-results.ts; the requests, their retries and what a failed
 * answer means stay here.
 */
import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import type { PrometheusPort, PrometheusSeries } from "../app/import/prometheus-port.js";
import { isRawObject } from "../core/raw/raw-object.js";
import { formatDurationMs } from "../core/time/duration.js";
import { AdapterError, errnoCode } from "../errors.js";
import { readCaFile, readToken } from "./prometheus-option-files.js";
import { labelSets, matrixSeries } from "./prometheus-results.js";
import { parseBaseUrl, shownUrl } from "./prometheus-url.js";

// The CLI names the URL as this client shows it.
export { redactedUrl } from "./prometheus-url.js";

/** A retry about to be made, for the log. */
export interface PrometheusRetryNotice {
  /** The request: "query up{job=\"x\"}[300000ms]", "series kube_pod_info". */
  readonly what: string;
  /** The retry about to be made: 1 for the first. */
  readonly attempt: number;
  /** The wait before it. */
  readonly retryInMs: number;
  /** What went wrong with the attempt before. */
  readonly message: string;
}

export interface PrometheusConnectOptions {
  /**
   * Prometheus' base URL, http or https, with an optional path prefix (`http://h:9090/prom` when
   * it runs with --web.route-prefix or behind a proxy) and optional `user:password@` for basic auth.
   */
  readonly url: string;
  /** A file holding a bearer token, read before every request. */
  readonly bearerTokenFile?: string;
  /** A PEM file of the CA(s) that signed Prometheus' certificate. */
  readonly caFile?: string;
  /** Time allowed for one request, the whole response body included. */
  readonly requestTimeoutMs: number;
  /** Retries after the first attempt of a request that failed transiently (default 4). */
  readonly retries?: number;
  readonly onRetry?: (notice: PrometheusRetryNotice) => void;
}

/** The largest response body read (after decompression). */
export const MAX_RESPONSE_BYTES = 512 * 1024 * 1024;

const DEFAULT_RETRIES = 4;
const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;
const MAX_RETRY_AFTER_MS = 30_000;
/** Codes of a connection that failed in a way another try may not. */
const TRANSIENT_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EAI_AGAIN", "EPIPE"]);
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
const UNREACHABLE_HINT = "check --url and that Prometheus listens there";
const TIMEOUT_HINT = "raise --request-timeout or lower --chunk";
const AUTH_HINT = "check --bearer-token-file or the credentials in --url";

/** Connects (lazily: nothing is sent until the first read) to the Prometheus at `options.url`. */
export function connectPrometheus(options: PrometheusConnectOptions): PrometheusHttpApi {
  return new PrometheusHttpApi(options);
}

export class PrometheusHttpApi implements PrometheusPort {
  /** The base URL without credentials. */
  readonly #base: URL;
  readonly #basicAuth: string | undefined;
  readonly #tokenFile: string | undefined;
  readonly #agent: http.Agent;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #onRetry: ((notice: PrometheusRetryNotice) => void) | undefined;

  /** Throws AdapterError (`prometheus-url`, `prometheus-auth`, `prometheus-ca-file`) for unusable options. */
  constructor(options: PrometheusConnectOptions) {
    const { base, basicAuth } = parseBaseUrl(options.url);
    if (basicAuth !== undefined && options.bearerTokenFile !== undefined) {
      throw new AdapterError(
        "prometheus-auth",
        `give either credentials in --url (${shownUrl(base)}) or --bearer-token-file, not both`,
        { hint: "Prometheus takes one Authorization header" },
      );
    }
    if (!(Number.isFinite(options.requestTimeoutMs) && options.requestTimeoutMs > 0))
      throw new RangeError(`requestTimeoutMs must be a positive number, not ${options.requestTimeoutMs}`);
    const retries = options.retries ?? DEFAULT_RETRIES;
    if (!(Number.isSafeInteger(retries) && retries >= 0))
      throw new RangeError(`retries must be a whole number ≥ 0, not ${retries}`);
    if (options.caFile !== undefined && base.protocol !== "https:") {
      throw new AdapterError(
        "prometheus-ca-file",
        `--ca-file ${options.caFile} is given but --url ${shownUrl(base)} is plain http`,
        { hint: "use an https:// URL, or leave --ca-file out" },
      );
    }
    this.#base = base;
    this.#basicAuth = basicAuth;
    this.#tokenFile = options.bearerTokenFile;
    this.#timeoutMs = options.requestTimeoutMs;
    this.#retries = retries;
    this.#onRetry = options.onRetry;
    // Keep-alive: an import sends many queries in a row, each would otherwise pay a new connection
    // (and a TLS handshake).
    this.#agent =
      base.protocol === "https:"
        ? new https.Agent({
            keepAlive: true,
            ...(options.caFile === undefined ? {} : { ca: readCaFile(options.caFile) }),
          })
        : new http.Agent({ keepAlive: true });
  }

  async samples(
    selector: string,
    endMs: number,
    windowMs: number,
    signal?: AbortSignal,
  ): Promise<PrometheusSeries[]> {
    if (!Number.isSafeInteger(windowMs) || windowMs <= 0)
      throw new RangeError(`windowMs must be a whole number of ms > 0, not ${windowMs}`);
    const query = `${selector}[${windowMs}ms]`;
    const what = `query ${query}`;
    const data = await this.#call("query", what, { query, time: epochSeconds(endMs) }, signal);
    return matrixSeries(data, what, endMs - windowMs, endMs);
  }

  async series(
    match: string,
    startMs: number,
    endMs: number,
    signal?: AbortSignal,
  ): Promise<Record<string, string>[]> {
    const what = `series ${match}`;
    const form = { "match[]": match, start: epochSeconds(startMs), end: epochSeconds(endMs) };
    const data = await this.#call("series", what, form, signal);
    return labelSets(data, what);
  }

  /** Closes the kept connections (the command is ending); later requests open new ones. */
  close(): void {
    this.#agent.destroy();
  }

  /** POSTs the form to `/api/v1/<endpoint>` with retries; resolves with the response's `data`. */
  async #call(
    endpoint: string,
    what: string,
    form: Readonly<Record<string, string>>,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const prefix = this.#base.pathname.replace(/\/+$/, "");
    const url = new URL(`${this.#base.origin}${prefix}/api/v1/${endpoint}`);
    const body = Buffer.from(new URLSearchParams(form).toString(), "utf8");
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const outcome = await this.#attempt(url, what, body, signal);
      if (outcome.ok) return outcome.data;
      const failure = outcome.failure;
      if (!failure.retry || attempt >= this.#retries) {
        const tries = attempt + 1;
        const message = tries > 1 ? `${failure.message} (gave up after ${tries} attempts)` : failure.message;
        throw new AdapterError(failure.code, message, {
          ...(failure.hint === undefined ? {} : { hint: failure.hint }),
          ...(failure.cause === undefined ? {} : { cause: failure.cause }),
        });
      }
      const retryInMs =
        failure.retryAfterMs !== undefined
          ? Math.min(failure.retryAfterMs, MAX_RETRY_AFTER_MS)
          : Math.min(BASE_DELAY_MS * 2 ** attempt, MAX_BACKOFF_MS);
      this.#onRetry?.({ what, attempt: attempt + 1, retryInMs, message: failure.message });
      await sleep(retryInMs, signal);
    }
  }

  async #attempt(
    url: URL,
    what: string,
    body: Buffer,
    signal: AbortSignal | undefined,
  ): Promise<{ ok: true; data: unknown } | { ok: false; failure: Failure }> {
    const headers: Record<string, string> = {
      Accept: "application/json",
      // Matrices are large JSON documents that compress well; Prometheus gzips when asked.
      "Accept-Encoding": "gzip",
      "Content-Type": "application/x-www-form-urlencoded",
      "Content-Length": String(body.length),
      "User-Agent": "evictd",
    };
    if (this.#basicAuth !== undefined) headers.Authorization = this.#basicAuth;
    // Read for every request: mounted tokens rotate, and Prometheus' own clients re-read them too.
    if (this.#tokenFile !== undefined) headers.Authorization = `Bearer ${await readToken(this.#tokenFile)}`;
    const where = shownUrl(url);
    const result = await exchange(url, headers, body, this.#agent, this.#timeoutMs, signal);
    switch (result.kind) {
      case "timeout":
        return fail({
          code: "prometheus-timeout",
          message: `${what}: no complete answer from ${where} within ${formatDurationMs(this.#timeoutMs)}`,
          hint: TIMEOUT_HINT,
          retry: true,
        });
      case "transport": {
        const tls = isTlsCode(result.code);
        return fail({
          code: "prometheus-unreachable",
          message: `cannot reach Prometheus at ${where}: ${result.code} (${result.message})`,
          hint: tls
            ? "give --ca-file with the CA that signed Prometheus' certificate, or check --url"
            : UNREACHABLE_HINT,
          cause: result.cause,
          retry: !tls && TRANSIENT_CODES.has(result.code),
        });
      }
      case "bad-body":
        return fail({
          code: "prometheus-response",
          message: `${what}: unreadable answer from ${where}: ${result.message}`,
          retry: false,
        });
      case "response":
        return interpret(result, what, where);
    }
  }
}

/** A failed attempt, before it is known whether it is the last. */
interface Failure {
  readonly code: string;
  readonly message: string;
  readonly hint?: string;
  readonly cause?: unknown;
  readonly retry: boolean;
  readonly retryAfterMs?: number;
}

function fail(failure: Failure): { ok: false; failure: Failure } {
  return { ok: false, failure };
}

/** The `data` of a successful answer, or why the answer is a failure. */
function interpret(
  response: Extract<Exchange, { kind: "response" }>,
  what: string,
  where: string,
): { ok: true; data: unknown } | { ok: false; failure: Failure } {
  const { status } = response;
  let json: unknown;
  let parsed = false;
  let text = "";
  try {
    text = response.body.toString("utf8");
    json = JSON.parse(text);
    parsed = true;
  } catch (error) {
    // Past V8's longest string (~512 Mi characters) toString itself throws.
    if (text === "" && response.body.length > 0) {
      return fail({
        code: "prometheus-response",
        message: `${what}: the answer from ${where} is too large to read (${response.body.length} bytes)`,
        hint: "lower --chunk",
        cause: error,
        retry: false,
      });
    }
  }
  const envelope = parsed && isRawObject(json) ? json : undefined;
  if (status >= 200 && status < 300 && envelope?.status === "success") {
    return { ok: true, data: envelope.data };
  }
  if (status >= 200 && status < 300 && envelope === undefined) {
    return fail({
      code: "prometheus-response",
      message: `${what}: the answer from ${where} is not Prometheus' JSON: ${excerpt(text)}`,
      hint: "check that --url points at Prometheus' API (with its path prefix, if any)",
      retry: false,
    });
  }
  // Prometheus' errors: {"status":"error","errorType":"bad_data","error":"..."}, with 400 (bad
  // input), 422 (execution: e.g. too many samples), 503 (timeout, canceled), 500 (internal).
  const errorType = typeof envelope?.errorType === "string" ? envelope.errorType : undefined;
  const serverError = typeof envelope?.error === "string" ? envelope.error : undefined;
  const detail =
    serverError !== undefined
      ? `${errorType === undefined ? "" : `${errorType}: `}${serverError}`
      : envelope !== undefined
        ? `status ${JSON.stringify(envelope.status)}`
        : excerpt(text);
  const retry = RETRYABLE_STATUSES.has(status);
  const retryAfterMs = retry ? retryAfter(response.headers["retry-after"]) : undefined;
  const hint =
    status === 401 || status === 403
      ? AUTH_HINT
      : status === 422 && errorType === "execution"
        ? "lower --chunk so that each query loads fewer samples"
        : undefined;
  return fail({
    code: "prometheus-query",
    message: `${what} failed at ${where}: HTTP ${status}: ${detail}`,
    ...(hint === undefined ? {} : { hint }),
    retry,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

/** An epoch time in ms as the decimal seconds Prometheus reads (no exponent, ms kept exactly). */
function epochSeconds(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`not a time in ms: ${ms}`);
  return (ms / 1000).toFixed(6).replace(/\.?0+$/, "");
}

/** Retry-After as delta-seconds (what Prometheus and proxies send); undefined otherwise. */
function retryAfter(header: string | string[] | undefined): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) * 1000 : undefined;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "(empty body)";
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/** OpenSSL verification codes and Node's TLS codes: a certificate problem, not a network hiccup. */
function isTlsCode(code: string): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS|ERR_SSL|EPROTO/.test(code);
}

/** How one request ended; only the caller's abort rejects. */
type Exchange =
  | {
      readonly kind: "response";
      readonly status: number;
      readonly headers: http.IncomingHttpHeaders;
      readonly body: Buffer;
    }
  | { readonly kind: "transport"; readonly code: string; readonly message: string; readonly cause?: unknown }
  | { readonly kind: "timeout" }
  | { readonly kind: "bad-body"; readonly message: string };

/** One POST and its whole (decompressed) body, within `timeoutMs` from the start. */
function exchange(
  url: URL,
  headers: Readonly<Record<string, string>>,
  body: Buffer,
  agent: http.Agent,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Exchange> {
  return new Promise<Exchange>((resolve, reject) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const limit = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    let settled = false;
    let response: http.IncomingMessage | undefined;
    const settle = (outcome: Exchange | Error): void => {
      if (settled) return;
      settled = true;
      limit.removeEventListener("abort", onLimit);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    // Once the response has started, the response stream is what must end.
    const stop = (): void => {
      if (response === undefined) req.destroy();
      else response.destroy();
    };
    const onLimit = (): void => {
      settle(signal?.aborted === true ? abortReason(signal) : { kind: "timeout" });
      stop();
    };
    const client = url.protocol === "https:" ? https : http;
    const req = client.request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: "POST",
      headers,
      agent,
    });
    req.on("error", (error) => settle(transportFailure(error)));
    req.on("response", (message) => {
      response = message;
      const tooLarge = (): void => {
        settle({ kind: "bad-body", message: `the body exceeds ${MAX_RESPONSE_BYTES / 2 ** 20} MiB` });
        message.destroy();
      };
      if (Number(message.headers["content-length"] ?? 0) > MAX_RESPONSE_BYTES) {
        tooLarge();
        return;
      }
      const encoding = (message.headers["content-encoding"] ?? "identity").trim().toLowerCase();
      let stream: Readable = message;
      if (encoding === "gzip" || encoding === "x-gzip") {
        const gunzip = zlib.createGunzip();
        gunzip.on("error", (error) => {
          settle({ kind: "bad-body", message: `the gzip body is corrupt: ${error.message}` });
          message.destroy();
        });
        stream = message.pipe(gunzip);
      } else if (encoding !== "identity") {
        settle({ kind: "bad-body", message: `unsupported Content-Encoding ${JSON.stringify(encoding)}` });
        message.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > MAX_RESPONSE_BYTES) tooLarge();
        else chunks.push(chunk);
      });
      stream.on("end", () =>
        settle({
          kind: "response",
          status: message.statusCode ?? 0,
          headers: message.headers,
          body: Buffer.concat(chunks, bytes),
        }),
      );
      message.on("error", (error) => settle(transportFailure(error)));
      message.on("close", () => {
        if (!message.complete)
          settle({ kind: "transport", code: "ECONNRESET", message: "the connection closed mid-response" });
      });
    });
    if (limit.aborted) {
      onLimit();
      return;
    }
    limit.addEventListener("abort", onLimit, { once: true });
    req.end(body);
  });
}

function transportFailure(error: unknown): Exchange {
  const code = errnoCode(error) ?? "ERROR";
  const text = error instanceof Error ? error.message : String(error);
  return { kind: "transport", code, message: text, cause: error };
}

/** The signal's reason as an Error (AbortSignal.abort() gives a DOMException, which is one). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(`aborted: ${String(reason)}`);
}

/** Waits `ms`; rejects with the abort reason as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      if (signal !== undefined) reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
