/**
 * The daemon's HTTP listener: a thin node:http shell around the pure `handle`, bound to the node
 * spec's listen address (port 0 picks a free port, for tests), with a graceful close that lets
 * in-flight requests finish before cutting what is left.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AdapterError, errnoCode } from "../errors.js";
import type { DaemonSnapshot } from "../app/node-view/snapshot.js";
import { handle, type HttpResponse, type MetricsSource } from "./http-handler.js";

export interface HttpServerOptions {
  /** Host and port, as NodeSpec.listen; port 0 binds a free port. */
  readonly listen: { readonly host: string; readonly port: number };
  /** The snapshot to answer from, read once per request (the loop replaces it after each run). */
  readonly snapshot: () => DaemonSnapshot | Promise<DaemonSnapshot>;
  readonly metrics: MetricsSource;
  /** How long `close` waits for in-flight requests before closing their connections (default 5 s). */
  readonly closeTimeoutMs?: number;
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

async function serve(req: IncomingMessage, res: ServerResponse, options: HttpServerOptions): Promise<void> {
  let r: HttpResponse;
  try {
    r = await handle(
      { method: req.method ?? "GET", url: req.url ?? "/" },
      await options.snapshot(),
      options.metrics,
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
  const server = createServer((req, res) => void serve(req, res, options));
  const { host, port } = options.listen;
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void => {
      const code = errnoCode(e);
      reject(
        new AdapterError("http-listen", `cannot listen on ${host}:${port}: ${e.message}`, {
          cause: e,
          ...(code === "EADDRINUSE"
            ? { hint: "another process holds the port: change `listen` in the node file" }
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
