/**
 * The daemon's HTTP surface as a function: request → response, no socket, so every endpoint is
 * tested in-process (as hono's `app.request()`). Serves the live page at /, /healthz, /metrics,
 * /status and /stats/summary from a DaemonSnapshot and the metrics registry; nothing here reads
 * the system.
 */
import { NOT_ARMED } from "../app/node-view/wake-capability.js";
import type { DaemonSnapshot } from "../app/node-view/snapshot.js";
import { toExactJson } from "../core/summary/to-exact-json.js";
import { PROMETHEUS_CONTENT_TYPE, type ScrapeState } from "./metrics.js";
import { buildStatusView } from "../app/node-view/status-view.js";
import type { HealthVerdict } from "../app/node-view/loop-health.js";

export { toExactJson };

export interface HttpRequest {
  readonly method: string;
  /** The request target: path and query, as node:http gives it (`/status?pretty`). */
  readonly url: string;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The part of DaemonMetrics the handler uses. */
export interface MetricsSource {
  setPods(pods: readonly { readonly phase: string }[]): void;
  setScrapeState(state: ScrapeState): void;
  render(): Promise<string>;
}

/** What the answers are made from. Only the paths that show the node take a snapshot. */
export interface HandlerSources {
  readonly snapshot: () => DaemonSnapshot | Promise<DaemonSnapshot>;
  readonly metrics: MetricsSource;
  /** The loop's health (loop-health.ts), for /healthz; healthy when absent. */
  readonly health?: () => HealthVerdict;
}

const TEXT = "text/plain; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";
const ALLOW = "GET, HEAD";

function text(status: number, body: string, extra: Record<string, string> = {}): HttpResponse {
  return { status, headers: { "content-type": TEXT, ...extra }, body };
}

function json(status: number, value: unknown, pretty: boolean): HttpResponse {
  return { status, headers: { "content-type": JSON_TYPE }, body: toExactJson(value, pretty) + "\n" };
}

/** `?pretty`, `?pretty=1`, `?pretty=true` indent; `?pretty=false` and `?pretty=0` do not. */
function wantsPretty(params: URLSearchParams): boolean {
  const v = params.get("pretty");
  return v !== null && v !== "false" && v !== "0";
}

type Route = (sources: HandlerSources, pretty: boolean) => HttpResponse | Promise<HttpResponse>;

const ROUTES: ReadonlyMap<string, Route> = new Map<string, Route>([
  [
    "/",
    async ({ snapshot: take }) => {
      const snapshot = await take();
      // The page's modules (and d3) load with the first visit, not with the daemon.
      const { renderLivePage } = await import("../app/report/live-page.js");
      return {
        status: 200,
        headers: { "content-type": "text/html; charset=utf-8" },
        body: renderLivePage(buildStatusView(snapshot), snapshot.history?.()),
      };
    },
  ],
  [
    "/healthz",
    // Answered without a snapshot: a health check never waits for the loop thread's Summary.
    ({ health }) => {
      const verdict = health?.() ?? { ok: true };
      return verdict.ok ? text(200, "ok") : text(500, `syncloop failed: ${verdict.reason}\n`);
    },
  ],
  [
    "/metrics",
    async ({ snapshot: take, metrics, health }) => {
      const snapshot = await take();
      // Pod counts are collected at scrape time from the snapshot, so /metrics agrees with /status.
      metrics.setPods(snapshot.pods);
      metrics.setScrapeState({
        healthy: health?.().ok ?? true,
        wakeSourcesNotArmed: snapshot.capabilities.filter((c) => c.startsWith(NOT_ARMED)).length,
      });
      return {
        status: 200,
        headers: { "content-type": PROMETHEUS_CONTENT_TYPE },
        body: await metrics.render(),
      };
    },
  ],
  ["/status", async ({ snapshot }, pretty) => json(200, buildStatusView(await snapshot()), pretty)],
  [
    "/stats/summary",
    async ({ snapshot: take }, pretty) => {
      const snapshot = await take();
      return snapshot.summary === undefined
        ? json(503, { error: "no stats sample yet" }, pretty)
        : json(200, snapshot.summary, pretty);
    },
  ],
]);

/** The paths served, in documentation order. */
export const PATHS: readonly string[] = [...ROUTES.keys()];

/**
 * Answers one request. Only GET and HEAD are served (HEAD: the GET headers, no body); other methods
 * get 405 with `Allow`, unknown paths 404. A failure while rendering is a 500, never a throw.
 */
export async function handle(req: HttpRequest, sources: HandlerSources): Promise<HttpResponse> {
  let url: URL;
  try {
    // Origin-form targets (`/status?pretty`) are joined, not resolved, so `//x` stays a path.
    url = new URL(req.url.startsWith("/") ? `http://localhost${req.url}` : req.url);
  } catch {
    return text(400, "400 bad request\n");
  }
  const route = ROUTES.get(url.pathname);
  if (route === undefined) return text(404, "404 page not found\n");
  const method = req.method.toUpperCase();
  if (method !== "GET" && method !== "HEAD") return text(405, "405 method not allowed\n", { allow: ALLOW });
  let res: HttpResponse;
  try {
    res = await route(sources, wantsPretty(url.searchParams));
  } catch (e) {
    return text(500, `500 internal server error: ${e instanceof Error ? e.message : String(e)}\n`);
  }
  return method === "HEAD" ? { ...res, body: "" } : res;
}
