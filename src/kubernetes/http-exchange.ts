/**
 * One HTTP request to an endpoint, with plain node:http/https: the whole body as text for ordinary
 * calls, the live response for a watch. No retries and no interpretation here; socket-level
 * failures come back as {@link TransportFailure}.
 */
import http from "node:http";
import https from "node:https";
import { formatDurationMs } from "../core/time/duration.js";
import { errnoCode } from "../errors.js";
import type { KubeEndpoint } from "./kube-endpoint.js";

/** A request relative to the endpoint's base URL. */
export interface ExchangeRequest {
  readonly method: string;
  /** Path and query, e.g. `/api/v1/pods?fieldSelector=...`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * Time allowed from the start (connecting included) until the response headers arrive and, for
   * {@link exchange}, the whole body; 0: no limit. At most 2^31−1 ms (Node's longest timer).
   */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** A complete response. */
export interface ExchangeResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** A response whose body is still streaming (a watch). */
export interface StreamResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly message: http.IncomingMessage;
}

/**
 * No HTTP response: the connection was refused or reset, the name did not resolve, TLS failed, or
 * the time ran out. `code` is the socket error code (`ECONNREFUSED`, `DEPTH_ZERO_SELF_SIGNED_CERT`)
 * or `ETIMEDOUT` for our own timeout.
 */
export class TransportFailure extends Error {
  readonly code: string;
  /** The peer's certificate was refused: retrying cannot help. */
  readonly tls: boolean;
  constructor(code: string, message: string, tls: boolean, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "TransportFailure";
    this.code = code;
    this.tls = tls;
  }
}

/** The full URL of `path` on the endpoint, keeping a path prefix of the base URL. */
export function endpointUrl(endpoint: KubeEndpoint, path: string): URL {
  const base = endpoint.baseUrl;
  const prefix = base.pathname.replace(/\/+$/, "");
  return new URL(`${base.origin}${prefix}${path}`);
}

/** Sends the request and reads the whole body. Rejects with TransportFailure, or the abort reason. */
export async function exchange(endpoint: KubeEndpoint, request: ExchangeRequest): Promise<ExchangeResponse> {
  const { message, finish } = await send(endpoint, request, false);
  return new Promise<ExchangeResponse>((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on("data", (chunk: Buffer) => chunks.push(chunk));
    message.on("error", (error) => reject(asFailure(error, request)));
    message.on("aborted", () =>
      reject(new TransportFailure("ECONNRESET", "the connection closed mid-response", false)),
    );
    message.on("end", () => {
      finish();
      resolve({
        status: message.statusCode ?? 0,
        headers: message.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
    });
  }).catch((error: unknown) => {
    finish();
    throw request.signal?.aborted === true ? abortReason(request.signal) : error;
  });
}

/**
 * Sends the request and resolves as soon as the response headers arrive; the caller reads and
 * eventually destroys `message`. The timeout covers only the wait for the headers.
 */
export async function openStream(endpoint: KubeEndpoint, request: ExchangeRequest): Promise<StreamResponse> {
  const { message } = await send(endpoint, request, true);
  return { status: message.statusCode ?? 0, headers: message.headers, message };
}

/** Starts the request; resolves with the response once its headers are in. */
async function send(
  endpoint: KubeEndpoint,
  request: ExchangeRequest,
  streaming: boolean,
): Promise<{ message: http.IncomingMessage; finish: () => void }> {
  request.signal?.throwIfAborted();
  const prepared = await endpoint.prepare(streaming ? "stream" : "request");
  const url = endpointUrl(endpoint, request.path);
  const client = url.protocol === "https:" ? https : http;
  const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
  const headers: Record<string, string> = {
    Accept: "application/json",
    "User-Agent": "evictd",
    ...prepared.headers,
    ...request.headers,
    ...(body === undefined ? {} : { "Content-Length": String(body.length) }),
  };

  return new Promise((resolve, reject) => {
    let settled = false;
    let response: http.IncomingMessage | undefined;
    // Once the response has started, failures must end the response stream, not the request.
    const destroy = (error: Error): void => {
      if (response === undefined) req.destroy(error);
      else response.destroy(error);
    };
    const req = client.request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers,
      agent: prepared.agent,
      ...(prepared.auth === undefined ? {} : { auth: prepared.auth }),
    });
    const timer =
      request.timeoutMs > 0
        ? setTimeout(() => {
            // A connection that never opened (a dropped SYN) and one that opened but stayed silent.
            const connected = req.socket !== null && !req.socket.connecting;
            const what = connected ? "no response" : "no connection";
            destroy(
              new TransportFailure(
                "ETIMEDOUT",
                `${what} within ${formatDurationMs(request.timeoutMs)}`,
                false,
              ),
            );
          }, request.timeoutMs)
        : undefined;
    const onAbort = (): void => {
      if (request.signal !== undefined) destroy(abortReason(request.signal));
    };
    request.signal?.addEventListener("abort", onAbort, { once: true });
    const finish = (): void => {
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
    };
    req.on("error", (error) => {
      if (settled) return;
      settled = true;
      finish();
      reject(request.signal?.aborted === true ? abortReason(request.signal) : asFailure(error, request));
    });
    req.on("response", (message) => {
      settled = true;
      response = message;
      if (streaming) finish();
      resolve({ message, finish });
    });
    req.end(body);
  });
}

/** The signal's reason as an Error (AbortSignal.abort() gives a DOMException, which is one). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(`aborted: ${String(reason)}`);
}

function asFailure(error: unknown, request: ExchangeRequest): TransportFailure {
  if (error instanceof TransportFailure) return error;
  const code = errnoCode(error) ?? "ERROR";
  const text = error instanceof Error ? error.message : String(error);
  if (code === "ECONNRESET" && /socket hang up/i.test(text)) {
    return new TransportFailure(
      code,
      `the connection was closed before a response (${request.method})`,
      false,
      error,
    );
  }
  return new TransportFailure(code, text, isTlsCode(code), error);
}

/** OpenSSL verification codes and Node's TLS codes: a certificate problem, not a network hiccup. */
function isTlsCode(code: string): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS|ERR_SSL|EPROTO/.test(code);
}
