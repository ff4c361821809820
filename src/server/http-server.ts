/**
 * The daemon's HTTP listener: a thin node:http shell around the pure `handle`, bound to the node
 * spec's listen address (port 0 picks a free port, for tests), with a graceful close that lets
 * in-flight requests finish before cutting what is left.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { AdapterError, errnoCode } from "../errors.js";
import type { DaemonSnapshot } from "../app/node-view/snapshot.js";
import { handle, type HttpResponse, type MetricsSource } from "./http-handler.js";
import type { HealthVerdict } from "../app/node-view/loop-health.js";

export interface HttpServerOptions {
  /** Host and port, as NodeSpec.listen; port 0 binds a free port. */
  readonly listen: { readonly host: string; readonly port: number };
  /** The snapshot to answer from, read once per request (the loop replaces it after each run). */
  readonly snapshot: () => DaemonSnapshot | Promise<DaemonSnapshot>;
  readonly metrics: MetricsSource;
  /** The eviction loop's health, for /healthz (healthy when absent). */
  readonly health?: () => HealthVerdict;
  /** How long `close` waits for in-flight requests before closing their connections (default 5 s). */
  readonly closeTimeoutMs?: number;
  /**
   * How long an answer is served again to the same request (method and URL) before it is rendered
   * afresh (default 100 ms; 0: never). A busy scraper or dashboard then costs one rendering per
   * period, not one per request: a full node's `/status` is a large JSON document, and clients
   * asking as fast as they are answered kept the main thread so busy rendering it that new pods
   * were slow to start (docs/benchmarks.md, "Under HTTP load"). The state behind it changes at the
   * loop's pace (a step per second or ten).
   */
  readonly cacheMs?: number;
  /** What to tell the operator when the port is taken (each verb names its own way to change it). */
  readonly busyPortHint?: string;
  /** The clock the answer cache's periods are measured on, in ms (default performance.now; tests set it). */
  readonly now?: () => number;
}

/** Answers rendered for the last {@link HttpServerOptions.cacheMs}, by method and URL. */
class AnswerCache {
  readonly #ms: number;
  readonly #now: () => number;
  readonly #answers = new Map<string, { readonly until: number; readonly answer: Promise<HttpResponse> }>();

  constructor(ms: number, now: () => number) {
    this.#ms = ms;
    this.#now = now;
  }

  get(key: string, render: () => Promise<HttpResponse>): Promise<HttpResponse> {
    if (this.#ms <= 0) return render();
    const now = this.#now();
    const kept = this.#answers.get(key);
    if (kept !== undefined && kept.until > now) return kept.answer;
    // Requests arriving while it renders share the rendering too.
    const answer = render();
    this.#answers.set(key, { until: now + this.#ms, answer });
    // Only paths the server knows are rendered; unknown URLs are answered without being kept.
    if (this.#answers.size > 64)
      for (const [k, v] of this.#answers) if (v.until <= now) this.#answers.delete(k);
    return answer;
  }
}

export interface DaemonHttpServer {
  /** The bound host and port (the real port when 0 was asked for). */
  readonly host: string;
  readonly port: number;
  /** `http://host:port`, IPv6 hosts bracketed. */
  readonly url: string;
  /** Stops accepting, closes idle keep-alive connections, waits for in-flight requests (bounded). */
  close(): Promise<void>;
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  options: HttpServerOptions,
  cache: AnswerCache,
): Promise<void> {
  let r: HttpResponse;
  try {
    const request = { method: req.method ?? "GET", url: req.url ?? "/" };
    r = await cache.get(`${request.method} ${request.url}`, async () =>
      handle(request, {
        snapshot: options.snapshot,
        metrics: options.metrics,
        ...(options.health !== undefined ? { health: options.health } : {}),
      }),
    );
  } catch (e) {
    // handle() answers its own failures; this is a snapshot getter that threw.
    r = {
      status: 500,
      headers: { "content-type": "text/plain; charset=utf-8" },
      body: `500 internal server error: ${e instanceof Error ? e.message : String(e)}\n`,
    };
  }
  res.writeHead(r.status, { ...r.headers, "content-length": String(Buffer.byteLength(r.body)) });
  res.end(r.body);
}

/** Binds and starts serving; rejects with an AdapterError (`http-listen`) when the address cannot be bound. */
export function startHttpServer(options: HttpServerOptions): Promise<DaemonHttpServer> {
  const cache = new AnswerCache(options.cacheMs ?? 100, options.now ?? (() => performance.now()));
  const server = createServer((req, res) => void serve(req, res, options, cache));
  const { host, port } = options.listen;
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void => {
      const code = errnoCode(e);
      reject(
        new AdapterError("http-listen", `cannot listen on ${host}:${port}: ${e.message}`, {
          cause: e,
          ...(code === "EADDRINUSE"
            ? {
                hint:
                  options.busyPortHint ?? "another process holds the port: change `listen` in the node file",
              }
            : {}),
          ...(code === "EACCES" ? { hint: "ports below 1024 need root or CAP_NET_BIND_SERVICE" } : {}),
        }),
      );
    };
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      const addr = server.address() as AddressInfo;
      const shown = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
      let closing: Promise<void> | undefined;
      resolve({
        host: addr.address,
        port: addr.port,
        url: `http://${shown}:${addr.port}`,
        close: () => {
          closing ??= new Promise<void>((done) => {
            const timer = setTimeout(() => server.closeAllConnections(), options.closeTimeoutMs ?? 5000);
            timer.unref();
            server.close(() => {
              clearTimeout(timer);
              done();
            });
            // Keep-alive connections with no request in flight would otherwise hold close() open.
            server.closeIdleConnections();
          });
          return closing;
        },
      });
    });
  });
}
