/**
 * What the fake API server records and how failures are injected into it: the recorded request,
 * failure rules matched by method, path and query, and the authorizer attributes and API-server
 * wording of an injected error.
 */

/** One request as received. */
export interface RecordedRequest {
  readonly method: string;
  /** Path without the query. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly contentType: string | undefined;
  readonly authorization: string | undefined;
  /** The raw body ("" when none). */
  readonly body: string;
  /** The body parsed as JSON, or undefined. */
  readonly json: unknown;
  /** When the request arrived (epoch ms, sub-millisecond: performance.timeOrigin + now()). */
  readonly receivedAt: number;
  /** The first request on its connection (the client opened one, TLS handshake and all, for it). */
  readonly newConnection: boolean;
}

/**
 * Whether a recorded request is a dry run: `dryRun` in its query, or in the DeleteOptions of the
 * Eviction it carries (a preflight), so a suite can tell evictd's real evictions from its checks.
 */
export function isDryRun(request: RecordedRequest): boolean {
  if (request.query.dryRun !== undefined) return true;
  const body = request.json;
  if (typeof body !== "object" || body === null) return false;
  const options = (body as { deleteOptions?: { dryRun?: unknown } }).deleteOptions;
  return Array.isArray(options?.dryRun) && options.dryRun.length > 0;
}

/** An answer forced on matching requests. */
export type InjectedResponse =
  /** This status; body: a Status with a realistic message unless given (object → JSON, string → as is). */
  | {
      readonly kind: "status";
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body?: unknown;
      readonly message?: string;
    }
  /** Drop the connection without answering (the client sees a reset). */
  | { readonly kind: "close" }
  /** Never answer. */
  | { readonly kind: "hang" };

/** Which requests a failure applies to, and how many times. */
export interface FailureRule {
  readonly method?: string;
  /** Exact path, or a pattern tested against the path (no query). */
  readonly path: string | RegExp;
  /** Query parameters that must be present with these values. */
  readonly query?: Readonly<Record<string, string>>;
  /** How many matching requests fail; default: all of them until cleared. */
  readonly times?: number;
  readonly response: InjectedResponse;
}

/** The failure rules in force, checked in the order they were added. */
export class FailureRules {
  readonly #rules: ActiveRule[] = [];

  add(rule: FailureRule): void {
    this.#rules.push({ rule, remaining: rule.times ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.#rules.length = 0;
  }

  /** The response forced on `request` by the first rule that matches and has uses left. */
  take(request: RecordedRequest): InjectedResponse | undefined {
    for (const active of this.#rules) {
      const { rule } = active;
      if (active.remaining <= 0) continue;
      if (rule.method !== undefined && rule.method !== request.method) continue;
      if (typeof rule.path === "string" ? rule.path !== request.path : !rule.path.test(request.path))
        continue;
      if (rule.query !== undefined && Object.entries(rule.query).some(([k, v]) => request.query[k] !== v))
        continue;
      active.remaining -= 1;
      return rule.response;
    }
    return undefined;
  }
}

interface ActiveRule {
  readonly rule: FailureRule;
  remaining: number;
}

/** What the authorizer would see: for Forbidden messages. */
export interface Attributes {
  readonly verb: string;
  /** The API group: "" for the core group (/api/v1). */
  readonly group?: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly kubelet: boolean;
}

/** The authorizer attributes of a request, as the API server (or the kubelet) derives them. */
export function attributesOf(request: RecordedRequest): Attributes {
  const p = request.path;
  const verbOf: Record<string, string> = {
    GET: "get",
    POST: "create",
    PATCH: "patch",
    PUT: "update",
    DELETE: "delete",
  };
  let verb = verbOf[request.method] ?? request.method.toLowerCase();
  if (p === "/stats/summary" || p.startsWith("/stats/"))
    return { verb, resource: "nodes", subresource: "stats", kubelet: true };
  if (p === "/configz") return { verb, resource: "nodes", subresource: "proxy", kubelet: true };
  let m = /^\/api\/v1\/nodes\/([^/]+)(?:\/(proxy))?/.exec(p);
  if (m)
    return {
      verb,
      resource: "nodes",
      name: m[1] ?? "",
      kubelet: false,
      ...(m[2] === undefined ? {} : { subresource: m[2] }),
    };
  if (p === "/api/v1/pods") {
    verb = request.query.watch === "1" || request.query.watch === "true" ? "watch" : "list";
    return { verb, resource: "pods", kubelet: false };
  }
  m = /^\/apis\/([^/]+)\/[^/]+\/namespaces\/([^/]+)\/([^/]+)(?:\/([^/]+))?(?:\/([^/]+))?$/.exec(p);
  if (m) {
    return {
      verb,
      group: m[1] ?? "",
      resource: m[3] ?? "",
      namespace: m[2] ?? "",
      kubelet: false,
      ...(m[4] === undefined ? {} : { name: m[4] }),
      ...(m[5] === undefined ? {} : { subresource: m[5] }),
    };
  }
  m = /^\/api\/v1\/namespaces\/([^/]+)\/([^/]+)(?:\/([^/]+))?(?:\/([^/]+))?$/.exec(p);
  if (m) {
    return {
      verb,
      resource: m[2] ?? "",
      namespace: m[1] ?? "",
      kubelet: false,
      ...(m[3] === undefined ? {} : { name: m[3] }),
      ...(m[4] === undefined ? {} : { subresource: m[4] }),
    };
  }
  return { verb, resource: "", kubelet: false };
}

/** Reason and message of an injected status, worded like the API server's. */
export function defaultFailure(
  status: number,
  a: Attributes,
  user: string,
  request: RecordedRequest,
): [string, string] {
  const resource = a.subresource === undefined ? a.resource : `${a.resource}/${a.subresource}`;
  // A resource of another group than the core one is named with it (schema.GroupResource.String()).
  const qualified = a.group === undefined || a.group === "" ? a.resource : `${a.resource}.${a.group}`;
  const object = a.name === undefined ? qualified : `${qualified} "${a.name}"`;
  switch (status) {
    case 401:
      return ["Unauthorized", "Unauthorized"];
    case 403: {
      const scope = a.namespace === undefined ? "at the cluster scope" : `in the namespace "${a.namespace}"`;
      return [
        "Forbidden",
        `${object} is forbidden: User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.group ?? ""}" ${scope}`,
      ];
    }
    case 404:
      return ["NotFound", `${object} not found`];
    case 409:
      return [
        "Conflict",
        `Operation cannot be fulfilled on ${object}: the object has been modified; please apply your changes to the latest version and try again`,
      ];
    case 410:
      return ["Expired", `too old resource version: ${request.query.resourceVersion ?? "0"} (999999)`];
    case 422:
      return ["Invalid", `${object} is invalid`];
    case 429:
      return ["TooManyRequests", "Too many requests, please try again later."];
    case 500:
      return ["InternalError", "Internal error occurred: fake failure"];
    case 503:
      return ["ServiceUnavailable", "the server is currently unable to handle the request"];
    case 504:
      return ["Timeout", "the server was unable to return a response in the time allotted"];
    default:
      return ["", `fake failure ${status}`];
  }
}
