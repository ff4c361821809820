/**
 * EvictionRequests (lifecycle.k8s.io/v1alpha1, KEP-4563, alpha in Kubernetes 1.37) as the fake API
 * server stores them. What is modelled comes from upstream's source:
 *
 * - served only when a test says so, as the real resource is served only with the
 *   `EvictionRequestAPI` feature gate and the alpha version enabled
 *   (pkg/registry/lifecycle/rest/storage_coordination.go); otherwise the path is unknown to the
 *   server, which answers its generic 404 (the fake's fall-through);
 * - namespaced, `status` cleared and `generation` 1 on create (pkg/registry/lifecycle/
 *   evictionrequest/strategy.go), the name a DNS subdomain (pkg/apis/lifecycle/validation);
 * - `spec.target.pod` with a name and a lowercase UUID uid, `spec.requester` a domain-prefixed key
 *   outside the reserved `*.k8s.io` / `*.kubernetes.io`, `spec.intent` Eviction or Withdrawn
 *   (the declarative validation tags of staging/src/k8s.io/api/lifecycle/v1alpha1/types.go);
 * - a second create under the same name is 409 AlreadyExists.
 */
import { randomUUID } from "node:crypto";
import { asRecord } from "./fake-responses.js";

export const FAKE_EVICTION_REQUEST_GROUP = "lifecycle.k8s.io";

/** An HTTP answer: status and JSON body. */
export interface FakeAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** The stored requests and the rules a create must pass. */
export class FakeEvictionRequests {
  /** Whether the API server serves the resource (tests switch it). */
  served: boolean;
  readonly #stored = new Map<string, Record<string, unknown>>();

  constructor(served: boolean) {
    this.served = served;
  }

