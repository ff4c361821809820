/** The typed error of the Kubernetes adapter: a read or a watch that failed, said so a user can act on it. */
import { AdapterError } from "../errors.js";

/**
 * Why the request failed, as a stable code callers can branch on: the peer could not be reached
 * (`kube-unreachable`), its certificate was refused (`kube-tls`), it timed out (`kube-timeout`), it
 * answered 401 / 403 / 404 / 410, another status (`kube-http`), something that is not the JSON it
 * should be (`kube-bad-response`), or a watch stream broke off (`kube-watch-broken`).
 */
export type KubeApiErrorCode =
  | "kube-unreachable"
  | "kube-tls"
  | "kube-timeout"
  | "kube-unauthorized"
  | "kube-forbidden"
  | "kube-not-found"
  | "kube-expired"
  | "kube-http"
  | "kube-bad-response"
  | "kube-watch-broken";

/** What is known about the failed request. */
export interface KubeApiErrorDetails {
  readonly method: string;
  /** The full URL requested. */
  readonly url: string;
  /** The HTTP status, or undefined when no response came (network, TLS, timeout). */
  readonly status: number | undefined;
  /** The API Status `reason` (`Forbidden`, `NotFound`...), or the socket error code (`ECONNREFUSED`). */
  readonly reason: string | undefined;
  /** Whether trying again later may succeed (network trouble, 5xx, 429); retries were already spent. */
  readonly transient: boolean;
  readonly cause?: unknown;
  readonly hint?: string;
}

/**
 * A request to the API server or the kubelet failed after the adapter's retries. `message` is one
 * line fit for a user ("401 Unauthorized from GET /api/v1/nodes/n1/proxy/stats/summary: ...");
 * `hint` says what to change.
 */
export class KubeApiError extends AdapterError {
  readonly method: string;
  readonly url: string;
  readonly status: number | undefined;
  readonly reason: string | undefined;
  readonly transient: boolean;

  constructor(code: KubeApiErrorCode, message: string, details: KubeApiErrorDetails) {
    super(code, message, {
      ...("cause" in details ? { cause: details.cause } : {}),
      ...(details.hint === undefined ? {} : { hint: details.hint }),
    });
    this.name = "KubeApiError";
    this.method = details.method;
    this.url = details.url;
    this.status = details.status;
    this.reason = details.reason;
    this.transient = details.transient;
  }
}
