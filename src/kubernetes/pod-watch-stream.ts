/**
 * Reading a pod watch: one JSON event per line (`{"type": ..., "object": ...}`). ADDED, MODIFIED,
 * DELETED and BOOKMARK (the resourceVersion reached, to resume from) go to the caller; an ERROR
 * event with code 410 means the resourceVersion is too old (the caller lists again), other ERRORs
 * end the watch.
 */
import type { PodEvent } from "../app/cluster/cluster-node-port.js";
import { WatchExpiredError } from "../app/cluster/cluster-node-port.js";
import { parseApiStatus, statusLine } from "./api-status.js";
import type { StreamResponse } from "./http-exchange.js";
import { KubeApiError } from "./kube-api-error.js";

/** Identifies the watch in errors. */
export interface WatchContext {
  readonly method: string;
  readonly url: string;
  readonly path: string;
  /** Silence after which the connection counts as dead. */
  readonly idleTimeoutMs: number;
}

/**
 * Delivers the stream's events until the server ends it (resolve), `signal` aborts (resolve), or
 * it fails (reject: WatchExpiredError on 410, KubeApiError otherwise, or whatever `onEvent` threw).
 */
export function consumePodWatch(
  stream: StreamResponse,
  onEvent: (event: PodEvent) => void,
  signal: AbortSignal,
  context: WatchContext,
): Promise<void> {
  const { message } = stream;
  return new Promise<void>((resolve, reject) => {
    let buffer = "";
    let done = false;
    let idle: NodeJS.Timeout | undefined;
    const settle = (error?: unknown): void => {
      if (done) return;
      done = true;
      clearTimeout(idle);
      signal.removeEventListener("abort", onAbort);
      message.destroy();
      if (error === undefined) resolve();
      else reject(error instanceof Error ? error : new Error("watch failed", { cause: error }));
    };
    const armIdle = (): void => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        settle(broken(context, `no data for ${context.idleTimeoutMs} ms`));
      }, context.idleTimeoutMs);
    };
    const onAbort = (): void => settle();
    if (signal.aborted) {
      settle();
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    armIdle();

    message.setEncoding("utf8");
    message.on("data", (chunk: string) => {
      if (done) return;
      armIdle();
      buffer += chunk;
      let newline = buffer.indexOf("\n");
      while (newline !== -1 && !done) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line !== "") handleLine(line);
        newline = buffer.indexOf("\n");
      }
    });
    message.on("end", () => {
      const rest = buffer.trim();
      buffer = "";
      if (rest !== "" && !done) handleLine(rest);
      settle();
    });
    message.on("error", (error) => {
      if (signal.aborted) settle();
      else settle(broken(context, error.message, error));
    });
    message.on("aborted", () => {
      if (signal.aborted) settle();
      else settle(broken(context, "the connection closed mid-stream"));
    });

    function handleLine(line: string): void {
      try {
        const outcome = interpretLine(line, context);
        if (outcome !== undefined) onEvent(outcome);
      } catch (error) {
        settle(error);
      }
    }
  });
}

/** The event to deliver (undefined for a bookmark without a version); throws for ERROR events and garbage. */
function interpretLine(line: string, context: WatchContext): PodEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw badEvent(context, `a watch line is not JSON: ${line.slice(0, 120)}`, error);
  }
  const record = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  const type = record.type;
  const object = record.object;
  switch (type) {
    case "ADDED":
    case "MODIFIED":
    case "DELETED":
      return { type, pod: object };
    case "BOOKMARK": {
      const version = (object as { metadata?: { resourceVersion?: unknown } } | null)?.metadata
        ?.resourceVersion;
      return typeof version === "string" && version !== "" ? { type, pod: object } : undefined;
    }
    case "ERROR": {
      const status = parseApiStatus(JSON.stringify(object ?? null));
      const message = status?.message ?? "";
      if (status?.code === 410) {
        throw new WatchExpiredError(`watch ${context.path} expired: ${message || "410 Gone"}`);
      }
      const code = status?.code;
      throw new KubeApiError(
        "kube-http",
        `watch ${context.path} ended with an error: ${code === undefined ? "" : `${statusLine(code)}: `}${message}`,
        {
          method: context.method,
          url: context.url,
          status: code,
          reason: status?.reason,
          transient: code === undefined || code >= 500 || code === 429,
        },
      );
    }
    default:
      throw badEvent(context, `unknown watch event type ${JSON.stringify(type)}`);
  }
}

function broken(context: WatchContext, what: string, cause?: unknown): KubeApiError {
  return new KubeApiError("kube-watch-broken", `watch ${context.path} broke off: ${what}`, {
    method: context.method,
    url: context.url,
    status: undefined,
    reason: undefined,
    transient: true,
    ...(cause === undefined ? {} : { cause }),
  });
}

function badEvent(context: WatchContext, what: string, cause?: unknown): KubeApiError {
  return new KubeApiError("kube-bad-response", `watch ${context.path}: ${what}`, {
    method: context.method,
    url: context.url,
    status: 200,
    reason: undefined,
    transient: true,
    ...(cause === undefined ? {} : { cause }),
  });
}