  /** Copies of the stored requests. */
  all(): Record<string, unknown>[] {
    return [...this.#stored.values()].map((r) => structuredClone(r));
  }

  get(namespace: string, name: string): Record<string, unknown> | undefined {
    const stored = this.#stored.get(`${namespace}/${name}`);
    return stored === undefined ? undefined : structuredClone(stored);
  }

  /** POST to the namespace's collection: 201 with the stored object, or the API server's refusal. */
  create(namespace: string, body: unknown, resourceVersion: string, now: Date): FakeAnswer {
    const request = asRecord(body);
    if (request === undefined) return status(400, "BadRequest", "the request body is not a JSON object");
    const metadata = { ...(asRecord(request.metadata) ?? {}) };
    if (metadata.namespace !== undefined && metadata.namespace !== namespace)
      return status(
        400,
        "BadRequest",
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    let name = typeof metadata.name === "string" ? metadata.name : "";
    if (name === "" && typeof metadata.generateName === "string")
      name = `${metadata.generateName}${randomUUID().slice(0, 5)}`;
    const problems = validate(name, asRecord(request.spec));
    if (problems.length > 0) return invalid(name, problems);
    const key = `${namespace}/${name}`;
    if (this.#stored.has(key))
      return {
        status: 409,
        body: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `evictionrequests.${FAKE_EVICTION_REQUEST_GROUP} "${name}" already exists`,
          reason: "AlreadyExists",
          details: { name, group: FAKE_EVICTION_REQUEST_GROUP, kind: "evictionrequests" },
          code: 409,
        },
      };
    const stored: Record<string, unknown> = {
      ...request,
      metadata: {
        ...metadata,
        name,
        namespace,
        uid: randomUUID(),
        resourceVersion,
        generation: 1,
        creationTimestamp: now.toISOString().replace(/\.\d{3}Z$/, "Z"),
      },
      status: {},
    };
    this.#stored.set(key, stored);
    return { status: 201, body: structuredClone(stored) };
  }

  /** DELETE of one request: 200 with the object, or 404. */
  delete(namespace: string, name: string): FakeAnswer {
    const key = `${namespace}/${name}`;
    const stored = this.#stored.get(key);
    if (stored === undefined)
      return {
        status: 404,
        body: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `evictionrequests.${FAKE_EVICTION_REQUEST_GROUP} "${name}" not found`,
          reason: "NotFound",
          details: { name, group: FAKE_EVICTION_REQUEST_GROUP, kind: "evictionrequests" },
          code: 404,
        },
      };
    this.#stored.delete(key);
    return { status: 200, body: structuredClone(stored) };
  }

  /** Sets a condition on a stored request, as the evictionrequest controller would. */
  setCondition(namespace: string, name: string, type: string, reason: string, now: Date): void {
    const stored = this.#stored.get(`${namespace}/${name}`);
    if (stored === undefined) return;
    const status = (asRecord(stored.status) ?? {}) as { conditions?: Record<string, unknown>[] };
    const conditions = (status.conditions ?? []).filter((c) => c.type !== type);
    conditions.push({
      type,
      status: "True",
      reason,
      message: "",
      lastTransitionTime: now.toISOString().replace(/\.\d{3}Z$/, "Z"),
    });
    stored.status = { ...status, conditions };
  }
}

interface Problem {
  readonly field: string;
  readonly message: string;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function validate(name: string, spec: Record<string, unknown> | undefined): Problem[] {
  const problems: Problem[] = [];
  if (name === "")
    problems.push({ field: "metadata.name", message: "Required value: name or generateName is required" });
  else if (name.length > 253 || !DNS_SUBDOMAIN.test(name))
    problems.push({
      field: "metadata.name",
      message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'`,
    });
  const pod = asRecord(asRecord(spec?.target)?.pod);
  if (pod === undefined) problems.push({ field: "spec.target.pod", message: "Required value" });
  else {
    if (typeof pod.name !== "string" || pod.name === "")
      problems.push({ field: "spec.target.pod.name", message: "Required value" });
    if (typeof pod.uid !== "string" || !UUID.test(pod.uid))
      problems.push({
        field: "spec.target.pod.uid",
        message: `Invalid value: ${JSON.stringify(pod.uid)}: must be a lowercase UUID in 8-4-4-4-12 format`,
      });
  }
  const requester = spec?.requester;
  if (typeof requester !== "string" || requester === "")
    problems.push({ field: "spec.requester", message: "Required value" });
  else {
    const [prefix = "", rest, ...more] = requester.split("/");
    if (
      rest === undefined ||
      more.length > 0 ||
      !DNS_SUBDOMAIN.test(prefix) ||
      rest.length > 63 ||
      !QUALIFIED_NAME.test(rest)
    )
      problems.push({
        field: "spec.requester",
        message: `Invalid value: "${requester}": must be a domain-prefixed key (such as "acme.io/foo")`,
      });
    else if (/(^|\.)(k8s\.io|kubernetes\.io)$/.test(prefix))
      problems.push({
        field: "spec.requester",
        message: `Invalid value: "${requester}": domain names *.k8s.io and *.kubernetes.io are reserved`,
      });
  }
  const intent = spec?.intent;
  if (intent !== "Eviction" && intent !== "Withdrawn")
    problems.push({
      field: "spec.intent",
      message: `Unsupported value: ${JSON.stringify(intent)}: supported values: "Eviction", "Withdrawn"`,
    });
  return problems;
}

function invalid(name: string, problems: readonly Problem[]): FakeAnswer {
  return {
    status: 422,
    body: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `EvictionRequest.${FAKE_EVICTION_REQUEST_GROUP} "${name}" is invalid: ${problems.map((p) => `${p.field}: ${p.message}`).join(", ")}`,
      reason: "Invalid",
      details: {
        name,
        group: FAKE_EVICTION_REQUEST_GROUP,
        kind: "EvictionRequest",
        causes: problems.map((p) => ({ reason: "FieldValueInvalid", message: p.message, field: p.field })),
      },
      code: 422,
    },
  };
}

function status(code: number, reason: string, message: string): FakeAnswer {
  return {
    status: code,
    body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code },
  };
}
