/** API-server semantics the fake applies to pods: delete preconditions, status patches, field selectors. */
import type { FakePod } from "./fake-cluster-state.js";
import { asRecord } from "./fake-responses.js";

/** The 409 of rest.BeforeDelete when the DeleteOptions' uid names another incarnation. */
export function preconditionRefusal(
  pod: FakePod,
  options: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const uid = asRecord(options.preconditions)?.uid;
  if (typeof uid !== "string" || uid === pod.metadata.uid) return undefined;
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `Operation cannot be fulfilled on Pod "${pod.metadata.name}": the UID in the precondition (${uid}) does not match the UID in record (${pod.metadata.uid}). The object might have been deleted and then recreated`,
    reason: "Conflict",
    details: { name: pod.metadata.name, kind: "Pod" },
    code: 409,
  };
}

/** Strategic merge of a status patch: scalars replace, conditions merge by `type`. */
export function mergeStatus(pod: FakePod, patch: Record<string, unknown>): void {
  const status = (pod.status ??= {});
  for (const [field, value] of Object.entries(patch)) {
    if (field === "conditions" && Array.isArray(value)) {
      const conditions = (status.conditions ??= []);
      for (const change of value) {
        const c = asRecord(change);
        if (c === undefined) continue;
        const at = conditions.findIndex((existing) => existing.type === c.type);
        if (at === -1) conditions.push({ ...c });
        else conditions[at] = { ...conditions[at], ...c };
      }
    } else if (value === null) {
      delete status[field];
    } else {
      status[field] = value;
    }
  }
}

/** `spec.nodeName=X` (or `==`) → X; no selector → undefined; anything else → false. */
export function nodeFromSelector(selector: string | undefined): string | undefined | false {
  if (selector === undefined || selector === "") return undefined;
  const m = /^spec\.nodeName==?(.*)$/.exec(selector);
  return m ? (m[1] ?? "") : false;
}
