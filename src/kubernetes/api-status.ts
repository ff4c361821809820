/**
 * Reading a failed response: the API server answers with a meta/v1 Status object, the kubelet with
 * a line of plain text. These functions get the message out of either and recognise the few
 * answers the adapter treats specially (a uid precondition that no longer holds, a PodDisruptionBudget).
 */
import { isRawObject } from "../core/raw/raw-object.js";
import { STATUS_CODES } from "node:http";

/** The parts of a meta/v1 Status the adapter uses. */
export interface ApiStatus {
  readonly message: string;
  /** `Forbidden`, `NotFound`, `Conflict`, `AlreadyExists`, `TooManyRequests`, `Expired`, `Invalid`... */
  readonly reason: string | undefined;
  readonly code: number | undefined;
  readonly causes: readonly ApiStatusCause[];
  /** `details.retryAfterSeconds`, which the server also sends as the Retry-After header. */
  readonly retryAfterSeconds: number | undefined;
}

/** One entry of `details.causes`. */
export interface ApiStatusCause {
  readonly type: string | undefined;
  readonly message: string | undefined;
  readonly field: string | undefined;
}

/** The Status in a response body, or undefined when the body is not one (kubelet text, HTML from a proxy). */
export function parseApiStatus(body: string): ApiStatus | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isRawObject(value) || value.kind !== "Status") return undefined;
  const details = isRawObject(value.details) ? value.details : {};
  const causes = Array.isArray(details.causes) ? details.causes.filter(isRawObject).map(toCause) : [];
  return {
    message: typeof value.message === "string" ? value.message : "",
    reason: typeof value.reason === "string" ? value.reason : undefined,
    code: typeof value.code === "number" ? value.code : undefined,
    causes,
    retryAfterSeconds: typeof details.retryAfterSeconds === "number" ? details.retryAfterSeconds : undefined,
  };
}

/** "404 Not Found": the status with its standard phrase. */
export function statusLine(status: number): string {
  const phrase = STATUS_CODES[status];
  return phrase === undefined ? String(status) : `${status} ${phrase}`;
}

/**
 * What the server said, in one line: the Status message, else the first line of a text body (the
 * kubelet writes `Forbidden (user=..., verb=get, resource=nodes, subresource=stats)`), else nothing.
 */
export function responseMessage(status: ApiStatus | undefined, body: string): string {
  if (status !== undefined && status.message !== "") return status.message;
  const text = body.trim();
  if (text === "" || text.startsWith("<") || text.startsWith("{")) return "";
  const firstLine = text.split("\n", 1)[0] ?? "";
  return firstLine.length > 300 ? `${firstLine.slice(0, 300)}…` : firstLine;
}

/**
 * Whether a 409/422 says the object under this name is another incarnation than the uid we named.
 * The API server words it differently by path: a DELETE's early check says "the UID in the
 * precondition (A) does not match the UID in record (B)" (rest.BeforeDelete), the storage layer says
 * "Precondition failed: UID in precondition: A, UID in object meta: B", and a status PATCH that
 * carries `metadata.uid` fails validation with "metadata.uid: ... field is immutable".
 */
export function isUidMismatch(httpStatus: number, status: ApiStatus | undefined, body: string): boolean {
  const message = status?.message ?? body;
  if (httpStatus === 409) {
    return /precondition failed: uid in precondition|the uid in the precondition/i.test(message);
  }
  if (httpStatus === 422) {
    return (status?.causes ?? []).some((c) => c.field === "metadata.uid") || /metadata\.uid/.test(message);
  }
  return false;
}

/** The `DisruptionBudget` causes of an Eviction refusal (policy/v1 `DisruptionBudgetCause`). */
export function disruptionBudgetCauses(status: ApiStatus | undefined): readonly string[] {
  return (status?.causes ?? [])
    .filter((c) => c.type === "DisruptionBudget" && c.message !== undefined)
    .map((c) => c.message ?? "");
}

/**
 * Whether an Eviction was refused because more than one PodDisruptionBudget selects the pod: the
 * eviction subresource answers with a Failure Status of code 500 (`EvictionREST.Create` in
 * pkg/registry/core/pod/storage/eviction.go), which no retry can change. Only the message tells
 * it apart from a server error.
 */
export function isMultipleBudgetsRefusal(status: ApiStatus | undefined): boolean {
  return status !== undefined && /more than one PodDisruptionBudget/i.test(status.message);
}

function toCause(c: Record<string, unknown>): ApiStatusCause {
  return {
    type: typeof c.reason === "string" ? c.reason : undefined,
    message: typeof c.message === "string" ? c.message : undefined,
    field: typeof c.field === "string" ? c.field : undefined,
  };
}
